//! Running the queue: workers claim due jobs, run the agents, and settle each job as
//! done, retried later, failed for good, or handed back untried when the engine pauses.

use std::collections::BTreeSet;

use futures_util::future::join_all;
use serde::{Deserialize, Serialize};

use super::host::{Host, VaultFile};
use super::metered::MeteredModel;
use super::triggers::LAST_CONSOLIDATION_KEY;
use super::Engine;
use crate::agents::consolidate::find_insights;
use crate::agents::ingest::{extract, ExtractedMemory, Extraction, IngestInput};
use crate::agents::query::{answer, QueryAnswer, QueryInput};
use crate::agents::AgentError;
use crate::calendar::CalendarDate;
use crate::domain::{Consolidation, ConsolidationId, Job, JobKind, Memory, MemoryId, Millis, Source, SourceKind};
use crate::hash::file_digest_hex;
use crate::llm::{ContentBlock, ConverseRequest, Message};
use crate::notes::{decode_note, note_date, parse_fragment, parse_note, Chunk};
use crate::store::{SqlDriver, StoreError};

const MAX_RETRY_WAIT_MS: u64 = 6 * 3_600_000;

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
}

/// How a job ended when it did not fail.
enum Finished {
    Done,
    Skipped,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct NotePayload {
    path: String,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct TextPayload {
    text: String,
    source_path: String,
    kind: SourceKind,
    heading: Option<String>,
    line_start: Option<u32>,
    note_date: Option<String>,
}

/// A connection check's result.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ConnectionCheck {
    pub model_id: String,
    pub region: String,
    pub latency_ms: u64,
}

impl<D: SqlDriver> Engine<D> {
    /// Runs due jobs until none is left (or the engine pauses), a few at a time.
    pub async fn run_due_work<H: Host>(&self, host: &H) -> Result<RunReport, StoreError> {
        if self.running.replace(true) {
            return Ok(RunReport { ran: false, ..RunReport::default() });
        }
        let outcome = self.run_workers(host).await;
        self.running.set(false);
        *self.current.borrow_mut() = None;
        let mut report = outcome?;
        report.paused = self.pause.borrow().as_ref().map(|pause| pause.reason.clone());
        report.ran = true;
        Ok(report)
    }

    async fn run_workers<H: Host>(&self, host: &H) -> Result<RunReport, StoreError> {
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
            let Some(job) = self.store.claim_next_job(host.now())? else { break };
            *self.current.borrow_mut() = Some(describe(&job));
            let outcome = self.run_job(host, &job).await;
            self.settle(&job, outcome, host.now(), &mut report)?;
            self.enqueue_due_consolidation(host.now())?;
            host.progress(&self.progress()?);
        }
        Ok(report)
    }

    async fn run_job<H: Host>(&self, host: &H, job: &Job) -> Result<Finished, AgentError> {
        match job.kind {
            JobKind::IngestSource => {
                let payload: NotePayload = serde_json::from_value(job.payload.clone())
                    .map_err(|error| StoreError::InvalidData(format!("job {}: {error}", job.id)))?;
                self.ingest_note(host, &payload.path).await
            }
            JobKind::IngestText => {
                let payload: TextPayload = serde_json::from_value(job.payload.clone())
                    .map_err(|error| StoreError::InvalidData(format!("job {}: {error}", job.id)))?;
                self.ingest_text(host, &payload).await
            }
            JobKind::Consolidate => self.consolidate(host).await,
        }
    }

    fn settle(
        &self,
        job: &Job,
        outcome: Result<Finished, AgentError>,
        now: Millis,
        report: &mut RunReport,
    ) -> Result<(), StoreError> {
        match outcome {
            Ok(finished) => {
                self.store.complete_job(job.id, now)?;
                self.finished.set(self.finished.get() + 1);
                match finished {
                    Finished::Done => report.done += 1,
                    Finished::Skipped => report.skipped += 1,
                }
            }
            Err(error) if error.needs_settings() => {
                self.store.release_job(job.id, now)?;
                self.pause_itself(&error);
            }
            Err(error) if error.is_transient() && job.attempts < self.settings.borrow().max_job_attempts => {
                let base = self.settings.borrow().job_retry_base_ms;
                let wait = base.saturating_mul(1 << job.attempts.saturating_sub(1).min(20)).min(MAX_RETRY_WAIT_MS);
                self.store.fail_job(job.id, &error.to_string(), Some(now + wait as Millis), now)?;
                report.retrying += 1;
            }
            Err(error) => {
                self.store.fail_job(job.id, &error.to_string(), None, now)?;
                self.finished.set(self.finished.get() + 1);
                report.failed += 1;
            }
        }
        Ok(())
    }

    /// Reads a note and makes its memories: unchanged notes and unchanged chunks cost no
    /// model call; everything is stored in one transaction once every chunk is done.
    async fn ingest_note<H: Host>(&self, host: &H, path: &str) -> Result<Finished, AgentError> {
        let file = host
            .read_file(path)
            .await
            .map_err(|reason| StoreError::InvalidInput(format!("could not read {path}: {reason}")))?;
        let Some(file) = file else {
            self.store.remove_source(path)?;
            return Ok(Finished::Done);
        };
        let now = host.now();
        let offset = host.utc_offset_minutes();
        self.store.set_utc_offset(offset);
        let sha256 = file_digest_hex(&file.bytes);
        if let Some(known) = self.store.get_source(path)? {
            if known.sha256 == sha256 {
                if known.mtime != file.mtime || known.size != file.size {
                    self.store.upsert_source(&Source {
                        mtime: file.mtime,
                        size: file.size,
                        updated_at: now,
                        ..known
                    })?;
                }
                return Ok(Finished::Done);
            }
        }
        let settings = self.settings();
        let text = match decode_note(&file.bytes, settings.max_note_bytes) {
            Ok(text) => text,
            Err(reason) => return self.skip(path, &file, sha256, &reason.to_string(), now),
        };
        let note = parse_note(&text, settings.max_chunk_tokens);
        if note.frontmatter.is_memory_disabled() {
            return self.skip(path, &file, sha256, "its properties say memory: false", now);
        }
        let client = self.client()?;
        let model = MeteredModel { client: &client, host, store: &self.store, agent: "ingest" };
        let note_date = note_date(path, &note.frontmatter, file.mtime, offset);
        let today = CalendarDate::at(now, offset);
        let metadata = note.frontmatter.to_json();
        let mut memories: Vec<Memory> = Vec::new();
        let mut moved = Vec::new();
        let mut seen: BTreeSet<String> = BTreeSet::new();
        for chunk in &note.chunks {
            let position = Self::position(chunk.heading_path.clone(), chunk.line_start, chunk.line_end);
            if let Some(existing) = self.store.find_memory_by_content(path, SourceKind::Note, &chunk.content_hash)? {
                if seen.insert(existing.id.0.clone()) {
                    moved.push((existing.id.clone(), position));
                    memories.push(existing);
                }
                continue;
            }
            let input = IngestInput {
                text: &chunk.text,
                source_path: path,
                heading: chunk.heading_path.as_deref(),
                note_date,
                today,
                metadata: Some(&metadata),
            };
            if let Extraction::Memory(extracted) = extract(&model, &input).await? {
                let memory = self.new_memory(path, SourceKind::Note, position, chunk, extracted, now)?;
                seen.insert(memory.id.0.clone());
                memories.push(memory);
            }
        }
        self.store.transaction(|store| {
            store.replace_note_memories(path, &memories)?;
            for (id, position) in &moved {
                store.update_memory_position(id, position, now)?;
            }
            store.upsert_source(&Source {
                path: path.to_owned(),
                mtime: file.mtime,
                size: file.size,
                sha256,
                updated_at: now,
                skipped: None,
            })
        })?;
        Ok(Finished::Done)
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
    async fn ingest_text<H: Host>(&self, host: &H, payload: &TextPayload) -> Result<Finished, AgentError> {
        let now = host.now();
        let offset = host.utc_offset_minutes();
        self.store.set_utc_offset(offset);
        let today = CalendarDate::at(now, offset);
        let note_date = payload.note_date.as_deref().and_then(CalendarDate::parse).unwrap_or(today);
        let settings = self.settings();
        let note = parse_fragment(&payload.text, settings.max_chunk_tokens);
        let client = self.client()?;
        let model = MeteredModel { client: &client, host, store: &self.store, agent: "ingest" };
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
                memories.push(self.new_memory(&payload.source_path, payload.kind, position, chunk, extracted, now)?);
            }
        }
        self.store.transaction(|store| memories.iter().try_for_each(|memory| store.insert_memory(memory)))?;
        Ok(Finished::Done)
    }

    /// A memory made from `chunk` of a source, with a fresh id.
    fn new_memory(
        &self,
        source_path: &str,
        source_kind: SourceKind,
        position: crate::domain::Position,
        chunk: &Chunk,
        extracted: ExtractedMemory,
        now: Millis,
    ) -> Result<Memory, StoreError> {
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
            happened_on: extracted.happened_on.map(|date| date.to_string()),
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
        let model = MeteredModel { client: &client, host, store: &self.store, agent: "consolidate" };
        let found = find_insights(&model, &batch).await?;
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
        Ok(Finished::Done)
    }

    /// Answers a question from the memories.
    pub async fn ask<H: Host>(&self, host: &H, question: &str) -> Result<QueryAnswer, AgentError> {
        if question.trim().is_empty() {
            return Err(AgentError::Store(StoreError::InvalidInput("Type a question first.".into())));
        }
        let settings = self.settings();
        let input = QueryInput {
            question,
            today: CalendarDate::at(host.now(), host.utc_offset_minutes()),
            utc_offset_minutes: host.utc_offset_minutes(),
            date_order: settings.date_order,
            budget_tokens: settings.query_budget_tokens,
            max_answer_tokens: settings.max_answer_tokens,
            second_pass: settings.second_pass,
            names: &self.names,
        };
        if self.store.status()?.memories == 0 {
            // No model call, so no connection is needed to say there is nothing yet.
            return answer(&NoModel, &self.store, &input).await;
        }
        let client = self.client()?;
        let model = MeteredModel { client: &client, host, store: &self.store, agent: "query" };
        answer(&model, &self.store, &input).await
    }

    /// One minimal call: proves the keys, region and model work, and how fast.
    pub async fn test_connection<H: Host>(&self, host: &H) -> Result<ConnectionCheck, AgentError> {
        let client = self.client()?;
        let model = MeteredModel { client: &client, host, store: &self.store, agent: "connection_test" };
        let request = ConverseRequest {
            system: vec![ContentBlock::Text("Reply with the single word OK.".into())],
            messages: vec![Message::user("Connection test.")],
            max_tokens: 16,
            temperature: Some(0.0),
            forced_tool: None,
            offered_tools: vec![],
        };
        let started = host.now();
        crate::agents::Model::converse(&model, &request).await?;
        Ok(ConnectionCheck {
            model_id: client.config().model_id.clone(),
            region: client.config().region.clone(),
            latency_ms: u64::try_from(host.now() - started).unwrap_or(0),
        })
    }
}

/// Stands in for the model where none may be called (an empty store).
struct NoModel;

impl crate::agents::Model for NoModel {
    async fn converse(&self, _: &ConverseRequest) -> Result<crate::llm::ConverseReply, crate::llm::LlmError> {
        Err(crate::llm::LlmError::Config("no model call is made for an empty store".into()))
    }
}

fn describe(job: &Job) -> String {
    match job.kind {
        JobKind::IngestSource => job.payload.get("path").and_then(|path| path.as_str()).unwrap_or("a note").to_owned(),
        JobKind::IngestText => "remembered text".to_owned(),
        JobKind::Consolidate => "consolidating memories".to_owned(),
    }
}
