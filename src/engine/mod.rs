//! The engine: a durable job queue in the store, the triggers that fill it, and the
//! workers that run the agents on it.
//!
//! The plugin tells the engine what happened (a note changed, text to remember, a note
//! deleted or renamed) and calls `run_due_work`; the engine decides what to do and when.
//! Jobs go queued → running → done / failed; results are stored only when complete, and
//! re-running a job (after a crash, a retry) makes no duplicates: unchanged text is
//! recognised by its hash. When every call would fail until the user fixes the settings
//! (keys, region, model), the engine pauses itself instead of burning through attempts.
//!
//! Several notes' jobs run together when a worker claims them at once (up to
//! `ingest_batch_chunks`): each keeps its own logic and transaction, and only their model calls
//! are shared (`batcher`), several chunks in one `record_memories` call.
//!
//! The user's action wins over work in flight: a delete or rename of a note bumps the note's
//! fence (`fences`), and a job that began before stores its result only where the note is
//! now, or not at all; a pause stops every call not yet sent and survives a restart; closing
//! the store hands running jobs back untried and discards whatever they were waiting for.

mod batcher;
mod browse;
mod failure;
mod fences;
mod host;
mod ids;
mod metered;
mod reuse;
mod run;
mod settings;
mod spending;
mod triggers;

use std::cell::{Cell, RefCell};

use fences::Fences;
use std::rc::Rc;

pub use host::{Host, Progress, VaultFile};
pub use run::RunReport;
pub use settings::EngineSettings;
pub use spending::{record_cost_usd, IngestEstimate, IngestFile, Spent};

use crate::agents::AgentError;
pub use crate::domain::TextToRemember;
use crate::domain::{JobWork, Memory, MemoryId, Millis, NoteJob, Position, SourceKind};
use crate::hash::sha256_hex;
use crate::llm::{BedrockClient, BedrockConfig, LlmError};
use crate::store::{MemoryFilter, NewJob, Removal, SqlDriver, Store, StoreError};
use ids::IdGenerator;

/// Why the engine is not running jobs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Pause {
    /// The user paused it; kept in the store (`PAUSED_KEY`), so it holds after a restart.
    ByUser,
    /// Every call would fail until the user changes the settings (keys, region, model): the
    /// engine paused itself with the error's code (e.g. `llm.auth`) and words; a new connection
    /// lifts it.
    NeedsSettings { code: &'static str, message: String },
    /// A spending limit was reached; lifted once it no longer holds (a new day or month, a
    /// higher limit).
    SpendingLimit { period: LimitPeriod, message: String },
}

/// The period of a spending limit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LimitPeriod {
    Day,
    Month,
}

impl Pause {
    /// The user paused it (as opposed to the engine pausing itself).
    pub fn by_user(&self) -> bool {
        matches!(self, Pause::ByUser)
    }

    /// Why, in words for the user, with what lifts it.
    pub fn reason(&self) -> &str {
        match self {
            Pause::ByUser => "Paused by you.",
            Pause::NeedsSettings { message, .. } | Pause::SpendingLimit { message, .. } => message,
        }
    }

    /// The stable code of a pause the engine put itself in (`llm.auth`, `budget.daily`…).
    pub fn code(&self) -> Option<&'static str> {
        match self {
            Pause::ByUser => None,
            Pause::NeedsSettings { code, .. } => Some(code),
            Pause::SpendingLimit { period: LimitPeriod::Day, .. } => Some("budget.daily"),
            Pause::SpendingLimit { period: LimitPeriod::Month, .. } => Some("budget.monthly"),
        }
    }
}

/// The engine over one store.
pub struct Engine<D: SqlDriver> {
    store: Store<D>,
    settings: RefCell<EngineSettings>,
    client: RefCell<Option<Rc<BedrockClient>>>,
    pause: RefCell<Option<Pause>>,
    ids: IdGenerator,
    /// The at-start consolidation trigger fires once per session.
    start_trigger_checked: Cell<bool>,
    /// Only one `run_due_work` at a time; its workers pick up work queued meanwhile.
    running: Cell<bool>,
    finished: Cell<u64>,
    current: RefCell<Option<String>>,
    /// The entity names of the store, prepared for planning questions.
    names: crate::select::NameCache,
    /// Set once the store is closed: no job is started any more, whatever else happens.
    shut_down: Cell<bool>,
    /// Bumped by `stop_questions`: a question asked before the bump sends nothing more.
    question_epoch: Cell<u64>,
    /// What deletes and renames did to paths while jobs on them ran.
    fences: Fences,
    /// Running note jobs: the generation of their note's fence when they started.
    started: RefCell<std::collections::HashMap<i64, (String, u64)>>,
    /// The host's answer for exclusion rules only it can match (Obsidian's `/regex/` filters).
    host_rule: RefCell<Option<HostRule>>,
    /// While Bedrock throttles, no worker takes another job before this time.
    throttled_until: Cell<Millis>,
    /// Throttled jobs in a row: the wait doubles with each.
    throttle_streak: Cell<u32>,
    /// During an outage, one worker's job is the probe; the others wait for it.
    probing: Cell<bool>,
    /// Transient failures in a row of the job under each key (this session's): each waits
    /// longer. Forgotten at a restart, which only makes the next wait short again.
    transient_streaks: RefCell<std::collections::HashMap<String, u32>>,
    /// Memories of notes removed lately, in case their text returns under another name.
    removed_notes: reuse::RemovedNotes,
    /// The batch the consolidation running now was given (set aside if it fails for good).
    consolidating: RefCell<Vec<crate::domain::MemoryId>>,
}

/// What replaying part of another device's log did (`Engine::replay_log`).
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ReplayReport {
    /// Where the next read of the file starts.
    pub offset: u64,
    pub entries: usize,
    /// Damaged or refused lines skipped, and the first of them.
    pub unreadable: usize,
    pub first_skipped: Option<crate::store::SkippedLine>,
    /// Lines from a newer Memory Agent were met (kept in the file, skipped here).
    pub newer: bool,
    pub merged: crate::store::MergeReport,
}

/// A path rule the host evaluates.
pub type HostRule = Box<dyn Fn(&str) -> bool>;

/// The `meta` key that keeps the user's pause across restarts.
const PAUSED_KEY: &str = "paused_by_user";

impl<D: SqlDriver> Engine<D> {
    /// Takes over an opened store: jobs a crashed session left running are queued again,
    /// and a pause the user asked for holds again.
    pub fn new(store: Store<D>, id_seed: u64, now: Millis) -> Result<Self, StoreError> {
        store.requeue_interrupted_jobs(now)?;
        let paused = store.get_meta(PAUSED_KEY)?.is_some().then_some(Pause::ByUser);
        Ok(Engine {
            store,
            settings: RefCell::new(EngineSettings::default()),
            client: RefCell::new(None),
            pause: RefCell::new(paused),
            ids: IdGenerator::new(id_seed),
            start_trigger_checked: Cell::new(false),
            running: Cell::new(false),
            finished: Cell::new(0),
            current: RefCell::new(None),
            names: crate::select::NameCache::new(),
            shut_down: Cell::new(false),
            question_epoch: Cell::new(0),
            fences: Fences::default(),
            started: RefCell::default(),
            throttled_until: Cell::new(0),
            throttle_streak: Cell::new(0),
            probing: Cell::new(false),
            transient_streaks: RefCell::default(),
            removed_notes: reuse::RemovedNotes::default(),
            host_rule: RefCell::new(None),
            consolidating: RefCell::default(),
        })
    }

    /// Sets the rule for exclusions only the host can match (see `ScopeRules::ignore_filters`).
    pub fn set_host_rule(&self, rule: Option<HostRule>) {
        *self.host_rule.borrow_mut() = rule;
    }

    /// Why `path` is out of scope by its path, or `None`.
    pub(crate) fn path_exclusion(&self, path: &str) -> Option<String> {
        let host_rule = self.host_rule.borrow();
        let rule = |path: &str| host_rule.as_ref().is_some_and(|rule| rule(path));
        self.settings.borrow().scope.path_exclusion(path, &rule)
    }

    pub fn store(&self) -> &Store<D> {
        &self.store
    }

    pub fn settings(&self) -> EngineSettings {
        self.settings.borrow().clone()
    }

    /// New settings take effect for the next job.
    pub fn set_settings(&self, settings: EngineSettings) {
        *self.settings.borrow_mut() = settings;
    }

    /// Sets (or clears) the connection to Bedrock. A valid new connection lifts a pause the
    /// engine put itself in because of the old settings.
    pub fn configure_connection(&self, config: Option<BedrockConfig>, seed: u64) -> Result<(), LlmError> {
        let client = config.map(|config| BedrockClient::new(config, seed)).transpose()?;
        if let (Some(new), Some(old)) = (client.as_ref(), self.client.borrow().as_ref()) {
            new.keep_fallback_of(old);
        }
        let connected = client.is_some();
        *self.client.borrow_mut() = client.map(Rc::new);
        if connected && self.pause.borrow().as_ref().is_some_and(|pause| !pause.by_user()) {
            *self.pause.borrow_mut() = None;
        }
        Ok(())
    }

    /// The model id of the current connection, if any.
    pub fn connected_model(&self) -> Option<String> {
        self.client.borrow().as_ref().map(|client| client.model_id())
    }

    /// Why calls go to another model than the default one (Bedrock denied it), in words for
    /// the user; `None` while the configured model is used.
    pub fn model_fallback(&self) -> Option<String> {
        let client = self.client.borrow();
        let client = client.as_ref()?;
        client.fallback().map(|fallback| fallback.message(&client.config().region))
    }

    pub(crate) fn client(&self) -> Result<Rc<BedrockClient>, AgentError> {
        self.client.borrow().clone().ok_or_else(|| {
            AgentError::Model(LlmError::Config("Set up the connection to AWS Bedrock in the settings first.".into()))
        })
    }

    /// A note was created or changed (or found at start-up): (re)read it soon.
    pub fn enqueue_note(&self, path: &str, now: Millis) -> Result<i64, StoreError> {
        self.enqueue_note_paying_after(path, now, None)
    }

    /// `enqueue_note` for a change that may come from another device sharing the memory: the
    /// note is read at once and whatever costs nothing (unchanged text, a memory made
    /// elsewhere) is done, but no call is sent for it before `pay_after` — by then that
    /// device's memory of it has usually arrived and been merged. Reading at once matters when
    /// this device holds the memory the other one waits for (a note moved there arrives here as
    /// "deleted, created"): waiting too, both devices would pay.
    pub fn enqueue_note_paying_after(
        &self,
        path: &str,
        now: Millis,
        pay_after: Option<Millis>,
    ) -> Result<i64, StoreError> {
        let work = JobWork::IngestSource(NoteJob { path: path.to_owned(), pay_after, confirmed: false });
        self.store.enqueue_job(&NewJob { key: note_key(path), work }, now)
    }

    /// Until when the work waiting for the note at `path` waits for another device, if it does.
    fn queued_pay_after(store: &Store<D>, path: &str) -> Result<Option<Millis>, StoreError> {
        Ok(match store.queued_work(&note_key(path))? {
            Some(JobWork::IngestSource(NoteJob { pay_after, .. })) => pay_after,
            _ => None,
        })
    }

    /// Queues a note again for work the engine itself moves or repeats (a rename overtook a
    /// job, a note was found gone): a wait for another device, on the moved work or on work
    /// already queued for the note, is kept (the later of the two).
    pub(crate) fn requeue_note(&self, path: &str, now: Millis, pay_after: Option<Millis>) -> Result<i64, StoreError> {
        let waiting = Self::queued_pay_after(&self.store, path)?;
        self.enqueue_note_paying_after(path, now, pay_after.max(waiting))
    }

    /// Queues a selection or typed text to remember.
    pub fn enqueue_text(&self, text: &TextToRemember, now: Millis) -> Result<i64, StoreError> {
        if text.text.trim().is_empty() {
            return Err(StoreError::InvalidInput("There is no text to remember: select or type some first.".into()));
        }
        if text.kind == SourceKind::Note {
            return Err(StoreError::InvalidInput("Whole notes are remembered with enqueue_note.".into()));
        }
        let key = format!("text:{}", sha256_hex(format!("{}\n{}", text.source_path, text.text).as_bytes()));
        self.store.enqueue_job(&NewJob { key, work: JobWork::IngestText(text.clone()) }, now)
    }

    /// A note was deleted (or left the scope): its memories go, with the orphan fix, and
    /// work on it already in flight stores nothing.
    pub fn remove_note(&self, path: &str) -> Result<Removal, StoreError> {
        self.fences.deleted(path);
        self.keep_removed(path)?;
        self.store.transaction(|store| {
            store.drop_jobs(&note_key(path))?;
            Self::remove_if_here(store, path)
        })
    }

    /// A note gone from this vault (or left out here) leaves the memory, and every device's
    /// through the log — unless this device never read it: a note known only from another
    /// device's log (its file not brought here yet, or never: a sync tool's selective sync)
    /// leaves this database only. Its removal is the devices' that had it (a delete travels as
    /// a file deletion too).
    fn remove_if_here(store: &Store<D>, path: &str) -> Result<Removal, StoreError> {
        if store.source_here(path)? {
            store.remove_source(path)
        } else {
            store.remove_source_here_only(path)
        }
    }

    /// A note was renamed: its memories follow, no model call. Work queued for the old
    /// path is re-pointed at the new one.
    pub fn rename_note(&self, old_path: &str, new_path: &str, now: Millis) -> Result<(), StoreError> {
        self.fences.renamed(old_path, new_path);
        self.store.transaction(|store| {
            store.rename_source(old_path, new_path, now)?;
            // Work waiting under the old path moves to the new one, still waiting for another
            // device's memory if it did (a running job lands there by its fence).
            let pay_after = Self::queued_pay_after(store, old_path)?;
            if store.drop_jobs(&note_key(old_path))? > 0 {
                self.requeue_note(new_path, now, pay_after)?;
            }
            Ok(())
        })
    }

    /// Merges another device's copy of the memory into this one (`Store::merge_from`); the paid
    /// note memories it displaces are kept a while, in case their text turns up here.
    pub fn merge_copy<E: SqlDriver>(
        &self,
        theirs: &crate::store::Store<E>,
    ) -> Result<crate::store::MergeReport, StoreError> {
        self.merge_copy_rechecking(theirs, None)
    }

    /// `merge_copy`; with `now`, each note whose record came from the other copy is also read
    /// again here unless work on it already waits: when both devices edited a note at once, the
    /// sync tool may have kept this device's text while the other's record won, and the store
    /// must describe the note as it is here (usually a hash and nothing more; a memory this
    /// device made of its own text, displaced by the merge, is copied back). The text here may
    /// also be the other device's, its memory still on the way: no call before the wait.
    pub fn merge_copy_rechecking<E: SqlDriver>(
        &self,
        theirs: &crate::store::Store<E>,
        now: Option<Millis>,
    ) -> Result<crate::store::MergeReport, StoreError> {
        let outcome = self.store.merge_from_keeping(theirs)?;
        self.keep_removed_memories(outcome.displaced);
        if let Some(now) = now {
            self.recheck_adopted_notes(&outcome.adopted, now)?;
        }
        Ok(outcome.merged)
    }

    /// What this device changed and has not yet appended to its log (`store/log.rs`).
    pub fn outgoing_log(&self, now: Millis) -> Result<crate::store::OutgoingLog, StoreError> {
        self.store.outgoing_log(now)
    }

    /// The host appended `outgoing_log`'s lines up to `upto` to this device's log file `file`,
    /// which is now `size` bytes long.
    pub fn log_appended(&self, upto: i64, file: &str, size: u64) -> Result<(), StoreError> {
        let device = self.store.device();
        self.store.log_appended(&device, upto, file, size)
    }

    /// How far each device's log file was replayed into this database.
    pub fn log_cursors(&self) -> Result<Vec<crate::store::LogCursor>, StoreError> {
        self.store.log_cursors()
    }

    /// Replays `bytes` read at `offset` from `device`'s log file `file` (see
    /// `Store::replay_log`). As with a merged copy, the paid note memories it displaces are kept
    /// a while for reuse, and each note whose record came from another device is read again
    /// here (its wait before any call following it), since the text here may differ.
    pub fn replay_log(
        &self,
        device: &str,
        file: &str,
        offset: u64,
        bytes: &[u8],
        now: Millis,
    ) -> Result<ReplayReport, StoreError> {
        let replayed = self.store.replay_log(device, file, offset, bytes, now)?;
        self.keep_removed_memories(replayed.outcome.displaced);
        if device != self.store.device() {
            self.recheck_adopted_notes(&replayed.outcome.adopted, now)?;
        }
        Ok(ReplayReport {
            offset: replayed.offset,
            entries: replayed.entries,
            unreadable: replayed.unreadable,
            first_skipped: replayed.first_skipped,
            newer: replayed.newer,
            merged: replayed.outcome.merged,
        })
    }

    /// A line of a device's file skipped unread: replay goes on after it (`offset`).
    pub fn skip_log_line(&self, device: &str, file: &str, offset: u64) -> Result<(), StoreError> {
        self.store.skip_log_bytes(device, file, offset)
    }

    fn recheck_adopted_notes(&self, adopted: &[String], now: Millis) -> Result<(), StoreError> {
        let wait = Millis::try_from(self.settings().other_device_wait_ms).unwrap_or(Millis::MAX / 2);
        let pay_after = Some(now.saturating_add(wait));
        let checks: Vec<NewJob> = adopted
            .iter()
            .map(|path| NewJob {
                key: note_key(path),
                work: JobWork::IngestSource(NoteJob { path: path.clone(), pay_after, confirmed: false }),
            })
            .collect();
        // In one statement: a rebuild adopts thousands of notes.
        self.store.enqueue_missing_jobs(&checks, now).map(|_| ())
    }

    /// The user forgets one memory; its insights go and their other memories re-open.
    pub fn forget_memory(&self, id: &MemoryId) -> Result<Removal, StoreError> {
        // Forgotten text is not copied back from a removed note's memories either.
        if let Some(hash) = self.store.get_memory(id)?.and_then(|memory| memory.content_hash) {
            self.removed_notes.drop_content(&hash);
        }
        self.store.forget_memory(id)
    }

    pub fn list_memories(&self, filter: &MemoryFilter) -> Result<Vec<Memory>, StoreError> {
        self.store.list_memories(filter)
    }

    /// The store is being closed (unload, reload from disk): no job starts and no call is
    /// sent from now on; running jobs go back to the queue untried (before the caller's last
    /// save), and what they were waiting for is discarded when it arrives.
    pub fn shut_down(&self, now: Millis) -> Result<(), StoreError> {
        self.shut_down.set(true);
        self.store.transaction(|store| {
            // A job a delete or rename overtook is not handed back under its old path.
            for (id, (path, generation)) in self.started.borrow_mut().drain() {
                match self.fences.landing(&path, generation) {
                    Some(landing) if landing == path => {}
                    moved => {
                        store.delete_job(id)?;
                        if let Some(moved) = moved {
                            self.enqueue_note(&moved, now)?;
                        }
                    }
                }
            }
            store.release_running_jobs(now).map(|_| ())
        })
    }

    pub fn is_shut_down(&self) -> bool {
        self.shut_down.get()
    }

    /// The user stopped the questions in flight: from now on none of them sends another
    /// request (no retry, no second pass, no smaller second try); a reply already on its way
    /// is still metered when it arrives, so nothing is billed twice or lost from the usage.
    /// Questions asked after this are not affected.
    pub fn stop_questions(&self) {
        self.question_epoch.set(self.question_epoch.get().wrapping_add(1));
    }

    /// Whether a question that started at `epoch` was stopped since (or the store closed).
    fn question_stopped(&self, epoch: u64) -> bool {
        self.is_shut_down() || self.question_epoch.get() != epoch
    }

    /// The epoch a question starting now belongs to (for `question_stopped`).
    fn question_started(&self) -> u64 {
        self.question_epoch.get()
    }

    /// Queues several notes at once (a reconciliation); returns how many.
    pub fn enqueue_notes(&self, paths: &[String], now: Millis) -> Result<usize, StoreError> {
        self.store.transaction(|_| {
            for path in paths {
                self.enqueue_note(path, now)?;
            }
            Ok(paths.len())
        })
    }

    /// Several notes were found gone (a reconciliation) or left the scope: what went,
    /// together. A note whose work waits for another device is left to that work: its record
    /// came with that device's log, and its file may still be on its way here (removing it
    /// would remove it on every device); the work removes it if the file has not come by the
    /// end of the wait.
    pub fn remove_notes(&self, paths: &[String]) -> Result<Removal, StoreError> {
        self.store.transaction(|store| {
            let mut total = Removal::default();
            for path in paths {
                if Self::queued_pay_after(store, path)?.is_some() {
                    continue;
                }
                self.fences.deleted(path);
                self.keep_removed(path)?;
                store.drop_jobs(&note_key(path))?;
                let removal = Self::remove_if_here(store, path)?;
                total.memories.extend(removal.memories);
                total.consolidations.extend(removal.consolidations);
                total.reopened.extend(removal.reopened);
            }
            Ok(total)
        })
    }

    /// What a question's prompt would carry, without asking the model (no cost); only
    /// memories inside `scope` when one is given.
    pub fn recall(
        &self,
        question: &str,
        today: crate::calendar::CalendarDate,
        utc_offset_minutes: i32,
        budget_tokens: Option<usize>,
        scope: Option<&crate::store::MemoryScope>,
    ) -> Result<crate::select::Selection, StoreError> {
        let settings = self.settings();
        crate::select::select_context(
            &self.store,
            &crate::select::SelectionRequest {
                question,
                today,
                utc_offset_minutes,
                date_order: settings.date_order,
                budget_tokens: budget_tokens.unwrap_or(settings.query_budget_tokens),
                names: &self.names,
                hint: None,
                earlier: &[],
                scope,
            },
        )
    }

    /// The user pauses work: no job starts and no call of a running job is sent (the job goes
    /// back to the queue untried). The pause is kept in the store, so it holds after a restart
    /// until the user resumes.
    pub fn pause(&self) -> Result<(), StoreError> {
        *self.pause.borrow_mut() = Some(Pause::ByUser);
        self.store.set_meta(PAUSED_KEY, "1")
    }

    /// Lifts any pause, the user's or the engine's own.
    pub fn resume(&self) -> Result<(), StoreError> {
        *self.pause.borrow_mut() = None;
        self.store.delete_meta(PAUSED_KEY)
    }

    /// Whether calls for queued work may be sent now (not paused, not closed).
    pub(crate) fn may_send_for_jobs(&self) -> bool {
        self.pause.borrow().is_none() && !self.shut_down.get()
    }

    pub fn paused(&self) -> Option<Pause> {
        self.pause.borrow().clone()
    }

    /// Failed jobs get a fresh set of attempts. `by_the_user`: the user chose Retry failed,
    /// which also answers the files that wait for them (`NoteJob::confirmed`); a retry the
    /// plugin makes on its own (after a rebuild) leaves those waiting.
    pub fn retry_failed(&self, now: Millis, by_the_user: bool) -> Result<usize, StoreError> {
        self.store.retry_failed_consolidations()?;
        self.store.retry_failed_jobs(now, by_the_user)
    }

    pub fn progress(&self) -> Result<Progress, StoreError> {
        let status = self.store.status()?;
        Ok(Progress {
            finished: self.finished.get(),
            queued: status.queued,
            running: status.running,
            failed: status.failed,
            current: self.current.borrow().clone(),
            paused: self.pause.borrow().as_ref().map(|pause| pause.reason().to_owned()),
        })
    }

    /// Every call would fail until the settings change: work waits for the user.
    fn pause_itself(&self, error: &AgentError) {
        use crate::error::ErrorCode;
        *self.pause.borrow_mut() = Some(Pause::NeedsSettings { code: error.code(), message: error.to_string() });
    }

    /// The store is still this engine's to write: nothing arriving after `shut_down` is kept.
    pub(crate) fn still_owned(&self) -> Result<(), AgentError> {
        if self.shut_down.get() {
            return Err(AgentError::Model(LlmError::Stopped));
        }
        Ok(())
    }

    fn position(heading: Option<String>, line_start: u32, line_end: u32) -> Position {
        Position { heading, line_start: Some(line_start), line_end: Some(line_end) }
    }

    /// A new id with `prefix` that no memory or insight has yet.
    fn fresh_id(&self, prefix: &str, now: Millis) -> Result<String, StoreError> {
        loop {
            let id = self.ids.next(prefix, now);
            let taken = if prefix == "m" {
                self.store.memory_exists(&MemoryId(id.clone()))?
            } else {
                self.store.get_consolidation(&crate::domain::ConsolidationId(id.clone()))?.is_some()
            };
            if !taken {
                return Ok(id);
            }
        }
    }
}

/// The queue key of a note's ingest: one job per note at a time.
fn note_key(path: &str) -> String {
    format!("note:{path}")
}
