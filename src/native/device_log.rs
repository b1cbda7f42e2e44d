//! The command's executor of the device runtime's file operations (`device::VaultFiles`) over
//! `std::fs`, and the two things the command does with the logs: replay them at open, write
//! (append, purge, compact) at save. Every rule is `device::DeviceLog`'s.
//!
//! Nothing is written through a symbolic link: folders are made by `VaultDir::folder_to_write`,
//! and a log file that is not a plain file is neither read nor written.

use std::future::Future;
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::PathBuf;

use futures_util::FutureExt;

use super::vault::VaultDir;
use crate::device::layout::{is_device_id, is_log_like};
use crate::device::{DeviceLog, Listing, LogReplay, LogSync, VaultFiles};
use crate::domain::Millis;
use crate::engine::Engine;
use crate::store::rusqlite_driver::RusqliteDriver;

/// The vault's files on this computer's disk.
pub struct DiskFiles<'a> {
    pub vault: &'a VaultDir,
}

impl DiskFiles<'_> {
    fn plain_file(&self, path: &str) -> Result<PathBuf, String> {
        let file = self.vault.file(path)?;
        match std::fs::symlink_metadata(&file) {
            Ok(metadata) if !metadata.is_file() => Err(format!(
                "{} is not a plain file: Memory Agent reads and writes its log only there.",
                file.display()
            )),
            _ => Ok(file),
        }
    }

    /// The file at `path` in a folder made safe for writing.
    fn file_to_write(&self, path: &str) -> Result<PathBuf, String> {
        let (folder, name) = path.rsplit_once('/').ok_or_else(|| format!("\"{path}\" has no folder"))?;
        let file = self.vault.folder_to_write(folder)?.join(name);
        self.plain_file(path)?;
        Ok(file)
    }

    fn list_now(&self, folder: &str) -> Result<Listing, String> {
        let path = self.vault.file(folder)?;
        let entries = match std::fs::read_dir(&path) {
            Ok(entries) => entries,
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => return Ok(Listing::default()),
            Err(error) => return Err(format!("Cannot read {}: {error}", path.display())),
        };
        let mut listing = Listing::default();
        for entry in entries.flatten() {
            // Names that are not UTF-8 are no logs; symbolic links are not followed.
            let (Some(name), Ok(metadata)) = (entry.file_name().to_str().map(str::to_owned), entry.metadata()) else {
                continue;
            };
            if metadata.is_dir() {
                listing.folders.push(name);
            } else if metadata.is_file() {
                listing.files.push((name, metadata.len()));
            }
        }
        Ok(listing)
    }

    fn read_now(&self, path: &str, offset: u64) -> Result<Option<Vec<u8>>, String> {
        let file = self.plain_file(path)?;
        let cannot = |error: std::io::Error| format!("Cannot read {}: {error}", file.display());
        let mut opened = match std::fs::File::open(&file) {
            Ok(opened) => opened,
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(error) => return Err(cannot(error)),
        };
        opened.seek(SeekFrom::Start(offset)).map_err(cannot)?;
        let mut bytes = Vec::new();
        opened.read_to_end(&mut bytes).map_err(cannot)?;
        Ok(Some(bytes))
    }

    fn append_now(&self, path: &str, text: &str) -> Result<u64, String> {
        let file = self.file_to_write(path)?;
        let cannot = |error: std::io::Error| format!("Cannot write {}: {error}", file.display());
        let mut opened = std::fs::OpenOptions::new().append(true).create(true).open(&file).map_err(cannot)?;
        opened.write_all(text.as_bytes()).map_err(cannot)?;
        opened.sync_data().map_err(cannot)?;
        Ok(opened.metadata().map_err(cannot)?.len())
    }

    fn create_now(&self, path: &str, text: &str) -> Result<(), String> {
        let file = self.file_to_write(path)?;
        let cannot = |error: std::io::Error| format!("Cannot write {}: {error}", file.display());
        let mut opened = std::fs::OpenOptions::new().write(true).create_new(true).open(&file).map_err(cannot)?;
        opened.write_all(text.as_bytes()).map_err(cannot)?;
        opened.sync_data().map_err(cannot)
    }

    fn remove_now(&self, path: &str) -> Result<(), String> {
        let file = self.plain_file(path)?;
        match std::fs::remove_file(&file) {
            Err(error) if error.kind() != std::io::ErrorKind::NotFound => {
                Err(format!("Cannot remove {}: {error}", file.display()))
            }
            _ => Ok(()),
        }
    }
}

impl VaultFiles for DiskFiles<'_> {
    fn list(&self, folder: &str) -> impl Future<Output = Result<Listing, String>> {
        std::future::ready(self.list_now(folder))
    }
    fn read(&self, path: &str, offset: u64) -> impl Future<Output = Result<Option<Vec<u8>>, String>> {
        std::future::ready(self.read_now(path, offset))
    }
    fn append(&self, path: &str, text: &str) -> impl Future<Output = Result<u64, String>> {
        std::future::ready(self.append_now(path, text))
    }
    fn create(&self, path: &str, text: &str) -> impl Future<Output = Result<(), String>> {
        std::future::ready(self.create_now(path, text))
    }
    fn remove(&self, path: &str) -> impl Future<Output = Result<(), String>> {
        std::future::ready(self.remove_now(path))
    }
    fn pause(&self) -> impl Future<Output = ()> {
        std::future::ready(())
    }
}

/// Runs a device-runtime step over the disk: every file operation here finishes at once, so
/// the step does too.
fn at_once<T>(step: impl Future<Output = T>) -> T {
    step.now_or_never().expect("a step over disk files waits for nothing")
}

/// Every log file under the memory folder, as (device, file name), by device then name: each
/// device folder's `*.jsonl`, a sync tool's conflict copies included. Symbolic links are not
/// followed.
pub fn log_files(vault: &VaultDir, memory_folder: &str) -> Result<Vec<(String, String)>, String> {
    let files = DiskFiles { vault };
    let mut found = Vec::new();
    for device in files.list_now(memory_folder)?.folders {
        if !is_device_id(&device) {
            continue;
        }
        for (name, _) in files.list_now(&format!("{memory_folder}/{device}"))?.files {
            if is_log_like(&name) {
                found.push((device.clone(), name));
            }
        }
    }
    found.sort();
    Ok(found)
}

/// Replays what each log file holds past its cursor (`DeviceLog::replay_all`).
pub fn replay_logs(
    engine: &Engine<RusqliteDriver>,
    vault: &VaultDir,
    memory_folder: &str,
    now: Millis,
) -> Result<LogReplay, String> {
    let log = DeviceLog::new(memory_folder, &engine.store().device()).map_err(|error| error.to_string())?;
    at_once(log.replay_all(engine, &DiskFiles { vault }, now)).map_err(|error| error.to_string())
}

/// Appends this device's new entries, purges and compacts its files (`DeviceLog::sync`).
pub fn sync_log(
    engine: &Engine<RusqliteDriver>,
    vault: &VaultDir,
    memory_folder: &str,
    now: Millis,
) -> Result<LogSync, String> {
    let log = DeviceLog::new(memory_folder, &engine.store().device()).map_err(|error| error.to_string())?;
    at_once(log.sync(engine, &DiskFiles { vault }, now)).map_err(|error| error.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_disk_executor_appends_creates_once_and_removes() {
        let root = std::env::temp_dir().join(format!("memory-agent-disk-files-{}", std::process::id()));
        std::fs::create_dir_all(root.join(".obsidian")).unwrap();
        let vault = VaultDir::open(&root, ".obsidian").unwrap();
        let files = DiskFiles { vault: &vault };
        assert_eq!(at_once(files.list("Memory Agent")).unwrap(), Listing::default(), "a missing folder is empty");
        assert_eq!(at_once(files.append("Memory Agent/d1/000001.jsonl", "a\n")).unwrap(), 2);
        assert_eq!(at_once(files.append("Memory Agent/d1/000001.jsonl", "bc\n")).unwrap(), 5);
        assert_eq!(at_once(files.read("Memory Agent/d1/000001.jsonl", 2)).unwrap().unwrap(), b"bc\n");
        at_once(files.create("Memory Agent/d1/000002.jsonl", "x\n")).unwrap();
        assert!(at_once(files.create("Memory Agent/d1/000002.jsonl", "y\n")).is_err(), "never overwritten");
        at_once(files.remove("Memory Agent/d1/000001.jsonl")).unwrap();
        at_once(files.remove("Memory Agent/d1/000001.jsonl")).unwrap();
        let listing = at_once(files.list("Memory Agent/d1")).unwrap();
        assert_eq!(listing.files, [("000002.jsonl".to_owned(), 2)]);
        assert_eq!(log_files(&vault, "Memory Agent").unwrap(), [("d1".to_owned(), "000002.jsonl".to_owned())]);
        std::fs::remove_dir_all(&root).unwrap();
    }
}
