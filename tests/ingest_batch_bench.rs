//! Measures the first ingest of a real vault with several chunks per call, to choose
//! `ingestBatchChunks`: for each batch size, the model calls, the input tokens (≈ chars/4 of the
//! system prompt, the messages and the tool schema — what Bedrock bills as input), calls per note,
//! and a check that no memory landed on another chunk (the fake's memory of a chunk is its first
//! line, so each memory is compared with the chunk at its position).
//!
//! Ignored by default (minutes in release). Run:
//!   tar -xzf /work/shared/vaults/tldr-pages.tar.gz -C /tmp/tldr
//!   BATCH_BENCH_VAULT=/tmp/tldr cargo test --release --test ingest_batch_bench -- --ignored --nocapture
//! `BATCH_BENCH_SIZES=1,8` picks the sizes, `BATCH_BENCH_NOTES=2000` the first notes by path.

mod support;

use std::path::Path;
use std::rc::Rc;

use memory_agent::domain::{Millis, SourceKind};
use memory_agent::engine::{Engine, EngineSettings};
use memory_agent::llm::RetryPolicy;
use memory_agent::notes::parse_note;
use memory_agent::store::rusqlite_driver::RusqliteDriver;
use memory_agent::store::{open_from_bytes, MemoryFilter};
use memory_agent::tokens::estimate_tokens;
use serde_json::Value;
use support::fake_model;
use support::test_host::TestHost;
use support::virtual_time::run;

/// 2026-11-30T08:00:00Z
const NOW: Millis = 1_796_025_600_000;

fn notes_under(root: &Path) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut folders = vec![root.to_path_buf()];
    while let Some(folder) = folders.pop() {
        for entry in std::fs::read_dir(&folder).unwrap().flatten() {
            let path = entry.path();
            if path.is_dir() {
                folders.push(path);
            } else if path.extension().is_some_and(|extension| extension == "md") {
                let relative = path.strip_prefix(root).unwrap().to_string_lossy().replace('\\', "/");
                out.push((relative, std::fs::read_to_string(&path).unwrap_or_default()));
            }
        }
    }
    out.sort();
    out
}

/// A request's input as Bedrock counts it, estimated: system prompt, messages, tool schema.
fn input_tokens(body: &Value) -> usize {
    let texts = |blocks: &Value| -> String {
        blocks
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|block| block["text"].as_str())
            .collect::<Vec<_>>()
            .join("\n")
    };
    let messages: String = body["messages"].as_array().into_iter().flatten().map(|m| texts(&m["content"])).collect();
    estimate_tokens(&texts(&body["system"]))
        + estimate_tokens(&messages)
        + estimate_tokens(&body["toolConfig"].to_string())
}

struct Measured {
    calls: usize,
    input_tokens: usize,
    memories: usize,
    chunks: usize,
    misplaced: usize,
}

fn measure(notes: &[(String, String)], batch: usize) -> Measured {
    let host = TestHost::new(NOW);
    host.bedrock.respond_with(fake_model::answer);
    let store = open_from_bytes(&[], RusqliteDriver::from_bytes).unwrap();
    let engine = Rc::new(Engine::new(store, 42, NOW).unwrap());
    engine.set_settings(EngineSettings {
        consolidation_threshold: 1_000_000,
        daily_consolidation: false,
        ingest_batch_chunks: batch,
        ..EngineSettings::default()
    });
    engine
        .configure_connection(
            Some(support::connection::test_connection(RetryPolicy {
                max_attempts: 2,
                base_delay_ms: 100,
                max_delay_ms: 1_000,
            })),
            7,
        )
        .unwrap();
    engine.consolidation_due(NOW).unwrap();
    for (path, text) in notes {
        host.write(path, text);
    }
    let paths: Vec<String> = notes.iter().map(|(path, _)| path.clone()).collect();
    engine.enqueue_notes(&paths, NOW).unwrap();
    let (worker, worker_host) = (engine.clone(), host.clone());
    let report = run(&host.clock, async move { worker.run_due_work(&worker_host).await.unwrap() });
    assert_eq!(report.failed, 0, "{report:?}");
    let bodies: Vec<Value> =
        host.bedrock.requests().iter().map(|request| serde_json::from_str(&request.body).unwrap()).collect();
    let settings = engine.settings();
    let mut measured = Measured {
        calls: bodies.len(),
        input_tokens: bodies.iter().map(input_tokens).sum(),
        memories: 0,
        chunks: 0,
        misplaced: 0,
    };
    for (path, text) in notes {
        let chunks = parse_note(text, settings.max_chunk_tokens).chunks;
        measured.chunks += chunks.len();
        let filter = MemoryFilter { source_path: Some(path.clone()), ..MemoryFilter::default() };
        for memory in engine.list_memories(&filter).unwrap() {
            if memory.source_kind != SourceKind::Note {
                continue;
            }
            measured.memories += 1;
            let chunk = chunks.iter().find(|chunk| Some(chunk.line_start) == memory.position.line_start);
            let expected = chunk.map(|chunk| fake_model::memory_of(&chunk.text, "")["summary"].clone());
            if expected.as_ref().and_then(Value::as_str) != Some(memory.summary.as_str()) {
                measured.misplaced += 1;
            }
        }
    }
    measured
}

#[test]
#[ignore = "minutes in release; prints the table that chose ingestBatchChunks"]
fn first_ingest_of_a_real_vault_by_batch_size() {
    let root = std::env::var("BATCH_BENCH_VAULT").unwrap_or_else(|_| "/tmp/batch-bench/tldr".into());
    let mut notes = notes_under(Path::new(&root));
    if let Some(limit) = std::env::var("BATCH_BENCH_NOTES").ok().and_then(|limit| limit.parse().ok()) {
        notes.truncate(limit);
    }
    let sizes: Vec<usize> = std::env::var("BATCH_BENCH_SIZES")
        .unwrap_or_else(|_| "1,4,8,12,16".into())
        .split(',')
        .filter_map(|size| size.trim().parse().ok())
        .collect();
    println!("{} notes under {root}", notes.len());
    println!("| chunks per call | calls | calls per note | input tokens | vs 1 | memories / chunks | misplaced |");
    println!("|---:|---:|---:|---:|---:|---:|---:|");
    let mut baseline = None;
    for size in sizes {
        let measured = measure(&notes, size);
        let base = *baseline.get_or_insert(measured.input_tokens);
        println!(
            "| {size} | {} | {:.2} | {} | {:+.1}% | {} / {} | {} |",
            measured.calls,
            measured.calls as f64 / notes.len() as f64,
            measured.input_tokens,
            (measured.input_tokens as f64 / base as f64 - 1.0) * 100.0,
            measured.memories,
            measured.chunks,
            measured.misplaced
        );
        assert_eq!(measured.misplaced, 0, "a memory landed on another chunk");
    }
}
