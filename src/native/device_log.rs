//! The per-device logs in the vault, from the command's side (`store/log.rs` says what they
//! hold): every device's `<memory folder>/<device>/*.jsonl` replayed into the command's own
//! index from where it stopped, and the command's own entries appended to its folder. Only
//! files are read and written here; what a line means is the core's.

use std::collections::HashMap;
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::Path;

use super::vault::VaultDir;
use crate::domain::Millis;
use crate::engine::Engine;
use crate::store::rusqlite_driver::RusqliteDriver;
use crate::store::{device_log_folder, is_device_id, log_file_for, log_file_number, LOG_EXTENSION};

/// What replaying the vault's logs found.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LogsReplayed {
    /// Files read (from their cursor on).
    pub files: usize,
    pub entries: usize,
    /// Damaged lines skipped.
    pub unreadable: usize,
    /// Files whose rest waits for a newer Memory Agent.
    pub newer: Vec<String>,
}

/// Every log file under the memory folder, as (device, file name), by device then name: each
/// device folder's `*.jsonl`, a sync tool's conflict copies included (they hold that device's
/// entries, and replaying is idempotent). Symbolic links are not followed.
pub fn log_files(vault: &VaultDir, memory_folder: &str) -> Result<Vec<(String, String)>, String> {
    let root = vault.file(memory_folder)?;
    let mut found = Vec::new();
    for device in entries_of(&root)? {
        let folder = root.join(&device);
        if !is_device_id(&device) || !is_plain_folder(&folder) {
            continue;
        }
        for file in entries_of(&folder)? {
            let is_log = Path::new(&file).extension().is_some_and(|extension| extension == LOG_EXTENSION);
            if is_log && std::fs::symlink_metadata(folder.join(&file)).is_ok_and(|metadata| metadata.is_file()) {
                found.push((device.clone(), file));
            }
        }
    }
    found.sort();
    Ok(found)
}

/// The names in `folder` (none when it does not exist); names that are not UTF-8 are no logs.
fn entries_of(folder: &Path) -> Result<Vec<String>, String> {
    match std::fs::read_dir(folder) {
        Ok(entries) => {
            Ok(entries.flatten().filter_map(|entry| entry.file_name().to_str().map(str::to_owned)).collect())
        }
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => Ok(Vec::new()),
        Err(error) => Err(format!("Cannot read {}: {error}", folder.display())),
    }
}

fn is_plain_folder(path: &Path) -> bool {
    std::fs::symlink_metadata(path).is_ok_and(|metadata| metadata.is_dir())
}

/// Replays what each log file holds past its cursor (from the start when the file is now
/// shorter than its cursor: it was replaced). This device's own files too: a crash between an
/// append and its acknowledgement left lines the index does not have yet.
pub fn replay_logs(
    engine: &Engine<RusqliteDriver>,
    vault: &VaultDir,
    memory_folder: &str,
    now: Millis,
) -> Result<LogsReplayed, String> {
    let cursors: HashMap<(String, String), u64> = engine
        .log_cursors()
        .map_err(|error| error.to_string())?
        .into_iter()
        .map(|cursor| ((cursor.device, cursor.file), cursor.offset))
        .collect();
    let root = vault.file(memory_folder)?;
    let mut replayed = LogsReplayed::default();
    for (device, file) in log_files(vault, memory_folder)? {
        let cursor = cursors.get(&(device.clone(), file.clone())).copied().unwrap_or(0);
        let path = root.join(&device).join(&file);
        let Some((offset, bytes)) = read_past(&path, cursor)? else { continue };
        let report = engine.replay_log(&device, &file, offset, &bytes, now).map_err(|error| error.to_string())?;
        replayed.files += 1;
        replayed.entries += report.entries;
        replayed.unreadable += report.unreadable;
        if report.newer {
            replayed.newer.push(format!("{memory_folder}/{device}/{file}"));
        }
    }
    Ok(replayed)
}

/// The file's bytes from `cursor` (from 0 when it is shorter), with where they start; `None`
/// when nothing was added (or the file went meanwhile).
fn read_past(path: &Path, cursor: u64) -> Result<Option<(u64, Vec<u8>)>, String> {
    let cannot = |error: std::io::Error| format!("Cannot read {}: {error}", path.display());
    let mut opened = match std::fs::File::open(path) {
        Ok(opened) => opened,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(error) => return Err(cannot(error)),
    };
    let size = opened.metadata().map_err(cannot)?.len();
    let offset = if size < cursor { 0 } else { cursor };
    if size == offset {
        return Ok(None);
    }
    opened.seek(SeekFrom::Start(offset)).map_err(cannot)?;
    let mut bytes = Vec::with_capacity((size - offset) as usize);
    opened.read_to_end(&mut bytes).map_err(cannot)?;
    Ok(Some((offset, bytes)))
}

/// Appends what this device changed and has not written yet to its newest log file (a new one
/// when that would pass the size limit), then tells the engine; returns the lines written.
/// Nothing is written before the folder is known to be a plain folder inside the vault.
pub fn append_outgoing(
    engine: &Engine<RusqliteDriver>,
    vault: &VaultDir,
    memory_folder: &str,
    now: Millis,
) -> Result<usize, String> {
    let outgoing = engine.outgoing_log(now).map_err(|error| error.to_string())?;
    if outgoing.upto == 0 {
        return Ok(0);
    }
    let device = engine.store().device();
    let folder = vault.folder_to_write(&device_log_folder(memory_folder, &device))?;
    let files: Vec<(String, u64)> = entries_of(&folder)?
        .into_iter()
        .filter(|name| log_file_number(name).is_some())
        .map(|name| {
            let size = std::fs::metadata(folder.join(&name)).map_or(0, |metadata| metadata.len());
            (name, size)
        })
        .collect();
    let name = log_file_for(&files, outgoing.text.len() as u64);
    let path = folder.join(&name);
    let cannot = |error: std::io::Error| format!("Cannot write {}: {error}", path.display());
    if std::fs::symlink_metadata(&path).is_ok_and(|metadata| !metadata.is_file()) {
        return Err(format!("{} is not a plain file: Memory Agent writes its log only there.", path.display()));
    }
    if !outgoing.text.is_empty() {
        let mut file = std::fs::OpenOptions::new().append(true).create(true).open(&path).map_err(cannot)?;
        file.write_all(outgoing.text.as_bytes()).map_err(cannot)?;
        file.sync_data().map_err(cannot)?;
    }
    let size = std::fs::metadata(&path).map_or(0, |metadata| metadata.len());
    engine.log_appended(outgoing.upto, &name, size).map_err(|error| error.to_string())?;
    Ok(outgoing.entries)
}
