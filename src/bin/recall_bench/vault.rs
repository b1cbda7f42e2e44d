//! The notes behind the memories, served the way the vault serves them: a memory's `text` is
//! its chunk, and the chunks of one `source` are that note's lines, in the file's order, a
//! blank line between two chunks. Each memory gets the line range (0-based, inclusive) and the
//! content hash its chunk would have (`notes::chunks`: SHA-256 of the heading path, a newline
//! and the text; these chunks have no heading), so a reader that checks them finds them as an
//! ingest left them.

use std::collections::BTreeMap;

use memory_agent::domain::{Memory, SourceKind};
use memory_agent::hash::sha256_hex;

/// Note text by vault path.
#[derive(Debug, Default)]
pub struct Vault {
    notes: BTreeMap<String, String>,
}

impl Vault {
    /// Lays out one note per source path from its memories' texts, and points each memory at
    /// its lines. Memories without a path (typed text) carry their own text and get none.
    pub fn lay_out(memories: &mut [Memory]) -> Vault {
        let mut lines: BTreeMap<String, Vec<String>> = BTreeMap::new();
        for memory in memories.iter_mut().filter(|memory| !memory.source_path.is_empty()) {
            let note = lines.entry(memory.source_path.clone()).or_default();
            if !note.is_empty() {
                note.push(String::new());
            }
            let start = note.len();
            note.extend(memory.raw_text.lines().map(str::to_owned));
            if note.len() == start {
                note.push(String::new());
            }
            memory.source_kind = SourceKind::Note;
            memory.position.line_start = Some(line_number(start));
            memory.position.line_end = Some(line_number(note.len() - 1));
            memory.content_hash = Some(sha256_hex(format!("\n{}", chunk_text(note, start)).as_bytes()));
        }
        let vault = Vault { notes: lines.into_iter().map(|(path, lines)| (path, lines.join("\n"))).collect() };
        debug_assert!(
            memories.iter().filter(|memory| !memory.source_path.is_empty()).all(|memory| vault
                .passage(memory)
                .is_some_and(|passage| passage == memory.raw_text.lines().collect::<Vec<_>>().join("\n"))),
            "every memory's lines hold its text"
        );
        vault
    }

    /// A note's whole text, as the host's `readFile` hands it over.
    pub fn read(&self, path: &str) -> Option<&str> {
        self.notes.get(path).map(String::as_str)
    }

    /// The lines of `memory`'s range in its note.
    pub fn passage(&self, memory: &Memory) -> Option<String> {
        let (start, end) = (memory.position.line_start? as usize, memory.position.line_end? as usize);
        let lines: Vec<&str> = self.read(&memory.source_path)?.split('\n').collect();
        Some(lines.get(start..=end)?.join("\n"))
    }

    pub fn len(&self) -> usize {
        self.notes.len()
    }
}

fn line_number(index: usize) -> u32 {
    u32::try_from(index).expect("a note of fewer than 4 billion lines")
}

fn chunk_text(note: &[String], start: usize) -> String {
    note[start..].join("\n")
}

#[cfg(test)]
mod tests {
    use memory_agent::domain::{Memory, MemoryId, Position, SourceKind};

    use super::Vault;

    fn memory(id: &str, path: &str, text: &str) -> Memory {
        Memory {
            id: MemoryId(id.into()),
            source_path: path.into(),
            source_kind: SourceKind::Note,
            position: Position::default(),
            raw_text: text.into(),
            summary: text.into(),
            entities: vec![],
            topics: vec![],
            importance: 0.5,
            happened_on: None,
            also_on: vec![],
            date_source: memory_agent::domain::DateSource::Text,
            facts: vec![],
            created_at: 0,
            updated_at: 0,
            consolidated: false,
            content_hash: None,
        }
    }

    #[test]
    fn the_chunks_of_a_note_are_its_lines_in_order() {
        let mut memories =
            vec![memory("a", "n.md", "one\ntwo"), memory("b", "other.md", "x"), memory("c", "n.md", "three")];
        let vault = Vault::lay_out(&mut memories);
        assert_eq!(vault.read("n.md"), Some("one\ntwo\n\nthree"));
        assert_eq!((memories[2].position.line_start, memories[2].position.line_end), (Some(3), Some(3)));
        assert_eq!(vault.passage(&memories[0]).as_deref(), Some("one\ntwo"));
        assert_eq!(vault.passage(&memories[2]).as_deref(), Some("three"));
        assert_ne!(memories[0].content_hash, memories[2].content_hash);
        assert_eq!(vault.len(), 2);
    }
}
