//! The per-device log: what travels between devices (schema 11).
//!
//! Each device appends what it did — a note's memories as they now are, a typed memory, an
//! insight, a removal (a forget, an edit, a delete, a rename's old record), its usage — to log
//! files in the vault that only it writes (`<memory folder>/<device>/000001.jsonl`, one JSON
//! entry a line). Every device replays every device's log into its own database, which is only
//! its index. An entry carries state, not a command: the note as its device remembered it
//! last, a removal for good, a usage row as counted so far. So replaying is the merge of
//! `store/merge.rs` over a few rows (the note remembered last wins, removals win over what they
//! removed, the rest is the union), and it gives the same database whatever order a sync tool
//! delivers the files in, and however often the same entry is read.
//!
//! Writing: every change this device makes notes its key in `log_outbox`, in the change's
//! own transaction; `outgoing_log` builds the entries from the rows as they are when asked,
//! the host appends them, and `log_appended` forgets those keys. A crash between the two
//! only writes an entry twice. Changes made while replaying another device's entries are
//! that device's, never written here again.

use std::collections::HashMap;

use serde::{Deserialize, Serialize};

use super::memories::MemoryFilter;
use super::merge::{MergeOutcome, TheirCopy};
use super::rows::RowReader;
use super::tombstones::Tombstone;
use super::{SqlDriver, Store, StoreError, UsageRecord};
use crate::domain::{Consolidation, ConsolidationId, Memory, MemoryId, Millis, Source, SourceKind};
use crate::hash::{hex, unhex};

/// The format of an entry; a line of a newer one is left for a newer Memory Agent.
pub const LOG_FORMAT: u32 = 1;

/// A log file is sealed (a new one started) before it would grow past this: well under the
/// 5 MB per file of Obsidian Sync's Standard plan, and small for any tool that copies a
/// changed file whole.
pub const LOG_FILE_LIMIT: u64 = 1_000_000;

/// The extension of a log file.
pub const LOG_EXTENSION: &str = "jsonl";

/// The folder (under the memory folder) of a device's log files.
pub fn device_log_folder(memory_folder: &str, device: &str) -> String {
    debug_assert!(is_device_id(device), "not a device id: {device}");
    format!("{}/{device}", memory_folder.trim_end_matches('/'))
}

/// Whether `name` can be a device id: what `new_device_id` makes (lower-case hex), or any
/// short name of letters, digits and dashes (tests and the command name theirs).
pub fn is_device_id(name: &str) -> bool {
    !name.is_empty() && name.len() <= 64 && name.bytes().all(|byte| byte.is_ascii_alphanumeric() || byte == b'-')
}

/// The name of a device's `number`th log file: `000001.jsonl`.
pub fn log_file_name(number: u32) -> String {
    format!("{number:06}.{LOG_EXTENSION}")
}

/// The number of a log file's name; `None` for any other file (a sync tool's conflict copy,
/// `000003 2.jsonl`, is no log file of ours: the device that owns the folder never wrote it).
pub fn log_file_number(name: &str) -> Option<u32> {
    let stem = name.strip_suffix(LOG_EXTENSION)?.strip_suffix('.')?;
    (stem.len() >= 6 && stem.bytes().all(|byte| byte.is_ascii_digit())).then(|| stem.parse().ok()).flatten()
}

/// Which file `adding` bytes go to, given the device's log files (name, size): the last one
/// while it stays within `LOG_FILE_LIMIT`, else the next number. One append that is larger
/// than the limit on its own still goes to one new file, whole.
pub fn log_file_for(files: &[(String, u64)], adding: u64) -> String {
    let last = files.iter().filter_map(|(name, size)| Some((log_file_number(name)?, *size))).max();
    match last {
        None => log_file_name(1),
        Some((number, size)) if size == 0 || size.saturating_add(adding) <= LOG_FILE_LIMIT => log_file_name(number),
        Some((number, _)) => log_file_name(number + 1),
    }
}

/// One line of a log.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LogLine {
    /// `LOG_FORMAT` when written.
    pub v: u32,
    /// When the device wrote it (its clock).
    pub at: Millis,
    #[serde(flatten)]
    pub entry: LogEntry,
}

/// What a line says.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "op", rename_all = "snake_case")]
pub enum LogEntry {
    /// A note as its device now remembers it: its record, all of its memories (each with the
    /// few words kept for search as its `raw_text`), and the chunks with nothing to remember
    /// (their content hashes, hex, one after another).
    Note {
        source: Source,
        memories: Vec<Memory>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        quiet: Option<String>,
    },
    /// A removal, for good (`Tombstone`'s text).
    Removed { tombstone: String },
    /// A selection or typed text remembered (its text is in the memory).
    Memory { memory: Memory },
    /// An insight.
    Insight { insight: Consolidation },
    /// A device's usage of one day and agent, as counted so far.
    Usage { device: String, usage: UsageRecord },
}

/// What changed here, by kind, for `log_outbox`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Outgoing {
    /// A note's record or memories (key: the path).
    Note,
    /// A selection or typed text (key: the memory id).
    Memory,
    /// A tombstone (key: its text).
    Removed,
    /// An insight (key: its id).
    Insight,
    /// A usage row (key: device, day, agent, tab-separated).
    Usage,
}

impl Outgoing {
    fn as_str(self) -> &'static str {
        match self {
            Outgoing::Note => "note",
            Outgoing::Memory => "memory",
            Outgoing::Removed => "removed",
            Outgoing::Insight => "insight",
            Outgoing::Usage => "usage",
        }
    }
}

/// Entries this device has to append to its log.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct OutgoingLog {
    /// The lines, each ending with a newline; empty when there is nothing to write.
    pub text: String,
    /// How many lines.
    pub entries: usize,
    /// Hand back to `log_appended` once the text is written.
    pub upto: i64,
}

/// How far a device's log file was replayed here.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LogCursor {
    pub device: String,
    pub file: String,
    pub offset: u64,
}

/// What replaying part of a log file did.
#[derive(Debug, Default)]
pub struct Replayed {
    /// Where the next read of the file starts: after the last whole line taken.
    pub offset: u64,
    /// Lines taken.
    pub entries: usize,
    /// Lines that could not be read (damaged): skipped, counted.
    pub unreadable: usize,
    /// A line of a newer format was met: it and what follows wait for a newer Memory Agent.
    pub newer: bool,
    /// What the entries changed here.
    pub outcome: MergeOutcome,
}

impl<D: SqlDriver> Store<D> {
    /// Notes that `key` of `kind` changed here, for this device's log (not while replaying).
    pub(super) fn record_outgoing(&self, kind: Outgoing, key: &str) -> Result<(), StoreError> {
        if !self.logging.get() {
            return Ok(());
        }
        self.change(
            "INSERT OR REPLACE INTO log_outbox (kind, key) VALUES (?, ?)",
            &[kind.as_str().into(), key.into()],
        )?;
        Ok(())
    }

    /// Runs `work` with nothing noted for this device's log: what it changes is another
    /// device's (a replay, a merge).
    pub(super) fn without_logging<T>(
        &self,
        work: impl FnOnce(&Self) -> Result<T, StoreError>,
    ) -> Result<T, StoreError> {
        let was = self.logging.replace(false);
        let result = work(self);
        self.logging.set(was);
        result
    }

    /// What this device changed and has not appended to its log yet, as lines.
    pub fn outgoing_log(&self, now: Millis) -> Result<OutgoingLog, StoreError> {
        let rows = self.query("SELECT seq, kind, key FROM log_outbox ORDER BY seq", &[])?;
        let mut log = OutgoingLog::default();
        for row in rows {
            let mut row = RowReader::new(row);
            let (seq, kind, key) = (row.i64()?, row.text()?, row.text()?);
            log.upto = log.upto.max(seq);
            let Some(entry) = self.entry_for(&kind, &key)? else { continue };
            push_line(&mut log, now, entry)?;
        }
        Ok(log)
    }

    /// The entry for one outbox key, from the rows as they are now; `None` when what it was
    /// about is gone (its removal has an entry of its own).
    fn entry_for(&self, kind: &str, key: &str) -> Result<Option<LogEntry>, StoreError> {
        Ok(match kind {
            "note" => self.note_entry(key)?,
            "memory" => self.get_memory(&MemoryId(key.to_owned()))?.map(|memory| LogEntry::Memory { memory }),
            "removed" => Some(LogEntry::Removed { tombstone: key.to_owned() }),
            "insight" => {
                self.get_consolidation(&ConsolidationId(key.to_owned()))?.map(|insight| LogEntry::Insight { insight })
            }
            "usage" => self.usage_entry(key)?,
            _ => None,
        })
    }

    fn note_entry(&self, path: &str) -> Result<Option<LogEntry>, StoreError> {
        let Some(source) = self.get_source(path)? else { return Ok(None) };
        let mut memories = self.memories_of_source(path, SourceKind::Note)?;
        self.carry_keywords(&mut memories, Some(path))?;
        memories.sort_by(|a, b| a.id.cmp(&b.id));
        let quiet = self
            .query(
                "SELECT s.quiet FROM sources AS s JOIN paths AS p ON p.id = s.path_id WHERE p.path = ? AND s.quiet IS NOT NULL",
                &[path.into()],
            )?
            .into_iter()
            .next()
            .map(|row| RowReader::new(row).blob())
            .transpose()?
            .map(|blob| hex(&blob));
        Ok(Some(LogEntry::Note { source, memories, quiet }))
    }

    fn usage_entry(&self, key: &str) -> Result<Option<LogEntry>, StoreError> {
        let mut parts = key.split('\t');
        let (Some(device), Some(day), Some(agent)) = (parts.next(), parts.next(), parts.next()) else {
            return Ok(None);
        };
        Ok(self
            .usage_rows()?
            .into_iter()
            .find(|(row_device, record)| row_device == device && record.day == day && record.agent == agent)
            .map(|(device, usage)| LogEntry::Usage { device, usage }))
    }

    /// The lines up to `upto` are in this device's log file `file`, now `size` bytes long:
    /// their keys leave the outbox, and the file counts as replayed here up to its end (this
    /// database made them).
    pub fn log_appended(&self, device: &str, upto: i64, file: &str, size: u64) -> Result<(), StoreError> {
        self.transaction(|store| {
            store.change(
                "INSERT OR IGNORE INTO log_written (kind, key) SELECT kind, key FROM log_outbox WHERE seq <= ?",
                &[upto.into()],
            )?;
            store.change("DELETE FROM log_outbox WHERE seq <= ?", &[upto.into()])?;
            store.set_log_cursor(device, file, size)
        })
    }

    fn set_log_cursor(&self, device: &str, file: &str, offset: u64) -> Result<(), StoreError> {
        let offset = i64::try_from(offset).map_err(|_| StoreError::InvalidInput(format!("offset {offset}")))?;
        self.change(
            "INSERT INTO log_cursors (device, file, offset) VALUES (?, ?, ?)
             ON CONFLICT (device, file) DO UPDATE SET offset = excluded.offset",
            &[device.into(), file.into(), offset.into()],
        )?;
        Ok(())
    }

    /// This device's live entries — for every key it ever wrote, the entry as it is now (a
    /// removal stays a removal; what is gone without one is left out) — as the lines of a
    /// compacted log, with the outbox written up to `upto`. Whatever order a reader meets
    /// them in, they give what the older files gave: entries carry state, not steps.
    pub fn log_snapshot(&self, now: Millis) -> Result<OutgoingLog, StoreError> {
        self.transaction(|store| {
            store.change("INSERT OR IGNORE INTO log_written (kind, key) SELECT kind, key FROM log_outbox", &[])?;
            let upto = super::rows::single(store.query("SELECT coalesce(max(seq), 0) FROM log_outbox", &[])?)?.i64()?;
            let rows = store.query("SELECT kind, key FROM log_written ORDER BY kind, key", &[])?;
            let mut log = OutgoingLog { upto, ..OutgoingLog::default() };
            for row in rows {
                let mut row = RowReader::new(row);
                let (kind, key) = (row.text()?, row.text()?);
                let Some(entry) = store.entry_for(&kind, &key)? else {
                    store.change("DELETE FROM log_written WHERE kind = ? AND key = ?", &[kind.into(), key.into()])?;
                    continue;
                };
                push_line(&mut log, now, entry)?;
            }
            Ok(log)
        })
    }

    /// How far each log file was replayed here.
    pub fn log_cursors(&self) -> Result<Vec<LogCursor>, StoreError> {
        self.query("SELECT device, file, offset FROM log_cursors ORDER BY device, file", &[])?
            .into_iter()
            .map(|row| {
                let mut row = RowReader::new(row);
                Ok(LogCursor { device: row.text()?, file: row.text()?, offset: row.u64()? })
            })
            .collect()
    }

    /// Replays `bytes`, read from `device`'s log file `file` at `offset`: each whole line is
    /// merged in (a last line without its newline is still being written or copied, and is
    /// read next time), in one transaction, and the file's cursor moves past them.
    pub fn replay_log(&self, device: &str, file: &str, offset: u64, bytes: &[u8]) -> Result<Replayed, StoreError> {
        let mut replayed = Replayed { offset, ..Replayed::default() };
        let mut read = ReadEntries::default();
        let mut taken = 0usize;
        for line in bytes.split_inclusive(|byte| *byte == b'\n') {
            if line.last() != Some(&b'\n') {
                break;
            }
            match parse_line(line) {
                Line::Entry(entry) => {
                    read.add(*entry)?;
                    replayed.entries += 1;
                }
                Line::Blank => {}
                Line::Unreadable => replayed.unreadable += 1,
                Line::Newer => {
                    replayed.newer = true;
                    break;
                }
            }
            taken += line.len();
        }
        replayed.offset = offset + taken as u64;
        let theirs = read.into_their_copy();
        self.transaction(|store| {
            if replayed.entries > 0 {
                if !store.is_own_device(device) {
                    store.set_meta("merged_another_copy", "1")?;
                }
                replayed.outcome = store.merge_their_state(&theirs)?;
            }
            store.set_log_cursor(device, file, replayed.offset)
        })?;
        Ok(replayed)
    }

    fn is_own_device(&self, device: &str) -> bool {
        *self.device.borrow() == device
    }

    /// Notes everything this database holds for this device's log (a rebuilt log, or one
    /// that was lost): every device's memory travels again from here, with no model call.
    pub fn log_everything(&self) -> Result<(), StoreError> {
        self.transaction(|store| {
            for tombstone in store.tombstones()? {
                store.record_outgoing(Outgoing::Removed, &tombstone.to_string())?;
            }
            for source in store.list_sources()? {
                store.record_outgoing(Outgoing::Note, &source.path)?;
            }
            for memory in store.list_memories(&MemoryFilter::default())? {
                if memory.source_kind != SourceKind::Note {
                    store.record_outgoing(Outgoing::Memory, &memory.id.0)?;
                }
            }
            for insight in store.list_consolidations(0, 0)? {
                store.record_outgoing(Outgoing::Insight, &insight.id.0)?;
            }
            for (device, record) in store.usage_rows()? {
                store.record_outgoing(Outgoing::Usage, &usage_key(&device, &record.day, &record.agent))?;
            }
            Ok(())
        })
    }
}

fn push_line(log: &mut OutgoingLog, now: Millis, entry: LogEntry) -> Result<(), StoreError> {
    let line = serde_json::to_string(&LogLine { v: LOG_FORMAT, at: now, entry })
        .map_err(|error| StoreError::InvalidData(error.to_string()))?;
    debug_assert!(!line.contains('\n'), "an entry spans lines");
    log.text.push_str(&line);
    log.text.push('\n');
    log.entries += 1;
    Ok(())
}

/// When a device's own log is worth compacting: it holds more than this many bytes…
pub const COMPACT_AFTER_BYTES: u64 = 4 * LOG_FILE_LIMIT;

/// …and more than this many times what a snapshot of its live entries would.
pub const COMPACT_RATIO: u64 = 2;

/// The `meta` key of the size the last snapshot of this device's live entries measured.
const SNAPSHOT_BYTES_KEY: &str = "log_snapshot_bytes";

/// A compaction of a device's own log: new files holding its live entries, written first,
/// then the older files retired (deleted by the host). A crash between the two leaves both,
/// which replays the same; nothing of another device's is touched.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct LogCompaction {
    /// `[name, text]`: each new file and its whole text (each within `LOG_FILE_LIMIT`, but a
    /// single line larger than that gets a file of its own).
    pub files: Vec<(String, String)>,
    /// The files to delete once every new one is written.
    pub retire: Vec<String>,
    /// The outbox written up to here (`log_appended` with the last new file).
    pub upto: i64,
    /// The bytes before and after.
    pub bytes_before: u64,
    pub bytes_after: u64,
}

/// Splits a snapshot's lines into files numbered from `first`.
pub(super) fn split_into_files(text: &str, first: u32) -> Vec<(String, String)> {
    let mut files: Vec<(String, String)> = Vec::new();
    let mut current = String::new();
    for line in text.split_inclusive('\n') {
        if !current.is_empty() && (current.len() + line.len()) as u64 > LOG_FILE_LIMIT {
            files.push((log_file_name(first + files.len() as u32), std::mem::take(&mut current)));
        }
        current.push_str(line);
    }
    if !current.is_empty() || files.is_empty() {
        files.push((log_file_name(first + files.len() as u32), current));
    }
    files
}

/// The outbox key of a usage row.
pub(super) fn usage_key(device: &str, day: &str, agent: &str) -> String {
    format!("{device}\t{day}\t{agent}")
}

enum Line {
    Entry(Box<LogEntry>),
    Blank,
    Unreadable,
    Newer,
}

fn parse_line(line: &[u8]) -> Line {
    let Ok(text) = std::str::from_utf8(line) else { return Line::Unreadable };
    let text = text.trim();
    if text.is_empty() {
        return Line::Blank;
    }
    match serde_json::from_str::<LogLine>(text) {
        Ok(line) if line.v > LOG_FORMAT => Line::Newer,
        Ok(line) => Line::Entry(Box::new(line.entry)),
        // A line of a newer format may not read as ours at all.
        Err(_) => match serde_json::from_str::<serde_json::Value>(text) {
            Ok(value)
                if value.get("v").and_then(serde_json::Value::as_u64).is_some_and(|v| v > u64::from(LOG_FORMAT)) =>
            {
                Line::Newer
            }
            _ => Line::Unreadable,
        },
    }
}

/// A note as one entry has it: its record, memories and quiet chunks.
struct NoteVersion(Source, Vec<Memory>, Option<Vec<u8>>);

/// A read's entries, each note at its version remembered last (a note written twice in one
/// read counts once: the merge compares that one with this database's).
#[derive(Default)]
struct ReadEntries {
    notes: HashMap<String, NoteVersion>,
    theirs: TheirCopy,
}

impl ReadEntries {
    fn add(&mut self, entry: LogEntry) -> Result<(), StoreError> {
        match entry {
            LogEntry::Note { source, memories, quiet } => {
                let quiet = match quiet {
                    Some(text) => {
                        Some(unhex(&text).ok_or_else(|| StoreError::InvalidData(format!("quiet chunks `{text}`")))?)
                    }
                    None => None,
                };
                let memories: Vec<Memory> =
                    memories.into_iter().filter(|memory| memory.source_path == source.path).collect();
                let newer = self.notes.get(&source.path).is_none_or(|NoteVersion(kept, kept_memories, _)| {
                    version(&source, &memories) > version(kept, kept_memories)
                });
                if newer {
                    self.notes.insert(source.path.clone(), NoteVersion(source, memories, quiet));
                }
            }
            LogEntry::Removed { tombstone } => {
                self.theirs.tombstones.insert(Tombstone::parse(&tombstone));
            }
            LogEntry::Memory { memory } => self.theirs.memories.push(memory),
            LogEntry::Insight { insight } => self.theirs.insights.push(insight),
            LogEntry::Usage { device, usage } => self.theirs.usage.push((device, usage)),
        }
        Ok(())
    }

    fn into_their_copy(self) -> TheirCopy {
        let mut theirs = self.theirs;
        let mut notes: Vec<_> = self.notes.into_values().collect();
        notes.sort_by(|a, b| a.0.path.cmp(&b.0.path));
        for NoteVersion(source, memories, quiet) in notes {
            if let Some(quiet) = quiet {
                theirs.quiet.insert(source.path.clone(), quiet);
            }
            theirs.memories.extend(memories);
            theirs.sources.push(source);
        }
        theirs
    }
}

/// The order of a note's versions, as the merge's `later` has it.
fn version<'a>(source: &'a Source, memories: &[Memory]) -> (Millis, &'a str, Vec<String>) {
    let mut ids: Vec<String> = memories.iter().map(|memory| memory.id.0.clone()).collect();
    ids.sort();
    (source.updated_at, source.sha256.as_str(), ids)
}

impl<D: SqlDriver> Store<D> {
    /// A compaction of this device's own log files (`[name, size]`, its folder's real log
    /// files), when due (see `COMPACT_AFTER_BYTES`, `COMPACT_RATIO`): `None` otherwise.
    pub fn log_compaction(
        &self,
        own_files: &[(String, u64)],
        now: Millis,
    ) -> Result<Option<LogCompaction>, StoreError> {
        self.log_compaction_after(own_files, now, COMPACT_AFTER_BYTES)
    }

    /// `log_compaction` with another size threshold (tests compact small logs).
    #[doc(hidden)]
    pub fn log_compaction_after(
        &self,
        own_files: &[(String, u64)],
        now: Millis,
        after_bytes: u64,
    ) -> Result<Option<LogCompaction>, StoreError> {
        let numbered: Vec<(u32, &str, u64)> =
            own_files.iter().filter_map(|(name, size)| Some((log_file_number(name)?, name.as_str(), *size))).collect();
        let bytes_before: u64 = numbered.iter().map(|(_, _, size)| size).sum();
        // A snapshot is built only when the log has grown past what the last one measured
        // would make worth it: asking after every append costs nothing until then.
        let measured: u64 = self.get_meta(SNAPSHOT_BYTES_KEY)?.and_then(|bytes| bytes.parse().ok()).unwrap_or(0);
        if bytes_before <= after_bytes || bytes_before <= measured.saturating_mul(COMPACT_RATIO) {
            return Ok(None);
        }
        let snapshot = self.log_snapshot(now)?;
        let bytes_after = snapshot.text.len() as u64;
        self.set_meta(SNAPSHOT_BYTES_KEY, &bytes_after.to_string())?;
        if bytes_after.saturating_mul(COMPACT_RATIO) >= bytes_before {
            return Ok(None);
        }
        let next = numbered.iter().map(|(number, _, _)| *number).max().unwrap_or(0) + 1;
        Ok(Some(LogCompaction {
            files: split_into_files(&snapshot.text, next),
            retire: numbered.iter().map(|(_, name, _)| (*name).to_owned()).collect(),
            upto: snapshot.upto,
            bytes_before,
            bytes_after,
        }))
    }
}
