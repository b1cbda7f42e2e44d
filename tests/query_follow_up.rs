//! Follow-up questions through the engine with a scripted model: the earlier turns go into
//! the request as the conversation's messages, the memories they cited come along within the
//! budget, and a follow-up without names or dates of its own is about the earlier ones.

mod support;

use std::rc::Rc;

use memory_agent::agents::query::{AnswerPiece, EarlierTurn};
use memory_agent::domain::{Memory, Millis};
use memory_agent::engine::Engine;
use memory_agent::store::open_from_bytes;
use memory_agent::store::rusqlite_driver::RusqliteDriver;
use serde_json::Value;
use support::fake_model::{self, user_text};
use support::scripted_transport::Scripted;
use support::small_talk::SMALL_TALK;
use support::test_host::TestHost;
use support::virtual_time::run;

/// 2026-11-30T08:00:00Z
const NOW: Millis = 1_796_025_600_000;
const DAY: Millis = 86_400_000;

fn memory(id: &str, days_ago: i64, summary: &str, people: &[&str]) -> Memory {
    support::note_memory::note_memory(id, NOW - days_ago * DAY, summary, people)
}

/// Three hundred recent notes of small talk, and two old ones about Carol.
fn start() -> Rc<Engine<RusqliteDriver>> {
    let store = open_from_bytes(&[], RusqliteDriver::from_bytes).unwrap();
    store
        .transaction(|store| {
            for n in 0..300 {
                store.insert_memory(&memory(
                    &format!("m-{n:010x}"),
                    n % 60,
                    SMALL_TALK[n as usize % SMALL_TALK.len()],
                    &[],
                ))?;
            }
            store.insert_memory(&memory("m-00000ca701", 400, "Carol will own the hiring plan.", &["Carol"]))?;
            store.insert_memory(&memory("m-00000ca702", 380, "Carol moved the hiring review to March.", &["Carol"]))
        })
        .unwrap();
    Rc::new(support::connection::answering_engine(store, NOW, 1_200))
}

fn follow_up(
    host: &TestHost,
    engine: &Rc<Engine<RusqliteDriver>>,
    question: &'static str,
    earlier: Vec<EarlierTurn>,
) -> Value {
    let (engine, host2) = (engine.clone(), host.clone());
    run(&host.clock, async move {
        engine.ask_follow_up(&host2, question, &earlier, &Default::default(), false).await.unwrap()
    });
    serde_json::from_str(&host.bedrock.requests().last().unwrap().body).unwrap()
}

#[test]
fn a_follow_up_carries_the_earlier_turns_and_what_they_cited() {
    let host = TestHost::new(NOW);
    host.bedrock.respond_with(fake_model::answer);
    let engine = start();
    let earlier = vec![EarlierTurn {
        question: "Who owns the hiring plan?".into(),
        answer: "Carol does [memory:m-00000ca701].".into(),
        cited: vec!["m-00000ca701".into()],
    }];
    let body = follow_up(&host, &engine, "and when is the review?", earlier);
    let messages = body["messages"].as_array().unwrap();
    assert_eq!(messages.len(), 3, "the earlier question, its answer, the follow-up");
    assert_eq!(messages[0]["role"], "user");
    assert_eq!(messages[0]["content"][0]["text"], "Question: Who owns the hiring plan?");
    assert_eq!(messages[1]["role"], "assistant");
    assert_eq!(messages[1]["content"][0]["text"], "Carol does [memory:m-00000ca701].");
    let last = user_text(&serde_json::json!({ "messages": [messages[2].clone()] }));
    assert!(last.contains("Carol will own the hiring plan."), "the cited memory is carried");
    assert!(
        last.contains("Carol moved the hiring review to March."),
        "Carol, from the earlier question, is searched: {last}"
    );
    assert!(last.contains("Question: and when is the review?"));
}

#[test]
fn a_new_conversation_is_asked_alone() {
    let host = TestHost::new(NOW);
    host.bedrock.respond_with(fake_model::answer);
    let engine = start();
    let body = follow_up(&host, &engine, "and when is the review?", Vec::new());
    assert_eq!(body["messages"].as_array().unwrap().len(), 1);
    assert!(!user_text(&body).contains("Carol will own"), "nothing carried, and the question alone names no one");
}

#[test]
fn forgotten_memories_and_long_conversations_stay_within_the_budget() {
    let host = TestHost::new(NOW);
    host.bedrock.respond_with(fake_model::answer);
    let engine = start();
    let long_answer = "word ".repeat(5_000);
    let earlier: Vec<EarlierTurn> = (0..10)
        .map(|n| EarlierTurn {
            question: format!("Question number {n}?"),
            answer: long_answer.clone(),
            cited: vec!["m-forgotten".into(), "m-00000ca701".into()],
        })
        .collect();
    let body = follow_up(&host, &engine, "What else?", earlier);
    let messages = body["messages"].as_array().unwrap();
    assert_eq!(messages.len(), 2 * 6 + 1, "the latest six turns");
    assert_eq!(messages[0]["content"][0]["text"], "Question: Question number 4?");
    assert!(messages[1]["content"][0]["text"].as_str().unwrap().chars().count() <= 2_000, "answers are cut");
    assert!(!user_text(&body).contains("m-forgotten"), "an id no longer stored is left out");
}

#[test]
fn grouped_repeated_and_unknown_citations_become_numbered_pieces_and_go_back_grouped() {
    let host = TestHost::new(NOW);
    // Cites both Carol memories in one bracket, one of them again, an id that does not exist,
    // and a stored memory the prompt did not carry: only what the model was given is a citation.
    host.bedrock.respond_with(|request| {
        let body: Value = serde_json::from_str(&request.body).unwrap();
        let prompt = user_text(&body);
        let not_given = (0..300).map(|n| format!("m-{n:010x}")).find(|id| !prompt.contains(id.as_str())).unwrap();
        Scripted::text(&format!(
            "Carol owns the plan and moved the review [memory:m-00000ca701, memory:m-00000ca702]. \
             She owns it [memory:m-00000ca701; memory:m-0000000bad]. Also [memory:{not_given}]."
        ))
    });
    let engine = start();
    let (e, h) = (engine.clone(), host.clone());
    let answer = run(&host.clock, async move {
        e.ask_follow_up(&h, "Who owns the hiring plan and when is the review?", &[], &Default::default(), false)
            .await
            .unwrap()
    });
    let text = |text: &str| AnswerPiece::Text { text: text.into() };
    let cite = |number: usize| AnswerPiece::Citation { number };
    assert_eq!(
        answer.pieces,
        vec![
            text("Carol owns the plan and moved the review "),
            cite(1),
            cite(2),
            text(". She owns it "),
            cite(1),
            text(". Also."),
        ]
    );
    let cited: Vec<(usize, &str, &str)> = answer
        .citations
        .iter()
        .map(|citation| (citation.number, citation.id.as_str(), citation.summary.as_str()))
        .collect();
    assert_eq!(
        cited,
        vec![
            (1, "m-00000ca701", "Carol will own the hiring plan."),
            (2, "m-00000ca702", "Carol moved the hiring review to March.")
        ]
    );
    assert_eq!(answer.unknown_citations.len(), 2, "{:?}", answer.unknown_citations);
    assert_eq!(answer.unknown_citations[0], "m-0000000bad");

    // As an earlier turn, the answer goes back with its citations grouped as the prompt asks.
    let earlier = vec![EarlierTurn { question: "Who owns it?".into(), answer: answer.answer.clone(), cited: vec![] }];
    assert_eq!(
        answer.answer,
        "Carol owns the plan and moved the review [memory:m-00000ca701, memory:m-00000ca702]. \
         She owns it [memory:m-00000ca701]. Also."
    );
    host.bedrock.respond_with(fake_model::answer);
    let body = follow_up(&host, &engine, "and since when?", earlier);
    assert_eq!(body["messages"][1]["content"][0]["text"], answer.answer.as_str());
}
