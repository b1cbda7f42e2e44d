//! The passages behind the chosen memories, read when a question is asked.
//!
//! A memory line is a summary: amounts, times, lists and who said what are gone from it (on a
//! public benchmark of long conversations, the answer's words were in the summaries for 23% of
//! questions and in the text they summarise for 62%, issue 22). So the QueryAgent also reads,
//! for the best-ranked memories and within what the budget leaves, the passage each came from:
//! a note's lines as the vault holds them now (the store keeps no copy of a note), typed text,
//! selections and a PDF's chunks from the store, where they are kept; an image's memory has none.
//!
//! A note's passage is cut at the memory's line range and checked against its content hash
//! (`notes::content_hash`, the chunker's own formula): a passage that no longer hashes the same
//! was edited since, and is read as it is now and marked so. A note that is gone, unreadable or
//! excluded from memory meanwhile gives no passage; the reader decides exclusion (`NoteReader`),
//! since only the host knows its rules (the engine asks `notes::scope` before and after reading).

use std::collections::HashMap;
use std::future::Future;

use super::fence::fenced_with;
use crate::domain::{Memory, MemoryId, SourceKind};
use crate::notes::FileKind;
use crate::store::{SqlDriver, Store, StoreError};
use crate::tokens::estimate_tokens;

/// Reads a note's current text when a question is asked: the engine over its host (size-limited
/// like an ingest), the command over the vault folder, tests and benchmarks over a map.
pub trait NoteReader {
    /// The note's text as it is now, line endings as `\n`; `None` when it is gone, cannot be
    /// read, or may not be remembered (excluded by the user's rules): its text must not reach
    /// a prompt.
    fn note_text(&self, path: &str) -> impl Future<Output = Option<String>>;
}

/// Reads no note: passages are off, or there is no vault.
pub struct NoNotes;

impl NoteReader for NoNotes {
    async fn note_text(&self, _path: &str) -> Option<String> {
        None
    }
}

/// Notes by path, for tests and benchmarks.
impl NoteReader for HashMap<String, String> {
    async fn note_text(&self, path: &str) -> Option<String> {
        self.get(path).cloned()
    }
}

/// The text a memory came from, as the prompt carries it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Passage {
    pub memory_id: MemoryId,
    pub text: String,
    /// The note's lines no longer hash as they did when the memory was made.
    pub changed: bool,
    /// The tokens its element takes in the prompt, with the line break.
    pub tokens: usize,
}

impl Passage {
    /// The passage in its own element, after its memory's: `<passage memory="ID">`.
    pub fn element(&self) -> String {
        passage_element(&self.memory_id, self.changed, &self.text)
    }
}

/// What the prompt says of a changed passage.
const CHANGED: &str = "edited since this memory was made; this is the note as it is now";

fn passage_element(memory_id: &MemoryId, changed: bool, text: &str) -> String {
    let id = format!("memory:{}", memory_id.0);
    let mut attributes = vec![("of", id.as_str())];
    if changed {
        attributes.push(("note", CHANGED));
    }
    fenced_with("passage", &attributes, text)
}

/// At most this many notes are read for one question: each read is a call to the main thread in
/// the plugin (and up to the note size limit in memory), and a note holds the passages of all
/// its chosen memories, read once. A hundred notes of a few kilobytes take well under a second;
/// the passages of a full default budget (75,000 tokens of them) come from fewer.
const MAX_NOTE_READS: usize = 100;

/// The passages of `ranked` memories (best first) that fit in `room` tokens, each memory's
/// once, a note read once however many of its memories are asked for.
pub async fn read_passages<R: NoteReader, D: SqlDriver>(
    reader: &R,
    store: &Store<D>,
    memories: &[Memory],
    ranked: &[MemoryId],
    room: usize,
) -> Result<Vec<Passage>, StoreError> {
    let by_id: HashMap<&MemoryId, &Memory> = memories.iter().map(|memory| (&memory.id, memory)).collect();
    let mut notes: HashMap<String, Option<String>> = HashMap::new();
    let mut passages = Vec::new();
    let mut used = 0;
    for memory in ranked.iter().filter_map(|id| by_id.get(id)) {
        if used >= room {
            break;
        }
        let unread = passage_source(memory) == PassageSource::Note && !notes.contains_key(&memory.source_path);
        if unread && notes.len() >= MAX_NOTE_READS {
            // A later memory of a note already read, or typed text, may still come.
            continue;
        }
        let Some((text, changed)) = passage_text(reader, store, memory, &mut notes).await? else { continue };
        let tokens = estimate_tokens(&passage_element(&memory.id, changed, &text)) + 1;
        if used + tokens <= room {
            used += tokens;
            passages.push(Passage { memory_id: memory.id.clone(), text, changed, tokens });
        }
    }
    debug_assert!(passages.iter().map(|passage| passage.tokens).sum::<usize>() <= room, "passages within the room");
    Ok(passages)
}

/// A memory's passage and whether it changed; `None` when there is none to read.
async fn passage_text<R: NoteReader, D: SqlDriver>(
    reader: &R,
    store: &Store<D>,
    memory: &Memory,
    notes: &mut HashMap<String, Option<String>>,
) -> Result<Option<(String, bool)>, StoreError> {
    match passage_source(memory) {
        PassageSource::None => Ok(None),
        // Kept in the store with the memory (chosen memories come without it).
        PassageSource::Store => {
            let text = store.get_memory(&memory.id)?.map(|full| full.raw_text).unwrap_or_default();
            Ok((!text.trim().is_empty()).then_some((text, false)))
        }
        PassageSource::Note => {
            let (Some(first), Some(last)) = (memory.position.line_start, memory.position.line_end) else {
                return Ok(None);
            };
            if !notes.contains_key(&memory.source_path) {
                let text = reader.note_text(&memory.source_path).await;
                notes.insert(memory.source_path.clone(), text);
            }
            let Some(Some(note)) = notes.get(&memory.source_path) else { return Ok(None) };
            Ok(cut_lines(note, first, last).map(|text| {
                let changed = !same_hash(memory.content_hash.as_deref(), memory.position.heading.as_deref(), &text);
                (text, changed)
            }))
        }
    }
}

/// Where a memory's passage is read from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum PassageSource {
    /// The note's lines as the vault holds them now.
    Note,
    /// The text kept with the memory: typed text, a selection, a PDF's chunk (its text comes
    /// from pdf.js on the main thread, far too costly to run again for a question).
    Store,
    /// None: an image's memory has no text behind it but what it says itself.
    None,
}

fn passage_source(memory: &Memory) -> PassageSource {
    match memory.source_kind {
        SourceKind::Text | SourceKind::Selection => PassageSource::Store,
        SourceKind::Note => match FileKind::of(&memory.source_path) {
            FileKind::Pdf => PassageSource::Store,
            FileKind::Image(_) | FileKind::UnsupportedImage(_) => PassageSource::None,
            FileKind::Note | FileKind::Other => PassageSource::Note,
        },
    }
}

/// Whether `text` under `heading` hashes as the memory's chunk did. The store keeps only a
/// hash's first bytes (`store::memories::stored_hash`), so a stored hash is a prefix of the
/// whole one; a prefix shorter than 64 bits says too little to be trusted.
fn same_hash(stored: Option<&str>, heading: Option<&str>, text: &str) -> bool {
    let Some(stored) = stored.filter(|stored| stored.len() >= 16) else { return false };
    crate::notes::content_hash(heading, text)
        .get(..stored.len())
        .is_some_and(|prefix| prefix.eq_ignore_ascii_case(stored))
}

/// Lines `first..=last` (0-based, as the chunker numbers them) of `note`, as far as it still
/// has them; `None` when it is shorter now or they hold nothing.
pub fn cut_lines(note: &str, first: u32, last: u32) -> Option<String> {
    let (first, last) = (first as usize, last as usize);
    let lines: Vec<&str> = note.split('\n').skip(first).take(last.saturating_sub(first) + 1).collect();
    let text = lines.join("\n");
    (!text.trim().is_empty()).then_some(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Counts the notes it is asked for.
    struct CountingReader(std::cell::Cell<usize>);

    impl NoteReader for CountingReader {
        async fn note_text(&self, _path: &str) -> Option<String> {
            self.0.set(self.0.get() + 1);
            Some("# Note\nA line.".to_owned())
        }
    }

    /// A memory of `path` with nothing in it but where it is from.
    fn memory_at(path: &str, kind: SourceKind) -> Memory {
        Memory {
            id: MemoryId("m".into()),
            source_path: path.into(),
            source_kind: kind,
            position: crate::domain::Position::default(),
            raw_text: String::new(),
            summary: String::new(),
            entities: vec![],
            topics: vec![],
            importance: 0.5,
            happened_on: None,
            also_on: vec![],
            date_source: crate::domain::DateSource::Text,
            facts: vec![],
            created_at: 0,
            updated_at: 0,
            consolidated: true,
            content_hash: None,
        }
    }

    #[test]
    fn at_most_a_hundred_notes_are_read_for_a_question() {
        use futures_util::FutureExt;
        let store =
            crate::store::open_from_bytes(&[], crate::store::rusqlite_driver::RusqliteDriver::from_bytes).unwrap();
        let chunk = &crate::notes::parse_note("# Note\nA line.", 100).chunks[0];
        let memories: Vec<Memory> = (0..150)
            .map(|at| Memory {
                id: MemoryId(format!("m{at}")),
                position: crate::domain::Position {
                    heading: chunk.heading_path.clone(),
                    line_start: Some(chunk.line_start),
                    line_end: Some(chunk.line_end),
                },
                summary: "A note.".into(),
                content_hash: Some(chunk.content_hash.clone()),
                ..memory_at(&format!("n{at}.md"), SourceKind::Note)
            })
            .collect();
        let ranked: Vec<MemoryId> = memories.iter().map(|memory| memory.id.clone()).collect();
        let reader = CountingReader(std::cell::Cell::new(0));
        let passages = read_passages(&reader, &store, &memories, &ranked, 1_000_000).now_or_never().unwrap().unwrap();
        assert_eq!((reader.0.get(), passages.len()), (MAX_NOTE_READS, MAX_NOTE_READS));
        assert!(passages.iter().all(|passage| !passage.changed), "unchanged chunks");
        let few = read_passages(&reader, &store, &memories, &ranked, 25).now_or_never().unwrap().unwrap();
        assert!(few.iter().map(|passage| passage.tokens).sum::<usize>() <= 25 && !few.is_empty());
    }

    #[test]
    fn a_pdfs_passage_comes_from_the_store_an_images_from_nowhere() {
        let memory = |path: &str, kind: SourceKind| Memory {
            position: crate::domain::Position { heading: None, line_start: Some(2), line_end: Some(3) },
            ..memory_at(path, kind)
        };
        assert_eq!(passage_source(&memory("Papers/Budget.PDF", SourceKind::Note)), PassageSource::Store);
        assert_eq!(passage_source(&memory("Photos/IMG_1.jpg", SourceKind::Note)), PassageSource::None);
        assert_eq!(passage_source(&memory("Scans/page.heic", SourceKind::Note)), PassageSource::None);
        assert_eq!(passage_source(&memory("Daily/2026-01-02.md", SourceKind::Note)), PassageSource::Note);
        assert_eq!(passage_source(&memory("Papers/Budget.pdf", SourceKind::Selection)), PassageSource::Store);
        assert_eq!(passage_source(&memory("", SourceKind::Text)), PassageSource::Store);

        // Never through the note reader: it would decode a PDF's or an image's bytes as text.
        use futures_util::FutureExt;
        let store =
            crate::store::open_from_bytes(&[], crate::store::rusqlite_driver::RusqliteDriver::from_bytes).unwrap();
        let files: Vec<Memory> = ["a.pdf", "b.png", "c.pdf", "d.webp"]
            .iter()
            .enumerate()
            .map(|(at, path)| Memory { id: MemoryId(format!("m{at}")), ..memory(path, SourceKind::Note) })
            .collect();
        let ranked: Vec<MemoryId> = files.iter().map(|memory| memory.id.clone()).collect();
        let reader = CountingReader(std::cell::Cell::new(0));
        read_passages(&reader, &store, &files, &ranked, 1_000_000).now_or_never().unwrap().unwrap();
        assert_eq!(reader.0.get(), 0, "the reader was asked for a PDF or an image");
    }

    #[test]
    fn lines_are_cut_as_the_chunker_numbers_them() {
        let note = "---\ntags: x\n---\n# A\none\ntwo\n# B\nthree";
        assert_eq!(cut_lines(note, 3, 5).as_deref(), Some("# A\none\ntwo"));
        assert_eq!(cut_lines(note, 6, 9).as_deref(), Some("# B\nthree"), "a shorter note gives what it has");
        assert_eq!(cut_lines(note, 20, 22), None);
    }

    #[test]
    fn an_unchanged_chunk_hashes_as_the_chunker_made_it() {
        let note = "# Trip\nWe paid 1,240 EUR.\n\n# Later\nHome.";
        let chunk = &crate::notes::parse_note(note, 5).chunks[0];
        let text = cut_lines(note, chunk.line_start, chunk.line_end).unwrap();
        assert_eq!(crate::notes::content_hash(chunk.heading_path.as_deref(), &text), chunk.content_hash);
        let heading = chunk.heading_path.as_deref();
        assert!(same_hash(Some(&chunk.content_hash), heading, &text));
        assert!(same_hash(Some(&chunk.content_hash[..16]), heading, &text), "as the store keeps it");
        assert!(!same_hash(Some(&chunk.content_hash[..16]), heading, "We paid 1,250 EUR."));
        assert!(!same_hash(Some(&chunk.content_hash[..8]), heading, &text), "too short to tell");
        assert!(!same_hash(None, heading, &text), "no hash: nothing says it is the same");
    }
}
