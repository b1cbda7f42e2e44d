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

use super::excerpt::{excerpt, rarity_weights, weight_held, Focus};
use super::fence::fenced_with;
use crate::calendar::CalendarDate;
use crate::domain::{Memory, MemoryId, SourceKind};
use crate::notes::{own_date, path_date, properties_and_first_line, FileKind};
use crate::select::{line_cost, line_date, with_relative_dates, DateOrder};
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

/// How a question's passages write out their relative dates (`select::with_relative_dates`):
/// "yesterday [= 7 May 2023]", counted from the day the text was written (`written_on`). A
/// memory's date is when its events happened, so a model counting "yesterday" from it is a day
/// off, or a week for "last week". The user's order of numeric dates reads a title's date, their
/// offset from UTC the day typed text was made.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Dating {
    pub order: DateOrder,
    pub utc_offset_minutes: i32,
}

/// A note read for a question's passages, with the day it was written when it says.
struct ReadNote {
    text: String,
    written_on: Option<CalendarDate>,
}

/// The text a memory came from, as the prompt carries it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Passage {
    pub memory_id: MemoryId,
    pub text: String,
    /// The note's lines no longer hash as they did when the memory was made.
    pub changed: bool,
    /// Only the lines that bear on the question (`excerpt`): the rest did not fit its share.
    pub excerpt: bool,
    /// The tokens its element takes in the prompt, with the line break.
    pub tokens: usize,
}

impl Passage {
    /// The passage in its own element, after its memory's: `<passage of="memory:ID">`.
    pub fn element(&self) -> String {
        passage_element(&self.memory_id, self.changed, self.excerpt, &self.text)
    }
}

/// The value of a passage's marks, `edited="yes"` and `excerpt="yes"`: the system prompt says
/// once what each means, and an element's tokens are the budget's (a sentence in each excerpt's
/// element cost about 15 tokens a passage; at "yes", LoCoMo's sessions had their answer in the
/// packed prompt 0.614 / 0.693 → 0.621 / 0.699 at 4K / 8K, SQuAD unchanged).
const MARKED: &str = "yes";

fn passage_element(memory_id: &MemoryId, changed: bool, excerpt: bool, text: &str) -> String {
    let id = format!("memory:{}", memory_id.0);
    let mut attributes = vec![("of", id.as_str())];
    if changed {
        attributes.push(("edited", MARKED));
    }
    if excerpt {
        attributes.push(("excerpt", MARKED));
    }
    fenced_with("passage", &attributes, text)
}

/// The tokens a passage's element takes in the prompt, with the line break.
fn element_tokens(memory_id: &MemoryId, changed: bool, excerpt: bool, text: &str) -> usize {
    estimate_tokens(&passage_element(memory_id, changed, excerpt, text)) + 1
}

/// At most this many notes are read for one question: each read is a call to the main thread in
/// the plugin (and up to the note size limit in memory), and a note holds the passages of all
/// its chosen memories, read once. A hundred notes of a few kilobytes take well under a second;
/// the passages of a full default budget (75,000 tokens of them) come from fewer.
const MAX_NOTE_READS: usize = 100;

/// A passage takes at most this share of the room (1/N) at first: a longer one is cut to the
/// lines that bear on the question, so that the passages of the next memories get in too; what
/// the room has left afterwards gives the cut ones back more of their lines, best first.
/// Tuned by `recall-bench` on the development half of LoCoMo's sessions (answer in context).
const FIRST_SHARE: usize = 4;

/// Nor more than this many tokens at first, however large the room: a long note's passage is
/// cut to what bears on the question, so that more memories' passages get in before any grows.
/// LoCoMo's sessions (answer in the packed prompt at 4K / 8K / 16K), with sentences cut
/// (`excerpt::LONG_LINE_SHARE`): no cap 0.701 / 0.775 / 0.809, 800 tokens 0.701 / 0.776 /
/// 0.811, 700 0.701 / 0.778 / 0.811, 600 0.701 / 0.780 / 0.811, 500 0.704 / 0.778 / 0.805;
/// SQuAD (4K / 16K / 32K) 0.908 / 0.961 / 0.977 from 500 to 700 tokens and without.
const MAX_FIRST_TOKENS: usize = 600;

/// The passages read for a question, in the ranking's order, whole: until they hold this many
/// times the room (and from at most `MAX_NOTE_READS` notes). `focus_order` then chooses among
/// them. LoCoMo's sessions (answer in the packed prompt at 4K / 8K / 16K): 1 room 0.595 / 0.704
/// / 0.768, 2 rooms 0.625 / 0.713 / 0.787, 3 rooms 0.632 / 0.724 / 0.796, 4 rooms 0.632 / 0.728 /
/// 0.799, every passage 0.632 / 0.728 / 0.800.
const POOL_ROOMS: usize = 4;

/// The runners-up's passages are read until the pool holds this many rooms more. A memory's
/// line was ranked by its summary, names and dates; the passage behind a memory whose line did
/// not fit may hold the question's words where the chosen ones' do not (`focus_order` then
/// gives it room, and its line comes with it). Answer in the packed prompt, LoCoMo's sessions
/// at 4K / 8K / 16K: without runners-up 0.680 / 0.763 / 0.809; 1 room 0.688 / 0.767 / 0.812,
/// 2 rooms 0.689 / 0.768 / 0.813, 4 rooms 0.701 / 0.771 / 0.811, 8 rooms 0.700 / 0.774 /
/// 0.809, 16 rooms 0.705 / 0.775 / 0.809 (at most 40 runners-up). SQuAD at 4K / 16K: 0.865 /
/// 0.955 without, 0.903 / 0.961 with 4 rooms, 0.904 / 0.961 with 16.
const RUNNER_UP_ROOMS: usize = 8;

/// No excerpt is cut smaller than this many tokens (its element included): a line or two.
const MIN_EXCERPT_TOKENS: usize = 48;

/// The passages of `ranked` memories (best first), then of the `runners_up` (best first, their
/// lines not in the prompt), that fit in `room` tokens, each memory's once, a note read once
/// however many of its memories are asked for, given room in `focus_order`; a passage longer
/// than its share is cut to the lines that bear on `focus`. A runner-up's passage costs its
/// line too, which the prompt then shows with it (`line_cost`). With `dating`, relative dates
/// are written out (`Dating`); without, passages are the notes' words.
#[allow(clippy::too_many_arguments)]
pub async fn read_passages<R: NoteReader, D: SqlDriver>(
    reader: &R,
    store: &Store<D>,
    memories: &[Memory],
    ranked: &[MemoryId],
    runners_up: &[Memory],
    room: usize,
    focus: &Focus,
    dating: Option<Dating>,
) -> Result<Vec<Passage>, StoreError> {
    let by_id: HashMap<&MemoryId, &Memory> = memories.iter().map(|memory| (&memory.id, memory)).collect();
    // What a runner-up's line costs (a chosen memory's is paid): a few dozen at most, looked up in turn.
    let line_of = |id: &MemoryId| runners_up.iter().find(|memory| &memory.id == id).map_or(0, line_cost);
    let mut notes: HashMap<String, Option<ReadNote>> = HashMap::new();
    let mut texts: Vec<PassageText<'_>> = Vec::new();
    // The passages to choose from, in the ranking's order: as many as fill the room a few
    // times, then the runners-up's until a few times more.
    let chosen = ranked.iter().filter_map(|id| by_id.get(id).copied()).map(|memory| (memory, POOL_ROOMS));
    let next = runners_up.iter().map(|memory| (memory, POOL_ROOMS + RUNNER_UP_ROOMS));
    let mut pooled = 0;
    for (memory, rooms) in chosen.chain(next) {
        if pooled >= rooms.saturating_mul(room) {
            continue;
        }
        let unread = passage_source(memory) == PassageSource::Note && !notes.contains_key(&memory.source_path);
        if unread && notes.len() >= MAX_NOTE_READS {
            // A later memory of a note already read, or typed text, may still come.
            continue;
        }
        if let Some(text) = passage_text(reader, store, memory, &mut notes, dating).await? {
            pooled += estimate_tokens(&text.text);
            texts.push(text);
        }
    }
    // Each passage with its whole text, kept while it is an excerpt that may grow.
    let mut read: Vec<(Passage, Option<String>)> = Vec::new();
    let share = (room / FIRST_SHARE).clamp(MIN_EXCERPT_TOKENS, MAX_FIRST_TOKENS);
    let mut used = 0;
    for at in focus_order(&texts, focus) {
        if used >= room {
            break;
        }
        let (memory, changed) = (texts[at].memory, texts[at].changed);
        let line = line_of(&memory.id);
        let Some(allowed) = share.min(room - used).checked_sub(line) else { continue };
        // Only a passage given room has its dates written out: the pool is read several rooms deep.
        let text = std::mem::take(&mut texts[at].text);
        let text = match texts[at].written_on {
            Some(day) => with_relative_dates(&text, day).unwrap_or(text),
            None => text,
        };
        let whole = element_tokens(&memory.id, changed, false, &text);
        let passage = if whole <= allowed {
            Some((Passage { memory_id: memory.id.clone(), text, changed, excerpt: false, tokens: whole }, None))
        } else {
            cut(&memory.id, changed, &text, focus, allowed).map(|passage| (passage, Some(text)))
        };
        if let Some((passage, whole_text)) = passage {
            used += passage.tokens + line;
            read.push((passage, whole_text));
        }
    }
    // What is left gives the excerpts back their lines, in the order they were given room.
    for (passage, whole_text) in &mut read {
        let Some(text) = whole_text.as_deref() else { continue };
        let allowed = passage.tokens + (room - used);
        let whole = element_tokens(&passage.memory_id, passage.changed, false, text);
        let grown = if whole <= allowed {
            Some(Passage { text: text.to_owned(), excerpt: false, tokens: whole, ..passage.clone() })
        } else {
            cut(&passage.memory_id, passage.changed, text, focus, allowed)
        };
        if let Some(grown) = grown.filter(|grown| grown.tokens >= passage.tokens) {
            used = used - passage.tokens + grown.tokens;
            *passage = grown;
        }
    }
    let passages: Vec<Passage> = read.into_iter().map(|(passage, _)| passage).collect();
    let with_lines = |passage: &Passage| passage.tokens + line_of(&passage.memory_id);
    debug_assert!(passages.iter().map(with_lines).sum::<usize>() <= room, "passages and their lines within the room");
    Ok(passages)
}

/// How much a passage's rank counts against the question's words in it (`focus_order`): the
/// best-ranked memory's passage always comes first, the next few need the words to be passed.
/// Tuned by `recall-bench` (answer in the packed prompt): 1, 2, 3 and 5 within 0.004 of each
/// other on LoCoMo's sessions; 0 (the words alone) 0.003 lower at 4K, SQuAD 0.006 lower at 4K.
const RANK_WEIGHT: f64 = 2.0;

/// The order in which `texts` (best-ranked memory first) are given room: by how much of the
/// question's words each holds, the rare ones among them counting more, plus `RANK_WEIGHT`
/// over its place in the ranking. The ranking chose memories by their summaries, names and
/// dates; a summary leaves out the details a question asks about ("What is Melanie's reason
/// for getting into running?": her session says "running" six times, its summary once, less
/// than two others' summaries matched "getting"), and the passage holds them. A question
/// without words (names or dates only) keeps the ranking's order.
fn focus_order(texts: &[PassageText<'_>], focus: &Focus) -> Vec<usize> {
    let held: Vec<Vec<bool>> = texts.iter().map(|text| focus.keywords_held(&text.text)).collect();
    let weights = rarity_weights(&held, held.first().map_or(0, Vec::len));
    let scores: Vec<f64> = held.iter().map(|held| weight_held(held, &weights)).collect();
    let best = scores.iter().copied().fold(0.0, f64::max);
    let key = |at: usize| RANK_WEIGHT / (1.0 + at as f64) + if best > 0.0 { scores[at] / best } else { 0.0 };
    let mut order: Vec<usize> = (0..texts.len()).collect();
    order.sort_by(|&a, &b| key(b).total_cmp(&key(a)).then(a.cmp(&b)));
    order
}

/// `text` cut to an excerpt whose element takes at most `allowed` tokens; `None` when not
/// even a line fits.
fn cut(memory_id: &MemoryId, changed: bool, text: &str, focus: &Focus, allowed: usize) -> Option<Passage> {
    if allowed < MIN_EXCERPT_TOKENS {
        return None;
    }
    let frame = element_tokens(memory_id, changed, true, "");
    let mut text_room = allowed.checked_sub(frame)?;
    // The element's escaping may cost a little more than the text's own estimate: cut again,
    // smaller by the difference, until it fits.
    loop {
        let lines = excerpt(text, focus, text_room)?;
        let tokens = element_tokens(memory_id, changed, true, &lines);
        if tokens <= allowed {
            return Some(Passage { memory_id: memory_id.clone(), text: lines, changed, excerpt: true, tokens });
        }
        text_room = text_room.checked_sub(tokens - allowed)?;
    }
}

/// A memory's passage as read, before it is given room.
struct PassageText<'a> {
    memory: &'a Memory,
    text: String,
    /// The note's lines no longer hash as they did when the memory was made.
    changed: bool,
    /// The day the text was written, when known and its dates are to be written out (`Dating`).
    written_on: Option<CalendarDate>,
}

/// A memory's passage; `None` when there is none to read.
async fn passage_text<'a, R: NoteReader, D: SqlDriver>(
    reader: &R,
    store: &Store<D>,
    memory: &'a Memory,
    notes: &mut HashMap<String, Option<ReadNote>>,
    dating: Option<Dating>,
) -> Result<Option<PassageText<'a>>, StoreError> {
    let (text, changed, written_on) = match passage_source(memory) {
        PassageSource::None => return Ok(None),
        // Kept in the store with the memory (chosen memories come without it).
        PassageSource::Store => {
            let text = store.get_memory(&memory.id)?.map(|full| full.raw_text).unwrap_or_default();
            if text.trim().is_empty() {
                return Ok(None);
            }
            // Typed text is written the day it is remembered; a selection the day its daily
            // note is named for; a PDF's chunk whenever its file was, which it does not say.
            let written_on = dating.and_then(|dating| match memory.source_kind {
                SourceKind::Text => Some(CalendarDate::at(memory.created_at, dating.utc_offset_minutes)),
                SourceKind::Selection => path_date(&memory.source_path),
                SourceKind::Note => None,
            });
            (text, false, written_on)
        }
        PassageSource::Note => {
            let (Some(first), Some(last)) = (memory.position.line_start, memory.position.line_end) else {
                return Ok(None);
            };
            if !notes.contains_key(&memory.source_path) {
                let text = reader.note_text(&memory.source_path).await;
                let note = text.map(|text| {
                    let written_on = dating.and_then(|dating| written_on(&memory.source_path, &text, dating.order));
                    ReadNote { text, written_on }
                });
                notes.insert(memory.source_path.clone(), note);
            }
            let Some(Some(note)) = notes.get(&memory.source_path) else { return Ok(None) };
            let Some(text) = cut_lines(&note.text, first, last) else { return Ok(None) };
            let changed = !same_hash(memory.content_hash.as_deref(), memory.position.heading.as_deref(), &text);
            (text, changed, note.written_on)
        }
    };
    Ok(Some(PassageText { memory, text, changed, written_on }))
}

/// The day a note was written, which its relative dates count from: its own date
/// (`notes::own_date`: a daily note's name, a date property), else its title's (`title_date`).
/// `None` when neither says: the modification time moves whenever the note is touched.
fn written_on(path: &str, text: &str, order: DateOrder) -> Option<CalendarDate> {
    let (properties, first_line) = properties_and_first_line(text);
    own_date(path, &properties).map(|(day, _)| day).or_else(|| line_date(first_line?, order))
}

/// The one full date the first line of a note's body names, its title most often ("# Monday 8
/// May 2023", "Conversation on 08 May 2023, 13:56"); `None` for a line with none, or with two.
/// The IngestAgent's note date falls back on it too (`notes::note_date`), before the
/// modification time.
pub fn title_date(text: &str, order: DateOrder) -> Option<CalendarDate> {
    line_date(properties_and_first_line(text).1?, order)
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
        let passages = read_passages(&reader, &store, &memories, &ranked, &[], 1_000_000, &Focus::none(), None)
            .now_or_never()
            .unwrap()
            .unwrap();
        assert_eq!((reader.0.get(), passages.len()), (MAX_NOTE_READS, MAX_NOTE_READS));
        assert!(passages.iter().all(|passage| !passage.changed), "unchanged chunks");
        let few = read_passages(&reader, &store, &memories, &ranked, &[], 25, &Focus::none(), None)
            .now_or_never()
            .unwrap()
            .unwrap();
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
        read_passages(&reader, &store, &files, &ranked, &[], 1_000_000, &Focus::none(), None)
            .now_or_never()
            .unwrap()
            .unwrap();
        assert_eq!(reader.0.get(), 0, "the reader was asked for a PDF or an image");
    }

    /// Three notes of one memory each: a long journal first (ranked best), two short notes.
    fn journal_and_notes() -> (HashMap<String, String>, Vec<Memory>, Vec<MemoryId>) {
        let mut journal: Vec<String> =
            (0..80).map(|day| format!("Day {day}: walked, ate, slept, nothing to report.")).collect();
        journal[50] = "Ana lost her passport at the hotel.".to_owned();
        let notes: HashMap<String, String> = [
            ("journal.md".to_owned(), journal.join("\n")),
            ("hotel.md".to_owned(), "The hotel is the Memmo Alfama.".to_owned()),
            ("flight.md".to_owned(), "We fly TAP TP1351.".to_owned()),
        ]
        .into();
        let memories: Vec<Memory> = ["journal.md", "hotel.md", "flight.md"]
            .iter()
            .map(|path| {
                let lines = notes[*path].split('\n').count() as u32;
                Memory {
                    id: MemoryId(path.to_string()),
                    position: crate::domain::Position { heading: None, line_start: Some(0), line_end: Some(lines - 1) },
                    ..memory_at(path, SourceKind::Note)
                }
            })
            .collect();
        let ranked = memories.iter().map(|memory| memory.id.clone()).collect();
        (notes, memories, ranked)
    }

    fn passport() -> Focus {
        Focus::of_plan(&crate::select::QueryPlan { keywords: vec!["passport".into()], ..Default::default() })
    }

    #[test]
    fn a_long_passage_is_cut_to_its_share_so_the_next_ones_get_in() {
        use futures_util::FutureExt;
        let store =
            crate::store::open_from_bytes(&[], crate::store::rusqlite_driver::RusqliteDriver::from_bytes).unwrap();
        let (notes, memories, ranked) = journal_and_notes();
        // Its share (a quarter) cannot hold the whole excerpt (64 tokens); what the others leave can.
        let room = 240;
        let passages = read_passages(&notes, &store, &memories, &ranked, &[], room, &passport(), None)
            .now_or_never()
            .unwrap()
            .unwrap();
        let ids: Vec<&str> = passages.iter().map(|passage| passage.memory_id.0.as_str()).collect();
        assert_eq!(ids, ["journal.md", "hotel.md", "flight.md"], "the short notes got in after the journal");
        let journal = &passages[0];
        assert!(journal.excerpt && journal.text.contains("Ana lost her passport at the hotel."), "{journal:?}");
        assert!(journal.element().contains(&format!("excerpt=\"{MARKED}\"")));
        assert!(!passages[1].excerpt && !passages[2].excerpt, "short passages are whole");
        let used: usize = passages.iter().map(|passage| passage.tokens).sum();
        assert!(used <= room, "{used} tokens in a room of {room}");
        // What the short notes left went back to the journal: more than its first share.
        assert!(journal.tokens > room / FIRST_SHARE, "{} tokens", journal.tokens);
        for passage in &passages {
            assert_eq!(passage.tokens, estimate_tokens(&passage.element()) + 1, "{passage:?}");
        }
    }

    /// Four one-line notes of a week in Lisbon, and a memory of each, best first; only the
    /// last says "passport".
    fn lisbon_week() -> (HashMap<String, String>, Vec<Memory>) {
        let said = [
            ("best.md", "Ana and Ben met in Lisbon for the week."),
            ("second.md", "Ben booked the flights and the hotel early."),
            ("third.md", "They walked along the river every evening."),
            ("fourth.md", "Ana lost her passport on the last evening."),
        ];
        let notes = said.iter().map(|(path, text)| (path.to_string(), text.to_string())).collect();
        let memories = said
            .iter()
            .map(|(path, _)| Memory {
                id: MemoryId(path.to_string()),
                summary: "A week in Lisbon.".into(),
                position: crate::domain::Position { heading: None, line_start: Some(0), line_end: Some(0) },
                ..memory_at(path, SourceKind::Note)
            })
            .collect();
        (notes, memories)
    }

    #[test]
    fn a_passage_holding_the_questions_words_gets_room_before_better_ranked_ones_without_them() {
        use futures_util::FutureExt;
        let store =
            crate::store::open_from_bytes(&[], crate::store::rusqlite_driver::RusqliteDriver::from_bytes).unwrap();
        let (notes, memories) = lisbon_week();
        let ranked: Vec<MemoryId> = memories.iter().map(|memory| memory.id.clone()).collect();
        let one = element_tokens(&ranked[0], true, false, &notes["best.md"]);
        let room = 2 * one + one / 2;
        let ids = |focus: &Focus| -> Vec<String> {
            let passages = read_passages(&notes, &store, &memories, &ranked, &[], room, focus, None)
                .now_or_never()
                .unwrap()
                .unwrap();
            passages.iter().map(|passage| passage.memory_id.0.clone()).collect()
        };
        // The best-ranked first whatever it says; then the one with the question's word.
        assert_eq!(ids(&passport()), ["best.md", "fourth.md"]);
        assert_eq!(ids(&Focus::none()), ["best.md", "second.md"], "without words, the ranking's order");
    }

    #[test]
    fn a_runner_ups_passage_with_the_questions_words_gets_room_and_pays_for_its_line() {
        use futures_util::FutureExt;
        let store =
            crate::store::open_from_bytes(&[], crate::store::rusqlite_driver::RusqliteDriver::from_bytes).unwrap();
        let (notes, mut memories) = lisbon_week();
        // The first two were chosen for their lines; the other two did not fit.
        let runners_up = memories.split_off(2);
        let ranked: Vec<MemoryId> = memories.iter().map(|memory| memory.id.clone()).collect();
        let one = element_tokens(&ranked[0], true, false, &notes["best.md"]);
        let line = line_cost(&runners_up[1]);
        let read = |room: usize, focus: &Focus| -> Vec<Passage> {
            read_passages(&notes, &store, &memories, &ranked, &runners_up, room, focus, None)
                .now_or_never()
                .unwrap()
                .unwrap()
        };
        let ids = |passages: &[Passage]| -> Vec<String> {
            passages.iter().map(|passage| passage.memory_id.0.clone()).collect()
        };
        // Room for two passages and a line: the best-ranked, then the runner-up that holds the
        // question's word, over the chosen one that does not.
        let room = 2 * one + line + one / 4;
        let passages = read(room, &passport());
        assert_eq!(ids(&passages), ["best.md", "fourth.md"]);
        let used: usize = passages.iter().map(|passage| passage.tokens).sum();
        assert!(used + line <= room, "its line is paid from the room: {used} + {line} > {room}");
        // Without the question's words, the chosen memories keep their place.
        assert_eq!(ids(&read(room, &Focus::none())), ["best.md", "second.md"]);
        // Room for its passage but not its line as well: it does not get in.
        let tight = 2 * one + one / 4;
        assert!(!ids(&read(tight, &passport())).contains(&"fourth.md".to_owned()));
    }

    #[test]
    fn a_large_room_cuts_long_passages_at_first_so_that_more_notes_get_in() {
        use futures_util::FutureExt;
        let store =
            crate::store::open_from_bytes(&[], crate::store::rusqlite_driver::RusqliteDriver::from_bytes).unwrap();
        // Ten journals of about 1,500 tokens each, ranked in order, in a room of 8,000.
        let journal = (0..110)
            .map(|day| format!("Day {day}: walked along the river, ate well, slept early."))
            .collect::<Vec<_>>()
            .join("\n");
        let paths: Vec<String> = (0..10).map(|at| format!("journal {at}.md")).collect();
        let notes: HashMap<String, String> = paths.iter().map(|path| (path.clone(), journal.clone())).collect();
        let memories: Vec<Memory> = paths
            .iter()
            .map(|path| Memory {
                id: MemoryId(path.clone()),
                position: crate::domain::Position { heading: None, line_start: Some(0), line_end: Some(109) },
                ..memory_at(path, SourceKind::Note)
            })
            .collect();
        let ranked: Vec<MemoryId> = memories.iter().map(|memory| memory.id.clone()).collect();
        let one = estimate_tokens(&journal);
        let room = 8_000;
        assert!(one > MAX_FIRST_TOKENS && one < room / FIRST_SHARE, "{one} tokens a journal");
        let passages = read_passages(&notes, &store, &memories, &ranked, &[], room, &Focus::none(), None)
            .now_or_never()
            .unwrap()
            .unwrap();
        // A quarter of the room each would have let five in whole and a sixth cut.
        assert_eq!(passages.len(), 10, "every journal got in");
        assert!(!passages[0].excerpt, "what was left gave the best-ranked back its whole text");
        assert!(passages[9].excerpt && passages[9].tokens <= MAX_FIRST_TOKENS, "{:?}", passages[9].tokens);
        assert!(passages.iter().map(|passage| passage.tokens).sum::<usize>() <= room);
    }

    #[test]
    fn passages_that_fit_are_whole() {
        use futures_util::FutureExt;
        let store =
            crate::store::open_from_bytes(&[], crate::store::rusqlite_driver::RusqliteDriver::from_bytes).unwrap();
        let (notes, memories, ranked) = journal_and_notes();
        let passages = read_passages(&notes, &store, &memories, &ranked, &[], 100_000, &passport(), None)
            .now_or_never()
            .unwrap()
            .unwrap();
        assert_eq!(passages.len(), 3);
        assert!(passages.iter().all(|passage| !passage.excerpt), "{passages:?}");
        assert_eq!(passages[0].text, notes["journal.md"]);
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
