//! The QueryAgent's optional second pass, through the engine with a scripted model: the
//! request offers `more_memories`; when the model calls it, the memories it asks for are
//! added and the question is asked again without the tool, within the same budget.

mod support;

use std::rc::Rc;

use memory_agent::agents::query::QueryAnswer;
use memory_agent::domain::{Memory, Millis};
use memory_agent::engine::Engine;
use memory_agent::llm::RetryPolicy;
use memory_agent::store::open_from_bytes;
use memory_agent::store::rusqlite_driver::RusqliteDriver;
use serde_json::{json, Value};
use support::fake_model::{self, user_text};
use support::scripted_transport::Scripted;
use support::test_host::TestHost;
use support::virtual_time::run;

/// 2026-11-30T08:00:00Z
const NOW: Millis = 1_796_025_600_000;
const DAY: Millis = 86_400_000;

fn memory(id: &str, days_ago: i64, summary: &str, people: &[&str]) -> Memory {
    support::note_memory::note_memory(id, NOW - days_ago * DAY, summary, people)
}

/// Sixty recent notes about errands, and one old note about Carol that a question about
/// recruiting does not find by its words.
fn start(second_pass: bool) -> Rc<Engine<RusqliteDriver>> {
    let store = open_from_bytes(&[], RusqliteDriver::from_bytes).unwrap();
    for index in 0..60 {
        let id = format!("m-{index:010x}");
        store
            .insert_memory(&memory(&id, index, &format!("Filler note number {index} about errands and chores."), &[]))
            .unwrap();
    }
    store.insert_memory(&memory("m-00000ca701", 400, "Carol will own the hiring plan.", &["Carol"])).unwrap();
    let engine = Engine::new(store, 42, NOW).unwrap();
    let config =
        support::connection::test_connection(RetryPolicy { max_attempts: 1, base_delay_ms: 100, max_delay_ms: 1_000 });
    engine.configure_connection(Some(config), 7).unwrap();
    let mut settings = engine.settings();
    settings.query_budget_tokens = 1_000;
    settings.second_pass = second_pass;
    // About the memory lines the selection packs: no passages take half the budget.
    settings.read_passages = false;
    engine.set_settings(settings);
    Rc::new(engine)
}

fn ask(host: &TestHost, engine: &Rc<Engine<RusqliteDriver>>, question: &'static str) -> QueryAnswer {
    let (engine, host2) = (engine.clone(), host.clone());
    run(&host.clock, async move { engine.ask(&host2, question, false).await.unwrap() })
}

fn bodies(host: &TestHost) -> Vec<Value> {
    host.bedrock.requests().iter().map(|request| serde_json::from_str(&request.body).unwrap()).collect()
}

#[test]
fn the_model_fetches_more_once_and_is_asked_again_with_the_same_cached_prefix() {
    let host = TestHost::new(NOW);
    host.bedrock.push(Scripted::tool("more_memories", json!({ "entities": ["Carol"], "keywords": ["hiring plan"] })));
    host.bedrock.respond_with(fake_model::answer);
    let engine = start(true);
    let answer = ask(&host, &engine, "Who is responsible for recruiting?");
    let sent = bodies(&host);
    assert_eq!(sent.len(), 2, "one call to ask for more, one to answer");
    assert_eq!(sent[0]["toolConfig"]["toolChoice"], json!({ "auto": {} }));
    assert_eq!(sent[0]["toolConfig"]["tools"][0]["toolSpec"]["name"], "more_memories");
    assert!(sent[0]["system"][0]["text"].as_str().unwrap().contains("call more_memories once"));
    assert!(!user_text(&sent[0]).contains("Carol will own"), "the first pass does not find it by its words");
    // Tools, system prompt and memories come first in Bedrock's cache order: the second call
    // keeps them as they were (a cache read) and is told to answer now.
    assert_eq!(sent[0]["toolConfig"], sent[1]["toolConfig"], "the same tools");
    assert_eq!(sent[0]["system"], sent[1]["system"], "the same rules");
    let second = user_text(&sent[1]);
    assert!(second.contains("answer now"), "{second}");
    assert!(
        second.contains("More memories, fetched for this question")
            && second.contains("Carol will own the hiring plan")
    );
    assert_eq!(
        sent[0]["messages"][0]["content"][0], sent[1]["messages"][0]["content"][0],
        "the cached block is unchanged"
    );
    let considered = &answer.considered;
    assert!(considered.reasons.contains(&("more:Carol".to_owned(), 1)), "{:?}", considered.reasons);
    assert!(considered.tokens_packed <= 1_000, "{}", considered.tokens_packed);
    assert!(considered.memories_packed > 1 && considered.memories_packed < 61);
    assert!(answer.asked_model && !answer.citations.is_empty());
    assert_eq!(
        engine
            .store()
            .usage_between(
                memory_agent::calendar::CalendarDate::at(NOW, 0),
                memory_agent::calendar::CalendarDate::at(NOW, 0),
            )
            .unwrap()[0]
            .calls,
        2,
        "both calls are metered"
    );
}

#[test]
fn a_model_that_answers_right_away_is_asked_once() {
    let host = TestHost::new(NOW);
    host.bedrock.respond_with(fake_model::answer);
    let engine = start(true);
    let answer = ask(&host, &engine, "What errands did I do?");
    let sent = bodies(&host);
    assert_eq!(sent.len(), 1);
    assert_eq!(sent[0]["toolConfig"]["tools"][0]["toolSpec"]["name"], "more_memories");
    assert!(answer.considered.tokens_packed <= 800, "the first pass keeps a fifth free");
    assert!(!answer.considered.reasons.iter().any(|(label, _)| label.starts_with("more:")));
}

#[test]
fn a_malformed_request_for_more_still_gets_an_answer() {
    let host = TestHost::new(NOW);
    host.bedrock
        .push(Scripted::tool("more_memories", json!({ "dates": { "from": "last week" }, "entities": [3, null] })));
    host.bedrock.respond_with(fake_model::answer);
    let engine = start(true);
    let answer = ask(&host, &engine, "Who is responsible for recruiting?");
    let sent = bodies(&host);
    assert_eq!(sent.len(), 2);
    assert!(user_text(&sent[1]).contains("found nothing new"), "{}", user_text(&sent[1]));
    assert!(answer.asked_model);
}

#[test]
fn without_the_second_pass_no_tool_is_offered() {
    let host = TestHost::new(NOW);
    host.bedrock.respond_with(fake_model::answer);
    let engine = start(false);
    let answer = ask(&host, &engine, "Who is responsible for recruiting?");
    let sent = bodies(&host);
    assert_eq!(sent.len(), 1);
    assert!(sent[0].get("toolConfig").is_none());
    assert!(answer.considered.tokens_packed <= 1_000 && answer.considered.tokens_packed > 800);
    assert_eq!(answer.considered.memories_total, 61);
    let reasons: Vec<&str> = answer.considered.reasons.iter().map(|(label, _)| label.as_str()).collect();
    assert_eq!(reasons, vec!["recent"], "nothing matched the question's words");
}
