//! A small vault whose notes are remembered exactly as the chunker cuts them (line ranges and
//! content hashes included), for the QueryAgent's tests and prompt snapshots: memories are put
//! in the store directly, so each has the summary, date and id the test chooses.

use memory_agent::domain::{Consolidation, ConsolidationId, Entity, Memory, MemoryId, Millis, Position, SourceKind};
use memory_agent::store::rusqlite_driver::RusqliteDriver;
use memory_agent::store::Store;
use serde_json::Value;

/// Chunks of at most this many tokens: small, so that a short test note has several.
pub const CHUNK_TOKENS: usize = 120;

/// A memory of chunk `chunk` of `text` (the note at `path`, cut in `CHUNK_TOKENS`), as an
/// ingest would store it.
pub fn chunk_memory(id: &str, path: &str, text: &str, chunk: usize, summary: &str, day: Option<&str>) -> Memory {
    let chunks = memory_agent::notes::parse_note(text, CHUNK_TOKENS).chunks;
    memory_of(id, path, &chunks[chunk], summary, day)
}

/// The memory of `chunk` of the note at `path`, as an ingest would store it.
pub fn memory_of(id: &str, path: &str, chunk: &memory_agent::notes::Chunk, summary: &str, day: Option<&str>) -> Memory {
    Memory {
        source_path: path.into(),
        source_kind: SourceKind::Note,
        position: Position {
            heading: chunk.heading_path.clone(),
            line_start: Some(chunk.line_start),
            line_end: Some(chunk.line_end),
        },
        content_hash: Some(chunk.content_hash.clone()),
        ..stored_memory(id, summary, day)
    }
}

/// A memory of text the person typed, about `person`.
pub fn typed_memory(id: &str, text: &str, summary: &str, person: &str, day: Option<&str>) -> Memory {
    Memory {
        raw_text: text.into(),
        entities: vec![Entity { name: person.into(), kind: "person".into() }],
        ..stored_memory(id, summary, day)
    }
}

/// A consolidated memory of typed text with `summary` and `day`, made at a fixed time.
fn stored_memory(id: &str, summary: &str, day: Option<&str>) -> Memory {
    Memory {
        id: MemoryId(id.into()),
        source_path: String::new(),
        source_kind: SourceKind::Text,
        position: Position::default(),
        raw_text: String::new(),
        summary: summary.into(),
        entities: vec![],
        topics: vec![],
        importance: 0.5,
        happened_on: day.map(str::to_owned),
        also_on: vec![],
        date_source: memory_agent::domain::DateSource::Text,
        facts: vec![],
        created_at: 1_790_000_000_000,
        updated_at: 1_790_000_000_000,
        consolidated: true,
        content_hash: None,
    }
}

/// Stores an insight over `memories`.
pub fn insight(store: &Store<RusqliteDriver>, id: &str, memories: &[&str], text: &str, at: Millis) {
    let ids: Vec<MemoryId> = memories.iter().map(|id| MemoryId((*id).into())).collect();
    let insight = Consolidation {
        id: ConsolidationId(id.into()),
        memory_ids: ids.clone(),
        insight: text.into(),
        connections: vec![],
        created_at: at,
    };
    store.save_consolidation_batch(&ids, &[insight]).unwrap();
}

/// A Converse request as plain text: its limits, tools, system prompt and every message.
pub fn request_text(body: &Value) -> String {
    let mut out = format!("maxTokens: {}\n", body["inferenceConfig"]["maxTokens"]);
    let tools: Vec<&str> = body["toolConfig"]["tools"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|tool| tool["toolSpec"]["name"].as_str())
        .collect();
    out.push_str(&format!("tools: {}\n", if tools.is_empty() { "none".to_owned() } else { tools.join(", ") }));
    for block in body["system"].as_array().into_iter().flatten() {
        out.push_str(&format!("\n=== system\n{}\n", block["text"].as_str().unwrap_or("")));
    }
    for message in body["messages"].as_array().into_iter().flatten() {
        out.push_str(&format!("\n=== {}\n", message["role"].as_str().unwrap_or("")));
        for block in message["content"].as_array().into_iter().flatten() {
            match block["text"].as_str() {
                Some(text) => out.push_str(&format!("{text}\n")),
                None => out.push_str(&format!("{block}\n")),
            }
        }
    }
    out
}
