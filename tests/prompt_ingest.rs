//! The whole IngestAgent and ConsolidateAgent requests, as the engine sends them, held as
//! snapshots (`tests/snapshots/prompts/`): a change of wording, of the tool's schema or of what
//! stands inside the `<note>` fence is a reviewed diff.

mod support;

use std::rc::Rc;

use memory_agent::domain::{Millis, SourceKind};
use memory_agent::engine::{Engine, TextToRemember};
use memory_agent::llm::RetryPolicy;
use memory_agent::store::open_from_bytes;
use memory_agent::store::rusqlite_driver::RusqliteDriver;
use serde_json::Value;
use support::fake_model;
use support::snapshot::assert_snapshot;
use support::test_host::TestHost;
use support::virtual_time::run;

/// 2026-11-30T08:00:00Z
const NOW: Millis = 1_796_025_600_000;

fn start(host: &TestHost) -> Rc<Engine<RusqliteDriver>> {
    host.bedrock.respond_with(fake_model::answer);
    let store = open_from_bytes(&[], RusqliteDriver::from_bytes).unwrap();
    let engine = Engine::new(store, 42, NOW).unwrap();
    let connection =
        support::connection::test_connection(RetryPolicy { max_attempts: 2, base_delay_ms: 100, max_delay_ms: 1_000 });
    engine.configure_connection(Some(connection), 7).unwrap();
    Rc::new(engine)
}

fn work(host: &TestHost, engine: &Rc<Engine<RusqliteDriver>>) {
    let (host, engine) = (host.clone(), engine.clone());
    let clock = host.clock.clone();
    run(&clock, async move { engine.run_due_work(&host).await.unwrap() });
}

/// The one request sent with the forced tool `tool`.
fn only_request(host: &TestHost, tool: &str) -> Value {
    let mut found: Vec<Value> = host
        .bedrock
        .requests()
        .iter()
        .map(|request| serde_json::from_str::<Value>(&request.body).unwrap())
        .filter(|body| body["toolConfig"]["toolChoice"]["tool"]["name"] == tool)
        .collect();
    assert_eq!(found.len(), 1, "one {tool} request");
    found.remove(0)
}

/// A Converse body as a reviewer reads it: the system prompt, each message, the tool with
/// its schema, and the inference settings.
fn readable(body: &Value) -> String {
    let texts = |blocks: &Value| -> String {
        blocks
            .as_array()
            .into_iter()
            .flatten()
            .map(|block| block["text"].as_str().map_or_else(|| format!("{block}"), str::to_owned))
            .collect::<Vec<_>>()
            .join("\n")
    };
    let mut out = format!("=== system\n{}\n", texts(&body["system"]));
    for message in body["messages"].as_array().into_iter().flatten() {
        out.push_str(&format!("=== {}\n{}\n", message["role"].as_str().unwrap_or("?"), texts(&message["content"])));
    }
    for tool in body["toolConfig"]["tools"].as_array().into_iter().flatten() {
        out.push_str(&format!("=== tool\n{}\n", serde_json::to_string_pretty(&tool["toolSpec"]).unwrap()));
    }
    out.push_str(&format!("=== toolChoice\n{}\n", body["toolConfig"]["toolChoice"]));
    out.push_str(&format!("=== inferenceConfig\n{}\n", body["inferenceConfig"]));
    out
}

#[test]
fn the_ingest_request_for_a_note_chunk_with_heading_and_properties() {
    let host = TestHost::new(NOW);
    host.write(
        "Projects/Apollo kickoff.md",
        "---\ndate: 2026-11-20\nproject: apollo\nattendees: [Alice Nguyen, Bob Tran]\n---\n# Kickoff\n\
         Alice Nguyen opened the meeting. The budget is 120,000 EUR; Bob Tran sends the plan by Friday.\n\
         Next review yesterday's numbers on 2026-12-04.\n",
    );
    let engine = start(&host);
    engine.enqueue_note("Projects/Apollo kickoff.md", NOW).unwrap();
    work(&host, &engine);
    let body = only_request(&host, "record_memory");
    let text = readable(&body);
    let fence = text.find("<note>").expect("a note fence");
    assert!(text[fence..].contains("File: Projects/Apollo kickoff.md") && text[fence..].contains("Properties: {"));
    assert_snapshot("ingest-note-chunk", &text);
}

#[test]
fn the_ingest_request_for_typed_text() {
    let host = TestHost::new(NOW);
    let engine = start(&host);
    let typed = TextToRemember {
        text: "Lan's new phone number is +84 90 123 4567; she moves to Da Nang on 2027-01-15.".into(),
        source_path: String::new(),
        kind: SourceKind::Text,
        heading: None,
        line_start: None,
        note_date: None,
    };
    engine.enqueue_text(&typed, NOW).unwrap();
    work(&host, &engine);
    let text = readable(&only_request(&host, "record_memory"));
    assert!(!text.contains("File: "), "typed text has no file");
    assert_snapshot("ingest-typed-text", &text);
}

#[test]
fn the_consolidate_request_for_a_small_batch() {
    let host = TestHost::new(NOW);
    let engine = start(&host);
    let mut settings = engine.settings();
    settings.consolidation_threshold = 100;
    settings.daily_consolidation = false;
    engine.set_settings(settings);
    engine.consolidation_due(NOW).unwrap(); // uses up the at-start trigger
    for (path, text) in [
        ("Daily/2026-11-27.md", "# Lunch\nLunch with Alice about the Lisbon trip.\nFACT: Alice books the flights.\n"),
        ("Trips/Lisbon.md", "# Plan\nFlights to Lisbon on 2026-12-18 for Alice and Bob.\n"),
        ("Work/Budget.md", "# Q4\nBob approved the Q4 budget of 80,000 EUR.\n"),
    ] {
        host.write(path, text);
        engine.enqueue_note(path, NOW).unwrap();
    }
    work(&host, &engine);
    engine.enqueue_consolidation("command", NOW).unwrap();
    work(&host, &engine);
    assert_snapshot("consolidate-small-batch", &readable(&only_request(&host, "record_insights")));
}

#[test]
fn the_batched_ingest_request_for_two_notes() {
    let host = TestHost::new(NOW);
    host.write(
        "Daily/2026-11-27.md",
        "---\nmood: good\n---\n# Lunch\nLunch with Alice Nguyen about the Lisbon trip; she books the flights.\n",
    );
    host.write("Work/Budget.md", "# Q4\nBob Tran approved the Q4 budget of 80,000 EUR yesterday.\n");
    let engine = start(&host);
    let mut settings = engine.settings();
    settings.consolidation_threshold = 100;
    settings.daily_consolidation = false;
    engine.set_settings(settings);
    engine.consolidation_due(NOW).unwrap(); // uses up the at-start trigger
    engine.enqueue_note("Daily/2026-11-27.md", NOW).unwrap();
    engine.enqueue_note("Work/Budget.md", NOW).unwrap();
    work(&host, &engine);
    let text = readable(&only_request(&host, "record_memories"));
    assert_eq!(text.matches("\n</note>\n").count(), 2, "each piece in its own fence");
    assert!(
        text.contains("<note id=\"c1\">\nFile: Daily/2026-11-27.md")
            && text.contains("<note id=\"c2\">\nFile: Work/Budget.md")
    );
    assert_snapshot("ingest-batch", &text);
}
