//! Running the queue: workers claim due jobs, run the agents, and settle each job as
//! done, waiting for a later try, failed for good, or handed back untried when the engine
//! pauses (what a failure means is decided in `failure.rs`).

use std::cell::RefCell;
use std::collections::BTreeSet;

use futures_util::future::join_all;
use serde::Serialize;

use super::batcher::{Batcher, Outcome, OwnedInput, Seat};
use super::failure::{self, JobError, Next};
use super::host::{Host, VaultFile};
use super::metered::MeteredModel;
use super::triggers::LAST_CONSOLIDATION_KEY;
use super::Engine;
use crate::agents::consolidate::find_insights;
use crate::agents::excerpt::Focus;
use crate::agents::ingest::{extract, ExtractedMemory, Extraction, IngestInput};
use crate::agents::passages::{read_passages, title_date, Passage};
use crate::agents::query::{
    answer, without_memories, AnswerCost, EarlierTurn, NoteReader, QueryAnswer, QueryInput, QuestionScope,
    EVIDENCE_TOKENS, LINES_SHARE_PERCENT,
};
use crate::agents::AgentError;
use crate::calendar::CalendarDate;
use crate::domain::{
    Consolidation, ConsolidationId, DateSource, Job, JobWork, Memory, MemoryId, Millis, NoteJob, Position, Source,
    SourceKind, TextToRemember, TokenUsage,
};
use crate::hash::file_digest_hex;
use crate::llm::{estimate_cost_usd, price_known, ContentBlock, ConverseRequest, LlmError, Message};
use crate::notes::{
    decode_note, note_date, own_date, parse_fragment, parse_note, path_date, Chunk, FileKind, NoteError,
};
use crate::select::line_cost;
use crate::store::{SqlDriver, StoreError};
use crate::tokens::estimate_tokens;

mod files;

/// The longest wait between the tries of a job whose answers were wrong.
const MAX_RETRY_WAIT_MS: u64 = 6 * 3_600_000;
/// The first wait of every worker after a throttled job, and the longest.
const THROTTLE_WAIT_MS: Millis = 5_000;
const MAX_THROTTLE_WAIT_MS: Millis = 30_000;
/// How often a worker waiting for the probe looks again.
const PROBE_POLL_MS: u64 = 1_000;
/// A question's prompt besides its memories: instructions, the question, the tool schema.
const QUESTION_OVERHEAD_TOKENS: u64 = 3_000;

/// What one `run_due_work` call did.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RunReport {
    pub done: u64,
    pub skipped: u64,
    pub retrying: u64,
    pub failed: u64,
    /// Set when the engine is paused (by the user or by itself) at the end.
    pub paused: Option<String>,
    /// False when another run was already going (it picks up the new work).
    pub ran: bool,
    /// When the earliest waiting job (a retry) is due, so the host runs again then.
    pub next_due_at: Option<Millis>,
}

/// How a job ended when it did not fail.
enum Finished {
    Done,
    Skipped,
    /// A vault event overtook the job (the note was deleted meanwhile): nothing was stored.
    Discarded,
    /// The note needs a model call, which must wait until then for another device's memory of
    /// it: nothing was stored, and the job runs again at that time (not an attempt).
    Deferred(Millis),
}

/// One try of a note's job: the path it was queued under, its fence's generation then, and
/// the time before which no call is paid for it.
struct NoteAttempt<'a> {
    queued_path: &'a str,
    generation: u64,
    pay_after: Option<Millis>,
    /// The user confirmed the file (`NoteJob::confirmed`).
    confirmed: bool,
}

/// A note as read for a job: where it is now, its bytes and digest, and when the job read it.
struct ReadNote {
    path: String,
    file: VaultFile,
    sha256: String,
    started: Millis,
}

/// What a file's memories are dated and described by, besides its text: the day the model
/// resolves relative dates against, the day a memory whose text names none is filed under, and
/// the properties shown to the model.
struct SourceFacts {
    note_date: CalendarDate,
    own_date: Option<(CalendarDate, DateSource)>,
    metadata: serde_json::Value,
    /// The text tokens the file's size promised, when its text is not its bytes (a PDF's, by
    /// its pages): more than a few times that waits for the user (`beyond_the_estimate`).
    expected_tokens: Option<u64>,
}

/// What a note's chunks came to.
#[derive(Default)]
struct NoteMemories {
    /// Its memories: kept, copied and new.
    memories: Vec<Memory>,
    /// Kept memories whose chunk moved in the note.
    moved: Vec<(MemoryId, Position)>,
    /// Chunks with nothing to remember.
    quiet: Vec<String>,
}

impl NoteMemories {
    /// Whether the chunk with `content_hash` has its memory or is quiet (a stored memory
    /// keeps the hash's first bytes).
    fn accounts_for(&self, content_hash: &str) -> bool {
        self.quiet.iter().any(|quiet| quiet == content_hash)
            || self
                .memories
                .iter()
                .filter_map(|memory| memory.content_hash.as_deref())
                .any(|kept| !kept.is_empty() && (content_hash.starts_with(kept) || kept.starts_with(content_hash)))
    }
}

/// `make_memories`' outcome: every chunk done, or the job ended early (nothing stored).
enum Made {
    Memories(NoteMemories),
    Ended(Finished),
}

/// Clears the "a run is going" flag however the run ends, even when a host callback threw
/// and the run's future was dropped half-way.
struct RunningFlag<'a>(&'a std::cell::Cell<bool>);

impl Drop for RunningFlag<'_> {
    fn drop(&mut self) {
        self.0.set(false);
    }
}

/// A connection check's result.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ConnectionCheck {
    pub model_id: String,
    pub region: String,
    pub latency_ms: u64,
    /// How far this device's clock was found from AWS's (ms; 0 when within five minutes):
    /// requests are signed with the corrected time.
    pub clock_offset_ms: i64,
    /// Why `model_id` is not the default model the settings mean (its access was denied), in
    /// words for the user; `None` when the configured model answered.
    pub fallback: Option<String>,
}

impl<D: SqlDriver> Engine<D> {
    /// Runs due jobs until none is left (or the engine pauses), a few at a time.
    pub async fn run_due_work<H: Host>(&self, host: &H) -> Result<RunReport, StoreError> {
        if self.running.replace(true) {
            return Ok(RunReport { ran: false, ..RunReport::default() });
        }
        let running = RunningFlag(&self.running);
        let outcome = self.run_workers(host).await;
        drop(running);
        *self.current.borrow_mut() = None;
        let mut report = outcome?;
        report.paused = self.pause.borrow().as_ref().map(|pause| pause.reason().to_owned());
        report.ran = true;
        report.next_due_at = if report.paused.is_none() { self.store.next_due_at()? } else { None };
        Ok(report)
    }

    async fn run_workers<H: Host>(&self, host: &H) -> Result<RunReport, StoreError> {
        // Lifts a spending limit's pause once it no longer holds (a new day, a higher limit).
        self.within_limits(host.now(), host.utc_offset_minutes())?;
        self.probing.set(false);
        self.enqueue_due_consolidation(host.now())?;
        let workers = self.settings.borrow().parallel_jobs.max(1);
        let reports = join_all((0..workers).map(|_| self.worker(host))).await;
        let mut total = RunReport::default();
        for report in reports {
            let report = report?;
            total.done += report.done;
            total.skipped += report.skipped;
            total.retrying += report.retrying;
            total.failed += report.failed;
        }
        Ok(total)
    }

    async fn worker<H: Host>(&self, host: &H) -> Result<RunReport, StoreError> {
        let mut report = RunReport::default();
        while self.pause.borrow().is_none() && !self.shut_down.get() {
            if !self.within_limits(host.now(), host.utc_offset_minutes())? {
                break;
            }
            // Bedrock is throttling (a per-minute quota): every worker waits before the next
            // job, instead of each trying its own (that multiplies the calls in an outage).
            let wait = self.throttled_until.get() - host.now();
            if wait > 0 {
                host.sleep(u64::try_from(wait).unwrap_or(0)).await;
                continue;
            }
            // Still in an outage: one worker probes with one job; the others wait for its outcome.
            if self.throttle_streak.get() > 0 && self.probing.get() {
                host.sleep(PROBE_POLL_MS).await;
                continue;
            }
            // A probe is one job; otherwise several notes' jobs run together, sharing their
            // model calls (`batcher`).
            let probe = self.throttle_streak.get() > 0;
            let chunks_per_call = self.settings.borrow().ingest_batch_chunks.max(1);
            let jobs = self.store.claim_next_jobs(host.now(), if probe { 1 } else { chunks_per_call })?;
            let Some(first) = jobs.first() else { break };
            self.probing.set(probe);
            *self.current.borrow_mut() = Some(describe(first));
            let group = Batcher::new(jobs.len(), chunks_per_call);
            let shared = RefCell::new(&mut report);
            let settled = join_all(jobs.iter().enumerate().map(|(member, job)| {
                let (group, shared) = (&group, &shared);
                async move {
                    let seat = Seat { group, member };
                    let outcome = self.run_job(host, job, seat).await;
                    let settled =
                        self.settle(job, outcome, host.now(), host.utc_offset_minutes(), &mut shared.borrow_mut());
                    if settled.is_err() {
                        // The job must not stay "running" until the next start; the caller hears why.
                        self.probing.set(false);
                        let _ = self.store.release_job(job.id, host.now());
                    }
                    // Progress per job, as alone: the plugin counts finished jobs by it (its
                    // checkpoint writes the file every 50).
                    let told = settled.and_then(|()| {
                        self.enqueue_due_consolidation(host.now())?;
                        host.progress(&self.progress()?);
                        Ok(())
                    });
                    // Settled first: leaving may send the others' chunks, and a job left
                    // "running" meanwhile would be handed back by an unload under its old path.
                    self.leave_group(host, seat).await;
                    told
                }
            }))
            .await;
            settled.into_iter().collect::<Result<Vec<()>, StoreError>>()?;
        }
        Ok(report)
    }

    async fn run_job<H: Host>(&self, host: &H, job: &Job, seat: Seat<'_>) -> Result<Finished, JobError> {
        match &job.work {
            JobWork::IngestSource(note) => {
                let path = note.path.as_str();
                let generation = self.fences.generation(path);
                self.started.borrow_mut().insert(job.id, (path.to_owned(), generation));
                let attempt =
                    NoteAttempt { queued_path: path, generation, pay_after: note.pay_after, confirmed: note.confirmed };
                let outcome = self.ingest_note(host, &attempt, seat).await;
                self.started.borrow_mut().remove(&job.id);
                match outcome {
                    // Whatever went wrong, the note was deleted, renamed or left the scope
                    // meanwhile: this job is over, not retried under a path that is gone; a
                    // renamed note is read again under its new path.
                    Err(_) if self.fences.landing(path, generation).as_deref() != Some(path) => {
                        if let Some(moved) = self.landing(path, generation, host.now())? {
                            self.requeue_note(&moved, host.now(), note.pay_after)?;
                        }
                        Ok(Finished::Discarded)
                    }
                    outcome => outcome,
                }
            }
            JobWork::IngestText(text) => Ok(self.ingest_text(host, text).await?),
            JobWork::Consolidate(_) => Ok(self.consolidate(host).await?),
        }
    }

    /// Ends a job's try by what its outcome means (`failure::JobError::next`).
    fn settle(
        &self,
        job: &Job,
        outcome: Result<Finished, JobError>,
        now: Millis,
        utc_offset_minutes: i32,
        report: &mut RunReport,
    ) -> Result<(), StoreError> {
        if self.is_shut_down() {
            // `shut_down` already handed the job back untried; the store is no longer ours.
            return Ok(());
        }
        let error = match outcome {
            Ok(finished) => {
                self.note_throttling(false, now);
                self.transient_streaks.borrow_mut().remove(&job.key);
                return self.settle_finished(job, finished, now, report);
            }
            Err(error) => error,
        };
        let settings = self.settings();
        let next = error.next(Millis::try_from(settings.job_retry_base_ms).unwrap_or(Millis::MAX));
        self.note_throttling(matches!(next, Next::Wait { throttled: true, .. }), now);
        if !matches!(next, Next::Wait { .. }) {
            self.transient_streaks.borrow_mut().remove(&job.key);
        }
        match next {
            // Paused or closed before a call was sent: back to the queue, the attempt not counted.
            Next::Untried => self.store.release_job(job.id, now)?,
            Next::PauseForSettings => {
                self.store.release_job(job.id, now)?;
                if let JobError::Agent(error) = &error {
                    self.pause_itself(error);
                }
            }
            Next::Wait { first_wait, .. } => {
                self.wait_after_transient(job, &error, first_wait, now, utc_offset_minutes)?;
                report.retrying += 1;
            }
            Next::Counted if job.attempts < settings.max_job_attempts => {
                let base = settings.job_retry_base_ms;
                let wait = base.saturating_mul(1 << job.attempts.saturating_sub(1).min(20)).min(MAX_RETRY_WAIT_MS);
                let at = now + Millis::try_from(wait).unwrap_or(Millis::MAX / 2);
                let words = failure::counted(&error, job.attempts, settings.max_job_attempts, at, utc_offset_minutes);
                self.store.fail_job(job.id, &words, Some(at), now)?;
                report.retrying += 1;
            }
            Next::Counted | Next::Fails => {
                let words = failure::failed(&error, job.attempts, next == Next::Counted);
                let go_on = matches!(job.work, JobWork::Consolidate(_)) && next == Next::Counted && {
                    self.set_failed_batch_aside(now)?
                };
                self.store.fail_job(job.id, &words, None, now)?;
                if go_on {
                    // After the failure is kept: a job waiting under its key would supersede it.
                    self.enqueue_consolidation("after a batch that failed", now)?;
                }
                self.finished.set(self.finished.get() + 1);
                report.failed += 1;
            }
        }
        Ok(())
    }

    /// A consolidation the model answered wrongly every time: its batch is set aside and, the
    /// first time in a day, the memories after it get their turn at once (a second batch
    /// failing so means the model fails them all: the automatic triggers then wait a day,
    /// `consolidation_due`). "Retry failed" puts the batches back.
    /// Whether the memories after it go on at once.
    fn set_failed_batch_aside(&self, now: Millis) -> Result<bool, StoreError> {
        let batch = std::mem::take(&mut *self.consolidating.borrow_mut());
        self.store.set_consolidation_failed(&batch)?;
        let first_today =
            !self.store.failed_since(super::triggers::CONSOLIDATION_KEY, now - super::triggers::DAY_MS)?;
        Ok(first_today && self.store.count_unconsolidated()? >= 2)
    }

    /// The world's failure, not the job's: it waits (longer each time in a row, at most an
    /// hour) and keeps its attempts, however long the fault lasts.
    fn wait_after_transient(
        &self,
        job: &Job,
        error: &JobError,
        first_wait: Millis,
        now: Millis,
        utc_offset_minutes: i32,
    ) -> Result<(), StoreError> {
        let streak = {
            let mut streaks = self.transient_streaks.borrow_mut();
            let streak = streaks.entry(job.key.clone()).or_insert(0);
            *streak = streak.saturating_add(1);
            *streak - 1
        };
        let jitter = self.ids.jitter(&format!("{}:{streak}:{now}", job.key));
        let at = now + failure::transient_wait(first_wait, streak, jitter);
        debug_assert!(at - now <= failure::MAX_TRANSIENT_WAIT_MS);
        let words = failure::waiting(error, at, utc_offset_minutes);
        self.store.release_job_until(job.id, at, now, Some(&words))
    }

    fn settle_finished(
        &self,
        job: &Job,
        finished: Finished,
        now: Millis,
        report: &mut RunReport,
    ) -> Result<(), StoreError> {
        match finished {
            // Waiting for another device's memory is not an attempt, and not a failure.
            Finished::Deferred(at) => return self.store.release_job_until(job.id, at, now, None),
            Finished::Done => report.done += 1,
            Finished::Skipped => report.skipped += 1,
            Finished::Discarded => {}
        }
        self.store.complete_job(job.id, now)?;
        self.finished.set(self.finished.get() + 1);
        Ok(())
    }

    /// Throttled work slows every worker down: 5 s, then twice as long for each throttled
    /// job in a row, up to 30 s (the jobs themselves wait a minute or more); any other outcome
    /// lifts it.
    fn note_throttling(&self, throttled: bool, now: Millis) {
        self.probing.set(false);
        if !throttled {
            self.throttle_streak.set(0);
            return;
        }
        let streak = self.throttle_streak.get().min(4);
        self.throttle_streak.set(streak + 1);
        self.throttled_until.set(now + (THROTTLE_WAIT_MS << streak).min(MAX_THROTTLE_WAIT_MS));
    }

    /// Reads a note and makes its memories: unchanged notes and unchanged chunks cost no
    /// model call; everything is stored in one transaction once every chunk is done.
    async fn ingest_note<H: Host>(
        &self,
        host: &H,
        attempt: &NoteAttempt<'_>,
        seat: Seat<'_>,
    ) -> Result<Finished, JobError> {
        let queued_path = attempt.queued_path;
        if self.path_exclusion(queued_path).is_some() {
            // Out of scope (a folder, a pattern, Obsidian's filters): never read, and what
            // was remembered of it before is forgotten — everywhere if it was read here, else
            // only here (another device remembered it under its own settings).
            Self::remove_if_here(&self.store, queued_path)?;
            return Ok(Finished::Skipped);
        }
        match FileKind::of(queued_path) {
            FileKind::Pdf => return self.ingest_pdf(host, attempt, seat).await,
            FileKind::Image(_) => return self.ingest_image(host, attempt).await,
            // Other kinds never pass the path rules; a note is read below.
            FileKind::Note | FileKind::UnsupportedImage(_) | FileKind::Other => {}
        }
        let Some(file) = self.read_note(host, queued_path).await? else {
            return Ok(self.note_gone(attempt, host.now())?);
        };
        let now = host.now();
        let offset = host.utc_offset_minutes();
        self.store.set_utc_offset(offset);
        let Some(path) = self.landing(queued_path, attempt.generation, now)? else { return Ok(Finished::Discarded) };
        let max_bytes = self.settings().max_note_bytes;
        if file.is_over(max_bytes) {
            // Refused on its size alone: the host never read it, so there is no digest.
            let too_large = NoteError::TooLarge { size: file.size, limit: max_bytes };
            return Ok(self.skip(&path, &file, String::new(), &too_large.to_string(), now)?);
        }
        let sha256 = file_digest_hex(&file.bytes);
        let read = ReadNote { path, file, sha256, started: now };
        if self.record_if_unchanged(&read)? {
            return Ok(Finished::Done);
        }
        if let Some(finished) = self.wait_for_other_device(attempt, &read)? {
            return Ok(finished);
        }
        let settings = self.settings();
        let text = match decode_note(&read.file.bytes, settings.max_note_bytes) {
            Ok(text) => text,
            Err(reason) => return Ok(self.skip(&read.path, &read.file, read.sha256, &reason.to_string(), now)?),
        };
        let note = parse_note(&text, settings.max_chunk_tokens);
        if settings.scope.content_exclusion(&note).is_some() {
            // `memory: false` or an excluded tag, decided on the text just read: nothing is
            // sent, nothing is kept of the note (no record either), and its old memories go.
            self.store.remove_source(&read.path)?;
            return Ok(Finished::Skipped);
        }
        let facts = SourceFacts {
            note_date: note_date(
                &read.path,
                &note.frontmatter,
                title_date(&text, settings.date_order),
                read.file.mtime,
                offset,
            ),
            own_date: own_date(&read.path, &note.frontmatter),
            metadata: note.frontmatter.to_json(),
            expected_tokens: None,
        };
        let made = match self.make_memories(host, attempt, &read, &note.chunks, &facts, seat).await? {
            Made::Memories(made) => made,
            Made::Ended(finished) => return Ok(finished),
        };
        Ok(self.store_note(host, attempt, read, &note.chunks, made)?)
    }

    /// A changed file whose record here is not of this text waits for another device's memory
    /// of it (`pay_after`): the job is deferred, nothing written.
    fn wait_for_other_device(
        &self,
        attempt: &NoteAttempt<'_>,
        read: &ReadNote,
    ) -> Result<Option<Finished>, AgentError> {
        let now = read.started;
        if let Some(at) = attempt.pay_after.filter(|at| *at > now) {
            if self.store.get_source(&read.path)?.is_some() {
                // The record here (another device's newer version, merged from its log, or an
                // older one) is not of this text, and this text's memory, or that device's
                // text, is likely on its way. Nothing is written before the wait ends: a
                // record made now of the text here (a displaced memory copied back) would be
                // the newest version of an older text, and win on every device.
                return Ok(Some(self.defer(&read.path, attempt.generation, at, now)?));
            }
        }
        Ok(None)
    }

    /// The note's bytes, or `None` when it is gone. A failed read is transient: the vault may
    /// be busy (a sync tool writing, a locked file), and the note is read again later.
    async fn read_note<H: Host>(&self, host: &H, path: &str) -> Result<Option<VaultFile>, JobError> {
        self.read_within(host, path, self.settings().max_note_bytes).await
    }

    /// `read_note` for a file of another kind, with its own size limit.
    async fn read_within<H: Host>(&self, host: &H, path: &str, max_bytes: u64) -> Result<Option<VaultFile>, JobError> {
        let file = host
            .read_file(path, max_bytes)
            .await
            .map_err(|reason| JobError::VaultRead { path: path.to_owned(), reason })?;
        self.still_owned()?;
        Ok(file)
    }

    /// The note is gone, or was renamed before it was read: the renamed note is read under
    /// its new path, and what was remembered of it leaves the store.
    fn note_gone(&self, attempt: &NoteAttempt<'_>, now: Millis) -> Result<Finished, AgentError> {
        let queued_path = attempt.queued_path;
        // Work that waits for another device may have come with that device's log before the
        // note's file: it is read again when the wait ends, and only then found gone (a removal
        // here travels to every device).
        if let Some(at) = attempt.pay_after.filter(|at| *at > now) {
            return self.defer(queued_path, attempt.generation, at, now);
        }
        match self.fences.landing(queued_path, attempt.generation) {
            Some(moved) if moved != queued_path => drop(self.requeue_note(&moved, now, attempt.pay_after)?),
            _ => {
                for renamed in self.fences.renamed_from(queued_path) {
                    self.requeue_note(&renamed, now, attempt.pay_after)?;
                }
            }
        }
        // What was paid for it stays a while for reuse: its text may come back under
        // another name (a record a merge brought for a note renamed here, say).
        self.keep_removed(queued_path)?;
        Self::remove_if_here(&self.store, queued_path)?;
        Ok(Finished::Done)
    }

    /// True when the store already holds this very text (touched, or written by a sync
    /// tool): the record learns the file's new time and size, but keeps when it was
    /// remembered — devices order their versions of a note by that, and this is no new version.
    fn record_if_unchanged(&self, read: &ReadNote) -> Result<bool, StoreError> {
        let Some(known) = self.store.get_source(&read.path)? else { return Ok(false) };
        if known.sha256 != read.sha256 {
            return Ok(false);
        }
        if known.mtime != read.file.mtime || known.size != read.file.size {
            self.store.upsert_source(&Source { mtime: read.file.mtime, size: read.file.size, ..known })?;
        }
        Ok(true)
    }

    /// The memories of each chunk: kept when the chunk is unchanged, copied when remembered
    /// elsewhere, made by the model otherwise (unless the note must wait for another device,
    /// or the model declines it: then the job ends here, having stored nothing). The chunks that
    /// need the model go to the job's group at once, to share calls with other notes' chunks;
    /// one the shared call answered wrongly is asked for alone.
    async fn make_memories<H: Host>(
        &self,
        host: &H,
        attempt: &NoteAttempt<'_>,
        read: &ReadNote,
        chunks: &[Chunk],
        facts: &SourceFacts,
        seat: Seat<'_>,
    ) -> Result<Made, JobError> {
        let (path, now) = (read.path.as_str(), read.started);
        let offset = host.utc_offset_minutes();
        let client = self.client()?;
        // A delete (or the note leaving the scope) stops the note's remaining calls too.
        let stopped =
            || !self.may_send_for_jobs() || self.fences.landing(attempt.queued_path, attempt.generation).is_none();
        let model = MeteredModel::new(&client, host, &self.store, "ingest", &stopped);
        let (note_date, own_date, metadata) = (facts.note_date, facts.own_date, &facts.metadata);
        let today = CalendarDate::at(now, offset);
        let mut made = NoteMemories::default();
        let mut seen: BTreeSet<String> = BTreeSet::new();
        let known_quiet = self.store.quiet_chunks(path)?;
        // The chunks the model must read, with where they are in the note.
        let mut asked: Vec<(&Chunk, Position)> = Vec::new();
        for chunk in chunks {
            let position = Self::position(chunk.heading_path.clone(), chunk.line_start, chunk.line_end);
            if let Some(existing) = self.store.find_memory_by_content(path, SourceKind::Note, &chunk.content_hash)? {
                if seen.insert(existing.id.0.clone()) {
                    made.moved.push((existing.id.clone(), position));
                    made.memories.push(existing);
                }
                continue;
            }
            if known_quiet.contains(&chunk.content_hash) {
                made.quiet.push(chunk.content_hash.clone());
                continue;
            }
            if let Some(copied) = self.memory_from_elsewhere(host, path, chunk, &position, note_date, now).await? {
                self.still_owned()?;
                // The same text twice in the note, come back under its own id: one memory, as
                // with a memory kept in place.
                if seen.insert(copied.id.0.clone()) {
                    made.memories.push(copied);
                }
                continue;
            }
            asked.push((chunk, position));
        }
        if asked.is_empty() {
            return Ok(Made::Memories(made));
        }
        if let Some(expected) = facts.expected_tokens.filter(|_| !attempt.confirmed) {
            let text_tokens = asked.iter().map(|(chunk, _)| estimate_tokens(&chunk.text) as u64).sum();
            if let Some(why) = self.beyond_the_estimate(path, expected, text_tokens, asked.len() as u64) {
                return Err(JobError::AwaitsUser(why));
            }
        }
        if let Some(at) = attempt.pay_after.filter(|at| *at > host.now()) {
            return Ok(Made::Ended(self.defer(attempt.queued_path, attempt.generation, at, now)?));
        }
        let inputs = asked.iter().map(|(chunk, _)| OwnedInput::of_chunk(chunk, path, note_date, today, metadata));
        let outcomes = self.ask_in_group(host, seat, attempt.queued_path, attempt.generation, inputs.collect()).await;
        self.still_owned()?;
        for ((chunk, position), outcome) in asked.into_iter().zip(outcomes) {
            let extraction = match outcome {
                Outcome::Done(extraction) => Ok(extraction),
                Outcome::Alone => {
                    let input = OwnedInput::of_chunk(chunk, path, note_date, today, metadata);
                    extract(&model, &input.input()).await
                }
                Outcome::Failed(error) => Err(error),
            };
            match extraction {
                Ok(Extraction::Memory(extracted)) => {
                    let memory = self.new_memory(path, SourceKind::Note, position, chunk, extracted, own_date, now)?;
                    seen.insert(memory.id.0.clone());
                    made.memories.push(memory);
                }
                Ok(Extraction::Nothing) => made.quiet.push(chunk.content_hash.clone()),
                Err(AgentError::Refused(why)) => return Ok(Made::Ended(self.declined(attempt, read, &why)?)),
                Err(error) => return Err(error.into()),
            }
        }
        Ok(Made::Memories(made))
    }

    /// The model declined a chunk twice: not asked again (every try is billed); the note is
    /// skipped with the reason, shown in the status view, and read again when it changes.
    fn declined(&self, attempt: &NoteAttempt<'_>, read: &ReadNote, why: &str) -> Result<Finished, AgentError> {
        let Some(path) = self.landing(attempt.queued_path, attempt.generation, read.started)? else {
            return Ok(Finished::Discarded);
        };
        let reason = format!("the model declined it ({why})");
        self.skip(&path, &read.file, read.sha256.clone(), &reason, read.started)
    }

    /// Stores the note's memories where the note is now, in one transaction, unless the note
    /// was deleted meanwhile or a merge brought this very text's memories.
    fn store_note<H: Host>(
        &self,
        host: &H,
        attempt: &NoteAttempt<'_>,
        read: ReadNote,
        chunks: &[Chunk],
        mut made: NoteMemories,
    ) -> Result<Finished, AgentError> {
        let now = read.started;
        // The note may have been renamed or deleted while the model was answering.
        let Some(path) = self.landing(attempt.queued_path, attempt.generation, now)? else {
            return Ok(Finished::Discarded);
        };
        for memory in &mut made.memories {
            memory.source_path.clone_from(&path);
        }
        // A memory this job found unchanged, forgotten by the user while the model answered,
        // stays forgotten (and so does its chunk: the forget marked it quiet).
        let forgotten = self.forgotten_meanwhile(&mut made)?;
        debug_assert!(
            chunks
                .iter()
                .all(|chunk| made.accounts_for(&chunk.content_hash) || forgotten.contains(&chunk.content_hash)),
            "nothing unfinished is marked done: every chunk of {path} has its memory, is quiet, or was forgotten"
        );
        // Another device's copy, merged while the model read this note, holds this very text
        // remembered after this job began: its memories stay (both sides then agree).
        if let Some(current) = self.store.get_source(&path)? {
            if current.sha256 == read.sha256 && current.updated_at > now {
                return Ok(Finished::Done);
            }
        }
        let replaced = self.replaced_memories(&path, &made.memories)?;
        debug_assert_eq!(
            self.fences.landing(attempt.queued_path, attempt.generation).as_deref(),
            Some(path.as_str()),
            "a job stores only where its note is now"
        );
        debug_assert!(made.memories.iter().all(|memory| memory.source_path == path));
        debug_assert!(!self.store.in_transaction(), "one transaction per job, of its own");
        // When it was remembered is when it landed: a merge orders two devices' versions by it.
        let landed = host.now().max(now);
        self.store.transaction(|store| {
            store.replace_note_memories(&path, &made.memories)?;
            for (id, position) in &made.moved {
                store.update_memory_position(id, position, now)?;
            }
            store.upsert_source(&Source {
                path: path.clone(),
                mtime: read.file.mtime,
                size: read.file.size,
                sha256: read.sha256,
                updated_at: landed,
                skipped: None,
            })?;
            store.set_quiet_chunks(&path, &made.quiet)
        })?;
        self.keep_removed_memories(replaced);
        Ok(Finished::Done)
    }

    /// Drops from `made` the unchanged memories the user forgot while the job ran; returns
    /// their chunks' hashes.
    fn forgotten_meanwhile(&self, made: &mut NoteMemories) -> Result<BTreeSet<String>, StoreError> {
        let mut forgotten = BTreeSet::new();
        for (id, _) in &made.moved {
            if !self.store.memory_exists(id)? {
                forgotten.insert(id.clone());
            }
        }
        let hashes = made
            .memories
            .iter()
            .filter(|memory| forgotten.contains(&memory.id))
            .filter_map(|memory| memory.content_hash.clone())
            .collect();
        made.memories.retain(|memory| !forgotten.contains(&memory.id));
        made.moved.retain(|(id, _)| !forgotten.contains(id));
        Ok(hashes)
    }

    /// The note memories at `path` that this version does not keep. They were paid for: kept a
    /// while for reuse, as a removed note's are (another device may still bring back the text
    /// they came from).
    fn replaced_memories(&self, path: &str, kept: &[Memory]) -> Result<Vec<Memory>, StoreError> {
        let kept: BTreeSet<&str> = kept.iter().map(|memory| memory.id.0.as_str()).collect();
        Ok(self
            .store
            .list_memories(&crate::store::MemoryFilter { source_path: Some(path.to_owned()), ..Default::default() })?
            .into_iter()
            .filter(|memory| memory.source_kind == SourceKind::Note && !kept.contains(memory.id.0.as_str()))
            .collect())
    }

    /// Where a job on `path` begun at `generation` may store its result now (`None`: the
    /// note was deleted meanwhile, and notes it was renamed to are queued to be read again).
    /// Fails when the store is no longer this engine's.
    fn landing(&self, path: &str, generation: u64, now: Millis) -> Result<Option<String>, AgentError> {
        self.still_owned()?;
        let landing = self.fences.landing(path, generation);
        if landing.is_none() {
            for renamed in self.fences.renamed_from(path) {
                self.requeue_note(&renamed, now, None)?;
            }
        }
        Ok(landing)
    }

    /// A note that must wait until `at` before it is paid for: the job waits under its path,
    /// or the wait moves with a rename; a deleted note's job ends.
    fn defer(&self, queued_path: &str, generation: u64, at: Millis, now: Millis) -> Result<Finished, AgentError> {
        match self.landing(queued_path, generation, now)? {
            Some(path) if path == queued_path => Ok(Finished::Deferred(at)),
            Some(moved) => {
                self.requeue_note(&moved, now, Some(at))?;
                Ok(Finished::Discarded)
            }
            None => Ok(Finished::Discarded),
        }
    }

    /// The file is not remembered: its old memories go and the reason is recorded.
    fn skip(
        &self,
        path: &str,
        file: &VaultFile,
        sha256: String,
        reason: &str,
        now: Millis,
    ) -> Result<Finished, AgentError> {
        self.still_owned()?;
        self.store.transaction(|store| {
            store.remove_source(path)?;
            store.upsert_source(&Source {
                path: path.to_owned(),
                mtime: file.mtime,
                size: file.size,
                sha256,
                updated_at: now,
                skipped: Some(reason.to_owned()),
            })
        })?;
        Ok(Finished::Skipped)
    }

    /// Remembers a selection or typed text (one memory per chunk of it).
    async fn ingest_text<H: Host>(&self, host: &H, payload: &TextToRemember) -> Result<Finished, AgentError> {
        let now = host.now();
        let offset = host.utc_offset_minutes();
        self.store.set_utc_offset(offset);
        let today = CalendarDate::at(now, offset);
        let note_date = payload.note_date.as_deref().and_then(CalendarDate::parse).unwrap_or(today);
        let settings = self.settings();
        let note = parse_fragment(&payload.text, settings.max_chunk_tokens);
        let client = self.client()?;
        let stopped = || !self.may_send_for_jobs();
        let model = MeteredModel::new(&client, host, &self.store, "ingest", &stopped);
        let mut memories = Vec::new();
        for chunk in &note.chunks {
            if self.store.find_memory_by_content(&payload.source_path, payload.kind, &chunk.content_hash)?.is_some() {
                continue;
            }
            let heading = payload.heading.clone().or_else(|| chunk.heading_path.clone());
            let input = IngestInput {
                text: &chunk.text,
                source_path: &payload.source_path,
                heading: heading.as_deref(),
                note_date,
                today,
                metadata: None,
            };
            if let Extraction::Memory(extracted) = extract(&model, &input).await? {
                let first_line = payload.line_start.unwrap_or(0);
                let position = if payload.source_path.is_empty() {
                    crate::domain::Position::default()
                } else {
                    Self::position(heading, first_line + chunk.line_start, first_line + chunk.line_end)
                };
                // A selection's note is dated by its name only: its properties are not read here.
                let own_date = path_date(&payload.source_path).map(|date| (date, DateSource::NoteName));
                memories.push(self.new_memory(
                    &payload.source_path,
                    payload.kind,
                    position,
                    chunk,
                    extracted,
                    own_date,
                    now,
                )?);
            }
        }
        self.still_owned()?;
        self.store.transaction(|store| memories.iter().try_for_each(|memory| store.insert_memory(memory)))?;
        Ok(Finished::Done)
    }

    /// A memory made from `chunk` of a source, with a fresh id. Its days are those the text
    /// names; when it names none, the note's own date (`own_date`, from its name or
    /// properties), marked as such; else it is undated.
    #[allow(clippy::too_many_arguments)]
    fn new_memory(
        &self,
        source_path: &str,
        source_kind: SourceKind,
        position: crate::domain::Position,
        chunk: &Chunk,
        extracted: ExtractedMemory,
        own_date: Option<(CalendarDate, DateSource)>,
        now: Millis,
    ) -> Result<Memory, StoreError> {
        let mut days: Vec<String> = extracted.happened_on.iter().map(ToString::to_string).collect();
        let date_source = match own_date {
            Some((date, source)) if days.is_empty() => {
                days.push(date.to_string());
                source
            }
            _ => DateSource::Text,
        };
        debug_assert!(days.windows(2).all(|pair| pair[0] < pair[1]), "the agent's days are ascending");
        let mut days = days.into_iter();
        Ok(Memory {
            id: MemoryId(self.fresh_id("m", now)?),
            source_path: source_path.to_owned(),
            source_kind,
            position,
            raw_text: chunk.text.clone(),
            summary: extracted.summary,
            entities: extracted.entities,
            topics: extracted.topics,
            importance: extracted.importance,
            happened_on: days.next(),
            also_on: days.collect(),
            date_source,
            facts: extracted.facts,
            created_at: now,
            updated_at: now,
            consolidated: false,
            content_hash: Some(chunk.content_hash.clone()),
        })
    }

    /// Consolidates the oldest waiting memories; the insights and the batch's
    /// "consolidated" marks are stored together, only after a valid answer.
    async fn consolidate<H: Host>(&self, host: &H) -> Result<Finished, AgentError> {
        let batch = self.store.unconsolidated_memories(self.settings.borrow().consolidation_batch_size)?;
        if batch.len() < 2 {
            return Ok(Finished::Done);
        }
        let client = self.client()?;
        let stopped = || !self.may_send_for_jobs();
        let model = MeteredModel::new(&client, host, &self.store, "consolidate", &stopped);
        *self.consolidating.borrow_mut() = batch.iter().map(|memory| memory.id.clone()).collect();
        let found = find_insights(&model, &batch).await?;
        self.still_owned()?;
        let now = host.now();
        let mut insights = Vec::new();
        for insight in found {
            insights.push(Consolidation {
                id: ConsolidationId(self.fresh_id("c", now)?),
                memory_ids: insight.memory_ids,
                insight: insight.insight,
                connections: insight.connections,
                created_at: now,
            });
        }
        let batch_ids: Vec<MemoryId> = batch.into_iter().map(|memory| memory.id).collect();
        self.store.transaction(|store| {
            store.save_consolidation_batch(&batch_ids, &insights)?;
            store.set_meta(LAST_CONSOLIDATION_KEY, &now.to_string())
        })?;
        self.consolidating.borrow_mut().clear();
        Ok(Finished::Done)
    }

    /// Answers a question from the memories.
    /// Answers a question from the memories, with what it cost. A question that may pass a
    /// spending limit is refused (`AgentError::OverLimit`) unless `allow_over_limit`.
    pub async fn ask<H: Host>(
        &self,
        host: &H,
        question: &str,
        allow_over_limit: bool,
    ) -> Result<QueryAnswer, AgentError> {
        self.ask_follow_up(host, question, &[], &QuestionScope::default(), allow_over_limit).await
    }

    /// `ask`, as the next turn of a conversation: the earlier turns (oldest first) and the
    /// memories they cited go into the prompt, and their names and dates into the selection.
    /// Only memories inside `scope` are used (the whole store when it limits nothing).
    pub async fn ask_follow_up<H: Host>(
        &self,
        host: &H,
        question: &str,
        earlier: &[EarlierTurn],
        scope: &QuestionScope,
        allow_over_limit: bool,
    ) -> Result<QueryAnswer, AgentError> {
        if question.trim().is_empty() {
            return Err(AgentError::Store(StoreError::InvalidInput("Type a question first.".into())));
        }
        let epoch = self.question_started();
        let settings = self.settings();
        let spec = self.connected_model().and_then(|id| crate::llm::model_spec(&id));
        let thinking_tokens = settings.answer_thinking.answer_thinking_tokens(spec);
        let input = QueryInput {
            question,
            today: CalendarDate::at(host.now(), host.utc_offset_minutes()),
            utc_offset_minutes: host.utc_offset_minutes(),
            date_order: settings.date_order,
            budget_tokens: budget_for(settings.query_budget_tokens, spec, settings.max_answer_tokens + thinking_tokens),
            max_answer_tokens: settings.max_answer_tokens,
            read_passages: settings.read_passages,
            lines_share_percent: crate::agents::query::LINES_SHARE_PERCENT,
            second_pass: settings.second_pass,
            plan_question: settings.plan_questions,
            thinking: settings.answer_thinking,
            earlier,
            names: &self.names,
            scope,
        };
        // A bad scope is refused before anything is spent.
        scope.memories()?;
        // No model call, so no connection is needed to say there is nothing yet.
        if let Some(nothing) = without_memories(&self.store)? {
            return Ok(nothing);
        }
        let client = self.client()?;
        let model_id = client.model_id();
        let (now, offset) = (host.now(), host.utc_offset_minutes());
        // The most the question can cost: a full budget in, a full answer out, twice with the
        // second pass. Only near a limit is the real selection measured.
        let calls = if settings.second_pass { 2 } else { 1 };
        let (plan_in, plan_out) = if settings.plan_questions {
            (crate::agents::planner::PLANNER_INPUT_TOKENS, crate::agents::planner::PLANNER_OUTPUT_TOKENS)
        } else {
            (0, 0)
        };
        // Each call priced on its own, its prompt as the model's tokenizer counts it: a call
        // above a long-prompt threshold costs more per token (Haiku 5.5 above 100K).
        let factor = spec.map_or(1.0, |spec| spec.tokenizer_factor);
        let model_tokens = |estimated: u64| (estimated as f64 * factor).ceil() as u64;
        let answer_call = |input_tokens: usize| TokenUsage {
            input_tokens: model_tokens(input_tokens as u64 + QUESTION_OVERHEAD_TOKENS),
            output_tokens: u64::from(settings.max_answer_tokens + EVIDENCE_TOKENS + thinking_tokens),
            ..TokenUsage::default()
        };
        let plan_call =
            TokenUsage { input_tokens: model_tokens(plan_in), output_tokens: plan_out, ..TokenUsage::default() };
        let cost_of = |input_tokens: usize| {
            let plan = if settings.plan_questions { estimate_cost_usd(&model_id, &plan_call) } else { 0.0 };
            estimate_cost_usd(&model_id, &answer_call(input_tokens)) * calls as f64 + plan
        };
        let crossing = |input_tokens: usize| long_prompt_note(&model_id, &answer_call(input_tokens));
        if self.check_question_cost(cost_of(input.budget_tokens), now, offset, allow_over_limit).is_err() {
            let within = scope.memories()?;
            let measured = self.measured_question_tokens(question, &input, &within)?;
            self.check_question_cost(cost_of(measured), now, offset, allow_over_limit).map_err(
                |error| match error {
                    AgentError::OverLimit(message) => AgentError::OverLimit(format!("{message}{}", crossing(measured))),
                    other => other,
                },
            )?;
        }
        let stopped = || self.question_stopped(epoch);
        let model = MeteredModel::new(&client, host, &self.store, "query", &stopped).interactive();
        let notes = VaultNotes { engine: self, host };
        let mut answered = match answer(&model, &self.store, &notes, &input).await {
            // The prompt did not fit the model's window (the estimate was off for this text):
            // asked once more with half the memories.
            Err(AgentError::Model(LlmError::ContextWindowExceeded)) => {
                let smaller = QueryInput { budget_tokens: input.budget_tokens / 2, ..input };
                answer(&model, &self.store, &notes, &smaller).await?
            }
            other => other?,
        };
        answered.cost = Some(AnswerCost {
            usage: model.used(),
            usd: model.cost_usd(),
            price_known: price_known(&model_id),
            long_prompt_calls: model.long_prompt_calls(),
        });
        Ok(answered)
    }

    /// At most the tokens a question's memories, insights and passages take, measured without
    /// reading a note: the selection's lines, and at most a whole chunk behind each of them
    /// within what the lines leave of the budget.
    fn measured_question_tokens(
        &self,
        question: &str,
        input: &QueryInput<'_>,
        within: &crate::store::MemoryScope,
    ) -> Result<usize, StoreError> {
        let settings = self.settings();
        let budget = settings.query_budget_tokens;
        let (offset, today) = (input.utc_offset_minutes, input.today);
        if !settings.read_passages {
            return Ok(self.recall(question, today, offset, None, Some(within))?.packed.tokens);
        }
        let lines = self.recall(question, today, offset, Some(budget * LINES_SHARE_PERCENT / 100), Some(within))?;
        // A passage is at most its chunk, whose bound is `max_chunk_tokens`, and its element; a
        // runner-up's brings its line too.
        let passage = settings.max_chunk_tokens + PASSAGE_ELEMENT_TOKENS;
        let runners_up: usize = lines.packed.runners_up.iter().map(|memory| passage + line_cost(memory)).sum();
        let passages = lines.packed.memories.len().saturating_mul(passage).saturating_add(runners_up);
        Ok(lines.packed.tokens + passages.min(budget.saturating_sub(lines.packed.tokens)))
    }

    /// What this account may call in this region (the settings' model list); no model call.
    pub async fn list_models<H: Host>(&self, host: &H) -> Result<Vec<crate::llm::ModelChoice>, AgentError> {
        let client = self.client()?;
        Ok(client.list_models(host, host).await?)
    }

    /// One minimal call: proves the keys, region and model work, and how fast.
    pub async fn test_connection<H: Host>(&self, host: &H) -> Result<ConnectionCheck, AgentError> {
        let client = self.client()?;
        let stopped = || self.is_shut_down();
        let model = MeteredModel::new(&client, host, &self.store, "connection_test", &stopped);
        let request = ConverseRequest {
            system: vec![ContentBlock::Text("Reply with the single word OK.".into())],
            messages: vec![Message::user("Connection test.")],
            max_tokens: 16,
            // No sampling field: not every model takes one (Claude Haiku 5.5 refuses a temperature
            // other than 1, Anthropic's migration guide), and a one-word reply needs none.
            temperature: None,
            forced_tool: None,
            offered_tools: vec![],
            thinking: crate::llm::ThinkingEffort::Off,
        };
        let started = host.now();
        crate::agents::Model::converse(&model, &request).await?;
        Ok(ConnectionCheck {
            model_id: client.model_id(),
            region: client.config().region.clone(),
            latency_ms: u64::try_from(host.now() - started).unwrap_or(0),
            clock_offset_ms: client.clock_offset_ms(),
            fallback: client.fallback().map(|fallback| fallback.message(&client.config().region)),
        })
    }
}

/// A question's context budget on `model`: the user's, within what the model's window holds
/// besides an answer of `answer_tokens` (a model not in the table: the user's).
fn budget_for(chosen: usize, model: Option<&crate::llm::ModelSpec>, answer_tokens: u32) -> usize {
    model.map_or(chosen, |model| {
        let largest = model.largest_context_budget(u64::from(answer_tokens + EVIDENCE_TOKENS));
        chosen.min(usize::try_from(largest).unwrap_or(usize::MAX))
    })
}

/// A sentence saying that a call of `usage` on `model_id` passes the model's long-prompt price
/// threshold, and what to do; empty when it does not.
fn long_prompt_note(model_id: &str, usage: &TokenUsage) -> String {
    match crate::llm::long_prompt_threshold(model_id) {
        Some(threshold) if crate::llm::tier_of_call(model_id, usage) == crate::llm::PriceTier::LongPrompt => format!(
            " Its prompt may pass {}K tokens, above which every token of the call costs more; a smaller context budget (Settings → Memory Agent → Answers) keeps it below.",
            threshold / 1_000
        ),
        _ => String::new(),
    }
}

/// The tokens a passage's element adds to its text, at most: the tag with the memory's id and the
/// note that it was edited.
const PASSAGE_ELEMENT_TOKENS: usize = 40;

/// The vault as a question's passages are read from it: through the host, within the size limit
/// an ingest has, and never a note the user's rules exclude (asked before reading, by its path,
/// and after, by its properties and tags), whatever the store still holds of it.
struct VaultNotes<'a, D: SqlDriver, H: Host> {
    engine: &'a Engine<D>,
    host: &'a H,
}

impl<D: SqlDriver, H: Host> NoteReader for VaultNotes<'_, D, H> {
    async fn note_text(&self, path: &str) -> Option<String> {
        // A PDF's or image's bytes are never decoded as a note: a PDF's passages come from the
        // store (its memories keep their text), an image has none.
        if FileKind::of(path) != FileKind::Note || self.engine.path_exclusion(path).is_some() {
            return None;
        }
        let settings = self.engine.settings();
        let file = self.host.read_file(path, settings.max_note_bytes).await.ok()??;
        if file.is_over(settings.max_note_bytes) {
            return None;
        }
        let text = decode_note(&file.bytes, settings.max_note_bytes).ok()?;
        let note = parse_note(&text, settings.max_chunk_tokens);
        settings.scope.content_exclusion(&note).is_none().then_some(text)
    }
}

impl<D: SqlDriver> Engine<D> {
    /// The passage `memory` cites, read as a question's passages are (`agents::passages`): a
    /// note's lines from the vault through `host` (never a note the user's rules exclude), the
    /// stored text of typed text, a selection or a PDF's chunk; `None` for an image's memory,
    /// or when the note is gone, excluded or no longer has those lines.
    pub async fn passage_of<H: Host>(&self, host: &H, memory: &Memory) -> Result<Option<Passage>, StoreError> {
        let notes = VaultNotes { engine: self, host };
        let ids = [memory.id.clone()];
        let passages = read_passages(
            &notes,
            &self.store,
            std::slice::from_ref(memory),
            &ids,
            &[],
            usize::MAX,
            &Focus::none(),
            None,
        )
        .await?;
        Ok(passages.into_iter().next())
    }

    /// A note's text as a question's passages read it (`VaultNotes`): `None` when the path is no
    /// note, the user's rules exclude it (by path, properties or tags), or it is gone, unreadable
    /// or over the size limit of an ingest.
    pub async fn readable_note<H: Host>(&self, host: &H, path: &str) -> Option<String> {
        VaultNotes { engine: self, host }.note_text(path).await
    }
}

fn describe(job: &Job) -> String {
    match &job.work {
        JobWork::IngestSource(NoteJob { path, .. }) => path.clone(),
        JobWork::IngestText(_) => "remembered text".to_owned(),
        JobWork::Consolidate(_) => "consolidating memories".to_owned(),
    }
}

#[cfg(test)]
mod model_budget_tests {
    use super::{budget_for, long_prompt_note};
    use crate::domain::TokenUsage;
    use crate::llm::model_spec;

    #[test]
    fn a_budget_is_the_users_within_what_the_models_window_holds() {
        let haiku_4_5 = model_spec("us.anthropic.claude-haiku-4-5-20251001-v1:0");
        assert_eq!(budget_for(70_000, haiku_4_5, 2_000), 70_000);
        assert_eq!(budget_for(900_000, haiku_4_5, 2_000), 187_000, "200K less the answer, evidence and instructions");
        let haiku_5_5 = model_spec("us.anthropic.claude-haiku-5-5");
        assert_eq!(budget_for(900_000, haiku_5_5, 2_000), 759_230, "1M, counted as its tokenizer counts");
        assert_eq!(budget_for(900_000, None, 2_000), 900_000, "an unknown model: the user's");
    }

    #[test]
    fn the_estimate_says_when_a_call_passes_the_long_prompt_price() {
        let call = |input_tokens| TokenUsage { input_tokens, ..TokenUsage::default() };
        assert!(long_prompt_note("global.anthropic.claude-haiku-5-5", &call(100_001)).contains("100K tokens"));
        assert_eq!(long_prompt_note("global.anthropic.claude-haiku-5-5", &call(100_000)), "");
        assert_eq!(long_prompt_note("us.anthropic.claude-haiku-4-5-20251001-v1:0", &call(500_000)), "");
    }
}
