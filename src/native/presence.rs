//! Whether a vault has any Memory Agent memory yet: a vault where the plugin never ran (or
//! never remembered anything) is told as such, not answered with an empty list that reads as
//! "your notes say nothing about it".

use super::device_log::log_files;
use super::vault::VaultDir;

/// What the command and the MCP server say for a vault with no memory yet.
pub const NO_MEMORY_YET: &str = "This vault has no Memory Agent memory yet. Install Memory Agent in \
Obsidian and let it remember the vault's notes, or run `memory-agent index --vault DIR` (it pays Bedrock \
for each note), then ask again.";

/// True when some device's log, an older single database or any device's index exists in
/// the vault: every one of them holds memory (or work towards it) that a session replays.
pub fn has_memory(vault: &VaultDir) -> Result<bool, String> {
    let data = vault.plugin_data()?;
    if !log_files(vault, &data.memory_folder)?.is_empty() {
        return Ok(true);
    }
    let is_file = |path: std::path::PathBuf| std::fs::metadata(path).is_ok_and(|metadata| metadata.len() > 0);
    if is_file(vault.file(&vault.database_path(&data))?) {
        return Ok(true);
    }
    let plugin_folder = vault.plugin_folder_on_disk()?;
    let indexes = match std::fs::read_dir(&plugin_folder) {
        Ok(entries) => entries
            .flatten()
            .filter_map(|entry| entry.file_name().to_str().map(str::to_owned))
            .filter(|name| name.starts_with("memory-") && name.ends_with(".db"))
            .any(|name| is_file(plugin_folder.join(name))),
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => false,
        Err(error) => return Err(format!("Cannot read {}: {error}", plugin_folder.display())),
    };
    Ok(indexes)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vault() -> (std::path::PathBuf, VaultDir) {
        let root = std::env::temp_dir().join(format!(
            "memory-agent-presence-{}-{:?}",
            std::process::id(),
            std::thread::current().id()
        ));
        let _ = std::fs::remove_dir_all(&root);
        std::fs::create_dir_all(root.join(".obsidian")).unwrap();
        let vault = VaultDir::open(&root, ".obsidian").unwrap();
        (root, vault)
    }

    #[test]
    fn a_vault_has_memory_once_a_log_or_an_index_exists() {
        let (root, vault) = vault();
        assert!(!has_memory(&vault).unwrap(), "a bare vault");
        let plugin = root.join(".obsidian/plugins/memory-agent");
        std::fs::create_dir_all(&plugin).unwrap();
        std::fs::write(plugin.join("data.json"), "{}").unwrap();
        std::fs::write(plugin.join("memory-laptop.db"), "").unwrap();
        assert!(!has_memory(&vault).unwrap(), "settings and an empty file are no memory");
        std::fs::write(plugin.join("memory-laptop.db"), "SQLite format 3\0").unwrap();
        assert!(has_memory(&vault).unwrap(), "a device's index");
        std::fs::remove_file(plugin.join("memory-laptop.db")).unwrap();
        let data = vault.plugin_data().unwrap();
        let device_folder = root.join(&data.memory_folder).join("d-0123456789abcdef");
        std::fs::create_dir_all(&device_folder).unwrap();
        std::fs::write(device_folder.join("000001.jsonl"), "{}\n").unwrap();
        let logged = has_memory(&vault).unwrap();
        let _ = std::fs::remove_dir_all(&root);
        assert!(logged, "a device's log");
    }
}
