//! A vault folder as the command sees it: its notes, the plugin's settings, Obsidian's
//! excluded files, and the command's own index of the memory (`memory-<device>.db`, which
//! only the command on this computer writes; the plugin's own files are never written here).

use std::path::{Component, Path, PathBuf};

use super::plugin_data::PluginData;
use crate::store::check_database_bytes;

/// Obsidian's config folder unless the vault chose another.
pub const DEFAULT_CONFIG_DIR: &str = ".obsidian";
const PLUGIN_ID: &str = "memory-agent";
/// The plugin's `data.json` is a few KB; a file far larger is not read.
const MAX_SETTINGS_BYTES: u64 = 1024 * 1024;

#[derive(Debug, Clone)]
pub struct VaultDir {
    root: PathBuf,
    config_dir: String,
}

impl VaultDir {
    /// The vault at `root`; an error that says why when it is not one.
    pub fn open(root: &Path, config_dir: &str) -> Result<Self, String> {
        if !root.is_dir() {
            return Err(format!("{} is not a folder. Give the vault's folder with --vault.", root.display()));
        }
        if !root.join(config_dir).is_dir() {
            return Err(format!(
                "{} is not an Obsidian vault: it has no {config_dir} folder (give another with --config-dir).",
                root.display()
            ));
        }
        Ok(VaultDir { root: root.to_path_buf(), config_dir: config_dir.to_owned() })
    }

    pub fn root(&self) -> &Path {
        &self.root
    }

    /// The file at a vault path (`Trips/Lisbon.md`), refusing paths that leave the vault.
    pub fn file(&self, vault_path: &str) -> Result<PathBuf, String> {
        let relative = Path::new(vault_path);
        let inside = relative.components().all(|part| matches!(part, Component::Normal(_) | Component::CurDir));
        if vault_path.is_empty() || !inside {
            return Err(format!("\"{vault_path}\" is not a path inside the vault."));
        }
        Ok(self.root.join(relative))
    }

    /// `vault_path` (normalised, `notes::vault_path`) as the vault's folder spells it on disk:
    /// each part that is not there exactly is the one entry of its folder that is the same name
    /// in another case or Unicode form (a case-insensitive disk opens `private/Diary.md` as
    /// `Private/diary.md`, and every rule must see the name the vault has). Two such entries
    /// are refused as ambiguous; a part with none is kept (the file is then not found).
    pub fn as_on_disk(&self, vault_path: &str) -> Result<String, String> {
        let mut folder = self.root.clone();
        let mut parts: Vec<String> = Vec::new();
        for part in vault_path.split('/') {
            let names: Vec<String> = std::fs::read_dir(&folder)
                .map(|entries| entries.filter_map(|entry| entry.ok()?.file_name().into_string().ok()).collect())
                .unwrap_or_default();
            let on_disk = if names.iter().any(|name| name == part) {
                part.to_owned()
            } else {
                let same = |name: &&String| crate::words::fold(name) == crate::words::fold(part);
                let mut alike = names.iter().filter(same);
                match (alike.next(), alike.next()) {
                    (Some(name), None) => name.clone(),
                    (Some(_), Some(_)) => {
                        return Err(format!("{vault_path} could name several files of the vault: give its exact name."))
                    }
                    (None, _) => part.to_owned(),
                }
            };
            folder.push(&on_disk);
            parts.push(on_disk);
        }
        Ok(parts.join("/"))
    }

    /// The file at a vault path, for reading it for someone outside (an MCP client): refused
    /// when the path leaves the vault, or when the file (through a symbolic link anywhere on
    /// its way) resolves outside it. A file that does not exist is an error too.
    pub fn file_to_read(&self, vault_path: &str) -> Result<PathBuf, String> {
        let file = self.file(vault_path)?;
        let root = self.root.canonicalize().map_err(|error| format!("Cannot open {}: {error}", self.root.display()))?;
        let resolved = match file.canonicalize() {
            Ok(resolved) => resolved,
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => {
                return Err(format!("{vault_path} is no longer in the vault."))
            }
            Err(error) => return Err(format!("Cannot open {vault_path}: {error}")),
        };
        if !resolved.starts_with(&root) {
            return Err(format!(
                "{vault_path} resolves to a file outside the vault (a symbolic link): Memory Agent reads only inside \
the vault."
            ));
        }
        Ok(resolved)
    }

    /// The folder at a vault path, created when missing, for writing into: refused when it or a
    /// folder above it inside the vault is a symbolic link (or otherwise resolves outside the
    /// vault), so a write never lands outside the vault — a synced or shared vault could
    /// otherwise point the memory folder anywhere on this computer.
    pub fn folder_to_write(&self, vault_path: &str) -> Result<PathBuf, String> {
        let folder = self.file(vault_path)?;
        let root = self.root.canonicalize().map_err(|error| format!("Cannot open {}: {error}", self.root.display()))?;
        let mut walked = self.root.clone();
        for part in Path::new(vault_path).components() {
            walked.push(part);
            match std::fs::symlink_metadata(&walked) {
                Ok(metadata) if metadata.file_type().is_symlink() => {
                    return Err(format!(
                        "{} is a symbolic link: Memory Agent writes only inside the vault. Make it a plain folder.",
                        walked.display()
                    ))
                }
                Ok(metadata) if !metadata.is_dir() => return Err(format!("{} is not a folder.", walked.display())),
                Ok(_) => {}
                Err(error) if error.kind() == std::io::ErrorKind::NotFound => std::fs::create_dir(&walked)
                    .or_else(
                        |error| if error.kind() == std::io::ErrorKind::AlreadyExists { Ok(()) } else { Err(error) },
                    )
                    .map_err(|error| format!("Cannot create {}: {error}", walked.display()))?,
                Err(error) => return Err(format!("Cannot open {}: {error}", walked.display())),
            }
        }
        // Whatever the walk could not see (a link swapped in meanwhile, a mount): where it
        // really is decides.
        let resolved = folder.canonicalize().map_err(|error| format!("Cannot open {}: {error}", folder.display()))?;
        if !resolved.starts_with(&root) {
            return Err(format!(
                "{} resolves to {}, outside the vault: Memory Agent writes only inside the vault.",
                folder.display(),
                resolved.display()
            ));
        }
        Ok(folder)
    }

    fn plugin_folder(&self) -> String {
        format!("{}/plugins/{PLUGIN_ID}", self.config_dir)
    }

    /// The plugin's settings (its defaults when the plugin never saved any).
    pub fn plugin_data(&self) -> Result<PluginData, String> {
        let path = self.file(&format!("{}/data.json", self.plugin_folder()))?;
        // Settings are a few KB: the size is looked at before anything is read.
        if std::fs::metadata(&path).is_ok_and(|metadata| metadata.len() > MAX_SETTINGS_BYTES) {
            return Err(format!(
                "{} is over {} KB: not the plugin's settings.",
                path.display(),
                MAX_SETTINGS_BYTES / 1024
            ));
        }
        let text = match std::fs::read_to_string(&path) {
            Ok(text) => Some(text),
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => None,
            Err(error) => return Err(format!("Cannot read {}: {error}", path.display())),
        };
        PluginData::parse(text.as_deref())
    }

    /// The single database of Memory Agent before each device kept its own (the plugin's
    /// `databasePath`, else `memory.db` in its folder): only read, once, to migrate from it.
    pub fn database_path(&self, data: &PluginData) -> String {
        let chosen = data.database_path.trim();
        if chosen.is_empty() {
            format!("{}/memory.db", self.plugin_folder())
        } else {
            chosen.to_owned()
        }
    }

    /// This device's own index of the memory (`memory-<device>.db` in the plugin's folder):
    /// written by this device only, so no sync tool ever has two versions of it.
    pub fn own_index_path(&self, device: &str) -> String {
        format!("{}/memory-{device}.db", self.plugin_folder())
    }

    /// The plugin's folder on disk (its heartbeats are there).
    pub fn plugin_folder_on_disk(&self) -> Result<PathBuf, String> {
        self.file(&self.plugin_folder())
    }

    pub fn config_dir(&self) -> &str {
        &self.config_dir
    }

    /// Obsidian's "Excluded files" (`userIgnoreFilters` in the config folder's `app.json`);
    /// none when it cannot be read.
    pub fn ignore_filters(&self) -> Vec<String> {
        let Ok(path) = self.file(&format!("{}/app.json", self.config_dir)) else { return Vec::new() };
        if std::fs::metadata(&path).map_or(true, |metadata| metadata.len() > MAX_SETTINGS_BYTES) {
            return Vec::new();
        }
        let read = std::fs::read(&path).ok().and_then(|bytes| serde_json::from_slice::<serde_json::Value>(&bytes).ok());
        read.as_ref()
            .and_then(|app| app.get("userIgnoreFilters"))
            .and_then(serde_json::Value::as_array)
            .map(|filters| filters.iter().filter_map(serde_json::Value::as_str).map(str::to_owned).collect())
            .unwrap_or_default()
    }

    /// A whole file's bytes when it exists and is an SQLite database (`None` when missing).
    pub fn read_database(&self, vault_path: &str) -> Result<Option<Vec<u8>>, String> {
        let path = self.file(vault_path)?;
        match std::fs::read(&path) {
            Ok(bytes) if bytes.is_empty() => Ok(None),
            Ok(bytes) => {
                check_database_bytes(&bytes).map_err(|error| format!("{}: {error}", path.display()))?;
                Ok(Some(bytes))
            }
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => Ok(None),
            Err(error) => Err(format!("Cannot read {}: {error}", path.display())),
        }
    }

    /// Writes a whole database file: a temporary file beside it, then a rename over it, so a
    /// reader (or a crash) meets the old file or the new one, never half of one.
    pub fn write_database(&self, vault_path: &str, bytes: &[u8]) -> Result<(), String> {
        let path = self.file(vault_path)?;
        let temporary = path.with_extension("db.tmp");
        let cannot = |error: std::io::Error| format!("Cannot write {}: {error}", path.display());
        // A vault whose Obsidian never ran the plugin (or a computer without Obsidian) has no
        // plugin folder yet.
        if let Some(folder) = path.parent() {
            std::fs::create_dir_all(folder).map_err(cannot)?;
        }
        {
            let mut file = std::fs::File::create(&temporary).map_err(cannot)?;
            std::io::Write::write_all(&mut file, bytes).map_err(cannot)?;
            file.sync_all().map_err(cannot)?;
        }
        std::fs::rename(&temporary, &path).map_err(cannot)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vault(test: &str) -> (PathBuf, VaultDir) {
        let root = std::env::temp_dir().join(format!("memory-agent-vault-{test}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        std::fs::create_dir_all(root.join(".obsidian/plugins/memory-agent")).unwrap();
        let vault = VaultDir::open(&root, DEFAULT_CONFIG_DIR).unwrap();
        (root, vault)
    }

    #[test]
    fn a_database_is_written_whole_and_read_back_checked() {
        let (root, vault) = vault("database");
        let path = vault.own_index_path("cli-1");
        assert_eq!(path, ".obsidian/plugins/memory-agent/memory-cli-1.db");
        assert_eq!(vault.read_database(&path).unwrap(), None, "no index yet");
        let store =
            crate::store::open_from_bytes(&[], crate::store::rusqlite_driver::RusqliteDriver::from_bytes).unwrap();
        let whole = store.export().unwrap();
        vault.write_database(&path, &whole).unwrap();
        assert_eq!(vault.read_database(&path).unwrap().as_deref(), Some(&whole[..]));
        assert!(!root.join(".obsidian/plugins/memory-agent/memory-cli-1.db.tmp").exists());
        std::fs::write(root.join(&path), &whole[..100]).unwrap();
        assert!(vault.read_database(&path).unwrap_err().contains("memory-cli-1.db"));
        std::fs::write(root.join(".obsidian/app.json"), r#"{"userIgnoreFilters":["Archive/","/^tmp/i"]}"#).unwrap();
        assert_eq!(vault.ignore_filters(), ["Archive/", "/^tmp/i"]);
        let _ = std::fs::remove_dir_all(&root);
    }

    #[test]
    fn paths_stay_inside_the_vault_and_a_folder_without_obsidian_is_not_one() {
        let (root, vault) = vault("paths");
        assert!(vault.file("../secrets.txt").is_err());
        assert!(vault.file("/etc/passwd").is_err());
        assert_eq!(vault.file("Trips/Lisbon.md").unwrap(), root.join("Trips/Lisbon.md"));
        std::fs::write(root.join(".obsidian/plugins/memory-agent/data.json"), vec![b' '; 2 * 1024 * 1024]).unwrap();
        assert!(vault.plugin_data().unwrap_err().contains("over 1024 KB"));
        let plain = std::env::temp_dir();
        assert!(VaultDir::open(&plain, ".no-such-config").unwrap_err().contains("not an Obsidian vault"));
        let _ = std::fs::remove_dir_all(&root);
    }
}
