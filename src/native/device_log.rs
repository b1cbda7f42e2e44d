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

/// One append is at most about this long (lines are never split), so that the core can start a
/// new file before one passes its limit: the first append of a migrated memory holds all of it.
const APPEND_PIECE_BYTES: usize = 256 * 1024;

/// Appends what this device changed and has not written yet to its newest log file (a new one
/// when that would pass the size limit), then tells the engine, then compacts the device's own
/// log when the core finds it due; returns the lines written. Nothing is written before the
/// folder is known to be a plain folder inside the vault.
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
    let mut files = own_log_files(&folder)?;
    let mut last: Option<(String, u64)> = None;
    for piece in line_pieces(&outgoing.text, APPEND_PIECE_BYTES) {
        let name = log_file_for(&files, piece.len() as u64);
        let size = append_piece(&folder.join(&name), piece)?;
        files.retain(|(known, _)| *known != name);
        files.push((name.clone(), size));
        last = Some((name, size));
    }
    let (name, size) = match last {
        Some(last) => last,
        // Nothing to write (what the keys were about is gone): the newest file stays as it is.
        None => files.iter().max().cloned().unwrap_or_else(|| (crate::store::log_file_name(1), 0)),
    };
    engine.log_appended(outgoing.upto, &name, size).map_err(|error| error.to_string())?;
    compact(engine, &folder, &files, now)?;
    Ok(outgoing.entries)
}

/// The device folder's log files proper (`000001.jsonl`, not a conflict copy), with their sizes.
fn own_log_files(folder: &Path) -> Result<Vec<(String, u64)>, String> {
    Ok(entries_of(folder)?
        .into_iter()
        .filter(|name| log_file_number(name).is_some())
        .map(|name| {
            let size = std::fs::metadata(folder.join(&name)).map_or(0, |metadata| metadata.len());
            (name, size)
        })
        .collect())
}

/// `text` (whole lines) in pieces of whole lines of about `limit` bytes at most.
fn line_pieces(text: &str, limit: usize) -> Vec<&str> {
    let mut pieces = Vec::new();
    let mut start = 0;
    let mut end = 0;
    for line in text.split_inclusive('\n') {
        if end > start && end - start + line.len() > limit {
            pieces.push(&text[start..end]);
            start = end;
        }
        end += line.len();
    }
    if end > start {
        pieces.push(&text[start..end]);
    }
    pieces
}

/// Appends `piece` to the file at `path` (created when new) and returns its size. A file that
/// ends inside a line (an append a crash cut short, never acknowledged) gets a newline first,
/// so the piece starts on a line of its own.
fn append_piece(path: &Path, piece: &str) -> Result<u64, String> {
    let cannot = |error: std::io::Error| format!("Cannot write {}: {error}", path.display());
    if std::fs::symlink_metadata(path).is_ok_and(|metadata| !metadata.is_file()) {
        return Err(format!("{} is not a plain file: Memory Agent writes its log only there.", path.display()));
    }
    let mut file = std::fs::OpenOptions::new().read(true).append(true).create(true).open(path).map_err(cannot)?;
    let length = file.metadata().map_err(cannot)?.len();
    if length > 0 {
        let mut last = [0u8; 1];
        file.seek(SeekFrom::Start(length - 1)).map_err(cannot)?;
        file.read_exact(&mut last).map_err(cannot)?;
        if last[0] != b'\n' {
            file.write_all(b"\n").map_err(cannot)?;
        }
    }
    file.write_all(piece.as_bytes()).map_err(cannot)?;
    file.sync_data().map_err(cannot)?;
    Ok(file.metadata().map_err(cannot)?.len())
}

/// When the core finds this device's own log worth compacting: the snapshot's files are written
/// whole and acknowledged, and only then are its older files removed (never another device's).
fn compact(engine: &Engine<RusqliteDriver>, folder: &Path, files: &[(String, u64)], now: Millis) -> Result<(), String> {
    let Some(compaction) = engine.log_compaction(files, now).map_err(|error| error.to_string())? else {
        return Ok(());
    };
    let mut last = None;
    for (name, text) in &compaction.files {
        let path = folder.join(name);
        let cannot = |error: std::io::Error| format!("Cannot write {}: {error}", path.display());
        let mut file = std::fs::OpenOptions::new().write(true).create_new(true).open(&path).map_err(cannot)?;
        file.write_all(text.as_bytes()).map_err(cannot)?;
        file.sync_data().map_err(cannot)?;
        last = Some((name.clone(), text.len() as u64));
    }
    if let Some((name, size)) = last {
        engine.log_appended(compaction.upto, &name, size).map_err(|error| error.to_string())?;
    }
    for name in &compaction.retire {
        let path = folder.join(name);
        std::fs::remove_file(&path).map_err(|error| format!("Cannot remove {}: {error}", path.display()))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pieces_keep_lines_whole_and_within_the_limit_unless_a_line_alone_is_longer() {
        let text = "aaaa\nbb\ncccccccc\nd\n";
        assert_eq!(line_pieces(text, 8), ["aaaa\nbb\n", "cccccccc\n", "d\n"]);
        assert_eq!(line_pieces(text, 100), [text]);
        assert!(line_pieces("", 8).is_empty());
        assert_eq!(line_pieces(text, 3).concat(), text, "nothing lost or added");
    }

    #[test]
    fn an_append_a_crash_cut_short_is_closed_before_the_next_one() {
        let folder = std::env::temp_dir().join(format!("memory-agent-append-{}", std::process::id()));
        std::fs::create_dir_all(&folder).unwrap();
        let path = folder.join("000001.jsonl");
        std::fs::write(&path, "{\"v\":1}\n{\"v\":1,\"op\":\"rem").unwrap();
        let size = append_piece(&path, "{\"v\":1,\"op\":\"removed\"}\n").unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        assert_eq!(text, "{\"v\":1}\n{\"v\":1,\"op\":\"rem\n{\"v\":1,\"op\":\"removed\"}\n");
        assert_eq!(size, text.len() as u64);
        // A whole file takes the next piece as it is.
        append_piece(&path, "{}\n").unwrap();
        assert!(std::fs::read_to_string(&path).unwrap().ends_with("\"removed\"}\n{}\n"));
        std::fs::remove_dir_all(&folder).unwrap();
    }
}
