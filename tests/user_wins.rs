//! The user's action wins over work in flight, one regression test per case: unload, pause
//! across a restart, delete and rename during an ingest, an excluded tag added while queued,
//! forget, retries that end, chunks with nothing to remember, a failed COMMIT, a failed
//! settle. (The seeded simulation in `simulation.rs` mixes them all.)

mod support;

use std::cell::{Cell, RefCell};
use std::pin::Pin;
use std::rc::Rc;

use memory_agent::domain::{JobState, Millis, SourceKind};
use memory_agent::engine::{Engine, EngineSettings, TextToRemember};
use memory_agent::llm::{BedrockConfig, Clock, RetryPolicy};
use memory_agent::notes::ScopeRules;
use memory_agent::store::rusqlite_driver::RusqliteDriver;
use memory_agent::store::{open_from_bytes, DriverError, MemoryFilter, Row, SqlDriver, SqlValue, Store};
use serde_json::json;
use support::fake_model;
use support::scripted_transport::Scripted;
use support::test_host::{work_while, TestHost};
use support::virtual_time::{run, run_all};

/// 2026-11-30T08:00:00Z
const NOW: Millis = 1_796_025_600_000;

fn connection() -> BedrockConfig {
    support::connection::test_connection(RetryPolicy { max_attempts: 2, base_delay_ms: 100, max_delay_ms: 1_000 })
}

fn engine_over<D: SqlDriver>(driver: D, host: &TestHost, settings: EngineSettings) -> Rc<Engine<D>> {
    let engine = Engine::new(Store::open(driver).unwrap(), 42, host.clock.now()).unwrap();
    engine.set_settings(settings);
    engine.configure_connection(Some(connection()), 7).unwrap();
    Rc::new(engine)
}

fn start(host: &TestHost, bytes: &[u8]) -> Rc<Engine<RusqliteDriver>> {
    engine_over(RusqliteDriver::from_bytes(bytes).unwrap(), host, EngineSettings::default())
}

/// `start`, one call per chunk: for the cases about calls in flight one note at a time (the
/// batched ones are in `ingest_batch.rs` and the simulation).
fn start_per_chunk(host: &TestHost) -> Rc<Engine<RusqliteDriver>> {
    let settings = EngineSettings { ingest_batch_chunks: 1, ..EngineSettings::default() };
    engine_over(RusqliteDriver::from_bytes(&[]).unwrap(), host, settings)
}

fn slow_model(host: &TestHost, latency_ms: u64) {
    host.bedrock.respond_with(move |request| fake_model::answer(request).slow(latency_ms));
}

fn work<D: SqlDriver + 'static>(host: &TestHost, engine: &Rc<Engine<D>>) {
    let (host2, engine2) = (host.clone(), engine.clone());
    run(&host.clock, async move { engine2.run_due_work(&host2).await.unwrap() });
}

fn notes(engine: &Engine<RusqliteDriver>, path: &str) -> usize {
    let filter = MemoryFilter { source_path: Some(path.into()), ..MemoryFilter::default() };
    engine.list_memories(&filter).unwrap().iter().filter(|memory| memory.source_kind == SourceKind::Note).count()
}

#[test]
fn after_unload_no_call_is_sent_and_running_jobs_wait_untried_in_the_saved_file() {
    let host = TestHost::new(NOW);
    slow_model(&host, 2_000);
    let engine = start_per_chunk(&host);
    for n in 0..8 {
        host.write(&format!("n{n}.md"), &format!("Note {n} about Alice."));
        engine.enqueue_note(&format!("n{n}.md"), NOW).unwrap();
    }
    let sent_at_unload = Rc::new(Cell::new(0));
    let saved = Rc::new(RefCell::new(Vec::new()));
    let (unloading, bedrock, sent, file) =
        (engine.clone(), host.bedrock.clone(), sent_at_unload.clone(), saved.clone());
    work_while(&host, &engine, 3_000, move || {
        unloading.shut_down(NOW + 3_000).unwrap();
        sent.set(bedrock.requests().len());
        *file.borrow_mut() = unloading.store().export().unwrap();
    });
    assert!(sent_at_unload.get() >= 3, "calls were in flight at unload");
    assert_eq!(host.bedrock.requests().len(), sent_at_unload.get(), "nothing is sent after unload");
    let reopened = start(&host, &saved.borrow());
    let jobs: Vec<_> = reopened
        .store()
        .list_jobs(None)
        .unwrap()
        .into_iter()
        .filter(|job| job.work.kind() == memory_agent::domain::JobKind::IngestSource)
        .collect();
    let remembered = reopened.store().status().unwrap().memories as usize;
    assert_eq!(jobs.len() + remembered, 8, "each note is remembered or still queued: {jobs:?}");
    assert!(jobs.iter().all(|job| job.state == JobState::Queued && job.attempts == 0), "released untried: {jobs:?}");
    assert_eq!(engine.store().status().unwrap().memories as usize, remembered, "late answers are discarded");
}

#[test]
fn a_pause_survives_a_restart_and_only_resume_lifts_it() {
    let host = TestHost::new(NOW);
    host.bedrock.respond_with(fake_model::answer);
    let engine = start(&host, &[]);
    host.write("a.md", "Alice called.");
    engine.enqueue_note("a.md", NOW).unwrap();
    engine.pause().unwrap();
    let bytes = engine.store().export().unwrap();
    let restarted = start(&host, &bytes);
    assert!(restarted.paused().is_some_and(|pause| pause.by_user()), "paused after the restart");
    work(&host, &restarted);
    assert!(host.bedrock.requests().is_empty(), "nothing runs while paused");
    restarted.configure_connection(Some(connection()), 9).unwrap();
    assert!(restarted.paused().is_some(), "new settings do not lift the user's pause");
    restarted.resume().unwrap();
    work(&host, &restarted);
    assert_eq!(notes(&restarted, "a.md"), 1);
    let again = start(&host, &restarted.store().export().unwrap());
    assert_eq!(again.paused(), None);
}

#[test]
fn pausing_stops_a_running_jobs_next_call_and_hands_the_job_back() {
    let host = TestHost::new(NOW);
    slow_model(&host, 1_000);
    let engine = start(&host, &[]);
    let long: String = (0..6).map(|n| format!("# Part {n}\n{}\n", "Alice planned the budget. ".repeat(300))).collect();
    host.write("long.md", &long);
    engine.enqueue_note("long.md", NOW).unwrap();
    let (pausing, bedrock, sent) = (engine.clone(), host.bedrock.clone(), Rc::new(Cell::new(0)));
    let sent_at_pause = sent.clone();
    work_while(&host, &engine, 1_500, move || {
        pausing.pause().unwrap();
        sent_at_pause.set(bedrock.requests().len());
    });
    assert_eq!(host.bedrock.requests().len(), sent.get(), "no call after the pause");
    let jobs = engine.store().list_jobs(None).unwrap();
    assert_eq!((jobs[0].state, jobs[0].attempts), (JobState::Queued, 0), "back in the queue, untried");
}

#[test]
fn a_note_deleted_while_the_model_answers_leaves_nothing_and_a_renamed_one_lands_at_its_new_path() {
    let host = TestHost::new(NOW);
    slow_model(&host, 2_000);
    let engine = start_per_chunk(&host);
    host.write("gone.md", "Bob left the company.");
    host.write("moved.md", "Carol joined the team.");
    engine.enqueue_notes(&["gone.md".into(), "moved.md".into()], NOW).unwrap();
    let (user, vault) = (engine.clone(), host.clone());
    work_while(&host, &engine, 500, move || {
        vault.delete("gone.md");
        user.remove_note("gone.md").unwrap();
        vault.rename("moved.md", "Team/moved.md");
        user.rename_note("moved.md", "Team/moved.md", NOW + 500).unwrap();
    });
    assert_eq!(notes(&engine, "gone.md"), 0, "the deleted note is not answerable");
    assert!(engine.store().get_source("gone.md").unwrap().is_none());
    assert_eq!(notes(&engine, "moved.md"), 0, "no ghost at the old path");
    assert_eq!(notes(&engine, "Team/moved.md"), 1);
    assert!(engine.store().get_source("Team/moved.md").unwrap().is_some());
    assert!(engine.store().list_jobs(None).unwrap().is_empty());
    assert_eq!(host.bedrock.requests().len(), 2, "the renamed note was not paid for twice");
    // Reading the moved note again costs nothing: it is known under its new path.
    engine.enqueue_note("Team/moved.md", NOW).unwrap();
    work(&host, &engine);
    assert_eq!(host.bedrock.requests().len(), 2);
}

#[test]
fn an_excluded_tag_added_while_the_note_waits_is_decided_when_the_note_is_read() {
    let host = TestHost::new(NOW);
    host.bedrock.respond_with(fake_model::answer);
    let settings = EngineSettings {
        scope: ScopeRules {
            excluded_tags: vec!["private".into()],
            excluded_folders: vec!["Journal".into()],
            ..ScopeRules::default()
        },
        ..EngineSettings::default()
    };
    let engine = engine_over(RusqliteDriver::new(), &host, settings);
    host.write("a.md", "Lunch with Alice.");
    engine.enqueue_note("a.md", NOW).unwrap();
    work(&host, &engine);
    assert_eq!(engine.store().status().unwrap().memories, 1);
    // Queued by an edit; the tag arrives before the job reads the note.
    engine.enqueue_note("a.md", NOW).unwrap();
    host.write("a.md", "My diagnosis, told to Alice. #private/health");
    host.write("Journal/b.md", "A diary entry.");
    engine.enqueue_note("Journal/b.md", NOW).unwrap();
    host.bedrock.forget_requests();
    work(&host, &engine);
    assert!(host.bedrock.requests().is_empty(), "nothing of an excluded note is sent");
    assert_eq!(engine.store().status().unwrap().memories, 0, "what was remembered of it before is forgotten");
    assert!(
        engine.store().get_source("a.md").unwrap().is_none()
            && engine.store().get_source("Journal/b.md").unwrap().is_none()
    );
}

#[test]
fn a_forgotten_selection_is_gone_from_the_file_bytes() {
    let host = TestHost::new(NOW);
    host.bedrock.respond_with(fake_model::answer);
    let engine = start(&host, &[]);
    let secret = "Zebulon's passport number is QX-4471-ZZ";
    let selection = TextToRemember {
        text: format!("{secret}.\n"),
        source_path: "Travel.md".into(),
        kind: SourceKind::Selection,
        heading: None,
        line_start: Some(3),
        note_date: None,
    };
    engine.enqueue_text(&selection, NOW).unwrap();
    for n in 0..30 {
        host.write(&format!("n{n}.md"), &format!("Note {n}: Alice planned topic {n}."));
        engine.enqueue_note(&format!("n{n}.md"), NOW).unwrap();
    }
    work(&host, &engine);
    let bytes = engine.store().export().unwrap();
    let found = |bytes: &[u8], needle: &str| bytes.windows(needle.len()).any(|window| window == needle.as_bytes());
    assert!(found(&bytes, "QX-4471-ZZ"), "the selection's text is stored before it is forgotten");
    let memory = engine
        .list_memories(&MemoryFilter { source_path: Some("Travel.md".into()), ..MemoryFilter::default() })
        .unwrap()
        .remove(0);
    engine.forget_memory(&memory.id).unwrap();
    let bytes = engine.store().export().unwrap();
    for needle in ["QX-4471-ZZ", "qx", "Zebulon", "zebulon", &memory.summary] {
        assert!(!found(&bytes, needle), "\"{needle}\" is still in the file's bytes after the forget");
    }
    assert!(engine.store().list_jobs(None).unwrap().is_empty(), "no job keeps the text");
}

#[test]
fn a_consolidation_that_keeps_failing_ends_failed_after_its_attempts() {
    let host = TestHost::new(NOW);
    host.bedrock.respond_with(|request| {
        if request.body.contains("record_insights") {
            // Cites memories that do not exist: invalid, every time.
            Scripted::tool("record_insights", json!({ "insights": [{ "insight": "x", "memory_ids": ["m-0000000000", "m-1111111111"], "connections": [] }] }))
        } else {
            fake_model::answer(request)
        }
    });
    let engine = start(&host, &[]);
    for n in 0..6 {
        host.write(&format!("n{n}.md"), &format!("Note {n} about Alice."));
        engine.enqueue_note(&format!("n{n}.md"), NOW).unwrap();
    }
    // Many runs, days apart: the retries are due, the triggers keep firing.
    for _ in 0..40 {
        work(&host, &engine);
        host.clock.advance_by(7 * 3_600_000);
    }
    let consolidations =
        host.bedrock.requests().iter().filter(|request| request.body.contains("record_insights")).count();
    let attempts = EngineSettings::default().max_job_attempts as usize;
    assert!(consolidations <= 2 * attempts * 9, "{consolidations} consolidation calls: retries must end");
    let failed = engine.store().list_jobs(Some(JobState::Failed)).unwrap();
    assert!(
        failed.iter().any(|job| job.key == "consolidate" && job.attempts as usize == attempts),
        "it ends visibly failed after its attempts: {failed:?}"
    );
}

#[test]
fn asking_again_for_waiting_work_keeps_its_attempts_and_its_retry_time() {
    let host = TestHost::new(NOW);
    host.bedrock.always(Scripted::aws_error(
        503,
        "ServiceUnavailableException",
        "Bedrock is unable to process your request.",
    ));
    let engine = start(&host, &[]);
    host.write("a.md", "Alice.");
    engine.enqueue_note("a.md", NOW).unwrap();
    let (engine2, host2) = (engine.clone(), host.clone());
    let report = run(&host.clock, async move { engine2.run_due_work(&host2).await.unwrap() });
    let job = engine.store().list_jobs(None).unwrap().remove(0);
    assert_eq!((job.state, job.attempts), (JobState::Queued, 0), "a 503 spends no attempt");
    assert!(job.next_run_at > host.clock.now());
    assert_eq!(report.next_due_at, Some(job.next_run_at), "the host hears when the retry is due");
    engine.enqueue_note("a.md", host.clock.now()).unwrap();
    let again = engine.store().list_jobs(None).unwrap().remove(0);
    assert_eq!((again.attempts, again.next_run_at), (0, job.next_run_at));
}

#[test]
fn a_chunk_with_nothing_to_remember_costs_no_call_when_another_chunk_changes() {
    let host = TestHost::new(NOW);
    host.bedrock.respond_with(fake_model::answer);
    let engine = engine_over(
        RusqliteDriver::new(),
        &host,
        EngineSettings { max_chunk_tokens: 200, ingest_batch_chunks: 1, ..EngineSettings::default() },
    );
    // Sections too large to share a chunk (200 tokens is about 800 characters).
    let filler = "Template text. ".repeat(40);
    let note =
        |second: &str| format!("# Boilerplate\nNOTHING TO REMEMBER here. {filler}\n\n# Meeting\n{second} {filler}\n");
    host.write("a.md", &note("Alice approved the budget."));
    engine.enqueue_note("a.md", NOW).unwrap();
    work(&host, &engine);
    assert_eq!(host.bedrock.requests().len(), 2);
    host.write("a.md", &note("Alice approved the budget, and Bob the plan."));
    engine.enqueue_note("a.md", NOW).unwrap();
    work(&host, &engine);
    assert_eq!(host.bedrock.requests().len(), 3, "only the changed chunk is sent again");
    assert_eq!(notes(&engine, "a.md"), 1);
}

/// rusqlite, with one statement made to fail once (the tests say which).
struct FailingOnce {
    inner: RusqliteDriver,
    fail: RefCell<Option<&'static str>>,
}

impl FailingOnce {
    fn check(&self, sql: &str) -> Result<(), DriverError> {
        let hit = self.fail.borrow().is_some_and(|pattern| sql.trim_start().starts_with(pattern));
        if hit {
            self.fail.borrow_mut().take();
            return Err(DriverError::other("disk I/O error (injected)"));
        }
        Ok(())
    }
}

impl SqlDriver for FailingOnce {
    fn execute(&self, sql: &str, params: &[SqlValue]) -> Result<usize, DriverError> {
        self.check(sql)?;
        self.inner.execute(sql, params)
    }
    fn query(&self, sql: &str, params: &[SqlValue]) -> Result<Vec<Row>, DriverError> {
        self.check(sql)?;
        self.inner.query(sql, params)
    }
    fn execute_batch(&self, sql: &str) -> Result<(), DriverError> {
        self.check(sql)?;
        self.inner.execute_batch(sql)
    }
    fn export(&self) -> Result<Vec<u8>, DriverError> {
        self.inner.export()
    }
}

#[test]
fn a_failed_commit_is_rolled_back_and_the_store_keeps_working() {
    let driver = FailingOnce { inner: RusqliteDriver::new(), fail: RefCell::new(None) };
    let store = Store::open(driver).unwrap();
    store.set_meta("a", "1").unwrap();
    store.driver().fail.replace(Some("COMMIT"));
    let failed = store.transaction(|store| store.set_meta("b", "2"));
    assert!(failed.is_err());
    assert_eq!(store.get_meta("b").unwrap(), None, "the failed transaction's change is gone");
    store.transaction(|store| store.set_meta("c", "3")).expect("a later transaction works");
    assert_eq!(store.get_meta("c").unwrap().as_deref(), Some("3"));
}

#[test]
fn a_failed_settle_is_reported_and_the_job_released() {
    let host = TestHost::new(NOW);
    host.bedrock.respond_with(fake_model::answer);
    let driver = FailingOnce { inner: RusqliteDriver::new(), fail: RefCell::new(None) };
    let engine = engine_over(driver, &host, EngineSettings { parallel_jobs: 1, ..EngineSettings::default() });
    host.write("a.md", "Alice.");
    engine.enqueue_note("a.md", NOW).unwrap();
    engine.store().driver().fail.replace(Some("DELETE FROM jobs WHERE id = ? AND state = 'running'"));
    let (engine2, host2) = (engine.clone(), host.clone());
    let outcome = run(&host.clock, async move { engine2.run_due_work(&host2).await });
    assert!(outcome.is_err(), "the caller hears of the failure");
    let job = engine.store().list_jobs(None).unwrap().remove(0);
    assert_eq!(job.state, JobState::Queued, "not left running until the next start");
    let report = run(&host.clock, {
        let (engine, host) = (engine.clone(), host.clone());
        async move { engine.run_due_work(&host).await.unwrap() }
    });
    assert!(report.ran, "the engine runs again");
}

#[test]
fn a_file_written_after_unload_opens_with_its_work_queued() {
    let host = TestHost::new(NOW);
    slow_model(&host, 5_000);
    let engine = start(&host, &[]);
    host.write("a.md", "Alice.");
    engine.enqueue_note("a.md", NOW).unwrap();
    let (unloading, saved) = (engine.clone(), Rc::new(RefCell::new(Vec::new())));
    let file = saved.clone();
    work_while(&host, &engine, 1_000, move || {
        unloading.shut_down(NOW + 1_000).unwrap();
        *file.borrow_mut() = unloading.store().export().unwrap();
    });
    let store = open_from_bytes(&saved.borrow(), RusqliteDriver::from_bytes).unwrap();
    let jobs = store.list_jobs(None).unwrap();
    assert_eq!(jobs.len(), 1);
    assert_eq!((jobs[0].state, jobs[0].attempts), (JobState::Queued, 0));
}

#[test]
fn a_daily_limit_pauses_work_until_the_next_day_and_a_question_over_it_asks_first() {
    let host = TestHost::new(NOW);
    host.bedrock.respond_with(fake_model::answer);
    // Each ingest call costs (200 in + 40 out + 150 cache read) tokens on regional Haiku:
    // about $0.00045; a limit of $0.002 is reached after a handful of notes.
    let settings = EngineSettings {
        daily_limit_usd: 0.002,
        consolidation_threshold: 1_000,
        ingest_batch_chunks: 1,
        ..EngineSettings::default()
    };
    let engine = engine_over(RusqliteDriver::new(), &host, settings);
    for n in 0..20 {
        host.write(&format!("n{n}.md"), &format!("Note {n} about Alice."));
        engine.enqueue_note(&format!("n{n}.md"), NOW).unwrap();
    }
    work(&host, &engine);
    let sent = host.bedrock.requests().len();
    assert!((4..20).contains(&sent), "work stopped at the limit after {sent} calls");
    let pause = engine.paused().expect("paused at the limit");
    assert_eq!(pause.code(), Some("budget.daily"));
    assert!(pause.reason().contains("raise the limit"), "{}", pause.reason());
    let spent = engine.spent(host.clock.now(), 0).unwrap();
    assert!(spent.today >= 0.002 && spent.today < 0.003, "{spent:?}");

    // A question would pass the limit: refused with the reason, answered when the user agrees.
    let (asking, asker) = (engine.clone(), host.clone());
    let refused = run(&host.clock, async move { asking.ask(&asker, "What about Alice?", false).await });
    let error = refused.expect_err("asks first");
    assert_eq!(memory_agent::error::ErrorCode::code(&error), "budget.over_limit");
    assert!(error.to_string().contains("Ask anyway?"), "{error}");
    let (asking, asker) = (engine.clone(), host.clone());
    let answer = run(&host.clock, async move { asking.ask(&asker, "What about Alice?", true).await.unwrap() });
    let cost = answer.cost.expect("the answer says what it cost");
    assert!(cost.usd > 0.0 && cost.price_known && cost.usage.input_tokens > 0, "{cost:?}");

    // The next day the limit allows more: work goes on by itself.
    host.clock.advance_by(24 * 3_600_000);
    work(&host, &engine);
    assert!(host.bedrock.requests().len() > sent + 1, "work resumed the next day");
}

#[test]
fn estimates_use_the_chosen_models_price() {
    let host = TestHost::new(NOW);
    let engine = start(&host, &[]);
    engine.set_settings(EngineSettings { ingest_batch_chunks: 1, ..EngineSettings::default() });
    let haiku = engine.estimate_ingest(&notes_of(100, 400_000));
    // Facts make the answer grow with the text: 275 a note, and about one token in two of text.
    assert_eq!((haiku.input_tokens, haiku.output_tokens), (100_000 + 80_000, 27_500 + 47_169));
    // Eight chunks a call: 40 tokens a piece, the prompt once per call (13 calls).
    engine.set_settings(EngineSettings { ingest_batch_chunks: 8, ..EngineSettings::default() });
    let batched = engine.estimate_ingest(&notes_of(100, 400_000));
    assert_eq!((batched.input_tokens, batched.output_tokens), (100_000 + 4_000 + 13 * 950, 27_500 + 47_169));
    engine.set_settings(EngineSettings { ingest_batch_chunks: 1, ..EngineSettings::default() });
    let mut sonnet = connection();
    sonnet.model_id = "global.anthropic.claude-sonnet-4-5-20250929-v1:0".into();
    engine.configure_connection(Some(sonnet), 1).unwrap();
    let priced = engine.estimate_ingest(&notes_of(100, 400_000));
    assert!((priced.cost_usd - (180_000.0 * 3.0 + 74_669.0 * 15.0) / 1e6).abs() < 1e-9, "{priced:?}");
    assert!(priced.cost_usd > 2.5 * haiku.cost_usd && priced.price_known);
    let mut unknown = connection();
    unknown.model_id = "meta.llama3-70b-instruct-v1:0".into();
    engine.configure_connection(Some(unknown), 1).unwrap();
    assert!(!engine.estimate_ingest(&notes_of(1, 4)).price_known);
}

#[test]
fn estimates_count_pdfs_by_their_pages_and_images_at_the_size_they_are_sent() {
    use memory_agent::engine::IngestFile;
    let host = TestHost::new(NOW);
    let engine = start(&host, &[]);
    engine.set_settings(EngineSettings { ingest_batch_chunks: 1, ..EngineSettings::default() });
    let file = |path: &str, size: u64, pages: Option<u32>| IngestFile { path: path.into(), size, pages };
    let alone = engine.estimate_ingest(&[file("Daily/a.md", 4_000, None)]);
    // A two-page text PDF: 1,000 tokens of text, one chunk (the default chunk is 1,500 tokens).
    let pdf = engine.estimate_ingest(&[file("Papers/Budget.PDF", 900_000, Some(2))]);
    assert_eq!((pdf.notes, pdf.pdfs, pdf.pdf_pages, pdf.images), (0, 1, 2, 0));
    assert_eq!((pdf.input_tokens, pdf.output_tokens), (1_000 + 800, 275 + 471));
    // Its pages unknown: guessed from its size (40 KB a page), 20 pages in 7 chunks.
    let guessed = engine.estimate_ingest(&[file("Papers/Report.pdf", 800_000, None)]);
    assert_eq!((guessed.pdf_pages, guessed.input_tokens), (20, 10_000 + 7 * 800));
    // A photo: 1,534 tokens at 1.15 megapixels, whatever its size on disk, in a call of its own.
    let photo = engine.estimate_ingest(&[file("Photos/IMG_1.JPG", 12_000_000, None)]);
    assert_eq!((photo.images, photo.image_tokens), (1, 1_534));
    assert_eq!((photo.input_tokens, photo.output_tokens), (1_534 + 800, 400));
    // Never read, so never paid for: over a limit, or a format Bedrock does not take.
    let never = engine.estimate_ingest(&[
        file("big.pdf", 60 * 1024 * 1024, None),
        file("long.pdf", 1_000, Some(300)),
        file("huge.png", 30 * 1024 * 1024, None),
        file("scan.heic", 1_000, None),
    ]);
    assert_eq!((never.pdfs, never.images, never.input_tokens, never.cost_usd), (0, 0, 0, 0.0));
    // Together: the sum of each alone.
    let all = engine.estimate_ingest(&[
        file("Daily/a.md", 4_000, None),
        file("Papers/Budget.PDF", 900_000, Some(2)),
        file("Photos/IMG_1.JPG", 12_000_000, None),
    ]);
    assert_eq!(all.input_tokens, alone.input_tokens + pdf.input_tokens + photo.input_tokens);
    assert_eq!((all.notes, all.pdfs, all.images), (1, 1, 1));
    assert!(all.cost_usd > pdf.cost_usd + photo.cost_usd);
    // Each kind's cost is what it costs alone, and they add up to the total the dialog shows.
    assert_eq!(
        (all.notes_cost_usd, all.pdfs_cost_usd, all.images_cost_usd),
        (alone.cost_usd, pdf.cost_usd, photo.cost_usd)
    );
    assert!((all.notes_cost_usd + all.pdfs_cost_usd + all.images_cost_usd - all.cost_usd).abs() < 1e-12);
    assert!(all.images_cost_usd > 0.0 && all.pdfs_cost_usd > 0.0 && all.notes_cost_usd > 0.0);
}

#[test]
fn ninety_seconds_of_throttling_loses_no_note_and_sends_at_most_one_request_every_few_seconds() {
    let host = TestHost::new(NOW);
    let clock = host.clock.clone();
    host.bedrock.respond_with(move |request| {
        if clock.now() < NOW + 90_000 {
            Scripted::throttled()
        } else {
            fake_model::answer(request)
        }
    });
    let engine = engine_over(
        RusqliteDriver::new(),
        &host,
        EngineSettings { consolidation_threshold: 1_000, ..EngineSettings::default() },
    );
    engine.configure_connection(Some(BedrockConfig { retry: RetryPolicy::default(), ..connection() }), 7).unwrap();
    for n in 0..10 {
        host.write(&format!("n{n}.md"), &format!("Note {n} about Alice."));
        engine.enqueue_note(&format!("n{n}.md"), NOW).unwrap();
    }
    // The work runner: a run now, and again whenever a retry comes due.
    for _ in 0..200 {
        let (engine2, host2) = (engine.clone(), host.clone());
        let report = run(&host.clock, async move { engine2.run_due_work(&host2).await.unwrap() });
        let Some(due) = report.next_due_at else { break };
        let now = host.clock.now();
        host.clock.advance_by((due - now).max(1_000));
    }
    let throttled = host.bedrock.requests().len().saturating_sub(10);
    let status = engine.store().status().unwrap();
    assert_eq!((status.memories, status.queued, status.failed), (10, 0, 0), "no note lost");
    assert!(throttled <= 30, "{throttled} requests in 90 s of throttling: at most one every 3 s");
    // Measured: 19 (37 without the probe, 61 without the gate).
}

#[test]
fn a_question_whose_full_text_search_sqlite_refuses_is_answered_from_the_rest() {
    let host = TestHost::new(NOW);
    host.bedrock.respond_with(fake_model::answer);
    let driver = FailingOnce { inner: RusqliteDriver::new(), fail: RefCell::new(None) };
    let engine = engine_over(driver, &host, EngineSettings::default());
    host.write("a.md", "Alice approved the budget.");
    engine.enqueue_note("a.md", NOW).unwrap();
    // Enough memories that a small budget cannot hold them all: the search is needed.
    for n in 0..60 {
        host.write(&format!("n{n}.md"), &format!("Note {n} about the garden and topic {n}."));
        engine.enqueue_note(&format!("n{n}.md"), NOW).unwrap();
    }
    work(&host, &engine);
    // As SQLite answers an FTS expression over its limits ("expression tree is too large").
    engine.store().driver().fail.replace(Some("SELECT docid, matchinfo"));
    let today = memory_agent::calendar::CalendarDate::at(NOW, 0);
    let selection =
        engine.recall("What about the budget?", today, 0, Some(1_000), None).expect("the question does not fail");
    assert!(!selection.packed.memories.is_empty(), "answered from the recent and important memories");
    assert!(engine.store().driver().fail.borrow().is_none(), "the full-text search was tried and refused");
}

#[test]
fn a_stopped_question_sends_nothing_more_and_the_next_question_is_asked_as_usual() {
    let host = TestHost::new(NOW);
    host.bedrock.respond_with(fake_model::answer);
    let engine = start(&host, &[]);
    host.write("trip.md", "# Trip\nAlice flies to Lisbon on 14 March.");
    engine.enqueue_note("trip.md", NOW).unwrap();
    work(&host, &engine);
    host.bedrock.forget_requests();

    // Bedrock throttles the question after a second: the client would try again, but the user
    // stopped the question meanwhile (the ask panel's Stop).
    host.bedrock.respond_with(|_| Scripted::throttled().slow(1_000));
    let (asking, asker, stopping) = (engine.clone(), host.clone(), engine.clone());
    let outcome = Rc::new(RefCell::new(None));
    let answered = outcome.clone();
    let clock = host.clock.clone();
    let tasks: Vec<Pin<Box<dyn std::future::Future<Output = ()>>>> = vec![
        Box::pin(async move {
            *answered.borrow_mut() = Some(asking.ask(&asker, "Where does Alice fly?", false).await);
        }),
        Box::pin(async move {
            clock.sleep(500).await;
            stopping.stop_questions();
        }),
    ];
    run_all(&host.clock, tasks);
    assert_eq!(host.bedrock.requests().len(), 1, "no retry after Stop");
    let error = outcome.borrow_mut().take().expect("the question ended").expect_err("stopped");
    assert_eq!(memory_agent::error::ErrorCode::code(&error), "llm.stopped");

    // Stop is for the questions in flight: the next one is sent and answered.
    host.bedrock.respond_with(fake_model::answer);
    let (asking, asker) = (engine.clone(), host.clone());
    let answer = run(&host.clock, async move { asking.ask(&asker, "Where does Alice fly?", false).await.unwrap() });
    assert!(answer.asked_model);
    assert_eq!(host.bedrock.requests().len(), 2);
}

/// `count` notes of `bytes` bytes in all, as the bulk estimate is given them.
fn notes_of(count: u64, bytes: u64) -> Vec<memory_agent::engine::IngestFile> {
    (0..count)
        .map(|index| memory_agent::engine::IngestFile {
            path: format!("n{index}.md"),
            size: bytes / count,
            pages: None,
        })
        .collect()
}

#[test]
fn a_batch_the_model_always_answers_wrongly_is_set_aside_and_the_memories_after_it_are_consolidated() {
    let host = TestHost::new(NOW);
    let wrong_for_note_0 = Rc::new(std::cell::Cell::new(true));
    let wrong = wrong_for_note_0.clone();
    host.bedrock.respond_with(move |request| {
        if wrong.get() && request.body.contains("record_insights") && request.body.contains("Note 0") {
            Scripted::tool("record_insights", json!({ "insights": [{ "insight": "x", "memory_ids": ["m-0000000000", "m-1111111111"], "connections": [] }] }))
        } else {
            fake_model::answer(request)
        }
    });
    let settings = EngineSettings { consolidation_batch_size: 2, ingest_batch_chunks: 1, ..EngineSettings::default() };
    let engine = engine_over(RusqliteDriver::from_bytes(&[]).unwrap(), &host, settings);
    for n in 0..6 {
        host.write(&format!("n{n}.md"), &format!("Note {n} about Alice."));
        engine.enqueue_note(&format!("n{n}.md"), NOW + n).unwrap();
        work(&host, &engine);
    }
    for _ in 0..12 {
        engine.enqueue_due_consolidation(host.clock.now()).unwrap();
        work(&host, &engine);
        host.clock.advance_by(7 * 3_600_000);
    }
    let consolidated = |engine: &Engine<RusqliteDriver>| -> Vec<String> {
        let mut paths: Vec<String> = engine
            .list_memories(&MemoryFilter::default())
            .unwrap()
            .into_iter()
            .filter(|memory| memory.consolidated)
            .map(|memory| memory.source_path)
            .collect();
        paths.sort();
        paths
    };
    assert_eq!(consolidated(&engine), ["n2.md", "n3.md", "n4.md", "n5.md"], "one bad batch stops nothing after it");
    let failed = engine.store().list_jobs(Some(JobState::Failed)).unwrap();
    assert!(failed.iter().any(|job| job.key == "consolidate"), "the failure stays visible: {failed:?}");
    // "Retry failed" gives the batch set aside its turn again.
    wrong_for_note_0.set(false);
    engine.retry_failed(host.clock.now(), true).unwrap();
    work(&host, &engine);
    assert_eq!(consolidated(&engine), ["n0.md", "n1.md", "n2.md", "n3.md", "n4.md", "n5.md"]);
}
