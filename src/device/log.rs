//! A device's log in the vault: appends, replay, purges and compaction, over `VaultFiles`.
//!
//! What a line holds and how a replay merges it is the store's (`store/log.rs`); where lines go,
//! when files are sealed, read, rewritten and removed is decided here, once, for the plugin,
//! the command and the simulation alike.
//!
//! Invariants:
//! - Only this device writes in its folder, and no file is overwritten in place: a purge or a
//!   compaction writes new files (new numbers) first and removes the old ones after, so a crash
//!   at any step leaves every entry in some file (twice at worst, and replay is idempotent).
//! - Compaction and purges read the files, never the database: a database that is behind (new,
//!   rebuilt, restored from a copy) can make a purge keep more, never lose an entry.
//! - Replay reads a file from its cursor and merges it in slices of whole lines, pausing
//!   between them, so other work never waits long behind a large log.

use std::cell::{Cell, RefCell};
use std::collections::{BTreeSet, HashMap};
use std::fmt;

use super::files::{Listing, VaultFiles};
use super::layout::{
    device_log_folder, is_device_id, is_log_like, line_pieces, log_file_for, log_file_kind, log_file_name,
    log_file_number, next_file_number, LogFileName, COMPACTED_FILE_LIMIT, SEAL_AT,
};
use crate::domain::Millis;
use crate::engine::Engine;
use crate::store::{read_line, Erasures, LogEntry, ReadLine, SkippedLine, SqlDriver, StoreError};

/// A replay merges at most this many bytes of lines in one transaction: the longest other
/// work waits behind it (≈ 250 memories, about 50 ms in the plugin's core on a 2-core
/// desktop, a few times that on a phone: under the 0.5 s a question may wait). Each slice
/// costs a commit and a segment of the full-text index, so smaller ones make a rebuild slower
/// (`npm run bench -- --only=log`: 64 KB took 10.1 s for 50,000 memories, 256 KB 9.0 s).
pub const REPLAY_SLICE_BYTES: u64 = 256 * 1024;

/// The largest line a replay reads: a note's entry with the most memories a line may hold
/// (`store::log_checks`) stays far under it. A longer line is skipped without being decoded.
pub const MAX_LINE_BYTES: u64 = 4 * 1024 * 1024;

/// The largest file a replay reads: a device seals its open file at `SEAL_AT` and compacts into
/// files of `COMPACTED_FILE_LIMIT` (a line is never split, so one may hold one long line more).
/// A larger file in a device folder is none of Memory Agent's: it is named and left unread, so
/// no size of file can hold the worker or its memory.
pub const MAX_LOG_FILE_BYTES: u64 = 4 * COMPACTED_FILE_LIMIT + MAX_LINE_BYTES;

/// Compaction is due when a device's folder holds this many small sealed files (then they are
/// merged into large ones)…
pub const COMPACT_SMALL_FILES: usize = 16;
/// …and it merges the large ones too once there are this many and the folder has doubled
/// since the last time it did: what a device rewrites stays within a few times what it
/// writes, however large its log grows.
pub const COMPACT_LARGE_FILES: usize = 4;

/// The `meta` key of the bytes the last compaction of every file of this device wrote.
const FULL_COMPACTION_KEY: &str = "log_full_compaction_bytes";

/// The `meta` key of the highest log file number this device used.
const LAST_NUMBER_KEY: &str = "log_last_file_number";

/// What went wrong: the store, or a file the host could not read or write.
#[derive(Debug)]
pub enum DeviceLogError {
    Store(StoreError),
    File(String),
    /// The settings name no folder a device's log can be in.
    InvalidDevice(String),
}

impl fmt::Display for DeviceLogError {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DeviceLogError::Store(error) => write!(formatter, "{error}"),
            DeviceLogError::File(error) => write!(formatter, "{error}"),
            DeviceLogError::InvalidDevice(device) => write!(formatter, "`{device}` cannot name a device's log folder"),
        }
    }
}

impl std::error::Error for DeviceLogError {}

impl crate::error::ErrorCode for DeviceLogError {
    fn code(&self) -> &'static str {
        match self {
            DeviceLogError::Store(error) => error.code(),
            DeviceLogError::File(_) => "log.file",
            DeviceLogError::InvalidDevice(_) => "log.invalid_device",
        }
    }
}

impl From<StoreError> for DeviceLogError {
    fn from(error: StoreError) -> Self {
        DeviceLogError::Store(error)
    }
}

/// What one `DeviceLog::sync` did to this device's own files.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct LogSync {
    /// Entries appended.
    pub appended: usize,
    /// Bytes appended (what a sync tool uploads for them, with the file they went to).
    pub appended_bytes: u64,
    /// Files rewritten without what the user removed.
    pub purged_files: usize,
    /// Files merged by a compaction, and the bytes before and after.
    pub compacted_files: usize,
    pub compacted_bytes_before: u64,
    pub compacted_bytes_after: u64,
    /// Files written whole (by a purge or a compaction), with the largest one's size.
    pub files_written: usize,
    pub largest_written: u64,
}

/// A file whose lines could not all be replayed (the rest of the vault's logs still were).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ReplayProblem {
    /// The file's vault path.
    pub path: String,
    /// Damaged or refused lines skipped.
    pub unreadable: usize,
    /// The first of them: where, and why.
    pub first_skipped: Option<SkippedLine>,
    /// Lines of a newer Memory Agent, kept in the file and left for it.
    pub newer: bool,
    /// Why the file (or its rest) could not be replayed, if it could not.
    pub error: Option<String>,
}

impl ReplayProblem {
    /// The file at `path` (or its rest) was not read, for `why`.
    fn not_read(path: String, why: String) -> Self {
        ReplayProblem { path, unreadable: 0, first_skipped: None, newer: false, error: Some(why) }
    }
}

/// What replaying the vault's logs did.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct LogReplay {
    /// Files read (from their cursor on) and entries taken.
    pub files: usize,
    pub entries: usize,
    /// Entries that changed something here (from any device, this one's own included).
    pub merged: usize,
    /// Entries taken from other devices' files.
    pub from_others: usize,
    pub problems: Vec<ReplayProblem>,
}

/// How far the replay in progress is, for the status: bytes taken of bytes to read.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ReplayProgress {
    pub done_bytes: u64,
    pub total_bytes: u64,
    /// A replay is running (before the first one and after each, false).
    pub running: bool,
}

/// The sizes the runtime works with: `Limits::default()` everywhere but in tests, which make
/// them small to reach every path (sealing, compaction, slices) with a few entries.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    pub seal_at: u64,
    pub compacted_file_limit: u64,
    pub compact_small_files: usize,
    pub compact_large_files: usize,
    pub replay_slice_bytes: u64,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            seal_at: SEAL_AT,
            compacted_file_limit: COMPACTED_FILE_LIMIT,
            compact_small_files: COMPACT_SMALL_FILES,
            compact_large_files: COMPACT_LARGE_FILES,
            replay_slice_bytes: REPLAY_SLICE_BYTES,
        }
    }
}

/// One device's log runtime: its folder, and what it learnt this session.
pub struct DeviceLog {
    memory_folder: String,
    device: String,
    limits: Limits,
    /// Own files whose end was looked at this session (an append a crash cut short is closed
    /// by a newline before the next one).
    tails_checked: RefCell<BTreeSet<String>>,
    progress: Cell<ReplayProgress>,
}

impl DeviceLog {
    /// The runtime of `device` over `memory_folder` (vault-relative).
    pub fn new(memory_folder: &str, device: &str) -> Result<Self, DeviceLogError> {
        if !is_device_id(device) {
            return Err(DeviceLogError::InvalidDevice(device.to_owned()));
        }
        Ok(DeviceLog {
            memory_folder: memory_folder.trim_end_matches('/').to_owned(),
            device: device.to_owned(),
            limits: Limits::default(),
            tails_checked: RefCell::default(),
            progress: Cell::default(),
        })
    }

    /// The same runtime with other sizes (tests and the simulation).
    pub fn with_limits(mut self, limits: Limits) -> Self {
        debug_assert!(
            limits.seal_at > 0 && limits.compacted_file_limit >= limits.seal_at && limits.compact_small_files > 0
        );
        self.limits = limits;
        self
    }

    /// This device's log folder.
    pub fn own_folder(&self) -> String {
        device_log_folder(&self.memory_folder, &self.device)
    }

    /// The memory folder.
    pub fn memory_folder(&self) -> &str {
        &self.memory_folder
    }

    /// How far the replay running (or the last one) is.
    pub fn replay_progress(&self) -> ReplayProgress {
        self.progress.get()
    }

    /// Whether `path` is a log file of another device (a vault event about it means: replay).
    pub fn is_other_device_file(&self, path: &str) -> bool {
        self.log_file_of(path).is_some_and(|(device, _)| device != self.device)
    }

    /// `path` as `(device, file name)` when it is a log file under the memory folder.
    fn log_file_of<'a>(&self, path: &'a str) -> Option<(&'a str, &'a str)> {
        let rest = path.strip_prefix(&self.memory_folder)?.strip_prefix('/')?;
        let (device, name) = rest.split_once('/')?;
        (is_device_id(device) && !name.contains('/') && is_log_like(name)).then_some((device, name))
    }

    // Writing.

    /// Appends what this device changed and has not written yet, then rewrites the files that
    /// hold what the user removed (when a removal came since), then compacts when due.
    pub async fn sync<D: SqlDriver>(
        &self,
        engine: &Engine<D>,
        files: &impl VaultFiles,
        now: Millis,
    ) -> Result<LogSync, DeviceLogError> {
        let mut sync = LogSync::default();
        self.append_outgoing(engine, files, now, &mut sync).await?;
        self.remove_conflict_copies(engine, files, now).await?;
        if engine.store().log_purge_due()? {
            self.purge(engine, files, now, &mut sync).await?;
        }
        self.compact_if_due(engine, files, &mut sync).await?;
        Ok(sync)
    }

    async fn own_files(&self, files: &impl VaultFiles) -> Result<Vec<(String, u64)>, DeviceLogError> {
        let listing = files.list(&self.own_folder()).await.map_err(DeviceLogError::File)?;
        let mut own: Vec<(String, u64)> =
            listing.files.into_iter().filter(|(name, _)| log_file_number(name).is_some()).collect();
        own.sort();
        Ok(own)
    }

    fn own_path(&self, name: &str) -> String {
        format!("{}/{name}", self.own_folder())
    }

    async fn append_outgoing<D: SqlDriver>(
        &self,
        engine: &Engine<D>,
        files: &impl VaultFiles,
        now: Millis,
        sync: &mut LogSync,
    ) -> Result<(), DeviceLogError> {
        let outgoing = engine.outgoing_log(now)?;
        if outgoing.upto == 0 {
            return Ok(());
        }
        let mut own = self.own_files(files).await?;
        let mut last: Option<(String, u64)> = None;
        for piece in line_pieces(&outgoing.text, self.limits.seal_at) {
            let name = match log_file_for(&own, piece.len() as u64, self.limits.seal_at) {
                // A new file: past every number used, also one a purge or compaction removed.
                name if !own.iter().any(|(known, _)| *known == name) => log_file_name(self.next_number(engine, &own)?),
                name => name,
            };
            self.number_used(engine, &name)?;
            let path = self.own_path(&name);
            let size_before = own.iter().find(|(known, _)| *known == name).map_or(0, |(_, size)| *size);
            let text =
                if self.cut_short(files, &path, size_before).await? { format!("\n{piece}") } else { piece.to_owned() };
            let size = files.append(&path, &text).await.map_err(DeviceLogError::File)?;
            self.tails_checked.borrow_mut().insert(path);
            sync.appended_bytes += text.len() as u64;
            own.retain(|(known, _)| *known != name);
            own.push((name.clone(), size));
            last = Some((name, size));
        }
        // Nothing to write (what the keys were about is gone): the newest file stays as it is.
        let (name, size) = last.or_else(|| own.iter().max().cloned()).unwrap_or_else(|| (log_file_name(1), 0));
        engine.log_appended(outgoing.upto, &name, size)?;
        sync.appended += outgoing.entries;
        Ok(())
    }

    /// Whether this device's file ends inside a line: an append a crash cut short. Looked at
    /// once a session, before the first append to the file (the cut line was never
    /// acknowledged, so its entries are written again after it).
    async fn cut_short(&self, files: &impl VaultFiles, path: &str, size: u64) -> Result<bool, DeviceLogError> {
        if size == 0 || self.tails_checked.borrow().contains(path) {
            return Ok(false);
        }
        let tail = files.read(path, size - 1).await.map_err(DeviceLogError::File)?;
        Ok(tail.is_some_and(|tail| tail.last().is_some_and(|byte| *byte != b'\n')))
    }

    /// A sync tool's conflict copies of this device's files (`000003 2.jsonl`) hold lines this
    /// device wrote, whose latest states its own files keep: once replayed here they go (and
    /// with them any text a purge took out of the originals). Only this device removes them:
    /// the folder is its own.
    async fn remove_conflict_copies<D: SqlDriver>(
        &self,
        engine: &Engine<D>,
        files: &impl VaultFiles,
        now: Millis,
    ) -> Result<(), DeviceLogError> {
        let listing = files.list(&self.own_folder()).await.map_err(DeviceLogError::File)?;
        let copies: Vec<String> = listing
            .files
            .into_iter()
            .filter(|(name, _)| is_log_like(name) && log_file_kind(name) == LogFileName::ConflictCopy)
            .map(|(name, _)| self.own_path(&name))
            .collect();
        if copies.is_empty() {
            return Ok(());
        }
        let replayed = self.replay_paths(engine, files, &copies, now).await?;
        for path in copies {
            // One a newer version wrote, or one that could not be read, stays.
            if replayed
                .problems
                .iter()
                .any(|problem| problem.path == path && (problem.newer || problem.error.is_some()))
            {
                continue;
            }
            files.remove(&path).await.map_err(DeviceLogError::File)?;
            let name = path.rsplit('/').next().unwrap_or_default();
            engine.store().forget_log_cursor(&self.device, name)?;
        }
        Ok(())
    }

    /// The next free file number: past the files there and past every number this database saw
    /// used, so that no name is ever used twice (another device's cursor of a removed file
    /// would skip the start of a new file of the same name).
    fn next_number<D: SqlDriver>(&self, engine: &Engine<D>, own: &[(String, u64)]) -> Result<u32, DeviceLogError> {
        let used: u32 =
            engine.store().get_meta(&self.last_number_key())?.and_then(|number| number.parse().ok()).unwrap_or(0);
        Ok(next_file_number(own).max(used.saturating_add(1)))
    }

    fn number_used<D: SqlDriver>(&self, engine: &Engine<D>, name: &str) -> Result<(), DeviceLogError> {
        let number = log_file_number(name).unwrap_or(0);
        let used: u32 =
            engine.store().get_meta(&self.last_number_key())?.and_then(|number| number.parse().ok()).unwrap_or(0);
        if number > used {
            engine.store().set_meta(&self.last_number_key(), &number.to_string())?;
        }
        Ok(())
    }

    /// Per device: a database that came from another device (an upgrade) keeps that one's.
    fn last_number_key(&self) -> String {
        format!("{LAST_NUMBER_KEY}:{}", self.device)
    }

    /// Rewrites each of this device's files that holds an entry the user removed (a forget, a
    /// deleted or excluded note, here or replayed from another device) without it: the new
    /// file first, then the old one goes. Removals themselves carry ids and paths, never text.
    async fn purge<D: SqlDriver>(
        &self,
        engine: &Engine<D>,
        files: &impl VaultFiles,
        now: Millis,
        sync: &mut LogSync,
    ) -> Result<(), DeviceLogError> {
        let erasures = engine.store().erasures()?;
        self.log_erased_notes_again(engine, files, &erasures, now, sync).await?;
        let mut own = self.own_files(files).await?;
        for (name, _) in own.clone() {
            let Some(bytes) = files.read(&self.own_path(&name), 0).await.map_err(DeviceLogError::File)? else {
                continue;
            };
            let lines = OwnLine::read_all(&bytes);
            if !lines.iter().any(|line| line.erased(&erasures)) {
                continue;
            }
            let kept: Vec<&OwnLine> = lines.iter().filter(|line| !line.erased(&erasures)).collect();
            self.replace(engine, files, &mut own, &[name], &kept, self.limits.seal_at, sync).await?;
            sync.purged_files += 1;
        }
        engine.store().log_purged(&erasures)?;
        Ok(())
    }

    /// Every note of which a line is about to be erased, and that is still here, is written
    /// again as it is now (appended before any file is rewritten): the log must never lose a
    /// note with the forgotten text.
    async fn log_erased_notes_again<D: SqlDriver>(
        &self,
        engine: &Engine<D>,
        files: &impl VaultFiles,
        erasures: &Erasures,
        now: Millis,
        sync: &mut LogSync,
    ) -> Result<(), DeviceLogError> {
        let mut again = false;
        for (name, _) in self.own_files(files).await? {
            let Some(bytes) = files.read(&self.own_path(&name), 0).await.map_err(DeviceLogError::File)? else {
                continue;
            };
            for line in OwnLine::read_all(&bytes) {
                if let (true, ReadLine::Entry { entry, .. }) = (line.erased(erasures), &line.read) {
                    if let LogEntry::Note { source, .. } = entry.as_ref() {
                        again |= engine.store().log_note_again(&source.path)?;
                    }
                }
            }
        }
        if again {
            self.append_outgoing(engine, files, now, sync).await?;
        }
        Ok(())
    }

    /// Merges this device's small sealed files into large ones, each entry at its latest state,
    /// when there are `COMPACT_SMALL_FILES` of them (with the large ones too when there are
    /// `COMPACT_LARGE_FILES`).
    async fn compact_if_due<D: SqlDriver>(
        &self,
        engine: &Engine<D>,
        files: &impl VaultFiles,
        sync: &mut LogSync,
    ) -> Result<(), DeviceLogError> {
        let mut own = self.own_files(files).await?;
        let last_full: u64 =
            engine.store().get_meta(FULL_COMPACTION_KEY)?.and_then(|bytes| bytes.parse().ok()).unwrap_or(0);
        let Some(inputs) = compaction_inputs(&own, &self.limits, last_full) else { return Ok(()) };
        let full = inputs.len() == own.len();
        let erasures = engine.store().erasures()?;
        let mut lines: Vec<OwnLine> = Vec::new();
        for name in &inputs {
            if let Some(bytes) = files.read(&self.own_path(name), 0).await.map_err(DeviceLogError::File)? {
                lines.extend(OwnLine::read_all(&bytes));
            }
        }
        let kept = latest_states(&lines, &erasures);
        let before: u64 = own.iter().filter(|(name, _)| inputs.contains(name)).map(|(_, size)| size).sum();
        let after: u64 = kept.iter().map(|line| line.bytes.len() as u64).sum();
        self.replace(engine, files, &mut own, &inputs, &kept, self.limits.compacted_file_limit, sync).await?;
        if full {
            engine.store().set_meta(FULL_COMPACTION_KEY, &after.to_string())?;
        }
        sync.compacted_files += inputs.len();
        sync.compacted_bytes_before += before;
        sync.compacted_bytes_after += after;
        Ok(())
    }

    /// Writes `kept` as new files of at most `limit` bytes, then removes `old`: never the
    /// other way round. The new files count as replayed here (their lines were).
    #[allow(clippy::too_many_arguments)]
    async fn replace<D: SqlDriver>(
        &self,
        engine: &Engine<D>,
        files: &impl VaultFiles,
        own: &mut Vec<(String, u64)>,
        old: &[String],
        kept: &[&OwnLine],
        limit: u64,
        sync: &mut LogSync,
    ) -> Result<(), DeviceLogError> {
        let text: String = kept.iter().map(|line| line.text()).collect();
        for piece in line_pieces(&text, limit) {
            let name = log_file_name(self.next_number(engine, own)?);
            self.number_used(engine, &name)?;
            let path = self.own_path(&name);
            files.create(&path, piece).await.map_err(DeviceLogError::File)?;
            self.tails_checked.borrow_mut().insert(path);
            let size = piece.len() as u64;
            debug_assert!(size <= limit || piece.matches('\n').count() == 1, "a written file passed its limit");
            engine.store().log_file_written(&name, size)?;
            own.push((name, size));
            sync.files_written += 1;
            sync.largest_written = sync.largest_written.max(size);
        }
        for name in old {
            files.remove(&self.own_path(name)).await.map_err(DeviceLogError::File)?;
            engine.store().forget_log_cursor(&self.device, name)?;
            own.retain(|(known, _)| known != name);
        }
        Ok(())
    }

    // Reading.

    /// Replays every device's log files (this device's own too: what its database did not
    /// keep, after a crash or a rebuild) from their cursors.
    pub async fn replay_all<D: SqlDriver>(
        &self,
        engine: &Engine<D>,
        files: &impl VaultFiles,
        now: Millis,
    ) -> Result<LogReplay, DeviceLogError> {
        let root = files.list(&self.memory_folder).await.map_err(DeviceLogError::File)?;
        let mut found: Vec<(String, String, u64)> = Vec::new();
        let mut devices: Vec<&String> = root.folders.iter().filter(|device| is_device_id(device)).collect();
        devices.sort();
        // Its own first: what a crash kept from the database is back before anything else.
        devices.sort_by_key(|device| **device != self.device);
        for device in devices {
            let folder = device_log_folder(&self.memory_folder, device);
            let Listing { files: names, .. } = files.list(&folder).await.map_err(DeviceLogError::File)?;
            let mut names: Vec<(String, u64)> = names.into_iter().filter(|(name, _)| is_log_like(name)).collect();
            names.sort();
            found.extend(names.into_iter().map(|(name, size)| (device.clone(), name, size)));
        }
        self.replay_found(engine, files, found, now).await
    }

    /// Replays the given vault paths (log files a vault event said changed) from their cursors.
    pub async fn replay_paths<D: SqlDriver>(
        &self,
        engine: &Engine<D>,
        files: &impl VaultFiles,
        paths: &[String],
        now: Millis,
    ) -> Result<LogReplay, DeviceLogError> {
        let mut found = Vec::new();
        let mut by_folder: HashMap<String, Listing> = HashMap::new();
        for path in paths {
            let Some((device, name)) = self.log_file_of(path) else { continue };
            let folder = device_log_folder(&self.memory_folder, device);
            if !by_folder.contains_key(&folder) {
                let listing = files.list(&folder).await.map_err(DeviceLogError::File)?;
                by_folder.insert(folder.clone(), listing);
            }
            if let Some((_, size)) = by_folder[&folder].files.iter().find(|(known, _)| known == name) {
                found.push((device.to_owned(), name.to_owned(), *size));
            }
        }
        found.sort();
        found.dedup();
        self.replay_found(engine, files, found, now).await
    }

    async fn replay_found<D: SqlDriver>(
        &self,
        engine: &Engine<D>,
        files: &impl VaultFiles,
        found: Vec<(String, String, u64)>,
        now: Millis,
    ) -> Result<LogReplay, DeviceLogError> {
        self.progress.set(ReplayProgress { running: true, ..ReplayProgress::default() });
        let cursors: HashMap<(String, String), u64> =
            engine.log_cursors()?.into_iter().map(|cursor| ((cursor.device, cursor.file), cursor.offset)).collect();
        let mut report = LogReplay::default();
        let (found, oversized): (Vec<_>, Vec<_>) =
            found.into_iter().partition(|(_, _, size)| *size <= MAX_LOG_FILE_BYTES);
        for (device, name, size) in oversized {
            let path = format!("{}/{name}", device_log_folder(&self.memory_folder, &device));
            report.problems.push(ReplayProblem::not_read(
                path,
                format!(
                    "{:.1} MB is more than a log file of Memory Agent can hold ({} MB): it was not read",
                    size as f64 / 1_048_576.0,
                    MAX_LOG_FILE_BYTES / 1_048_576
                ),
            ));
        }
        let (found, foreign): (Vec<_>, Vec<_>) =
            found.into_iter().partition(|(_, name, _)| log_file_kind(name) != LogFileName::Foreign);
        for (device, name, _) in foreign {
            let path = format!("{}/{name}", device_log_folder(&self.memory_folder, &device));
            report.problems.push(ReplayProblem::not_read(
                path,
                "its name is not one Memory Agent gives its log files (000001.jsonl, …) nor a sync tool's \
                 copy of one: it was not read"
                    .to_owned(),
            ));
        }
        // Only files that grew, or were replaced by a shorter one, are read at all.
        let due: Vec<(String, String, u64)> = found
            .into_iter()
            .filter_map(|(device, name, size)| {
                let cursor = cursors.get(&(device.clone(), name.clone())).copied().unwrap_or(0);
                let from = if size < cursor { 0 } else { cursor };
                (from < size).then_some((device, name, from, size - from))
            })
            .map(|(device, name, from, unread)| {
                let mut progress = self.progress.get();
                progress.total_bytes += unread;
                self.progress.set(progress);
                (device, name, from)
            })
            .collect();
        for (device, name, from) in due {
            let path = format!("{}/{name}", device_log_folder(&self.memory_folder, &device));
            if let Err(error) = self.replay_file(engine, files, &device, &name, &path, from, now, &mut report).await {
                // One file that cannot be read or merged never keeps the others from replaying.
                report.problems.push(ReplayProblem::not_read(path, error.to_string()));
            }
        }
        self.progress.set(ReplayProgress { running: false, ..self.progress.get() });
        Ok(report)
    }

    /// Replays one file from `from`, a slice of whole lines at a time, pausing between slices.
    #[allow(clippy::too_many_arguments)]
    async fn replay_file<D: SqlDriver>(
        &self,
        engine: &Engine<D>,
        files: &impl VaultFiles,
        device: &str,
        name: &str,
        path: &str,
        from: u64,
        now: Millis,
        report: &mut LogReplay,
    ) -> Result<(), DeviceLogError> {
        let Some(bytes) = files.read(path, from).await.map_err(DeviceLogError::File)? else { return Ok(()) };
        report.files += 1;
        let mut problem =
            ReplayProblem { path: path.to_owned(), unreadable: 0, first_skipped: None, newer: false, error: None };
        let mut offset = from;
        let mut rest: &[u8] = &bytes;
        while !rest.is_empty() {
            let slice = whole_lines_within(rest, self.limits.replay_slice_bytes);
            if slice.is_empty() {
                break; // a last line still being written or copied: read next time
            }
            if slice.len() as u64 > MAX_LINE_BYTES {
                // One line longer than any the format writes: skipped, not decoded.
                problem.unreadable += 1;
                let skipped = SkippedLine {
                    byte: offset,
                    line: None,
                    reason: format!("a line of {} bytes, longer than the log's {MAX_LINE_BYTES}", slice.len()),
                };
                problem.first_skipped.get_or_insert_with(|| numbered(skipped, from, &bytes));
                engine.skip_log_line(device, name, offset + slice.len() as u64)?;
                offset += slice.len() as u64;
                rest = &rest[slice.len()..];
                continue;
            }
            let replayed = engine.replay_log(device, name, offset, slice, now)?;
            debug_assert!(replayed.offset >= offset, "a replay moved its cursor back");
            report.entries += replayed.entries;
            report.merged += replayed.merged.total();
            if device != self.device {
                report.from_others += replayed.entries;
            }
            problem.unreadable += replayed.unreadable;
            if problem.first_skipped.is_none() {
                problem.first_skipped = replayed.first_skipped.map(|skipped| numbered(skipped, from, &bytes));
            }
            let taken = (replayed.offset - offset) as usize;
            let mut progress = self.progress.get();
            progress.done_bytes += taken as u64;
            self.progress.set(progress);
            problem.newer |= replayed.newer;
            offset = replayed.offset;
            rest = &rest[taken..];
            if taken < slice.len() {
                break;
            }
            files.pause().await;
        }
        if problem.unreadable > 0 || problem.newer {
            report.problems.push(problem);
        }
        Ok(())
    }
}

/// `skipped` with its line number, when the file was read from its start (`from` 0).
fn numbered(skipped: SkippedLine, from: u64, bytes: &[u8]) -> SkippedLine {
    let before = usize::try_from(skipped.byte.saturating_sub(from)).unwrap_or(usize::MAX).min(bytes.len());
    let line = (from == 0).then(|| 1 + bytes[..before].iter().filter(|byte| **byte == b'\n').count() as u64);
    SkippedLine { line, ..skipped }
}

/// The first whole lines of `bytes` within `limit` (at least one whole line when the first
/// is longer); empty when no line is whole yet.
fn whole_lines_within(bytes: &[u8], limit: u64) -> &[u8] {
    let limit = usize::try_from(limit).unwrap_or(usize::MAX);
    let mut end = 0;
    for (index, byte) in bytes.iter().enumerate() {
        if *byte == b'\n' {
            if end > 0 && index + 1 > limit {
                break;
            }
            end = index + 1;
            if end >= limit {
                break;
            }
        }
    }
    &bytes[..end]
}

/// Which of this device's files (name, size) a compaction merges now, if one is due: every
/// small file once `compact_small_files` are sealed; every file when there are also
/// `compact_large_files` large ones and the folder holds twice what the last such compaction
/// wrote (`last_full`), so that rewriting the large files costs, over a log's life, a bounded
/// multiple of what was appended.
fn compaction_inputs(own: &[(String, u64)], limits: &Limits, last_full: u64) -> Option<Vec<String>> {
    let newest = own.iter().filter_map(|(name, _)| log_file_number(name)).max()?;
    let small = |size: u64| size <= limits.seal_at;
    let small_sealed = own.iter().filter(|(name, size)| small(*size) && log_file_number(name) != Some(newest)).count();
    let large = own.iter().filter(|(_, size)| !small(*size)).count();
    if small_sealed < limits.compact_small_files {
        return None;
    }
    let total: u64 = own.iter().map(|(_, size)| size).sum();
    let all = large >= limits.compact_large_files && total >= last_full.saturating_mul(2);
    Some(own.iter().filter(|(_, size)| all || small(*size)).map(|(name, _)| name.clone()).collect())
}

/// One line of this device's own files, kept as its bytes (a line of a newer version is kept
/// as it is, never rewritten by this one).
struct OwnLine {
    bytes: Vec<u8>,
    read: ReadLine,
}

impl OwnLine {
    /// The whole lines of a file (an own file's cut last line is an append a crash cut short:
    /// its entries are written again from the outbox, so it is dropped with the file).
    fn read_all(bytes: &[u8]) -> Vec<OwnLine> {
        bytes
            .split_inclusive(|byte| *byte == b'\n')
            .filter(|line| line.last() == Some(&b'\n'))
            .map(|line| OwnLine { bytes: line.to_vec(), read: read_line(line) })
            .filter(|line| !matches!(line.read, ReadLine::Blank | ReadLine::Unreadable))
            .collect()
    }

    fn erased(&self, erasures: &Erasures) -> bool {
        matches!(&self.read, ReadLine::Entry { entry, .. } if erasures.erases(entry))
    }

    fn text(&self) -> &str {
        // Lines read as entries or as a newer format are UTF-8 (both parsed as JSON).
        std::str::from_utf8(&self.bytes).unwrap_or_default()
    }
}

/// Of `lines` (in the order they were read), for each key the line written last, unless it
/// holds what was erased, in their first order; lines of a newer version are all kept. A
/// device's log holds its state, not steps: the line it wrote last for a key is its state of
/// that key (the time it was written orders lines across files, since a compaction's output
/// has a new number but keeps its lines' times).
fn latest_states<'a>(lines: &'a [OwnLine], erasures: &Erasures) -> Vec<&'a OwnLine> {
    let mut latest: HashMap<String, (Millis, usize)> = HashMap::new();
    for (index, line) in lines.iter().enumerate() {
        let ReadLine::Entry { at, entry } = &line.read else { continue };
        let kept = latest.entry(entry.key()).or_insert((*at, index));
        if (*at, index) >= *kept {
            *kept = (*at, index);
        }
    }
    let keep: BTreeSet<usize> = latest.into_values().map(|(_, index)| index).collect();
    lines
        .iter()
        .enumerate()
        .filter(|(index, line)| match &line.read {
            ReadLine::Entry { .. } => keep.contains(index) && !line.erased(erasures),
            ReadLine::Newer => true,
            _ => false,
        })
        .map(|(_, line)| line)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slices_are_whole_lines_within_the_limit() {
        assert_eq!(whole_lines_within(b"ab\ncd\nef", 100), b"ab\ncd\n");
        assert_eq!(whole_lines_within(b"ab\ncd\nef\n", 4), b"ab\n");
        assert_eq!(whole_lines_within(b"abcdef\ngh\n", 3), b"abcdef\n", "one longer line alone");
        assert_eq!(whole_lines_within(b"abc", 3), b"");
    }

    #[test]
    fn compaction_waits_for_enough_sealed_small_files() {
        let limits = Limits::default();
        let files = |count: u32, large: u32| -> Vec<(String, u64)> {
            (1..=large)
                .map(|number| (log_file_name(number), SEAL_AT * 10))
                .chain((large + 1..=large + count).map(|number| (log_file_name(number), SEAL_AT - 1)))
                .collect()
        };
        assert_eq!(
            compaction_inputs(&files(COMPACT_SMALL_FILES as u32, 0), &limits, 0),
            None,
            "the newest is still open"
        );
        let due = compaction_inputs(&files(COMPACT_SMALL_FILES as u32 + 1, 2), &limits, 0).unwrap();
        assert_eq!(due.len(), COMPACT_SMALL_FILES + 1, "small files only");
        let many = files(COMPACT_SMALL_FILES as u32 + 1, COMPACT_LARGE_FILES as u32);
        let all = compaction_inputs(&many, &limits, 0).unwrap();
        assert_eq!(all.len(), COMPACT_SMALL_FILES + 1 + COMPACT_LARGE_FILES);
        let total: u64 = many.iter().map(|(_, size)| size).sum();
        let small_only = compaction_inputs(&many, &limits, total / 2 + 1).unwrap();
        assert_eq!(small_only.len(), COMPACT_SMALL_FILES + 1, "the large files wait until the folder doubled");
    }
}
