//! A consolidated note memory made at a given time, about some people: what the query tests
//! fill their stores with.

use memory_agent::domain::{Entity, Memory, MemoryId, Millis, Position, SourceKind};

pub fn note_memory(id: &str, at: Millis, summary: &str, people: &[&str]) -> Memory {
    Memory {
        id: MemoryId(id.into()),
        source_path: format!("Notes/{id}.md"),
        source_kind: SourceKind::Note,
        position: Position::default(),
        raw_text: summary.into(),
        summary: summary.into(),
        entities: people.iter().map(|name| Entity { name: (*name).into(), kind: "person".into() }).collect(),
        topics: vec![],
        importance: 0.3,
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
