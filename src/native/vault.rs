//! A vault folder as the command sees it: its notes, the plugin's settings and a consistent
//! snapshot of the memory database.
//!
//! The plugin saves the database by writing `<db>.tmp`, removing `<db>` and renaming the
//! temporary file (`plugin/storage/database-file.ts`). A reader can meet any of the three
//! moments, so it reads the whole file into memory at once (a snapshot no later write can
//! change), checks it is a whole SQLite database, and reads again — or the finished
//! temporary file, between removal and rename — when it is not. It never writes there.

use std::path::{Component, Path, PathBuf};
use std::time::Duration;

use super::plugin_data::PluginData;
use crate::store::check_database_bytes;

/// Obsidian's config folder unless the vault chose another.
pub const DEFAULT_CONFIG_DIR: &str = ".obsidian";
const PLUGIN_ID: &str = "memory-agent";
/// Reads of a database caught mid-save before giving up.
const SNAPSHOT_ATTEMPTS: u32 = 20;
const SNAPSHOT_RETRY: Duration = Duration::from_millis(50);
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

    /// The folder at a vault path, created when missing, for writing into: refused when it or a
    /// folder above it inside the vault is a symbolic link (or otherwise resolves outside the
    /// vault), so a write never lands outside the vault — a synced or shared vault could
    /// otherwise point `Memory inbox` anywhere on this computer.
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

    /// The database's vault path, as the plugin's settings place it.
    pub fn database_path(&self, data: &PluginData) -> String {
        let chosen = data.database_path.trim();
        if chosen.is_empty() {
            format!("{}/memory.db", self.plugin_folder())
        } else {
            chosen.to_owned()
        }
    }

    /// Sync tools' conflict copies beside the database (`store::is_conflict_copy`), each whole
    /// and readable as a database, by file name; the plugin merges them and moves them to the
    /// trash, the command only reads them.
    pub fn conflict_copies(&self, data: &PluginData) -> Result<Vec<(String, Vec<u8>)>, String> {
        let path = self.file(&self.database_path(data))?;
        let (Some(folder), Some(name)) = (path.parent(), path.file_name().and_then(|name| name.to_str())) else {
            return Ok(Vec::new());
        };
        let Ok(entries) = std::fs::read_dir(folder) else { return Ok(Vec::new()) };
        let mut copies = Vec::new();
        for entry in entries.flatten() {
            let Some(candidate) = entry.file_name().to_str().map(str::to_owned) else { continue };
            if !crate::store::is_conflict_copy(name, &candidate) {
                continue;
            }
            if let Ok(bytes) = std::fs::read(entry.path()) {
                if check_database_bytes(&bytes).is_ok() {
                    copies.push((candidate, bytes));
                }
            }
        }
        copies.sort();
        Ok(copies)
    }

    /// The whole database as it is between two saves; `None` when there is none yet.
    pub fn database_snapshot(&self, data: &PluginData) -> Result<Option<Vec<u8>>, String> {
        let path = self.file(&self.database_path(data))?;
        let temporary = path
            .with_extension(format!("{}.tmp", path.extension().and_then(|extension| extension.to_str()).unwrap_or("")));
        let mut last_problem = String::new();
        for attempt in 0..SNAPSHOT_ATTEMPTS {
            if attempt > 0 {
                std::thread::sleep(SNAPSHOT_RETRY);
            }
            // The database, or — removed, not yet renamed — the complete temporary file.
            for candidate in [&path, &temporary] {
                match std::fs::read(candidate) {
                    Ok(bytes) if bytes.is_empty() => {}
                    Ok(bytes) => match check_database_bytes(&bytes) {
                        Ok(()) => return Ok(Some(bytes)),
                        Err(error) => last_problem = format!("{}: {error}", candidate.display()),
                    },
                    Err(error) if error.kind() == std::io::ErrorKind::NotFound => {}
                    Err(error) => last_problem = format!("Cannot read {}: {error}", candidate.display()),
                }
            }
            if last_problem.is_empty() && !path.exists() && !temporary.exists() {
                return Ok(None);
            }
        }
        Err(last_problem)
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
    fn a_snapshot_is_the_database_or_the_finished_temporary_file_never_a_torn_one() {
        let (root, vault) = vault("snapshot");
        let data = PluginData::default();
        assert_eq!(vault.database_snapshot(&data).unwrap(), None, "no database yet");
        let store =
            crate::store::open_from_bytes(&[], crate::store::rusqlite_driver::RusqliteDriver::from_bytes).unwrap();
        let whole = store.export().unwrap();
        let db = root.join(".obsidian/plugins/memory-agent/memory.db");
        // Between the plugin's removal and rename: only the temporary file is there.
        std::fs::write(db.with_extension("db.tmp"), &whole).unwrap();
        assert_eq!(vault.database_snapshot(&data).unwrap().as_deref(), Some(&whole[..]));
        std::fs::remove_file(db.with_extension("db.tmp")).unwrap();
        // A torn file is read again, and reported when it stays torn.
        std::fs::write(&db, &whole[..100]).unwrap();
        assert!(vault.database_snapshot(&data).unwrap_err().contains("memory.db"));
        std::fs::write(&db, &whole).unwrap();
        assert_eq!(vault.database_snapshot(&data).unwrap().as_deref(), Some(&whole[..]));
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
