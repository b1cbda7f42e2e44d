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

/// A model that keeps each request's body (as Claude Haiku 4.5 would get it) and answers with
/// the `record_memory` inputs it was given, in turn.
struct ScriptedModel {
    bodies: std::cell::RefCell<Vec<Value>>,
    answers: std::cell::RefCell<Vec<Value>>,
}

impl memory_agent::agents::Model for ScriptedModel {
    async fn converse(
        &self,
        request: &memory_agent::llm::ConverseRequest,
    ) -> Result<memory_agent::llm::ConverseReply, memory_agent::llm::LlmError> {
        let spec = memory_agent::llm::model_spec("us.anthropic.claude-haiku-4-5-20251001-v1:0");
        self.bodies.borrow_mut().push(serde_json::from_str(&request.to_body(spec)).unwrap());
        let input = self.answers.borrow_mut().remove(0);
        Ok(memory_agent::llm::ConverseReply {
            text: String::new(),
            tool_input: Some(input.clone()),
            tool_calls: vec![memory_agent::llm::ToolCall { name: "record_memory".into(), input }],
            stop_reason: memory_agent::llm::StopReason::ToolUse,
            usage: memory_agent::domain::TokenUsage::default(),
            latency_ms: 0,
        })
    }
}

/// A 2 × 2 PNG, prepared as the engine would (small enough to go as it is).
fn tiny_png() -> memory_agent::images::PreparedImage {
    use image::ImageEncoder;
    let mut bytes = Vec::new();
    image::codecs::png::PngEncoder::new(&mut bytes)
        .write_image(&[255, 0, 0, 0, 255, 0, 0, 0, 255, 255, 255, 255], 2, 2, image::ExtendedColorType::Rgb8)
        .unwrap();
    let prepared = memory_agent::images::prepare_natively(&bytes).unwrap();
    assert_eq!(prepared.bytes, bytes, "a small PNG goes as it is");
    prepared
}

#[test]
fn the_ingest_request_for_an_image_and_its_answer() {
    use memory_agent::agents::ingest::{extract_image, ExtractedMemory, Extraction, ImageInput};
    use memory_agent::calendar::CalendarDate;
    let image = tiny_png();
    let input = ImageInput {
        image: &image,
        source_path: "Scans/Receipt cafe.pdf",
        page: Some(2),
        image_date: CalendarDate::parse("2026-11-27"),
        today: CalendarDate::parse("2026-11-30").unwrap(),
    };
    let answer = serde_json::json!({
        "nothing_to_remember": false,
        "summary": "A receipt from Café Lune for two coffees.",
        "facts": ["Café Lune, 2 × espresso, total 6.40 EUR."],
        "entities": [{ "name": "Café Lune", "kind": "place" }],
        "topics": ["receipt"],
        "importance": 0.2,
        "happened_on": ["2026-11-27"]
    });
    // The first answer breaks a rule (no summary): asked once more, with the reason.
    let model = ScriptedModel {
        bodies: Default::default(),
        answers: std::cell::RefCell::new(vec![serde_json::json!({ "nothing_to_remember": false }), answer]),
    };
    let extraction = futures::executor::block_on(extract_image(&model, &input)).unwrap();
    let Extraction::Memory(memory) = extraction else { panic!("a memory: {extraction:?}") };
    assert_eq!(
        memory,
        ExtractedMemory {
            summary: "A receipt from Café Lune for two coffees.".into(),
            entities: vec![memory_agent::domain::Entity { name: "Café Lune".into(), kind: "place".into() }],
            topics: vec!["receipt".into()],
            importance: 0.2,
            happened_on: vec![CalendarDate::parse("2026-11-27").unwrap()],
            facts: vec!["Café Lune, 2 × espresso, total 6.40 EUR.".into()],
        }
    );
    let bodies = model.bodies.borrow();
    assert_eq!(bodies.len(), 2, "one retry");
    for body in bodies.iter() {
        let content = body["messages"][0]["content"].as_array().unwrap();
        assert_eq!(content.len(), 2, "one text block, then one image block");
        assert!(content[0].get("text").is_some() && content[1].get("image").is_some());
        assert_eq!(body["messages"].as_array().unwrap().len(), 1);
        assert_eq!(body["toolConfig"]["toolChoice"]["tool"]["name"], "record_memory");
    }
    let retry = bodies[1]["messages"][0]["content"][0]["text"].as_str().unwrap();
    assert!(retry.ends_with("Call record_memory again with valid values.") && retry.contains("summary is missing"));
    let text = readable(&bodies[0]);
    let user = text.find("=== user\n").expect("a user message");
    let fence = user + text[user..].find("<image_file>").expect("the file fenced");
    assert!(text[user..fence].contains("Image date: 2026-11-27 (Friday)\nToday: 2026-11-30\n"));
    assert!(text[fence..].contains("File: Scans/Receipt cafe.pdf\nPage 2 of a scanned PDF\n</image_file>"));
    assert_snapshot("ingest-image", &text);
}

#[test]
fn an_image_with_nothing_to_remember_is_nothing() {
    use memory_agent::agents::ingest::{extract_image, Extraction, ImageInput};
    use memory_agent::calendar::CalendarDate;
    let image = tiny_png();
    let input = ImageInput {
        image: &image,
        source_path: "Attachments/blank.png",
        page: None,
        image_date: None,
        today: CalendarDate::parse("2026-11-30").unwrap(),
    };
    let model = ScriptedModel {
        bodies: Default::default(),
        answers: std::cell::RefCell::new(vec![serde_json::json!({ "nothing_to_remember": true, "summary": "" })]),
    };
    let extraction = futures::executor::block_on(extract_image(&model, &input)).unwrap();
    assert_eq!(extraction, Extraction::Nothing);
    let text = model.bodies.borrow()[0]["messages"][0]["content"][0]["text"].as_str().unwrap().to_owned();
    assert!(text.starts_with("Image date: unknown\n") && !text.contains("Page "), "{text}");
}
