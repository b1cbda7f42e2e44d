//! The QueryAgent through the engine with a scripted model: the passages behind the chosen
//! memories are read from the vault at question time (a deep one of a long note, a changed one
//! marked, a deleted or excluded one skipped, none with the setting off), the evidence section
//! never reaches the answer or its citations, only ids the prompt held are cited, the question
//! block states its dates, and one note's memories are packed in line order; a PDF's passage
//! is its stored text, an image has none.

mod support;

use std::rc::Rc;

use memory_agent::agents::query::{AnswerPiece, QueryAnswer, QuestionScope, CUT_IN_EVIDENCE};
use memory_agent::domain::Millis;
use memory_agent::engine::Engine;
use memory_agent::store::open_from_bytes;
use memory_agent::store::rusqlite_driver::RusqliteDriver;
use serde_json::{json, Value};
use support::fake_model::{self, user_text};
use support::query_vault::{chunk_memory, typed_memory};
use support::scripted_transport::Scripted;
use support::test_host::TestHost;
use support::virtual_time::run;

/// 2026-11-30T08:00:00Z, a Monday.
const NOW: Millis = 1_796_025_600_000;

const ROME: &str = "Trips/Rome.md";

/// A 600-line travel log: a heading every 12 lines, the Venice side trip at line 396, its cost
/// at line 400.
fn rome_note() -> String {
    let mut lines: Vec<String> = Vec::with_capacity(600);
    for at in 0..600 {
        lines.push(if at % 12 == 0 {
            if at == 396 {
                "## Venice side trip".to_owned()
            } else {
                format!("## Day {}", at / 12 + 1)
            }
        } else if at == 400 {
            "The gondola cost 87 EUR for 30 minutes, paid by Bob.".to_owned()
        } else {
            format!("Walked around the old town, line {at}.")
        })
    }
    lines.join("\n")
}

fn start(host: &TestHost, budget: usize, read_passages: bool) -> Rc<Engine<RusqliteDriver>> {
    let store = open_from_bytes(&[], RusqliteDriver::from_bytes).unwrap();
    let note = rome_note();
    host.write(ROME, &note);
    let chunks = memory_agent::notes::parse_note(&note, support::query_vault::CHUNK_TOKENS).chunks;
    for (at, chunk) in chunks.iter().enumerate() {
        let heading = chunk.heading_path.clone().unwrap_or_default();
        let id = format!("m-rome-{at:02}");
        let day = format!("2026-10-{:02}", at % 28 + 1);
        let summary = format!("Rome trip, {heading}: sightseeing.");
        store.insert_memory(&chunk_memory(&id, ROME, &note, at, &summary, Some(&day))).unwrap();
    }
    let typed = "Alice's new phone number is 0612 345 678 (since 2026-11-02).";
    store
        .insert_memory(&typed_memory("m-typed-01", typed, "Alice has a new phone number.", "Alice", Some("2026-11-02")))
        .unwrap();
    let engine = support::connection::answering_engine(store, NOW, budget);
    let mut settings = engine.settings();
    settings.read_passages = read_passages;
    engine.set_settings(settings);
    Rc::new(engine)
}

fn ask_scoped(
    host: &TestHost,
    engine: &Rc<Engine<RusqliteDriver>>,
    question: &str,
    scope: QuestionScope,
) -> QueryAnswer {
    let (engine, host2, question) = (engine.clone(), host.clone(), question.to_owned());
    run(&host.clock, async move { engine.ask_follow_up(&host2, &question, &[], &scope, false).await.unwrap() })
}

fn ask(host: &TestHost, engine: &Rc<Engine<RusqliteDriver>>, question: &str) -> QueryAnswer {
    ask_scoped(host, engine, question, QuestionScope::default())
}

fn last_request(host: &TestHost) -> String {
    let body: Value = serde_json::from_str(&host.bedrock.requests().last().unwrap().body).unwrap();
    user_text(&body)
}

/// The passage element of memory `id` in `prompt`, opening tag to closing tag.
fn passage_of<'a>(prompt: &'a str, id: &str) -> Option<&'a str> {
    let start = prompt.find(&format!("<passage of=\"memory:{id}\""))?;
    let end = prompt[start..].find("</passage>")? + start;
    Some(&prompt[start..end])
}

fn venice_id(engine: &Rc<Engine<RusqliteDriver>>) -> String {
    let memories = engine.store().list_memories(&Default::default()).unwrap();
    memories.into_iter().find(|memory| memory.summary.contains("Venice")).unwrap().id.0
}

#[test]
fn a_long_notes_deep_passage_reaches_the_request() {
    let host = TestHost::new(NOW);
    host.bedrock.respond_with(fake_model::answer);
    // Lines for every chunk fit, their passages do not: the Venice one is read because it ranks first.
    let engine = start(&host, 2_000, true);
    let answer = ask(&host, &engine, "What did the Venice side trip cost?");
    let prompt = last_request(&host);
    let venice = venice_id(&engine);
    let passage = passage_of(&prompt, &venice).unwrap_or_else(|| panic!("no Venice passage in {prompt}"));
    assert!(passage.contains("The gondola cost 87 EUR for 30 minutes, paid by Bob."), "{passage}");
    assert!(!passage.contains("edited since"), "an unchanged chunk is not marked: {passage}");
    assert!(
        answer.considered.passages_packed >= 1 && answer.considered.passages_packed < 50,
        "{:?}",
        answer.considered
    );
    assert!(answer.considered.tokens_packed <= 2_000, "{:?}", answer.considered);
}

#[test]
fn a_changed_passage_is_read_as_it_is_now_and_marked() {
    let host = TestHost::new(NOW);
    host.bedrock.respond_with(fake_model::answer);
    let engine = start(&host, 2_000, true);
    host.write(ROME, &rome_note().replace("87 EUR", "92 EUR"));
    ask(&host, &engine, "What did the Venice side trip cost?");
    let prompt = last_request(&host);
    let passage = passage_of(&prompt, &venice_id(&engine)).unwrap();
    assert!(passage.contains("92 EUR") && !passage.contains("87 EUR"), "{passage}");
    assert!(passage.contains("edited=\"yes\""), "{passage}");
}

#[test]
fn a_deleted_notes_passages_are_skipped_and_its_memories_still_go_in() {
    let host = TestHost::new(NOW);
    host.bedrock.respond_with(fake_model::answer);
    let engine = start(&host, 2_000, true);
    host.delete(ROME);
    let answer = ask(&host, &engine, "What did the Venice side trip cost?");
    let prompt = last_request(&host);
    assert!(!prompt.contains(&format!("<passage of=\"memory:{}\"", venice_id(&engine))), "{prompt}");
    assert!(prompt.contains("Venice side trip: sightseeing."), "the memory line stays");
    assert!(answer.asked_model);
}

#[test]
fn a_note_excluded_meanwhile_is_never_read_into_the_prompt() {
    let host = TestHost::new(NOW);
    host.bedrock.respond_with(fake_model::answer);
    let engine = start(&host, 2_000, true);
    let mut settings = engine.settings();
    settings.scope.excluded_folders = vec!["Trips/".into()];
    engine.set_settings(settings);
    ask(&host, &engine, "What did the Venice side trip cost?");
    let prompt = last_request(&host);
    assert!(!prompt.contains("gondola"), "{prompt}");
    // The same by its properties: read, found excluded, left out.
    let host = TestHost::new(NOW);
    host.bedrock.respond_with(fake_model::answer);
    let engine = start(&host, 2_000, true);
    host.write(ROME, &format!("---\nmemory: false\n---\n{}", rome_note()));
    ask(&host, &engine, "What did the Venice side trip cost?");
    assert!(!last_request(&host).contains("<passage of=\"memory:m-rome"), "{}", last_request(&host));
}

/// Thirty meeting notes, one a day, whose summaries say only that a meeting was held; their
/// words are the same ten topics twice each, and the oldest one also says, once, where the
/// spare key is: a word no summary and no indexed keyword of it holds.
fn start_with_meetings(host: &TestHost, budget: usize) -> Rc<Engine<RusqliteDriver>> {
    let store = open_from_bytes(&[], RusqliteDriver::from_bytes).unwrap();
    let topics = "budget roadmap hiring launch design review metrics velocity backlog sprint";
    for day in 1..=30 {
        let path = format!("Meetings/2026-10-{day:02}.md");
        let aside = if day == 1 { "\nThe spare key hangs in the drawer under the printer." } else { "" };
        let note = format!("# Weekly sync\n{topics}.\n{topics} again.{aside}");
        host.write(&path, &note);
        let summary = format!("The team held its weekly sync on day {day}.");
        let id = format!("m-sync-{day:02}");
        store.insert_memory(&chunk_memory(&id, &path, &note, 0, &summary, Some(&format!("2026-10-{day:02}")))).unwrap();
    }
    let engine = support::connection::answering_engine(store, NOW, budget);
    let mut settings = engine.settings();
    settings.read_passages = true;
    engine.set_settings(settings);
    Rc::new(engine)
}

#[test]
fn a_passage_holding_the_questions_words_brings_its_memory_whose_line_did_not_fit() {
    let host = TestHost::new(NOW);
    host.bedrock.respond_with(fake_model::answer);
    // The lines' half holds about ten of the thirty lines, the newest: the oldest is a runner-up.
    let budget = 1_200;
    let engine = start_with_meetings(&host, budget);
    let answer = ask(&host, &engine, "Where does the spare key hang?");
    let prompt = last_request(&host);
    let passage = passage_of(&prompt, "m-sync-01").unwrap_or_else(|| panic!("no passage of the oldest sync: {prompt}"));
    assert!(passage.contains("The spare key hangs in the drawer under the printer."), "{passage}");
    assert!(prompt.contains("[memory:m-sync-01]"), "its line comes with it: {prompt}");
    assert!(answer.considered.memories_packed < 30, "not every line fit: {:?}", answer.considered);
    assert!(answer.considered.reasons.contains(&("passage".to_owned(), 1)), "{:?}", answer.considered.reasons);
    assert!(answer.considered.tokens_packed <= budget, "{:?}", answer.considered);
}

#[test]
fn typed_text_carries_its_own_passage() {
    let host = TestHost::new(NOW);
    host.bedrock.respond_with(fake_model::answer);
    let engine = start(&host, 4_000, true);
    ask(&host, &engine, "What is Alice's phone number?");
    let prompt = last_request(&host);
    let passage = passage_of(&prompt, "m-typed-01").unwrap_or_else(|| panic!("{prompt}"));
    assert!(passage.contains("0612 345 678"), "{passage}");
}

#[test]
fn the_setting_off_sends_no_passages() {
    let host = TestHost::new(NOW);
    host.bedrock.respond_with(fake_model::answer);
    let engine = start(&host, 2_000, false);
    let answer = ask(&host, &engine, "What did the Venice side trip cost?");
    let prompt = last_request(&host);
    assert!(!prompt.contains("<passage"), "{prompt}");
    assert!(!prompt.contains("gondola"));
    assert_eq!(answer.considered.passages_packed, 0);
}

#[test]
fn the_evidence_never_reaches_the_pieces_the_text_or_the_citations() {
    let host = TestHost::new(NOW);
    let engine = start(&host, 2_000, true);
    let venice = venice_id(&engine);
    let reply = format!(
        "<evidence>\n- [memory:m-rome-00] 2026-10-01: day 1\n- [memory:{venice}]: gondola 87 EUR\n</evidence>\n\
         The gondola cost 87 EUR [memory:{venice}]."
    );
    host.bedrock.push(Scripted::text(&reply));
    let answer = ask(&host, &engine, "What did the Venice side trip cost?");
    let text: String = answer
        .pieces
        .iter()
        .filter_map(|piece| if let AnswerPiece::Text { text } = piece { Some(text.as_str()) } else { None })
        .collect();
    assert_eq!(text, "The gondola cost 87 EUR .", "the text around the citation, nothing of the evidence");
    assert!(!answer.answer.contains("evidence") && !answer.answer.contains("m-rome-00"), "{}", answer.answer);
    let cited: Vec<&str> = answer.citations.iter().map(|citation| citation.id.as_str()).collect();
    assert_eq!(cited, vec![venice.as_str()], "an id named only in the evidence is not a citation");
    assert!(answer.unknown_citations.is_empty());
}

#[test]
fn an_id_not_in_the_prompt_is_dropped_and_counted() {
    let host = TestHost::new(NOW);
    let engine = start(&host, 2_000, true);
    let venice = venice_id(&engine);
    // The typed memory is in the store, but the scope keeps it out of the prompt.
    host.bedrock.push(Scripted::text(&format!("87 EUR [memory:{venice}], and Alice's number [memory:m-typed-01].")));
    let scope = QuestionScope { notes: vec![ROME.into()], ..QuestionScope::default() };
    let answer = ask_scoped(&host, &engine, "What did the Venice side trip cost?", scope);
    assert!(!last_request(&host).contains("m-typed-01"), "the stored id was never packed");
    assert_eq!(answer.unknown_citations, vec!["m-typed-01".to_owned()]);
    assert_eq!(answer.citations.len(), 1);
    assert!(!answer.answer.contains("m-typed-01"));
}

#[test]
fn a_grouped_bracket_of_two_ids_gives_two_citations() {
    let host = TestHost::new(NOW);
    let engine = start(&host, 4_000, true);
    let venice = venice_id(&engine);
    host.bedrock.push(Scripted::text(&format!("Bob paid, Alice called [memory:{venice}, memory:m-typed-01].")));
    let answer = ask(&host, &engine, "What did Bob pay in Venice and what is Alice's number?");
    assert_eq!(answer.citations.len(), 2, "{:?}", answer.unknown_citations);
    let numbers: Vec<usize> = answer
        .pieces
        .iter()
        .filter_map(|piece| if let AnswerPiece::Citation { number } = piece { Some(*number) } else { None })
        .collect();
    assert_eq!(numbers, vec![1, 2]);
}

#[test]
fn the_question_block_states_today_and_the_resolved_dates() {
    let host = TestHost::new(NOW);
    host.bedrock.respond_with(fake_model::answer);
    let engine = start(&host, 2_000, true);
    ask(&host, &engine, "What happened on 1/2/2026 and last week?");
    let prompt = last_request(&host);
    assert!(prompt.contains("Today is Monday 2026-11-30."), "{prompt}");
    assert!(prompt.contains("numeric dates day first"), "{prompt}");
    assert!(prompt.contains("- 1/2/2026 → Sunday 2026-02-01"), "{prompt}");
    assert!(prompt.contains("- last week → Monday 2026-11-23 to Sunday 2026-11-29"), "{prompt}");
}

#[test]
fn one_notes_memories_are_packed_in_line_order() {
    let host = TestHost::new(NOW);
    host.bedrock.respond_with(fake_model::answer);
    let store = open_from_bytes(&[], RusqliteDriver::from_bytes).unwrap();
    let section = |heading: &str, line: &str| format!("# {heading}\n{}", format!("{line}\n").repeat(40));
    let note = [
        section("Plan", "Book the flat."),
        section("Later", "The flat was booked."),
        section("Much later", "We moved in."),
    ]
    .concat();
    let note = note.as_str();
    host.write("Home.md", note);
    // The note's chunks carry dates out of line order; another note's date falls between them.
    store.insert_memory(&chunk_memory("m-home-c", "Home.md", note, 2, "Moved in.", Some("2026-05-01"))).unwrap();
    store.insert_memory(&chunk_memory("m-home-a", "Home.md", note, 0, "Flat to book.", Some("2026-03-01"))).unwrap();
    store.insert_memory(&chunk_memory("m-home-b", "Home.md", note, 1, "Flat booked.", Some("2026-02-20"))).unwrap();
    store.insert_memory(&typed_memory("m-typed-x", "Paint.", "Bought paint.", "Bob", Some("2026-04-01"))).unwrap();
    let engine = Rc::new(support::connection::answering_engine(store, NOW, 4_000));
    ask(&host, &engine, "When did we move into the flat?");
    let prompt = last_request(&host);
    let at = |id: &str| prompt.find(&format!("<memory>\n[memory:{id}]")).unwrap_or_else(|| panic!("{id}: {prompt}"));
    assert!(at("m-home-a") < at("m-home-b") && at("m-home-b") < at("m-home-c"), "line order: {prompt}");
    assert!(at("m-home-c") < at("m-typed-x"), "the note at its earliest date, before a later one: {prompt}");
}

/// A passage's relative dates are written out, counted from the day its note was written (a
/// daily note's name, a dated title; a selection's daily note): never from the memory's date,
/// which is when the events happened. A note that says neither is left as written, and so is a passage read for an agent.
#[test]
fn a_passages_relative_dates_are_counted_from_the_day_its_note_was_written() {
    let host = TestHost::new(NOW);
    host.bedrock.respond_with(fake_model::answer);
    let store = open_from_bytes(&[], RusqliteDriver::from_bytes).unwrap();
    let notes = [
        ("m-daily", "Daily/2026-11-27.md", "Met Bob at the climbing gym yesterday.\n", "Met Bob at the gym."),
        (
            "m-call",
            "Calls/Bob.md",
            "# Call with Bob, Friday 13 November 2026\nBob climbed the north face last weekend and goes again next month.\n",
            "Bob climbed the north face.",
        ),
        ("m-loose", "Loose/Bob.md", "Bob bought climbing shoes yesterday.\n", "Bob bought climbing shoes."),
    ];
    for (id, path, text, summary) in notes {
        host.write(path, text);
        // Dated by the events, as an ingest dates them: a day before the note was written.
        store.insert_memory(&chunk_memory(id, path, text, 0, summary, Some("2026-11-26"))).unwrap();
    }
    // A selection from a daily note is written the day the note is named for.
    let selection = memory_agent::domain::Memory {
        source_path: "Daily/2026-11-20.md".into(),
        source_kind: memory_agent::domain::SourceKind::Selection,
        ..typed_memory("m-selected", "Bob went climbing yesterday.", "Bob went climbing.", "Bob", Some("2026-11-19"))
    };
    store.insert_memory(&selection).unwrap();
    let engine = Rc::new(support::connection::answering_engine(store, NOW, 4_000));
    ask(&host, &engine, "When did Bob go climbing?");
    let prompt = last_request(&host);
    let passage = |id: &str| passage_of(&prompt, id).unwrap_or_else(|| panic!("no passage of {id} in {prompt}"));
    assert!(passage("m-daily").contains("Met Bob at the climbing gym yesterday [= 26 November 2026]."), "{prompt}");
    assert!(
        passage("m-call")
            .contains("the north face last weekend [= 7–8 November 2026] and goes again next month [= December 2026]."),
        "{prompt}"
    );
    assert!(passage("m-loose").contains("Bob bought climbing shoes yesterday.\n"), "no day to count from: {prompt}");
    assert!(passage("m-selected").contains("Bob went climbing yesterday [= 19 November 2026]."), "{prompt}");
    let memory = engine.store().get_memory(&memory_agent::domain::MemoryId("m-daily".into())).unwrap().unwrap();
    let for_an_agent = run(&host.clock, {
        let (engine, host) = (engine.clone(), host.clone());
        async move { engine.passage_of(&host, &memory).await.unwrap() }
    })
    .expect("the daily note's passage");
    assert_eq!(for_an_agent.text, "Met Bob at the climbing gym yesterday.", "an agent reads the note's own words");
}

#[test]
fn an_answer_cut_by_the_length_limit_is_not_an_error() {
    let cut = |text: &str| {
        Scripted::ok(json!({
            "output": { "message": { "role": "assistant", "content": [{ "text": text }] } },
            "stopReason": "max_tokens",
            "usage": { "inputTokens": 100, "outputTokens": 3000 },
        }))
    };
    let host = TestHost::new(NOW);
    let engine = start(&host, 2_000, true);
    host.bedrock.push(cut("<evidence>\n- [memory:m-rome-00] day 1, and"));
    let answer = ask(&host, &engine, "What did the Venice side trip cost?");
    assert!(answer.cut_short);
    assert_eq!(answer.pieces, vec![AnswerPiece::Text { text: CUT_IN_EVIDENCE.to_owned() }]);
    assert!(answer.citations.is_empty() && answer.unknown_citations.is_empty());
    assert_eq!(answer.cost.unwrap().usage.output_tokens, 3_000, "the cut answer is billed");
    let venice = venice_id(&engine);
    host.bedrock.push(cut(&format!("<evidence>x</evidence>It cost 87 EUR [memory:{venice}] and then")));
    let answer = ask(&host, &engine, "What did the Venice side trip cost?");
    assert!(answer.cut_short);
    assert!(answer.answer.ends_with("cut off here by the answer-length limit.)*"), "{}", answer.answer);
    assert_eq!(answer.citations.len(), 1);
}

#[test]
fn the_request_leaves_room_for_the_evidence() {
    let host = TestHost::new(NOW);
    host.bedrock.respond_with(fake_model::answer);
    let engine = start(&host, 2_000, true);
    ask(&host, &engine, "What did the Venice side trip cost?");
    let body: Value = serde_json::from_str(&host.bedrock.requests().last().unwrap().body).unwrap();
    let answer_tokens = u64::from(engine.settings().max_answer_tokens);
    let evidence = u64::from(memory_agent::agents::query::EVIDENCE_TOKENS);
    assert_eq!(body["inferenceConfig"]["maxTokens"], answer_tokens + evidence);
}

#[test]
fn near_a_spending_limit_the_questions_estimate_counts_the_passages() {
    // 51 memory lines take about 2,000 tokens; the passages behind them up to a chunk each.
    // Near a limit of 5 cents a day the full budget (150,000 tokens, about 17 cents) is
    // measured: the lines alone fit, the lines with their passages may not.
    let estimate_refused = |read_passages: bool| {
        let host = TestHost::new(NOW);
        host.bedrock.respond_with(fake_model::answer);
        let engine = start(&host, 150_000, read_passages);
        let mut settings = engine.settings();
        settings.daily_limit_usd = 0.05;
        engine.set_settings(settings);
        let (asking, asker) = (engine.clone(), host.clone());
        let asked =
            run(&host.clock, async move { asking.ask(&asker, "What did the Venice side trip cost?", false).await });
        asked.err().map(|error| memory_agent::error::ErrorCode::code(&error))
    };
    assert_eq!(estimate_refused(false), None, "the lines alone are within the limit");
    assert_eq!(estimate_refused(true), Some("budget.over_limit"), "with a chunk behind each line they may not be");
}

#[test]
fn a_pdfs_passage_is_its_stored_text_and_an_image_has_none_both_cited_by_kind_and_page() {
    use memory_agent::domain::{Position, SourceKind};
    let host = TestHost::new(NOW);
    let store = open_from_bytes(&[], RusqliteDriver::from_bytes).unwrap();
    let page_two = "Budget 2027\nThe Q3 budget is 40,000 EUR, approved by Alice on 2026-11-02.";
    let pdf = memory_agent::domain::Memory {
        source_path: "Papers/Budget.pdf".into(),
        source_kind: SourceKind::Note,
        position: Position { heading: Some("Budget 2027".into()), line_start: Some(2), line_end: Some(3) },
        raw_text: page_two.into(),
        ..typed_memory("m-pdf-01", "", "The Q3 budget was approved.", "Alice", Some("2026-11-02"))
    };
    let image = memory_agent::domain::Memory {
        source_path: "Photos/whiteboard.jpg".into(),
        source_kind: SourceKind::Note,
        position: Position::default(),
        ..typed_memory("m-img-01", "", "A whiteboard of the Q3 budget plan.", "Alice", Some("2026-11-03"))
    };
    store.insert_memory(&pdf).unwrap();
    store.insert_memory(&image).unwrap();
    // The vault's files are not text: were they read as notes, their bytes would reach the prompt.
    host.write("Papers/Budget.pdf", "%PDF-1.7 stream of the whole file");
    host.write("Photos/whiteboard.jpg", "JFIF bytes of the photo");
    let engine = Rc::new(support::connection::answering_engine(store, NOW, 4_000));
    host.bedrock.push(Scripted::text("40,000 EUR [memory:m-pdf-01], as drawn [memory:m-img-01]."));
    let answer = ask(&host, &engine, "What is the Q3 budget?");
    let prompt = last_request(&host);
    let passage = passage_of(&prompt, "m-pdf-01").unwrap_or_else(|| panic!("no PDF passage in {prompt}"));
    assert!(passage.contains("40,000 EUR, approved by Alice"), "{passage}");
    assert!(!passage.contains("edited since"), "{passage}");
    assert!(passage_of(&prompt, "m-img-01").is_none(), "an image has no passage: {prompt}");
    assert!(!prompt.contains("%PDF") && !prompt.contains("JFIF"), "a file was read as a note: {prompt}");
    assert_eq!(answer.considered.passages_packed, 1);
    let places: Vec<(&str, &str, Option<u32>, Option<u32>)> = answer
        .citations
        .iter()
        .map(|citation| (citation.source_path.as_str(), citation.file_kind, citation.page, citation.line_end))
        .collect();
    assert_eq!(
        places,
        vec![("Papers/Budget.pdf", "pdf", Some(2), Some(3)), ("Photos/whiteboard.jpg", "image", None, None)]
    );
}
