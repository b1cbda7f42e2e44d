//! Several notes' chunks in one ingest call (`engine::batcher`, `agents::ingest_batch`), end to
//! end on native SQLite, a scripted model and virtual time: a batched answer that leaves a chunk
//! out, names a wrong, unknown or repeated id, or describes another piece never puts a memory
//! on the wrong chunk (each such chunk is asked for alone); a note deleted, excluded or renamed
//! while its chunk waits in the batcher; a throttled batch; reuse; usage that adds up.

mod support;

use std::rc::Rc;

use memory_agent::calendar::CalendarDate;
use memory_agent::domain::{JobState, Millis, SourceKind};
use memory_agent::engine::{Engine, EngineSettings, RunReport};
use memory_agent::llm::{BedrockConfig, Clock, HttpRequest, RetryPolicy};
use memory_agent::store::rusqlite_driver::RusqliteDriver;
use memory_agent::store::{open_from_bytes, MemoryFilter};
use serde_json::{json, Value};
use support::fake_model::{self, batch_memories, user_text};
use support::scripted_transport::Scripted;
use support::test_host::{work_while, TestHost};
use support::virtual_time::run;

/// 2026-11-30T08:00:00Z
const NOW: Millis = 1_796_025_600_000;

type TestEngine = Rc<Engine<RusqliteDriver>>;

fn connection() -> BedrockConfig {
    support::connection::test_connection(RetryPolicy { max_attempts: 2, base_delay_ms: 100, max_delay_ms: 1_000 })
}

fn start(host: &TestHost) -> TestEngine {
    let store = open_from_bytes(&[], RusqliteDriver::from_bytes).unwrap();
    let engine = Engine::new(store, 42, host.clock.now()).unwrap();
    // No consolidation in these tests: every call counted is an ingest call.
    engine.set_settings(EngineSettings {
        consolidation_threshold: 10_000,
        daily_consolidation: false,
        ingest_batch_chunks: 8,
        ..EngineSettings::default()
    });
    engine.configure_connection(Some(connection()), 7).unwrap();
    engine.consolidation_due(NOW).unwrap(); // uses up the at-start trigger
    Rc::new(engine)
}

/// Three short notes, each one chunk whose memory the fake makes from its first line.
const NOTES: [(&str, &str); 3] = [
    ("Trips/Lisbon.md", "Alice booked flights to Lisbon for the conference on 2026-12-18.\n"),
    ("Home/Plumber.md", "Bob paid the plumber 300 EUR for fixing the kitchen sink.\n"),
    ("Work/Acme.md", "Carol starts at Acme as head of research in January.\n"),
];

fn write_notes(host: &TestHost, engine: &TestEngine) {
    for (path, text) in NOTES {
        host.write(path, text);
        engine.enqueue_note(path, NOW).unwrap();
    }
}

fn work(host: &TestHost, engine: &TestEngine) -> RunReport {
    let (host, engine) = (host.clone(), engine.clone());
    let clock = host.clock.clone();
    run(&clock, async move { engine.run_due_work(&host).await.unwrap() })
}

/// (single `record_memory` calls, batched `record_memories` calls)
fn calls(host: &TestHost) -> (usize, usize) {
    (host.bedrock.bodies_with_tool("record_memory").len(), host.bedrock.bodies_with_tool("record_memories").len())
}

/// Each note's memories, as summaries.
fn summaries(engine: &TestEngine, path: &str) -> Vec<String> {
    let filter = MemoryFilter { source_path: Some(path.into()), ..MemoryFilter::default() };
    engine
        .list_memories(&filter)
        .unwrap()
        .into_iter()
        .filter(|memory| memory.source_kind == SourceKind::Note)
        .map(|memory| memory.summary)
        .collect()
}

/// Every note has exactly the memory of its own text, as the fake makes it.
fn each_note_has_its_own_memory(engine: &TestEngine, notes: &[(&str, &str)]) {
    for (path, text) in notes {
        let own = format!("Remembered: {}.", text.trim());
        assert_eq!(summaries(engine, path), vec![own], "{path}");
    }
}

/// A model whose batched answers are rewritten by `wrong`; single calls are answered well.
fn batch_answers(host: &TestHost, wrong: impl Fn(&mut Vec<Value>) + 'static) {
    host.bedrock.respond_with(move |request: &HttpRequest| {
        let body: Value = serde_json::from_str(&request.body).unwrap();
        if body["toolConfig"]["toolChoice"]["tool"]["name"] != "record_memories" {
            return fake_model::answer(request);
        }
        let mut memories = batch_memories(&user_text(&body));
        wrong(&mut memories);
        Scripted::tool("record_memories", json!({ "memories": memories }))
    });
}

#[test]
fn three_notes_are_remembered_in_one_call_each_on_its_own_chunk() {
    let host = TestHost::new(NOW);
    host.bedrock.respond_with(fake_model::answer);
    let engine = start(&host);
    write_notes(&host, &engine);
    let report = work(&host, &engine);
    assert_eq!((report.done, report.failed, report.retrying), (3, 0, 0));
    assert_eq!(calls(&host), (0, 1), "one batched call");
    each_note_has_its_own_memory(&engine, &NOTES);
}

#[test]
fn a_chunk_the_batched_answer_leaves_out_is_asked_for_alone() {
    let host = TestHost::new(NOW);
    batch_answers(&host, |memories| drop(memories.remove(1)));
    let engine = start(&host);
    write_notes(&host, &engine);
    assert_eq!(work(&host, &engine).done, 3);
    assert_eq!(calls(&host), (1, 1), "the batch, then the left-out chunk alone");
    let alone = user_text(&host.bedrock.bodies_with_tool("record_memory")[0]);
    assert!(alone.contains("Bob paid the plumber") && !alone.contains("Alice"), "{alone}");
    each_note_has_its_own_memory(&engine, &NOTES);
}

#[test]
fn a_wrong_unknown_or_repeated_id_sends_its_chunk_alone() {
    for (case, alone, wrong) in [
        ("unknown id", 1, (|memories: &mut Vec<Value>| memories[0]["chunk"] = json!("c7")) as fn(&mut Vec<Value>)),
        ("not an id", 1, |memories| memories[0]["chunk"] = json!("Trips/Lisbon.md")),
        // c1 named twice (neither entry is trusted), c3 not at all.
        ("repeated id", 2, |memories| memories[2]["chunk"] = json!("c1")),
        ("swapped ids", 2, |memories| {
            memories[0]["chunk"] = json!("c2");
            memories[1]["chunk"] = json!("c1");
        }),
    ] {
        let host = TestHost::new(NOW);
        batch_answers(&host, wrong);
        let engine = start(&host);
        write_notes(&host, &engine);
        assert_eq!(work(&host, &engine).done, 3, "{case}");
        assert_eq!(calls(&host), (alone, 1), "{case}: the batch, then each chunk it got wrong alone");
        each_note_has_its_own_memory(&engine, &NOTES);
    }
}

#[test]
fn a_memory_about_another_piece_is_not_stored_on_the_piece_it_names() {
    let host = TestHost::new(NOW);
    // c1's entry describes c2's text (the id is right, the content is not).
    batch_answers(&host, |memories| {
        let about_c2 = memories[1].clone();
        memories[0] = about_c2;
        memories[0]["chunk"] = json!("c1");
    });
    let engine = start(&host);
    write_notes(&host, &engine);
    assert_eq!(work(&host, &engine).done, 3);
    assert_eq!(calls(&host), (1, 1), "the misattributed chunk alone");
    assert!(user_text(&host.bedrock.bodies_with_tool("record_memory")[0]).contains("Alice booked flights"));
    each_note_has_its_own_memory(&engine, &NOTES);
}

#[test]
fn a_note_deleted_or_excluded_while_its_chunk_waits_is_never_sent() {
    for excluded in [false, true] {
        let host = TestHost::new(NOW);
        host.bedrock.respond_with(fake_model::answer);
        let engine = start(&host);
        write_notes(&host, &engine);
        // The last note is slow to read: the others' chunks wait in the batcher for it.
        host.read_delay.borrow_mut().insert("Work/Acme.md".into(), 1_000);
        let (user, vault) = (engine.clone(), host.clone());
        work_while(&host, &engine, 500, move || {
            if excluded {
                // The plugin removes a note that leaves the scope, as it does a deleted one.
                let mut settings = user.settings();
                settings.scope.excluded_folders = vec!["Trips".into()];
                user.set_settings(settings);
            } else {
                vault.delete("Trips/Lisbon.md");
            }
            user.remove_note("Trips/Lisbon.md").unwrap();
        });
        let sent: Vec<String> = host.bedrock.requests().iter().map(|request| request.body.clone()).collect();
        assert!(sent.iter().all(|body| !body.contains("Lisbon")), "excluded {excluded}: never sent");
        assert_eq!(calls(&host), (0, 1), "the other two in one call");
        assert!(summaries(&engine, "Trips/Lisbon.md").is_empty());
        each_note_has_its_own_memory(&engine, &NOTES[1..]);
        assert_eq!(engine.store().status().unwrap().queued + engine.store().status().unwrap().running, 0);
    }
}

#[test]
fn a_note_renamed_while_its_chunk_waits_is_sent_once_and_lands_at_its_new_path() {
    let host = TestHost::new(NOW);
    host.bedrock.respond_with(fake_model::answer);
    let engine = start(&host);
    write_notes(&host, &engine);
    host.read_delay.borrow_mut().insert("Work/Acme.md".into(), 1_000);
    let (user, vault) = (engine.clone(), host.clone());
    work_while(&host, &engine, 500, move || {
        vault.rename("Trips/Lisbon.md", "Archive/Lisbon.md");
        user.rename_note("Trips/Lisbon.md", "Archive/Lisbon.md", NOW + 500).unwrap();
    });
    // Its memory is the same wherever the note is: the call it was waiting for carries it.
    assert_eq!(calls(&host), (0, 1));
    assert!(summaries(&engine, "Trips/Lisbon.md").is_empty());
    each_note_has_its_own_memory(&engine, &[("Archive/Lisbon.md", NOTES[0].1), NOTES[1], NOTES[2]]);
    work(&host, &engine);
    assert_eq!(calls(&host), (0, 1), "nothing is asked again");
}

#[test]
fn a_throttled_batch_leaves_every_member_waiting_and_nothing_done() {
    let host = TestHost::new(NOW);
    let throttling = Rc::new(std::cell::Cell::new(true));
    let quota = throttling.clone();
    host.bedrock
        .respond_with(move |request| if quota.get() { Scripted::throttled() } else { fake_model::answer(request) });
    let engine = start(&host);
    write_notes(&host, &engine);
    let report = work(&host, &engine);
    assert_eq!((report.done, report.failed, report.retrying), (0, 0, 3), "{report:?}");
    assert_eq!(calls(&host), (0, 2), "one batch, tried twice by the client, then the jobs wait");
    let jobs = engine.store().list_jobs(None).unwrap();
    assert_eq!(jobs.len(), 3);
    for job in &jobs {
        assert_eq!(job.state, JobState::Queued, "{job:?}");
        assert!(job.next_run_at > NOW && job.last_error.as_deref().unwrap_or("").contains("throttl"), "{job:?}");
        assert_eq!(job.attempts, 0, "throttling spends no attempt: {job:?}");
    }
    assert_eq!(engine.store().status().unwrap().memories, 0);
    // Once Bedrock answers again, all three are remembered.
    throttling.set(false);
    host.clock.advance_by(3_600_000);
    assert_eq!(work(&host, &engine).done, 3);
    each_note_has_its_own_memory(&engine, &NOTES);
}

#[test]
fn unchanged_chunks_and_a_renamed_note_cost_no_call_with_batching_on() {
    let host = TestHost::new(NOW);
    host.bedrock.respond_with(fake_model::answer);
    let engine = start(&host);
    write_notes(&host, &engine);
    work(&host, &engine);
    host.bedrock.forget_requests();
    for (path, _) in NOTES {
        engine.enqueue_note(path, NOW).unwrap();
    }
    host.rename("Work/Acme.md", "Work/Acme (old).md");
    engine.rename_note("Work/Acme.md", "Work/Acme (old).md", NOW).unwrap();
    // An edited note: only its changed chunk is paid for.
    host.write("Home/Plumber.md", "# Sink\nBob paid the plumber 300 EUR for fixing the kitchen sink.\n");
    engine.enqueue_note("Home/Plumber.md", NOW).unwrap();
    work(&host, &engine);
    assert_eq!(calls(&host), (1, 0), "only the edited note's chunk, alone in its group");
    each_note_has_its_own_memory(&engine, &[NOTES[0], ("Work/Acme (old).md", NOTES[2].1)]);
    assert_eq!(summaries(&engine, "Home/Plumber.md"), vec!["Remembered: Sink.".to_owned()]);
}

#[test]
fn usage_is_recorded_once_per_call_and_adds_up() {
    let host = TestHost::new(NOW);
    batch_answers(&host, |memories| drop(memories.pop()));
    let engine = start(&host);
    write_notes(&host, &engine);
    work(&host, &engine);
    let (single, batched) = calls(&host);
    assert_eq!((single, batched), (1, 1));
    let day = CalendarDate::at(host.clock.now(), 0);
    let usage = engine.store().usage_between(day, day).unwrap();
    let ingest: Vec<_> = usage.iter().filter(|record| record.agent == "ingest").collect();
    let calls = ingest.iter().map(|record| record.calls).sum::<u64>();
    let input = ingest.iter().map(|record| record.input_tokens).sum::<u64>();
    // Every scripted tool answer reports 200 input and 40 output tokens.
    assert_eq!((calls, input), (2, 400), "{usage:?}");
    assert_eq!(usage.len(), ingest.len(), "nothing else was called");
}
