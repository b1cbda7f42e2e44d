//! Requests per model, end to end through the engine: a fake Bedrock that refuses what the
//! Claude 5.x models refuse (a `temperature`, a forced tool while thinking, `disabled` on a
//! model that always thinks) and answers with reasoning blocks when a model thinks. Haiku 5.5
//! and Opus 5.5 remember notes and answer with no rejected request; an answer's cost is
//! priced per call at the model's own price, the long-prompt tier included.

mod support;

use memory_agent::domain::Millis;
use memory_agent::engine::{Engine, EngineSettings};
use memory_agent::llm::{estimate_cost_usd, Clock, HttpRequest, RetryPolicy, ThinkingEffort};
use memory_agent::store::rusqlite_driver::RusqliteDriver;
use memory_agent::store::{MemoryFilter, Store};
use serde_json::{json, Value};
use support::fake_model;
use support::scripted_transport::Scripted;
use support::test_host::TestHost;
use support::virtual_time::run;

/// 2026-11-30T08:00:00Z
const NOW: Millis = 1_796_025_600_000;

/// How a 5.x model on Bedrock answers `request`: the refusals as Bedrock words them (vercel/ai's
/// recorded fixtures), else `fake_model`'s answer, with a reasoning block first when it thinks.
fn claude_5(request: &HttpRequest, always_thinks: bool, input_tokens: u64) -> Scripted {
    let body: Value = serde_json::from_str(&request.body).unwrap();
    let refused = |message: &str| {
        Scripted::aws_error(400, "ValidationException", &format!("The model returned the following errors: {message}"))
    };
    if body["inferenceConfig"].get("temperature").is_some() {
        return refused("`temperature` is deprecated for this model.");
    }
    let thinking = body["additionalModelRequestFields"]["thinking"]["type"].as_str().unwrap_or("adaptive");
    if always_thinks && thinking == "disabled" {
        return refused("thinking.type: \"disabled\" is not supported for this model.");
    }
    let forced =
        body["toolConfig"]["toolChoice"].get("tool").is_some() || body["toolConfig"]["toolChoice"].get("any").is_some();
    if forced && thinking != "disabled" {
        return refused("tool_choice: type \"tool\" and \"any\" are not supported for this model.");
    }
    // An offered tool stands for the forced one: answered as the fake answers a forced call.
    let mut as_forced = body.clone();
    if let Some(name) =
        body["toolConfig"]["tools"][0]["toolSpec"]["name"].as_str().filter(|name| name.starts_with("record_"))
    {
        as_forced["toolConfig"]["toolChoice"] = json!({ "tool": { "name": name } });
    }
    let request = HttpRequest { body: as_forced.to_string(), ..request.clone() };
    let Scripted::Reply { body: reply, status, headers, latency_ms } = fake_model::answer(&request) else {
        unreachable!()
    };
    let mut reply: Value = serde_json::from_str(&reply).unwrap();
    reply["usage"]["inputTokens"] = json!(input_tokens);
    if thinking != "disabled" {
        let content = reply["output"]["message"]["content"].as_array_mut().unwrap();
        content.insert(0, json!({ "reasoningContent": { "reasoningText": { "text": "THOUGHT: the user asks…", "signature": "c2ln" } } }));
        reply["usage"]["outputTokens"] = json!(reply["usage"]["outputTokens"].as_u64().unwrap() + 300);
    }
    Scripted::Reply { status, headers, body: reply.to_string(), latency_ms }
}

/// An engine on `model_id` that only remembers and answers (no consolidation call in between).
fn engine_on(host: &TestHost, model_id: &str, settings: EngineSettings) -> std::rc::Rc<Engine<RusqliteDriver>> {
    let engine = Engine::new(Store::open(RusqliteDriver::new()).unwrap(), 42, host.clock.now()).unwrap();
    engine.set_settings(EngineSettings { daily_consolidation: false, consolidation_threshold: 1_000, ..settings });
    let mut config =
        support::connection::test_connection(RetryPolicy { max_attempts: 1, base_delay_ms: 100, max_delay_ms: 1_000 });
    config.model_id = model_id.into();
    engine.configure_connection(Some(config), 7).unwrap();
    std::rc::Rc::new(engine)
}

/// Remembers three notes and asks about them; returns the engine.
fn remember_and_ask(
    host: &TestHost,
    engine: &std::rc::Rc<Engine<RusqliteDriver>>,
) -> memory_agent::agents::query::QueryAnswer {
    for n in 0..3 {
        host.write(&format!("n{n}.md"), &format!("# Lunch {n}\n\nLunch with Alice on 2026-11-2{n}."));
        engine.enqueue_note(&format!("n{n}.md"), NOW).unwrap();
    }
    let (worker, worker_host) = (engine.clone(), host.clone());
    run(&host.clock, async move { worker.run_due_work(&worker_host).await.unwrap() });
    let memories = engine.list_memories(&MemoryFilter::default()).unwrap();
    assert_eq!(memories.len(), 3, "every note remembered");
    let (asking, asker) = (engine.clone(), host.clone());
    run(&host.clock, async move { asking.ask(&asker, "When did I have lunch with Alice?", false).await.unwrap() })
}

/// One ingest call per note, so a test can count and price the calls one by one (batched
/// calls are covered by `tests/ingest_batch.rs` and the first test here).
fn one_call_per_note() -> EngineSettings {
    EngineSettings { ingest_batch_chunks: 1, ..EngineSettings::default() }
}

fn statuses(host: &TestHost) -> Vec<u16> {
    let bodies: Vec<Value> =
        host.bedrock.requests().iter().map(|request| serde_json::from_str(&request.body).unwrap()).collect();
    bodies.iter().map(|body| u16::from(body["inferenceConfig"].get("temperature").is_some())).collect()
}

#[test]
fn haiku_5_5_chosen_by_id_remembers_and_answers_with_no_rejected_request() {
    let host = TestHost::new(NOW);
    host.bedrock.respond_with(|request| claude_5(request, false, 1_200));
    let engine = engine_on(&host, "us.anthropic.claude-haiku-5-5", EngineSettings::default());
    let answer = remember_and_ask(&host, &engine);
    // The three notes share one batched `record_memories` call, then the question.
    assert_eq!(statuses(&host), vec![0; 2], "no request carries a temperature");
    // Its cache minimum is 512 tokens: the ingest's system prompt and tool schema (about 730
    // tokens of ours, 950 of its own) are cached, read back by every later chunk.
    let first: Value = serde_json::from_str(&host.bedrock.requests()[0].body).unwrap();
    assert_eq!(first["system"].as_array().unwrap().last(), Some(&json!({ "cachePoint": { "type": "default" } })));
    assert!(!answer.answer.contains("THOUGHT"), "thinking is never the answer: {}", answer.answer);
    let cost = answer.cost.expect("a cost");
    assert!(cost.price_known && cost.long_prompt_calls == 0);
    // Haiku 5.5 through a US profile: $0.11 / $0.55 a million (10% over global).
    let expected = (1_200.0 * 0.11 + 20.0 * 0.55) / 1e6;
    assert!((cost.usd - expected).abs() < 1e-12, "{} ≠ {expected}", cost.usd);
}

#[test]
fn a_model_that_always_thinks_is_offered_the_tool_and_remembers() {
    let host = TestHost::new(NOW);
    host.bedrock.respond_with(|request| claude_5(request, true, 1_200));
    let engine = engine_on(&host, "global.anthropic.claude-opus-5-5", EngineSettings::default());
    let answer = remember_and_ask(&host, &engine);
    assert!(!answer.answer.contains("THOUGHT"));
    let bodies: Vec<Value> =
        host.bedrock.requests().iter().map(|request| serde_json::from_str(&request.body).unwrap()).collect();
    assert_eq!(bodies[0]["toolConfig"]["toolChoice"], json!({ "auto": {} }));
    // Its thinking tokens are output, and priced: 320 out at $20 a million.
    let cost = answer.cost.unwrap();
    assert_eq!(cost.usage.output_tokens, 320);
    assert!((cost.usd - (1_200.0 * 4.0 + 320.0 * 20.0) / 1e6).abs() < 1e-12, "{}", cost.usd);
}

#[test]
fn thinking_for_answers_thinks_only_in_the_answer_and_prices_its_tokens() {
    let host = TestHost::new(NOW);
    host.bedrock.respond_with(|request| claude_5(request, false, 1_200));
    let settings = EngineSettings { answer_thinking: ThinkingEffort::Low, ..one_call_per_note() };
    let engine = engine_on(&host, "global.anthropic.claude-haiku-5-5", settings);
    let answer = remember_and_ask(&host, &engine);
    let bodies: Vec<Value> =
        host.bedrock.requests().iter().map(|request| serde_json::from_str(&request.body).unwrap()).collect();
    for ingest in &bodies[..3] {
        assert_eq!(ingest["additionalModelRequestFields"], json!({ "thinking": { "type": "disabled" } }));
    }
    assert_eq!(bodies[3]["additionalModelRequestFields"]["output_config"]["effort"], "low");
    assert!(!answer.answer.contains("THOUGHT"));
    assert_eq!(answer.cost.unwrap().usage.output_tokens, 320, "the answer's 20 and its thinking's 300");
}

#[test]
fn a_call_above_the_long_prompt_threshold_is_priced_at_the_higher_tier_and_the_days_spending_too() {
    let host = TestHost::new(NOW);
    // Ingest calls of 1,200 tokens; the question's call of 120K, above Haiku 5.5's 100K.
    host.bedrock.respond_with(|request| {
        let long = !request.body.contains("\"toolChoice\"");
        claude_5(request, false, if long { 120_000 } else { 1_200 })
    });
    let engine = engine_on(&host, "global.anthropic.claude-haiku-5-5", one_call_per_note());
    let answer = remember_and_ask(&host, &engine);
    let cost = answer.cost.unwrap();
    assert_eq!(cost.long_prompt_calls, 1);
    assert!((cost.usd - (120_000.0 * 0.50 + 20.0 * 2.50) / 1e6).abs() < 1e-12, "{}", cost.usd);
    // The day's spending: three ingest calls at the usual price, the question at the higher one
    // — not the sum priced as one call (which would put the ingest calls above too).
    let ingest_call = memory_agent::domain::TokenUsage {
        input_tokens: 1_200,
        output_tokens: 40,
        cache_read_tokens: 150,
        cache_write_tokens: 0,
    };
    let expected = 3.0 * estimate_cost_usd("global.anthropic.claude-haiku-5-5", &ingest_call) + cost.usd;
    let spent = engine.spent(host.clock.now(), 0).unwrap();
    assert!((spent.today - expected).abs() < 1e-12, "{} ≠ {expected}", spent.today);
}

#[test]
fn the_bulk_estimate_counts_tokens_as_the_models_tokenizer_and_prices_them_at_its_price() {
    let host = TestHost::new(NOW);
    let haiku_4_5 = engine_on(&host, "us.anthropic.claude-haiku-4-5-20251001-v1:0", EngineSettings::default());
    let old = haiku_4_5.estimate_ingest(&notes_of(100, 400_000));
    let haiku_5_5 = engine_on(&host, "us.anthropic.claude-haiku-5-5", EngineSettings::default());
    let new = haiku_5_5.estimate_ingest(&notes_of(100, 400_000));
    assert_eq!(new.input_tokens, (old.input_tokens as f64 * 1.3).ceil() as u64);
    assert!(new.price_known && new.cost_usd < old.cost_usd / 7.0, "{new:?} vs {old:?}");
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
