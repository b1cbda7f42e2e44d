//! The WebAssembly facade: the only code that knows JavaScript.
//!
//! It is coarse on purpose — open, configure, tell the engine what happened, run due work,
//! ask, list, forget — and turns every Rust error into a JS `Error` with a stable `code`
//! (`errors`). Async calls return promises that hold the engine by `Rc`, so the plugin may
//! call `status()` while a long `runDueWork()` is in flight. Compiled only for `wasm32`.

mod dto;
mod errors;
mod host;
mod sql_js;
mod types;

use std::cell::RefCell;
use std::rc::Rc;

use futures_util::future::join_all;
use js_sys::{Promise, Uint8Array};
use serde::Serialize;
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::future_to_promise;

use crate::agents::query::{EarlierTurn, QuestionScope};
use crate::calendar::CalendarDate;
use crate::device::DeviceLog;
use crate::domain::{JobState, MemoryId, Millis, TokenUsage};
use crate::engine::{Engine, IngestFile, Pause, TextToRemember};
use crate::error::ErrorCode;
use crate::notes::{decode_note, NoteMetadata, PlacedMemory};
use crate::store::{open_checked, schema, MemoryCursor, MemoryQuery, DATABASE_HEADER_LEN};
use dto::SettingsDto;
use errors::{coded_error, to_js_error};
use host::{JsHost, JsHostAdapter};
use sql_js::{JsSqlJs, SqlJsDriver};

type CoreEngine = Engine<SqlJsDriver>;

/// An open memory store and its engine, held by the plugin for the whole session.
#[wasm_bindgen]
pub struct MemoryCore {
    engine: Rc<CoreEngine>,
    host: RefCell<Option<Rc<JsHostAdapter>>>,
    /// The device runtime and the memory folder it is for.
    log: RefCell<Option<(String, Rc<DeviceLog>)>>,
}

fn log_error(error: crate::device::DeviceLogError) -> JsValue {
    js(error)
}

fn js<E: ErrorCode>(error: E) -> JsValue {
    to_js_error(&error)
}

#[wasm_bindgen]
impl MemoryCore {
    /// Opens the store from the bytes of the database file (`undefined` or empty = new).
    /// The bytes go to sql.js as they are, never copied into this module's memory; only the
    /// header is read here, and the full check of every page is `checkIntegrity`, for later.
    /// Jobs left running by a session that ended mid-flight are queued again. `seed` makes
    /// the ids (pass a random number). Throws `store.corrupt` or `store.newer_schema`.
    pub fn open(
        sql_js: &JsSqlJs,
        bytes: Option<Uint8Array>,
        now_ms: f64,
        seed: Option<f64>,
    ) -> Result<MemoryCore, JsValue> {
        let length = bytes.as_ref().map_or(0, |bytes| bytes.length() as usize);
        let header =
            bytes.as_ref().map(|bytes| bytes.subarray(0, DATABASE_HEADER_LEN as u32).to_vec()).unwrap_or_default();
        let store = open_checked(&header, length, || SqlJsDriver::load_array(sql_js, bytes.as_ref())).map_err(js)?;
        let now = millis(now_ms)?;
        let seed = seed.map(|seed| seed.to_bits()).unwrap_or(now as u64);
        let engine = Engine::new(store, seed, now).map_err(js)?;
        Ok(MemoryCore { engine: Rc::new(engine), host: RefCell::new(None), log: RefCell::new(None) })
    }

    /// Hands in the host object (`send`, `sleep`, `now`, `readFile`, `utcOffsetMinutes`,
    /// `progress`, `extractPdf`, and the device log's file operations `listFolder`, `readFrom`,
    /// `appendText`, `createFile`, `removeFile`); needed before any call that reads notes, calls
    /// the model or touches the log.
    #[wasm_bindgen(js_name = attachHost)]
    pub fn attach_host(&self, host: JsHost) {
        *self.host.borrow_mut() = Some(Rc::new(JsHostAdapter::new(host)));
    }

    /// Applies settings `{ engine?, connection? }`. An invalid connection throws
    /// `llm.config` with the reason; `connection: null` disconnects.
    pub fn configure(
        &self,
        #[wasm_bindgen(unchecked_param_type = "CoreSettings")] settings: JsValue,
    ) -> Result<(), JsValue> {
        let settings: SettingsDto = serde_wasm_bindgen::from_value(settings)
            .map_err(|error| coded_error(&format!("Invalid settings: {error}"), "settings.invalid"))?;
        if let Some(engine_settings) = settings.engine {
            engine_settings.validate().map_err(|message| coded_error(&message, "settings.invalid"))?;
            self.engine.set_host_rule(regex_filters(&engine_settings.scope.ignore_filters));
            self.engine.set_settings(engine_settings);
        }
        if let Some(device) = &settings.device {
            self.engine.store().set_device(device);
        }
        let seed = js_sys::Math::random().to_bits();
        let config = settings.connection.map(dto::ConnectionDto::into_config);
        self.engine.configure_connection(config, seed).map_err(js)
    }

    /// Counts and engine state: `{memories, insights, queued, running, failed, schemaVersion,
    /// finished, current, paused, pausedCode, removedAtOpen, modelFallback}`.
    #[wasm_bindgen(unchecked_return_type = "CoreStatus")]
    pub fn status(&self) -> Result<JsValue, JsValue> {
        #[derive(Serialize)]
        #[serde(rename_all = "camelCase")]
        struct Status<'a> {
            #[serde(flatten)]
            store: crate::domain::StoreStatus,
            finished: u64,
            current: Option<String>,
            paused: Option<String>,
            paused_by_user: bool,
            paused_code: Option<String>,
            removed_at_open: Option<RemovedAtOpen<'a>>,
            model_fallback: Option<String>,
        }
        /// What `Store::open` removed from the file (`store::schema_guard`), for the notice.
        #[derive(Serialize)]
        struct RemovedAtOpen<'a> {
            objects: &'a [crate::store::ForeignObject],
            summary: String,
        }
        let progress = self.engine.progress().map_err(js)?;
        let pause = self.engine.paused();
        to_js(&Status {
            store: self.engine.store().status().map_err(js)?,
            finished: progress.finished,
            current: progress.current,
            paused: progress.paused,
            paused_by_user: pause.as_ref().is_some_and(Pause::by_user),
            paused_code: pause.and_then(|pause| pause.code().map(str::to_owned)),
            removed_at_open: Some(self.engine.store().foreign_objects_removed())
                .filter(|objects| !objects.is_empty())
                .map(|objects| RemovedAtOpen { objects, summary: crate::store::describe_removed(objects) }),
            model_fallback: self.engine.model_fallback(),
        })
    }

    /// Closes the store for work (unload, reload from disk): no job starts and no call is
    /// sent from now on, running jobs go back to the queue untried (export after this to
    /// keep that), and answers still on their way are discarded. Call `free()` afterwards.
    pub fn close(&self) -> Result<(), JsValue> {
        self.engine.shut_down(self.now()?).map_err(js)
    }

    /// Queues a note to be (re)read; returns the job id. With `payAfter` (ms since the epoch),
    /// a change that may come from another device: what costs nothing is done at once, but no
    /// model call is sent for the note before then.
    #[wasm_bindgen(js_name = enqueueNote)]
    pub fn enqueue_note(&self, path: &str, pay_after: Option<f64>) -> Result<f64, JsValue> {
        let pay_after = pay_after.filter(|at| at.is_finite()).map(|at| at as Millis);
        self.engine.enqueue_note_paying_after(path, self.now()?, pay_after).map(|id| id as f64).map_err(js)
    }

    /// Queues a selection or typed text `{text, sourcePath, kind, heading?, lineStart?, noteDate?}`.
    #[wasm_bindgen(js_name = rememberText)]
    pub fn remember_text(
        &self,
        #[wasm_bindgen(unchecked_param_type = "TextToRemember")] text: JsValue,
    ) -> Result<f64, JsValue> {
        let text: TextToRemember = serde_wasm_bindgen::from_value(text)
            .map_err(|error| coded_error(&format!("Invalid text to remember: {error}"), "facade.invalid_argument"))?;
        self.engine.enqueue_text(&text, self.now()?).map(|id| id as f64).map_err(js)
    }

    /// Queues several notes at once; returns how many.
    #[wasm_bindgen(js_name = enqueueNotes)]
    pub fn enqueue_notes(&self, paths: Vec<String>) -> Result<f64, JsValue> {
        self.engine.enqueue_notes(&paths, self.now()?).map(|count| count as f64).map_err(js)
    }

    /// Several notes were deleted (or left the scope): what went, together.
    #[wasm_bindgen(js_name = removeNotes, unchecked_return_type = "Removal")]
    pub fn remove_notes(&self, paths: Vec<String>) -> Result<JsValue, JsValue> {
        to_js(&self.engine.remove_notes(&paths).map_err(js)?)
    }

    /// A note was deleted: `{memories, consolidations, reopened}` removed or re-opened.
    #[wasm_bindgen(js_name = removeNote, unchecked_return_type = "Removal")]
    pub fn remove_note(&self, path: &str) -> Result<JsValue, JsValue> {
        to_js(&self.engine.remove_note(path).map_err(js)?)
    }

    #[wasm_bindgen(js_name = renameNote)]
    pub fn rename_note(&self, old_path: &str, new_path: &str) -> Result<(), JsValue> {
        self.engine.rename_note(old_path, new_path, self.now()?).map_err(js)
    }

    // ── exclusions (issue 21: the plugin asks, the core decides) ──────────────────────────
    /// Which of these vault files are left out, and why (`null`: in scope), decided by the
    /// scope rules: the plugin's one question for reconciliation, vault events and the status
    /// view, one call per slice. Each `ExclusionQuery` is decided by its path, then by its
    /// content: from Obsidian's `metadata` when given, else — with `read` — from the note read
    /// through the host here in the worker (properties and tags only), else not yet (the
    /// content is decided when the note is read for remembering): `Promise<(string | null)[]>`.
    #[wasm_bindgen(unchecked_return_type = "Promise<Array<string | null>>")]
    pub fn exclusions(
        &self,
        #[wasm_bindgen(unchecked_param_type = "ExclusionQuery[]")] items: JsValue,
    ) -> Result<Promise, JsValue> {
        let items: Vec<ExclusionQuery> = serde_wasm_bindgen::from_value(items)
            .map_err(|error| coded_error(&format!("Invalid exclusion query: {error}"), "facade.invalid_argument"))?;
        let (engine, host) = (self.engine.clone(), self.host()?);
        Ok(future_to_promise(async move {
            let mut reasons = Vec::with_capacity(items.len());
            // A few reads at a time: each is a round trip to the main thread.
            for batch in items.chunks(EXCLUSION_READS_AT_ONCE) {
                reasons.extend(join_all(batch.iter().map(|item| exclusion_of(&engine, host.as_ref(), item))).await);
            }
            to_js(&reasons)
        }))
    }

    /// Runs due jobs until none is left or the engine pauses: `Promise<RunReport>`.
    #[wasm_bindgen(js_name = runDueWork, unchecked_return_type = "Promise<RunReport>")]
    pub fn run_due_work(&self) -> Result<Promise, JsValue> {
        let (engine, host) = (self.engine.clone(), self.host()?);
        Ok(future_to_promise(async move {
            let report = engine.run_due_work(host.as_ref()).await.map_err(js)?;
            to_js(&report)
        }))
    }

    /// Answers a question, as the next turn after `earlier` (oldest first; none for a new
    /// conversation), from the memories inside `scope` (all without one):
    /// `Promise<QueryAnswer>`.
    #[wasm_bindgen(unchecked_return_type = "Promise<QueryAnswer>")]
    pub fn ask(
        &self,
        question: String,
        #[wasm_bindgen(unchecked_optional_param_type = "boolean | null")] allow_over_limit: Option<bool>,
        #[wasm_bindgen(unchecked_optional_param_type = "EarlierTurn[]")] earlier: JsValue,
        #[wasm_bindgen(unchecked_optional_param_type = "QuestionScope")] scope: JsValue,
    ) -> Result<Promise, JsValue> {
        let earlier: Vec<EarlierTurn> = optional_argument(earlier, "Invalid conversation")?;
        let scope: QuestionScope = optional_argument(scope, "Invalid question scope")?;
        let (engine, host) = (self.engine.clone(), self.host()?);
        Ok(future_to_promise(async move {
            let allow = allow_over_limit.unwrap_or(false);
            let answer = engine.ask_follow_up(host.as_ref(), &question, &earlier, &scope, allow).await.map_err(js)?;
            to_js(&answer)
        }))
    }

    /// Stops the questions in flight (the ask panel's Stop): none of them sends another
    /// request; their promises settle when what was already sent answers, and the caller
    /// discards them. Questions asked afterwards are not affected.
    #[wasm_bindgen(js_name = stopQuestions)]
    pub fn stop_questions(&self) {
        self.engine.stop_questions();
    }

    /// What this account may call in this region: `Promise<ModelChoice[]>` (inference
    /// profiles, then on-demand models), from Bedrock's control plane; no model call.
    #[wasm_bindgen(js_name = listModels, unchecked_return_type = "Promise<ModelChoice[]>")]
    pub fn list_models(&self) -> Result<Promise, JsValue> {
        let (engine, host) = (self.engine.clone(), self.host()?);
        Ok(future_to_promise(async move {
            let models = engine.list_models(host.as_ref()).await.map_err(js)?;
            to_js(&models)
        }))
    }

    /// One minimal model call: `Promise<{modelId, region, latencyMs}>`, or the error in words.
    #[wasm_bindgen(js_name = testConnection, unchecked_return_type = "Promise<ConnectionCheck>")]
    pub fn test_connection(&self) -> Result<Promise, JsValue> {
        let (engine, host) = (self.engine.clone(), self.host()?);
        Ok(future_to_promise(async move {
            let check = engine.test_connection(host.as_ref()).await.map_err(js)?;
            to_js(&check)
        }))
    }

    /// Queues a consolidation now (the command).
    #[wasm_bindgen(js_name = consolidateNow)]
    pub fn consolidate_now(&self) -> Result<f64, JsValue> {
        self.engine.enqueue_consolidation("command", self.now()?).map(|id| id as f64).map_err(js)
    }

    /// Pauses work until `resume`, also across restarts (kept in the store).
    pub fn pause(&self) -> Result<(), JsValue> {
        self.engine.pause().map_err(js)
    }

    pub fn resume(&self) -> Result<(), JsValue> {
        self.engine.resume().map_err(js)
    }

    /// Failed jobs get fresh attempts; returns how many. `byTheUser`: the user chose Retry
    /// failed (which also confirms the files that wait for them).
    #[wasm_bindgen(js_name = retryFailed)]
    pub fn retry_failed(&self, by_the_user: bool) -> Result<f64, JsValue> {
        self.engine.retry_failed(self.now()?, by_the_user).map(|count| count as f64).map_err(js)
    }

    /// A page of the memory browser: `{text?, source?, entity?, topic?, from?, to?, before?, limit?, fileKind?}`;
    /// each memory with its `fileKind` and `page`.
    #[wasm_bindgen(js_name = browseMemories, unchecked_return_type = "MemoryPage")]
    pub fn browse_memories(
        &self,
        #[wasm_bindgen(unchecked_param_type = "MemoryQuery")] query: JsValue,
    ) -> Result<JsValue, JsValue> {
        let query: MemoryQuery = serde_wasm_bindgen::from_value(query)
            .map_err(|error| coded_error(&format!("Invalid memory query: {error}"), "facade.invalid_argument"))?;
        to_js(&self.engine.browse_memories(&query).map_err(js)?)
    }

    /// A page of insights, newest first, after `before` (from the previous page's `next`).
    #[wasm_bindgen(js_name = browseInsights, unchecked_return_type = "InsightPage")]
    pub fn browse_insights(
        &self,
        #[wasm_bindgen(unchecked_param_type = "MemoryCursor | null | undefined")] before: JsValue,
        limit: Option<u32>,
    ) -> Result<JsValue, JsValue> {
        let before: Option<MemoryCursor> = serde_wasm_bindgen::from_value(before)
            .map_err(|error| coded_error(&format!("Invalid cursor: {error}"), "facade.invalid_argument"))?;
        to_js(&self.engine.store().browse_insights(before, limit.unwrap_or(0)).map_err(js)?)
    }

    /// The memories with these ids, in that order, without their text; unknown ids are left out.
    #[wasm_bindgen(js_name = getMemories, unchecked_return_type = "Memory[]")]
    pub fn get_memories(&self, ids: Vec<String>) -> Result<JsValue, JsValue> {
        let ids: Vec<MemoryId> = ids.into_iter().map(MemoryId).collect();
        let memories = self.engine.store().get_memories(&ids).map_err(js)?;
        to_js(&memories.into_iter().map(PlacedMemory::from).collect::<Vec<_>>())
    }

    /// Every memory and insight as a JSON document (Settings → Export).
    #[wasm_bindgen(js_name = exportJson)]
    pub fn export_json(&self) -> Result<String, JsValue> {
        self.engine.store().export_json().map_err(js)
    }

    /// What the prompt of `question` would carry, without a model call, from the memories
    /// inside `scope` (all without one): `Recall`.
    #[wasm_bindgen(unchecked_return_type = "Recall")]
    pub fn recall(
        &self,
        question: String,
        budget_tokens: Option<u32>,
        #[wasm_bindgen(unchecked_optional_param_type = "QuestionScope")] scope: JsValue,
    ) -> Result<JsValue, JsValue> {
        #[derive(Serialize)]
        #[serde(rename_all = "camelCase")]
        struct Recall {
            plan: crate::select::QueryPlan,
            memories: Vec<PlacedMemory>,
            insights: Vec<crate::domain::Consolidation>,
            tokens: usize,
            reasons: Vec<(String, usize)>,
            memories_total: usize,
            insights_total: usize,
        }
        let now = self.now()?;
        let offset = self.utc_offset();
        let today = CalendarDate::at(now, offset);
        let scope: QuestionScope = optional_argument(scope, "Invalid question scope")?;
        let within = scope.memories().map_err(js)?;
        let budget = budget_tokens.map(|budget| budget as usize);
        let selection = self.engine.recall(&question, today, offset, budget, Some(&within)).map_err(js)?;
        let packed = selection.packed;
        to_js(&Recall {
            plan: selection.plan,
            memories: packed.memories.into_iter().map(PlacedMemory::from).collect(),
            insights: packed.insights,
            tokens: packed.tokens,
            reasons: packed.reasons,
            memories_total: selection.memories_total,
            insights_total: selection.insights_total,
        })
    }

    /// Forgets a memory: `{memories, consolidations, reopened}`.
    #[wasm_bindgen(js_name = forgetMemory, unchecked_return_type = "Removal")]
    pub fn forget_memory(&self, id: String) -> Result<JsValue, JsValue> {
        to_js(&self.engine.forget_memory(&MemoryId(id)).map_err(js)?)
    }

    /// Jobs in a state (`queued`, `running`, `failed`; all when omitted), at most `limit`.
    #[wasm_bindgen(js_name = listJobs, unchecked_return_type = "Job[]")]
    pub fn list_jobs(&self, state: Option<String>, limit: Option<u32>) -> Result<JsValue, JsValue> {
        let state = match state.as_deref() {
            None => None,
            Some(name) => Some(
                JobState::parse(name)
                    .ok_or_else(|| coded_error(&format!("unknown job state {name}"), "facade.invalid_argument"))?,
            ),
        };
        to_js(&self.engine.store().list_jobs_limited(state, limit.unwrap_or(0)).map_err(js)?)
    }

    /// Files that are not remembered, with the reason: `{sources, total}` (at most `limit`).
    #[wasm_bindgen(js_name = listSkipped, unchecked_return_type = "SkippedSources")]
    pub fn list_skipped(&self, limit: u32) -> Result<JsValue, JsValue> {
        #[derive(Serialize)]
        struct Skipped {
            sources: Vec<crate::domain::Source>,
            total: u64,
        }
        let (sources, total) = self.engine.store().skipped_sources(limit).map_err(js)?;
        to_js(&Skipped { sources, total })
    }

    /// Files the store knows, by path: `{path, mtime, size, sha256, skipped}` (for
    /// reconciliation). With `limit`, one page of sources whose paths come after `after`.
    #[wasm_bindgen(js_name = listSources, unchecked_return_type = "Source[]")]
    pub fn list_sources(&self, after: Option<String>, limit: Option<u32>) -> Result<JsValue, JsValue> {
        let store = self.engine.store();
        let sources = match limit {
            Some(limit) if limit > 0 => store.list_sources_page(after.as_deref(), limit),
            _ => store.list_sources(),
        };
        to_js(&sources.map_err(js)?)
    }

    /// How many notes are remembered (known, not skipped).
    #[wasm_bindgen(js_name = rememberedNotes)]
    pub fn remembered_notes(&self) -> Result<f64, JsValue> {
        self.engine.store().remembered_notes().map(|count| count as f64).map_err(js)
    }

    /// What remembering these vault files will roughly cost, at the connected model's price:
    /// notes, PDFs (by their pages when given) and images counted apart (`IngestEstimate`).
    #[wasm_bindgen(js_name = estimateIngest, unchecked_return_type = "IngestEstimate")]
    pub fn estimate_ingest(
        &self,
        #[wasm_bindgen(unchecked_param_type = "IngestFile[]")] files: JsValue,
    ) -> Result<JsValue, JsValue> {
        let files: Vec<IngestFile> = serde_wasm_bindgen::from_value(files)
            .map_err(|error| coded_error(&format!("Invalid files to estimate: {error}"), "facade.invalid_argument"))?;
        to_js(&self.engine.estimate_ingest(&files))
    }

    /// Tokens and estimated cost between two local dates (`YYYY-MM-DD`, inclusive).
    #[wasm_bindgen(unchecked_return_type = "UsageReport")]
    pub fn usage(&self, from: &str, to: &str) -> Result<JsValue, JsValue> {
        #[derive(Serialize)]
        #[serde(rename_all = "camelCase")]
        struct UsageReport {
            records: Vec<crate::store::UsageRecord>,
            total: TokenUsage,
            calls: u64,
            estimated_cost_usd: f64,
            /// False when the model's price is unknown (the estimate uses the highest price).
            price_known: bool,
            model_id: String,
            /// Today and this month, in local days, against the limits (0 = none).
            spent_today_usd: f64,
            spent_this_month_usd: f64,
            daily_limit_usd: f64,
            monthly_limit_usd: f64,
        }
        let date = |text: &str| {
            CalendarDate::parse(text)
                .ok_or_else(|| coded_error(&format!("{text} is not a date"), "facade.invalid_argument"))
        };
        let records = self.engine.store().usage_between(date(from)?, date(to)?).map_err(js)?;
        let mut total = TokenUsage::default();
        let mut calls = 0;
        for record in &records {
            calls += record.calls;
            total.input_tokens += record.input_tokens;
            total.output_tokens += record.output_tokens;
            total.cache_read_tokens += record.cache_read_tokens;
            total.cache_write_tokens += record.cache_write_tokens;
        }
        let model = self.engine.connected_model().unwrap_or_else(|| crate::llm::DEFAULT_MODEL_ID.to_owned());
        let now = self.now()?;
        let offset =
            self.host.borrow().as_ref().map_or(0, |host| crate::engine::Host::utc_offset_minutes(host.as_ref()));
        let spent = self.engine.spent(now, offset).map_err(js)?;
        let settings = self.engine.settings();
        to_js(&UsageReport {
            // Each row at the price tier its calls were billed at, never the total as one call.
            estimated_cost_usd: records.iter().map(|record| crate::engine::record_cost_usd(&model, record)).sum(),
            price_known: crate::llm::price_known(&model),
            model_id: model,
            records,
            total,
            calls,
            spent_today_usd: spent.today,
            spent_this_month_usd: spent.this_month,
            daily_limit_usd: settings.daily_limit_usd,
            monthly_limit_usd: settings.monthly_limit_usd,
        })
    }

    /// True when the store changed since it was opened or last exported.
    #[wasm_bindgen(js_name = isDirty)]
    pub fn is_dirty(&self) -> bool {
        self.engine.store().is_dirty()
    }

    /// Appends what this device changed to its log in `memoryFolder`, rewrites its files that
    /// hold what the user removed, compacts them when due (`device::DeviceLog::sync`), through
    /// the host's file operations: `Promise<LogSync>`.
    #[wasm_bindgen(js_name = syncLog, unchecked_return_type = "Promise<LogSync>")]
    pub fn sync_log(&self, memory_folder: &str) -> Result<Promise, JsValue> {
        let (engine, host, log) = (self.engine.clone(), self.host()?, self.device_log(memory_folder)?);
        let now = self.now()?;
        Ok(future_to_promise(async move {
            let sync = log.sync(&engine, host.as_ref(), now).await.map_err(log_error)?;
            to_js(&sync)
        }))
    }

    /// Replays every device's log files in `memoryFolder` from their cursors (`paths` null), or
    /// only the given vault paths (a vault event said they changed), in slices that let other
    /// calls run between them: `Promise<LogReplay>`.
    #[wasm_bindgen(js_name = replayLogs, unchecked_return_type = "Promise<LogReplay>")]
    pub fn replay_logs(
        &self,
        memory_folder: &str,
        #[wasm_bindgen(unchecked_param_type = "string[] | null")] paths: JsValue,
    ) -> Result<Promise, JsValue> {
        let paths: Option<Vec<String>> = serde_wasm_bindgen::from_value(paths)
            .map_err(|error| coded_error(&format!("Invalid paths: {error}"), "facade.invalid_argument"))?;
        let (engine, host, log) = (self.engine.clone(), self.host()?, self.device_log(memory_folder)?);
        let now = self.now()?;
        Ok(future_to_promise(async move {
            let replayed = match paths {
                Some(paths) => log.replay_paths(&engine, host.as_ref(), &paths, now).await,
                None => log.replay_all(&engine, host.as_ref(), now).await,
            }
            .map_err(log_error)?;
            to_js(&replayed)
        }))
    }

    /// How far the replay running (or the last one) is: `ReplayProgress`.
    #[wasm_bindgen(js_name = replayProgress, unchecked_return_type = "ReplayProgress")]
    pub fn replay_progress(&self) -> Result<JsValue, JsValue> {
        let progress = self.log.borrow().as_ref().map(|(_, log)| log.replay_progress()).unwrap_or_default();
        to_js(&progress)
    }

    /// The device runtime of this store's device over `memory_folder`, kept while the folder
    /// stays the same (it remembers which files' ends were looked at this session).
    fn device_log(&self, memory_folder: &str) -> Result<Rc<DeviceLog>, JsValue> {
        let mut kept = self.log.borrow_mut();
        if let Some((folder, log)) = kept.as_ref() {
            if folder == memory_folder {
                return Ok(log.clone());
            }
        }
        let log = Rc::new(DeviceLog::new(memory_folder, &self.engine.store().device()).map_err(log_error)?);
        *kept = Some((memory_folder.to_owned(), log.clone()));
        Ok(log)
    }

    /// The whole database as the bytes of a file, straight from sql.js (never copied through
    /// this module's memory), for writing to the file; clears the dirty flag.
    #[wasm_bindgen(js_name = exportDatabase)]
    pub fn export_database(&self) -> Result<Uint8Array, JsValue> {
        self.engine.store().export_with(SqlJsDriver::export_array).map_err(js)
    }

    /// The full check of every page (`PRAGMA quick_check`), for when nothing waits on it:
    /// `{repairedIndex}`; damage throws `store.corrupt`.
    #[wasm_bindgen(js_name = checkIntegrity, unchecked_return_type = "Integrity")]
    pub fn check_integrity(&self) -> Result<JsValue, JsValue> {
        to_js(&self.engine.store().check_integrity().map_err(js)?)
    }

    /// Merges the full-text index and hands free pages back: `{bytesBefore, bytesAfter}`.
    #[wasm_bindgen(unchecked_return_type = "Compaction")]
    pub fn compact(&self) -> Result<JsValue, JsValue> {
        to_js(&self.engine.store().compact().map_err(js)?)
    }

    fn host(&self) -> Result<Rc<JsHostAdapter>, JsValue> {
        self.host.borrow().clone().ok_or_else(|| coded_error("attachHost was not called", "facade.no_host"))
    }

    fn utc_offset(&self) -> i32 {
        match self.host.borrow().as_ref() {
            Some(host) => crate::engine::Host::utc_offset_minutes(host.as_ref()),
            None => -(js_sys::Date::new_0().get_timezone_offset() as i32),
        }
    }

    fn now(&self) -> Result<Millis, JsValue> {
        match self.host.borrow().as_ref() {
            Some(host) => Ok(crate::llm::Clock::now(host.as_ref())),
            None => millis(js_sys::Date::now()),
        }
    }
}

/// Notes read at once by `exclusions` when Obsidian's cache does not know them.
const EXCLUSION_READS_AT_ONCE: usize = 16;

/// One file the plugin asks about (`exclusions`).
#[derive(serde::Deserialize)]
#[serde(rename_all = "camelCase")]
struct ExclusionQuery {
    path: String,
    #[serde(default)]
    metadata: Option<NoteMetadata>,
    #[serde(default)]
    read: bool,
    /// The file's size when known: a note over the size limit is not read to decide.
    #[serde(default)]
    size: Option<f64>,
}

async fn exclusion_of(engine: &CoreEngine, host: &JsHostAdapter, item: &ExclusionQuery) -> Option<String> {
    if let Some(reason) = engine.path_exclusion(&item.path) {
        return Some(reason);
    }
    // A PDF or image has no properties or tags: its path decides, and its bytes are never
    // decoded as a note.
    if crate::notes::FileKind::of(&item.path) != crate::notes::FileKind::Note {
        return None;
    }
    let scope = || engine.settings().scope;
    if let Some(metadata) = &item.metadata {
        return scope().metadata_exclusion(metadata);
    }
    let max_bytes = engine.settings().max_note_bytes;
    if !item.read || item.size.is_some_and(|size| size > max_bytes as f64) {
        return None;
    }
    // Unreadable or not text: skipped with its reason when read for remembering.
    let file = crate::engine::Host::read_file(host, &item.path, max_bytes).await.ok()??;
    if file.is_over(max_bytes) {
        return None;
    }
    let text = decode_note(&file.bytes, max_bytes).ok()?;
    scope().text_exclusion(&text)
}

/// Obsidian's `/regex/` "Excluded files" as one rule, matched with JavaScript's own RegExp
/// (their dialect); a broken expression excludes nothing, as in Obsidian.
fn regex_filters(filters: &[String]) -> Option<crate::engine::HostRule> {
    let constructor: js_sys::Function =
        js_sys::Reflect::get(&js_sys::global(), &JsValue::from_str("RegExp")).ok()?.dyn_into().ok()?;
    let expressions: Vec<js_sys::RegExp> = filters
        .iter()
        .map(|filter| filter.trim())
        .filter(|filter| crate::notes::is_regex_filter(filter))
        .filter_map(|filter| {
            let end = filter.rfind('/')?;
            let args = js_sys::Array::of2(&JsValue::from_str(&filter[1..end]), &JsValue::from_str(&filter[end + 1..]));
            js_sys::Reflect::construct(&constructor, &args).ok()?.dyn_into::<js_sys::RegExp>().ok()
        })
        .collect();
    if expressions.is_empty() {
        return None;
    }
    Some(Box::new(move |path: &str| expressions.iter().any(|expression| expression.test(path))))
}

/// Lower-case hex SHA-256 of `bytes`.
#[wasm_bindgen(js_name = sha256Hex)]
pub fn sha256_hex(bytes: &[u8]) -> String {
    crate::hash::sha256_hex(bytes)
}

/// Whether a vault path is a log file of another device than `device` under `memoryFolder`
/// (a vault event about it means: replay it).
#[wasm_bindgen(js_name = isOtherDeviceLogFile)]
pub fn is_other_device_log_file(memory_folder: &str, device: &str, path: &str) -> bool {
    DeviceLog::new(memory_folder, device).is_ok_and(|log| log.is_other_device_file(path))
}

/// A value typed in the settings, checked by the core's rule for `key`
/// (`settings_schema::validate_setting`): `{ value }` as it is saved, or `{ problem }`, the
/// sentence shown next to the field. A list may come as its text area's text.
#[wasm_bindgen(js_name = validateSetting, unchecked_return_type = "SettingCheck")]
pub fn validate_setting(
    key: &str,
    #[wasm_bindgen(unchecked_param_type = "unknown")] value: JsValue,
) -> Result<JsValue, JsValue> {
    #[derive(Serialize)]
    #[serde(untagged)]
    enum SettingCheck {
        Value { value: serde_json::Value },
        Problem { problem: String },
    }
    let value: serde_json::Value = serde_wasm_bindgen::from_value(value)
        .map_err(|error| coded_error(&format!("Invalid setting value: {error}"), "facade.invalid_argument"))?;
    to_js(&match crate::settings_schema::validate_setting(key, &value) {
        Ok(value) => SettingCheck::Value { value },
        Err(problem) => SettingCheck::Problem { problem },
    })
}

/// The schema version this build writes.
#[wasm_bindgen(js_name = supportedSchemaVersion)]
pub fn supported_schema_version() -> u32 {
    schema::supported_version()
}

/// The Bedrock regions for the settings list.
#[wasm_bindgen(js_name = bedrockRegions)]
pub fn bedrock_regions() -> Vec<String> {
    crate::llm::BEDROCK_REGIONS.iter().map(|region| (*region).to_owned()).collect()
}

/// The model used when none is chosen: Claude Haiku 4.5 through the profile `region` can
/// call (the default region's without one).
#[wasm_bindgen(js_name = defaultModelId)]
pub fn default_model_id(region: Option<String>) -> String {
    region.map_or_else(|| crate::llm::DEFAULT_MODEL_ID.to_owned(), |region| crate::llm::default_model_for(&region))
}

/// The plugin's settings schema as JSON (`settings_schema::schema_json`), which the build writes
/// to `plugin/generated/settings-schema.ts`, with the presence numbers (`device::presence`: the
/// heartbeat's and the command's indexing marker's rewrite intervals and ages, and both files'
/// names), which the settings schema may not name itself. Only in the test build, which the
/// build also makes.
#[cfg(feature = "self-check")]
#[wasm_bindgen(js_name = settingsSchema)]
pub fn settings_schema() -> String {
    use crate::device::presence;
    let mut schema = crate::settings_schema::schema_json();
    if let Some(fields) = schema.as_object_mut() {
        fields.insert(
            "presence".to_owned(),
            serde_json::json!({
                "heartbeatEveryMs": presence::HEARTBEAT_EVERY_MS,
                "heartbeatFreshMs": presence::HEARTBEAT_FRESH_MS,
                "indexingEveryMs": presence::INDEXING_EVERY_MS,
                "indexingFreshMs": presence::INDEXING_FRESH_MS,
                "indexingFile": presence::INDEXING_FILE,
                // The heartbeat's name, `{device}` standing for the device id.
                "heartbeatFile": presence::heartbeat_file("{device}"),
            }),
        );
    }
    schema.to_string()
}

/// `data.json`'s text read as the core reads it: `{ settings, problems: [{key, message}],
/// engine }` (`engine`: what the engine takes of them, as the command gives it),
/// for the tests that hold the plugin's reading to the core's. Only in the test build.
#[cfg(feature = "self-check")]
#[wasm_bindgen(js_name = readSettings)]
pub fn read_settings(data_json: &str) -> Result<String, JsValue> {
    let data: serde_json::Value = serde_json::from_str(data_json)
        .map_err(|error| coded_error(&format!("Invalid settings: {error}"), "settings.invalid"))?;
    let read = crate::settings_schema::read_settings(&data);
    let problems: Vec<serde_json::Value> = read
        .problems()
        .iter()
        .map(|problem| serde_json::json!({ "key": problem.key, "message": problem.message }))
        .collect();
    Ok(serde_json::json!({ "settings": read.to_json(), "problems": problems, "engine": read.engine_json() })
        .to_string())
}

/// Runs the store contract suite on fresh sql.js databases: `[{name, ok, error?}]`. Only in
/// the test build (`--features self-check`).
#[cfg(feature = "self-check")]
#[wasm_bindgen(js_name = storeSelfCheck, unchecked_return_type = "SelfCheckResult[]")]
pub fn store_self_check(sql_js: &JsSqlJs) -> Result<JsValue, JsValue> {
    to_js(&crate::store::contract::run_all(&SqlJsFactory { sql_js }))
}

#[cfg(feature = "self-check")]
struct SqlJsFactory<'a> {
    sql_js: &'a JsSqlJs,
}

#[cfg(feature = "self-check")]
impl crate::store::contract::DriverFactory for SqlJsFactory<'_> {
    type Driver = SqlJsDriver;
    fn load(&self, bytes: &[u8]) -> Result<SqlJsDriver, crate::store::DriverError> {
        SqlJsDriver::load(self.sql_js, bytes)
    }
}

/// A JS `Date.now()` value as `Millis`; anything else is a bug in the caller.
fn millis(now_ms: f64) -> Result<Millis, JsValue> {
    if now_ms.is_finite() && now_ms >= 0.0 {
        Ok(now_ms as Millis)
    } else {
        Err(coded_error(&format!("invalid time {now_ms}: pass Date.now()"), "facade.invalid_argument"))
    }
}

/// Plain JS objects (not `Map`s) for every DTO.
/// The search terms the full-text index derives from a memory's text (`stems` or `pairs`), as
/// the SQL function `memory_terms` gives them: for tools that build a database with sql.js alone.
#[wasm_bindgen(js_name = memoryTerms)]
pub fn memory_terms(kind: &str, text: &str, names: &str) -> String {
    crate::store::sql_memory_terms(kind, text, names)
}

/// An optional argument from JavaScript: its default when undefined or null, else decoded,
/// with a clear error when it has the wrong shape.
fn optional_argument<T: serde::de::DeserializeOwned + Default>(value: JsValue, what: &str) -> Result<T, JsValue> {
    if value.is_undefined() || value.is_null() {
        return Ok(T::default());
    }
    serde_wasm_bindgen::from_value(value)
        .map_err(|error| coded_error(&format!("{what}: {error}"), "facade.invalid_argument"))
}

fn to_js<T: serde::Serialize + ?Sized>(value: &T) -> Result<JsValue, JsValue> {
    value
        .serialize(&serde_wasm_bindgen::Serializer::json_compatible())
        .map_err(|error| coded_error(&error.to_string(), "facade.serialize"))
}
