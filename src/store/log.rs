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
//! own transaction, by the triggers of `LOG_TRIGGERS` (one write path: no store function can
//! change a row that travels and forget to say so); `outgoing_log` builds the entries from the
//! rows as they are when asked, the host appends them, and `log_appended` forgets those keys.
//! A crash between the two only writes an entry twice. Changes made while replaying another
//! device's entries are that device's, never written here again (`without_logging`).

use std::collections::HashMap;

use serde::{Deserialize, Serialize};

use super::log_v1::DecodedLine;
use super::merge::{MergeOutcome, TheirCopy};
use super::rows::RowReader;
use super::tombstones::Tombstone;
use super::{SqlDriver, Store, StoreError, UsageRecord};
use crate::domain::{Consolidation, ConsolidationId, Memory, MemoryId, Millis, Source, SourceKind};
use crate::hash::{hex, unhex};

/// The format of an entry; a line of a newer one is left for a newer Memory Agent.
pub const LOG_FORMAT: u32 = 1;

/// What a line says, in the domain's terms; its form in a file is `log_v1`'s (its own types,
/// so a change to a domain struct never changes what older and newer versions read).
#[derive(Debug, Clone, PartialEq)]
pub enum LogEntry {
    /// A note as its device now remembers it: its record, all of its memories (each with the
    /// few words kept for search as its `raw_text`), and the chunks with nothing to remember
    /// (their content hashes, hex, one after another).
    Note { source: Source, memories: Vec<Memory>, quiet: Option<String> },
    /// A removal, for good (`Tombstone`'s text).
    Removed { tombstone: String },
    /// A selection or typed text remembered (its text is in the memory).
    Memory { memory: Memory },
    /// An insight.
    Insight { insight: Consolidation },
    /// A device's usage of one day and agent, as counted so far.
    Usage { device: String, usage: UsageRecord },
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

/// A line a replay skipped: where it starts in its file, and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SkippedLine {
    /// Its first byte's offset in the file.
    pub byte: u64,
    /// Its number (from 1), when the file was read from its start.
    pub line: Option<u64>,
    pub reason: String,
}

/// What replaying part of a log file did.
#[derive(Debug, Default)]
pub struct Replayed {
    /// Where the next read of the file starts: after the last whole line taken.
    pub offset: u64,
    /// Lines taken.
    pub entries: usize,
    /// Lines that could not be read (damaged) or were refused (`log_checks`): skipped, counted.
    pub unreadable: usize,
    /// The first of them, for the user.
    pub first_skipped: Option<SkippedLine>,
    /// Lines of a newer format were met: kept in the file for a newer Memory Agent, skipped here.
    pub newer: bool,
    /// What the entries changed here.
    pub outcome: MergeOutcome,
}

impl<D: SqlDriver> Store<D> {
    /// Sets up, for this connection, the triggers that fill `log_outbox` (`LOG_TRIGGERS`).
    pub(super) fn install_log_triggers(&self) -> Result<(), StoreError> {
        self.driver.execute_batch(LOG_TRIGGERS)?;
        Ok(())
    }

    /// Whether changes are noted for this device's log now (not while another device's
    /// entries are replayed).
    pub(super) fn is_logging(&self) -> bool {
        self.logging.get()
    }

    /// Runs `work` with nothing noted for this device's log: what it changes is another
    /// device's (a replay, a merge). The triggers read `log_off`, a table of this connection
    /// only, never saved with the database.
    pub(super) fn without_logging<T>(
        &self,
        work: impl FnOnce(&Self) -> Result<T, StoreError>,
    ) -> Result<T, StoreError> {
        let was = self.logging.replace(false);
        if was {
            self.driver.execute("INSERT INTO log_off (off) VALUES (1)", &[])?;
        }
        let result = work(self);
        if was {
            self.logging.set(true);
            self.driver.execute("DELETE FROM log_off", &[])?;
        }
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
                "SELECT s.quiet FROM sources AS s JOIN paths AS p ON p.id = s.path_id WHERE p.path = +? AND s.quiet IS NOT NULL",
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

    /// This device wrote `file` whole (a purge's or a compaction's output), `size` bytes: it
    /// counts as replayed here (its lines came from this database's own log).
    pub fn log_file_written(&self, file: &str, size: u64) -> Result<(), StoreError> {
        let device = self.device();
        self.set_log_cursor(&device, file, size)
    }

    /// `device`'s log file `file` is gone (compacted, purged, or removed by its device): its
    /// cursor goes too, so a file of that name made later is read from its start.
    pub fn forget_log_cursor(&self, device: &str, file: &str) -> Result<(), StoreError> {
        self.change("DELETE FROM log_cursors WHERE device = ? AND file = ?", &[device.into(), file.into()])?;
        Ok(())
    }

    /// A purge is taking an entry of this note out of this device's log (it held a memory
    /// forgotten since): while the note is still here, its entry as it is now is written again
    /// first, so the log keeps the note (its other memories, the forgotten chunk quiet) even
    /// when the forget came from another device, whose own entry of the note may be of an older
    /// path or version. `true` when there is such an entry to write.
    pub fn log_note_again(&self, path: &str) -> Result<bool, StoreError> {
        if self.get_source(path)?.is_none() {
            return Ok(false);
        }
        self.change("INSERT OR REPLACE INTO log_outbox (kind, key) VALUES ('note', ?)", &[path.into()])?;
        Ok(true)
    }

    /// Whether a removal (here, or replayed from another device) may have left its text in
    /// this device's own log files: set with every new tombstone, in its transaction, so a
    /// crash cannot lose it; cleared by `log_purged` once the files were rewritten.
    pub fn log_purge_due(&self) -> Result<bool, StoreError> {
        Ok(self.get_meta(PURGE_DUE_KEY)?.is_some())
    }

    /// Marks a purge due (see `log_purge_due`).
    pub(super) fn mark_log_purge_due(&self) -> Result<(), StoreError> {
        self.set_meta(PURGE_DUE_KEY, "1")
    }

    /// The purge that `log_purge_due` asked for is done, as of `erasures`: a removal that came
    /// after they were read keeps the purge due.
    pub fn log_purged(&self, erasures: &Erasures) -> Result<(), StoreError> {
        if self.tombstone_count()? == erasures.tombstone_count {
            self.delete_meta(PURGE_DUE_KEY)?;
        }
        Ok(())
    }

    fn tombstone_count(&self) -> Result<u64, StoreError> {
        super::rows::single(self.query("SELECT count(*) FROM tombstones", &[])?)?.u64()
    }

    /// What the user removed, as a purge of the log files needs it: which lines hold text that
    /// must leave the vault (`Erasures::erases`).
    pub fn erasures(&self) -> Result<Erasures, StoreError> {
        let tombstones = self.tombstones()?;
        let mut erasures = Erasures { tombstone_count: tombstones.len() as u64, ..Erasures::default() };
        for row in self.query("SELECT id FROM log_waiting_insights", &[])? {
            erasures.waiting.insert(RowReader::new(row).text()?);
        }
        let present: std::collections::HashSet<String> =
            self.list_sources()?.into_iter().map(|source| source.path).collect();
        for tombstone in tombstones {
            match tombstone {
                Tombstone::Forgotten { id } => {
                    erasures.ids.insert(id);
                }
                Tombstone::RemovedWithNote { id, path } if !present.contains(&path) => {
                    if !self.memory_exists(&MemoryId(id.clone()))? {
                        erasures.ids.insert(id);
                    }
                }
                Tombstone::RemovedWithNote { .. } => {}
                Tombstone::SourceRecord { updated_at, path } => {
                    if !present.contains(&path) {
                        let latest = erasures.notes.entry(path).or_insert(updated_at);
                        *latest = (*latest).max(updated_at);
                    }
                }
            }
        }
        Ok(erasures)
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
    /// read next time), in one transaction, and the file's cursor moves past them. `now` is
    /// this device's clock, past which (beyond clock skew) no time of an entry is believed.
    pub fn replay_log(
        &self,
        device: &str,
        file: &str,
        offset: u64,
        bytes: &[u8],
        now: Millis,
    ) -> Result<Replayed, StoreError> {
        let mut replayed = Replayed { offset, ..Replayed::default() };
        let mut read = ReadEntries::default();
        let mut taken = 0usize;
        for line in bytes.split_inclusive(|byte| *byte == b'\n') {
            if line.last() != Some(&b'\n') {
                break;
            }
            let at = offset + taken as u64;
            let mut skip = |reason: String| {
                replayed.unreadable += 1;
                replayed.first_skipped.get_or_insert(SkippedLine { byte: at, line: None, reason });
            };
            match read_line(line) {
                ReadLine::Entry { at, entry } => match super::log_checks::refusal(&entry, at, device, now) {
                    Some(reason) => skip(reason),
                    None => {
                        read.add(*entry)?;
                        replayed.entries += 1;
                    }
                },
                ReadLine::Blank => {}
                ReadLine::Unreadable => skip("not an entry of the log's format (damaged or cut)".into()),
                // Kept in the file for a newer Memory Agent, skipped here: the lines after it
                // are still this version's to read.
                ReadLine::Newer => replayed.newer = true,
            }
            taken += line.len();
        }
        replayed.offset = offset + taken as u64;
        let theirs = read.into_their_copy();
        self.transaction(|store| {
            if replayed.entries > 0 {
                let theirs_device = !store.is_own_device(device);
                if theirs_device {
                    store.set_meta("merged_another_copy", "1")?;
                }
                store.merging_theirs.set(theirs_device);
                let merged = store.merge_their_state(&theirs);
                store.merging_theirs.set(false);
                replayed.outcome = merged?;
            }
            store.set_log_cursor(device, file, replayed.offset)
        })?;
        Ok(replayed)
    }

    /// Moves the cursor of a device's file past bytes skipped unread (a line longer than the
    /// format allows).
    pub fn skip_log_bytes(&self, device: &str, file: &str, offset: u64) -> Result<(), StoreError> {
        self.transaction(|store| store.set_log_cursor(device, file, offset))
    }

    fn is_own_device(&self, device: &str) -> bool {
        *self.device.borrow() == device
    }

    /// Notes everything this database holds for this device's log (a rebuilt log, or one
    /// that was lost): every device's memory travels again from here, with no model call.
    pub fn log_everything(&self) -> Result<(), StoreError> {
        self.transaction(|store| {
            store.driver.execute_batch(LOG_EVERYTHING)?;
            // Only this device's usage: each device's own log carries its own, and a replay
            // refuses usage found in another device's folder (`log_checks`).
            store.change(
                "INSERT OR REPLACE INTO log_outbox (kind, key)
                 SELECT 'usage', device || char(9) || day || char(9) || agent FROM usage WHERE device = ?",
                &[store.device().as_str().into()],
            )?;
            store.dirty.set(true);
            Ok(())
        })
    }
}

/// Every row that travels, into `log_outbox` (`log_everything`).
const LOG_EVERYTHING: &str = "
INSERT OR REPLACE INTO log_outbox (kind, key) SELECT 'removed', id FROM tombstones;
INSERT OR REPLACE INTO log_outbox (kind, key) SELECT 'note', p.path FROM sources AS s JOIN paths AS p ON p.id = s.path_id;
INSERT OR REPLACE INTO log_outbox (kind, key) SELECT 'memory', id FROM memories WHERE kind <> 0;
INSERT OR REPLACE INTO log_outbox (kind, key) SELECT 'insight', id FROM consolidations;
";

/// The one write path of `log_outbox`: a trigger for each change of a row that travels, so
/// that no change is missed. TEMP (this connection's, created at each open, never in the saved
/// file, which `schema_guard` keeps free of triggers). What travels:
/// - a note (key: its path) when its record gets a new version (time, digest, reason for
///   skipping, quiet chunks, path) — not this device's mtime and size of the same text — or
///   when one of its memories is added, changed (position, consolidated) or removed, or when
///   it is renamed;
/// - a typed text or selection (key: its id) when added or changed;
/// - an insight when made, a removal when kept, a usage row when counted.
///
/// Each goes through `log_change`, which moves a key noted again to the end of the outbox
/// (a key noted again after `outgoing_log` read it must outlive that read's `log_appended`),
/// whatever conflict rule the statement that fired it has. None fires while `log_off` holds a
/// row (`without_logging`).
const LOG_TRIGGERS: &str = "
CREATE TEMP TABLE IF NOT EXISTS log_off (off INTEGER NOT NULL);
CREATE TEMP VIEW IF NOT EXISTS log_change (kind, key) AS SELECT kind, key FROM log_outbox WHERE 0;
CREATE TEMP TRIGGER IF NOT EXISTS log_change_noted INSTEAD OF INSERT ON log_change BEGIN
    DELETE FROM log_outbox WHERE kind = NEW.kind AND key = NEW.key;
    INSERT INTO log_outbox (kind, key) VALUES (NEW.kind, NEW.key);
END;
CREATE TEMP TRIGGER IF NOT EXISTS log_source_added AFTER INSERT ON main.sources
WHEN NOT EXISTS (SELECT 1 FROM log_off) BEGIN
    INSERT INTO log_change (kind, key) SELECT 'note', path FROM paths WHERE id = NEW.path_id;
END;
CREATE TEMP TRIGGER IF NOT EXISTS log_source_changed AFTER UPDATE ON main.sources
WHEN NOT EXISTS (SELECT 1 FROM log_off)
    AND (OLD.updated_at IS NOT NEW.updated_at OR OLD.sha256 IS NOT NEW.sha256 OR OLD.skipped IS NOT NEW.skipped
         OR OLD.quiet IS NOT NEW.quiet OR OLD.path_id IS NOT NEW.path_id) BEGIN
    INSERT INTO log_change (kind, key) SELECT 'note', path FROM paths WHERE id = NEW.path_id;
END;
CREATE TEMP TRIGGER IF NOT EXISTS log_note_renamed AFTER UPDATE OF path ON main.paths
WHEN NOT EXISTS (SELECT 1 FROM log_off) AND OLD.path IS NOT NEW.path
    AND EXISTS (SELECT 1 FROM sources WHERE path_id = NEW.id) BEGIN
    INSERT INTO log_change (kind, key) VALUES ('note', NEW.path);
END;
CREATE TEMP TRIGGER IF NOT EXISTS log_memory_added AFTER INSERT ON main.memories
WHEN NOT EXISTS (SELECT 1 FROM log_off) BEGIN
    INSERT INTO log_change (kind, key)
        SELECT 'note', path FROM paths WHERE id = NEW.path_id AND NEW.kind = 0
        UNION ALL SELECT 'memory', NEW.id WHERE NEW.kind <> 0;
END;
CREATE TEMP TRIGGER IF NOT EXISTS log_memory_changed AFTER UPDATE ON main.memories
WHEN NOT EXISTS (SELECT 1 FROM log_off)
    AND (OLD.updated_at IS NOT NEW.updated_at OR OLD.consolidated IS NOT NEW.consolidated
         OR OLD.path_id IS NOT NEW.path_id OR OLD.heading IS NOT NEW.heading
         OR OLD.line_start IS NOT NEW.line_start OR OLD.line_end IS NOT NEW.line_end) BEGIN
    INSERT INTO log_change (kind, key)
        SELECT 'note', path FROM paths WHERE id = NEW.path_id AND NEW.kind = 0
        UNION ALL SELECT 'memory', NEW.id WHERE NEW.kind <> 0;
END;
CREATE TEMP TRIGGER IF NOT EXISTS log_memory_removed AFTER DELETE ON main.memories
WHEN NOT EXISTS (SELECT 1 FROM log_off) AND OLD.kind = 0 BEGIN
    INSERT INTO log_change (kind, key) SELECT 'note', path FROM paths WHERE id = OLD.path_id;
END;
CREATE TEMP TRIGGER IF NOT EXISTS log_insight_added AFTER INSERT ON main.consolidations
WHEN NOT EXISTS (SELECT 1 FROM log_off) BEGIN
    INSERT INTO log_change (kind, key) VALUES ('insight', NEW.id);
END;
CREATE TEMP TRIGGER IF NOT EXISTS log_removal_kept AFTER INSERT ON main.tombstones
WHEN NOT EXISTS (SELECT 1 FROM log_off) BEGIN
    INSERT INTO log_change (kind, key) VALUES ('removed', NEW.id);
END;
CREATE TEMP TRIGGER IF NOT EXISTS log_usage_added AFTER INSERT ON main.usage
WHEN NOT EXISTS (SELECT 1 FROM log_off) BEGIN
    INSERT INTO log_change (kind, key) VALUES ('usage', NEW.device || char(9) || NEW.day || char(9) || NEW.agent);
END;
CREATE TEMP TRIGGER IF NOT EXISTS log_usage_counted AFTER UPDATE ON main.usage
WHEN NOT EXISTS (SELECT 1 FROM log_off) BEGIN
    INSERT INTO log_change (kind, key) VALUES ('usage', NEW.device || char(9) || NEW.day || char(9) || NEW.agent);
END;
";

/// One line of a log as this version writes it (no newline): `entry`, written at `at`.
pub fn log_line(at: Millis, entry: &LogEntry) -> Result<String, StoreError> {
    super::log_v1::encode_line(at, entry)
}

fn push_line(log: &mut OutgoingLog, now: Millis, entry: LogEntry) -> Result<(), StoreError> {
    let line = log_line(now, &entry)?;
    debug_assert!(!line.contains('\n'), "an entry spans lines");
    log.text.push_str(&line);
    log.text.push('\n');
    log.entries += 1;
    Ok(())
}

/// The `meta` key set while a purge of this device's log files is due.
const PURGE_DUE_KEY: &str = "log_purge_due";

/// What the user removed, for the purge of log files: the text of a forgotten memory or
/// insight, of a deleted or excluded note, of a forgotten typed text, may stay in no file of
/// the vault. An edit is no erasure: a note's older version leaves its files when they are
/// compacted, so that one edit never rewrites a large file.
#[derive(Debug, Default, Clone)]
pub struct Erasures {
    /// Memories and insights forgotten, and memories removed with a note that is gone.
    ids: std::collections::HashSet<String>,
    /// Notes gone from this device (deleted, renamed away, excluded): the latest version of
    /// their record removed.
    notes: HashMap<String, Millis>,
    /// How many tombstones they were read from (see `log_purged`).
    tombstone_count: u64,
    /// Insights set aside here until a memory they cite arrives under its new path (a rename
    /// elsewhere, delivered in pieces): not removed, so their lines stay.
    waiting: std::collections::HashSet<String>,
}

impl Erasures {
    /// Whether `entry` holds text the user removed.
    pub fn erases(&self, entry: &LogEntry) -> bool {
        match entry {
            LogEntry::Note { source, memories, .. } => {
                self.notes.get(&source.path).is_some_and(|removed| *removed >= source.updated_at)
                    || memories.iter().any(|memory| self.ids.contains(&memory.id.0))
            }
            LogEntry::Memory { memory } => self.ids.contains(&memory.id.0),
            LogEntry::Insight { insight } => {
                self.ids.contains(&insight.id.0)
                    || (!self.waiting.contains(&insight.id.0)
                        && insight.memory_ids.iter().any(|id| self.ids.contains(&id.0)))
            }
            // Removals carry ids and a note's path, never its text; usage has none.
            LogEntry::Removed { .. } | LogEntry::Usage { .. } => false,
        }
    }
}

impl LogEntry {
    /// What the entry is the state of: of two entries of one key in a device's log, the one
    /// written later holds all the other did.
    pub fn key(&self) -> String {
        match self {
            LogEntry::Note { source, .. } => format!("note\t{}", source.path),
            LogEntry::Removed { tombstone } => format!("removed\t{tombstone}"),
            LogEntry::Memory { memory } => format!("memory\t{}", memory.id.0),
            LogEntry::Insight { insight } => format!("insight\t{}", insight.id.0),
            LogEntry::Usage { device, usage } => format!("usage\t{}", usage_key(device, &usage.day, &usage.agent)),
        }
    }
}

/// A line of a log file as read.
pub enum ReadLine {
    Entry { at: Millis, entry: Box<LogEntry> },
    Blank,
    Unreadable,
    Newer,
}

/// Reads one line of a log file (its newline included or not).
pub fn read_line(line: &[u8]) -> ReadLine {
    match super::log_v1::decode_line(line) {
        DecodedLine::Entry { at, entry } => ReadLine::Entry { at, entry },
        DecodedLine::Blank => ReadLine::Blank,
        DecodedLine::Unreadable => ReadLine::Unreadable,
        DecodedLine::Newer => ReadLine::Newer,
    }
}

/// The outbox key of a usage row.
pub(super) fn usage_key(device: &str, day: &str, agent: &str) -> String {
    format!("{device}\t{day}\t{agent}")
}

/// A note as one entry has it: its record, memories and quiet chunks.
struct NoteVersion(Source, Vec<Memory>, Option<Vec<u8>>);

/// A read's entries, each note at its version remembered last (a note written twice in one
/// read counts once: the merge compares that one with this database's).
#[derive(Default)]
struct ReadEntries {
    notes: HashMap<String, NoteVersion>,
    seen: std::collections::HashSet<String>,
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
            // A line read twice in one read (written again after a crash cut its
            // acknowledgement) is one entry: replay is idempotent line by line.
            LogEntry::Memory { memory } => {
                if self.seen.insert(format!("memory\t{}", memory.id.0)) {
                    self.theirs.memories.push(memory);
                }
            }
            LogEntry::Insight { insight } => {
                if self.seen.insert(format!("insight\t{}", insight.id.0)) {
                    self.theirs.insights.push(insight);
                }
            }
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
