//! The optional query-planning call, through the engine with a scripted model: off by default
//! (one call a question); on, a forced `plan_search` call comes first and its words, names
//! and dates join the selection's own plan. Measured here against the plan without it, on
//! questions that share no word with their evidence, for recall and for what the call costs.

mod support;

use std::rc::Rc;

use memory_agent::domain::{Entity, Memory, MemoryId, Millis, Position, SourceKind};
use memory_agent::engine::Engine;
use memory_agent::llm::{estimate_cost_usd, HttpRequest, RetryPolicy};
use memory_agent::store::open_from_bytes;
use memory_agent::store::rusqlite_driver::RusqliteDriver;
use memory_agent::tokens::estimate_tokens;
use serde_json::{json, Value};
use support::fake_model::{self, between, user_text};
use support::scripted_transport::Scripted;
use support::small_talk::SMALL_TALK;
use support::test_host::TestHost;
use support::virtual_time::run;

/// 2026-11-30T08:00:00Z
const NOW: Millis = 1_796_025_600_000;
const DAY: Millis = 86_400_000;
const MODEL: &str = "us.anthropic.claude-haiku-4-5-20251001-v1:0";

/// (person, what they said, the question, what a planning model plausibly searches for).
const CASES: &[(&str, &str, &str, &[&str])] = &[
    (
        "Tom",
        "Went up the ridge again and slept in a tent under the stars.",
        "Would Tom be considered outdoorsy?",
        &["outdoorsy", "hiking", "camping", "tent", "trail", "nature", "mountains"],
    ),
    (
        "John",
        "Marched with the veterans at the parade, flag in hand.",
        "Would John be considered patriotic?",
        &["patriotic", "flag", "veterans", "army", "military", "country", "parade"],
    ),
    (
        "Maria",
        "Paid off the mortgage early and the savings keep growing.",
        "What might Maria's financial status be?",
        &["financial", "money", "savings", "income", "debt", "mortgage", "salary"],
    ),
    (
        "Nate",
        "Spent all weekend at the shelter walking the dogs.",
        "Does Nate like animals?",
        &["animals", "dogs", "cats", "pets", "shelter", "vet"],
    ),
    (
        "Joanna",
        "Finished my third marathon in under four hours!",
        "Is Joanna athletic?",
        &["athletic", "sport", "running", "marathon", "gym", "fitness", "race"],
    ),
];

fn memory(id: String, days_ago: i64, summary: &str, person: &str) -> Memory {
    let at = NOW - days_ago * DAY;
    Memory {
        id: MemoryId(id),
        source_path: format!("Chats/{person}.md"),
        source_kind: SourceKind::Note,
        position: Position::default(),
        raw_text: summary.into(),
        summary: summary.into(),
        entities: vec![Entity { name: person.into(), kind: "person".into() }],
        topics: vec![],
        importance: 0.5,
        happened_on: None,
        also_on: Vec::new(),
        date_source: Default::default(),
        facts: Vec::new(),
        created_at: at,
        updated_at: at,
        consolidated: true,
        content_hash: None,
    }
}

/// 150 turns of small talk per person, and each person's one telling turn, long ago.
fn start(plan_questions: bool) -> Rc<Engine<RusqliteDriver>> {
    let store = open_from_bytes(&[], RusqliteDriver::from_bytes).unwrap();
    store
        .transaction(|store| {
            for (person, said, ..) in CASES {
                for n in 0..150 {
                    store.insert_memory(&memory(
                        format!("{person}-{n}"),
                        n,
                        SMALL_TALK[n as usize % SMALL_TALK.len()],
                        person,
                    ))?;
                }
                store.insert_memory(&memory(format!("{person}-evidence"), 300, said, person))?;
            }
            Ok(())
        })
        .unwrap();
    let engine = Engine::new(store, 42, NOW).unwrap();
    let mut config =
        support::connection::test_connection(RetryPolicy { max_attempts: 1, base_delay_ms: 100, max_delay_ms: 1_000 });
    config.model_id = MODEL.into();
    engine.configure_connection(Some(config), 7).unwrap();
    let mut settings = engine.settings();
    settings.query_budget_tokens = 1_000;
    settings.plan_questions = plan_questions;
    engine.set_settings(settings);
    Rc::new(engine)
}

/// The planner's answer, with the usage a real call of this size would report.
fn planner(request: &HttpRequest) -> Scripted {
    let body: Value = serde_json::from_str(&request.body).unwrap();
    let question = between(&user_text(&body), "question").to_owned();
    let (person, _, _, words) = CASES.iter().find(|case| question.contains(case.2)).expect("a known question");
    let input = json!({ "entities": [person], "keywords": words });
    Scripted::ok(json!({
        "output": { "message": { "role": "assistant", "content": [
            { "toolUse": { "toolUseId": "tooluse_plan", "name": "plan_search", "input": input } }
        ] } },
        "stopReason": "tool_use",
        "usage": {
            "inputTokens": estimate_tokens(&request.body), "outputTokens": estimate_tokens(&input.to_string()),
            "totalTokens": 0, "cacheReadInputTokens": 0, "cacheWriteInputTokens": 0
        },
        "metrics": { "latencyMs": 300 }
    }))
}

fn respond(request: &HttpRequest) -> Scripted {
    let body: Value = serde_json::from_str(&request.body).unwrap();
    if body["toolConfig"]["toolChoice"]["tool"]["name"] == "plan_search" {
        planner(request)
    } else {
        fake_model::answer(request)
    }
}

/// Recall (share of questions whose evidence reached the answering prompt) and the planning
/// calls' tokens, over every case.
fn measure(plan_questions: bool) -> (f64, u64, u64, usize) {
    let host = TestHost::new(NOW);
    host.bedrock.respond_with(respond);
    let engine = start(plan_questions);
    let mut found = 0;
    for (person, said, question, _) in CASES {
        let (engine, host2) = (engine.clone(), host.clone());
        let answer = run(&host.clock, async move { engine.ask(&host2, question, false).await.unwrap() });
        let asked = host.bedrock.requests().last().map(|request| request.body.clone()).unwrap_or_default();
        if asked.contains(said) {
            found += 1;
        }
        assert!(answer.cost.is_some(), "{person}: the answer says what it cost");
    }
    let requests = host.bedrock.requests();
    let (mut planner_in, mut planner_out) = (0u64, 0u64);
    for request in requests.iter().filter(|request| request.body.contains("\"plan_search\"")) {
        planner_in += estimate_tokens(&request.body) as u64;
        planner_out += 60;
    }
    (found as f64 / CASES.len() as f64, planner_in, planner_out, requests.len())
}

#[test]
fn planning_finds_evidence_worded_unlike_the_question_at_the_cost_of_one_small_call() {
    let (recall_without, _, _, calls_without) = measure(false);
    let (recall_with, planner_in, planner_out, calls_with) = measure(true);
    assert_eq!(calls_without, CASES.len(), "off: one call a question");
    assert_eq!(calls_with, 2 * CASES.len(), "on: a planning call, then the answer");
    assert!(recall_with > recall_without, "with the plan {recall_with}, without {recall_without}");
    assert!(recall_with >= 0.8, "{recall_with}");
    let per_question_in = planner_in / CASES.len() as u64;
    let usd = estimate_cost_usd(
        MODEL,
        &memory_agent::domain::TokenUsage {
            input_tokens: per_question_in,
            output_tokens: planner_out / CASES.len() as u64,
            ..Default::default()
        },
    );
    assert!(per_question_in < 1_000, "a small call: {per_question_in} tokens in");
    eprintln!(
        "query planning on {} questions worded unlike their evidence: recall {recall_without:.2} → {recall_with:.2}; \
         the planning call ≈ {per_question_in} tokens in, ≈ {} out, ≈ ${usd:.5} a question with {MODEL}",
        CASES.len(),
        planner_out / CASES.len() as u64
    );
}

#[test]
fn the_planning_request_is_a_forced_tool_with_the_question_fenced_and_its_cost_counts() {
    let host = TestHost::new(NOW);
    host.bedrock.respond_with(respond);
    let engine = start(true);
    let (engine2, host2) = (engine.clone(), host.clone());
    let answer =
        run(
            &host.clock,
            async move { engine2.ask(&host2, "Would Tom be considered outdoorsy?", false).await.unwrap() },
        );
    let sent: Vec<Value> =
        host.bedrock.requests().iter().map(|request| serde_json::from_str(&request.body).unwrap()).collect();
    assert_eq!(sent[0]["toolConfig"]["toolChoice"], json!({ "tool": { "name": "plan_search" } }));
    assert_eq!(sent[0]["inferenceConfig"]["temperature"], 0.0);
    assert!(user_text(&sent[0]).contains("<question>\nWould Tom be considered outdoorsy?\n</question>"));
    assert!(!user_text(&sent[0]).contains("<memories>"), "the planner sees the question only");
    assert!(answer.considered.planned_keywords.contains(&"camping".to_owned()), "{:?}", answer.considered);
    let cost = answer.cost.expect("a cost");
    let planning = estimate_tokens(&host.bedrock.requests()[0].body) as u64;
    assert!(
        cost.usage.input_tokens > planning,
        "the planning call's {planning} tokens count in the answer's cost: {cost:?}"
    );
    let day = memory_agent::calendar::CalendarDate::at(NOW, 0);
    assert_eq!(engine.store().usage_between(day, day).unwrap()[0].calls, 2, "both calls are metered");
}

#[test]
fn a_failed_or_empty_plan_still_gets_an_answer_from_the_rules_alone() {
    for reply in [
        Scripted::aws_error(500, "InternalServerException", "boom"),
        Scripted::tool("plan_search", json!({ "keywords": "not a list", "entities": [7] })),
        Scripted::text("I cannot plan that."),
    ] {
        let host = TestHost::new(NOW);
        host.bedrock.push(reply);
        host.bedrock.respond_with(fake_model::answer);
        let engine = start(true);
        let (engine2, host2) = (engine.clone(), host.clone());
        let answer =
            run(&host.clock, async move { engine2.ask(&host2, "Would Tom be considered outdoorsy?", false).await });
        let answer = answer.expect("the question is answered");
        assert!(answer.asked_model && answer.considered.planned_keywords.is_empty());
        assert_eq!(host.bedrock.requests().len(), 2);
    }
}
