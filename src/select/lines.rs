//! How memories and insights appear in the query prompt — one line each, the same text
//! whose tokens the packer counts.

use crate::domain::{Consolidation, Memory, SourceKind};

/// `[memory:ID] DATE · SOURCE#HEADING · SUMMARY · facts: …; … · entities: … · topics: …` (after a
/// memory of the same note, `memory_lines` writes `#HEADING` alone, or no source)
///
/// The date says what it is: the day(s) the events happened (`2026-02-01, 2026-02-03`), the
/// note's own date when the text named none (`2026-11-23 (the note's date)`), or `undated`.
/// The facts come after the summary because they hold what it drops (exact amounts, names,
/// dates); a question is answered from them as often as from the summary.
///
/// Every token of a line is one the budget cannot spend on another memory, so a line says each
/// thing once: an entity the summary or the facts already name is not listed again, and the
/// importance (the selection's signal, not the answer's) is left out. On LoCoMo's turns, where a
/// line was 60% such overhead, this took evidence recall at 4K / 8K / 16K tokens from 0.796 /
/// 0.882 / 0.907 to 0.826 / 0.884 / 0.919.
pub fn memory_line(memory: &Memory) -> String {
    line_of(memory, true)
}

/// The lines of `memories` as the prompt writes them, in their order: a memory of the same note
/// as the one before it leaves out the note's path (its `#heading` stays). A prompt carries a
/// note's memories together (`choose::reading_order`), so its path is written once; on LoCoMo's
/// turns and SQuAD's articles the path was a tenth of a line.
pub fn memory_lines(memories: &[Memory]) -> impl Iterator<Item = String> + '_ {
    memories.iter().enumerate().map(|(at, memory)| {
        let before = at.checked_sub(1).map(|before| &memories[before]);
        let same_note = in_a_note(memory)
            && before.is_some_and(|before| in_a_note(before) && before.source_path == memory.source_path);
        line_of(memory, !same_note)
    })
}

/// The tokens `memories` take in the prompt in this order (`memory_lines`), each line in its
/// element with its line break.
pub fn lines_cost(memories: &[Memory]) -> usize {
    memory_lines(memories).map(|line| line_tokens(&line)).sum()
}

/// The tokens one line takes in its element, with the line break.
pub fn line_tokens(line: &str) -> usize {
    crate::tokens::estimate_tokens(line) + MEMORY_ELEMENT_TOKENS + 1
}

/// The line of a note's memory after another of the same note: without the note's path.
pub fn memory_line_in_note(memory: &Memory) -> String {
    line_of(memory, false)
}

/// Whether a memory's line may leave its source to the line before it: a note's (typed text and
/// selections stand alone).
pub fn in_a_note(memory: &Memory) -> bool {
    memory.source_kind == SourceKind::Note && !memory.source_path.is_empty()
}

/// A memory's line, with its note's path (`with_path`) or only its heading.
fn line_of(memory: &Memory, with_path: bool) -> String {
    let mut source = match (with_path, memory.source_path.is_empty()) {
        (false, _) => String::new(),
        (true, true) => "typed".to_owned(),
        (true, false) => memory.source_path.clone(),
    };
    if let Some(heading) = &memory.position.heading {
        source.push('#');
        source.push_str(heading);
    }
    let mut line = if source.is_empty() {
        format!("[memory:{}] {} · {}", memory.id.0, date_label(memory), memory.summary)
    } else {
        format!("[memory:{}] {} · {source} · {}", memory.id.0, date_label(memory), memory.summary)
    };
    if !memory.facts.is_empty() {
        line.push_str(&format!(" · facts: {}", memory.facts.join("; ")));
    }
    let unnamed: Vec<String> = memory
        .entities
        .iter()
        .filter(|entity| {
            let named_in = |text: &str| written_in(text, &entity.name);
            !named_in(&memory.summary) && !memory.facts.iter().any(|fact| named_in(fact))
        })
        .map(|entity| format!("{} ({})", entity.name, entity.kind))
        .collect();
    if !unnamed.is_empty() {
        line.push_str(&format!(" · entities: {}", unnamed.join(", ")));
    }
    if !memory.topics.is_empty() {
        line.push_str(&format!(" · topics: {}", memory.topics.join(", ")));
    }
    line
}

/// Whether `name` is written in `text` as it is, as a whole word or words: "Al" is not
/// written in "Also", "Alice Nguyen" is not written in "Alice said".
fn written_in(text: &str, name: &str) -> bool {
    if name.is_empty() {
        return false;
    }
    let is_word_char = |c: char| c.is_alphanumeric() || c == '_';
    text.match_indices(name).any(|(at, _)| {
        let before = text[..at].chars().next_back();
        let after = text[at + name.len()..].chars().next();
        !before.is_some_and(is_word_char) && !after.is_some_and(is_word_char)
    })
}

/// What a memory line says of its date.
fn date_label(memory: &Memory) -> String {
    let Some(first) = memory.happened_on.as_deref() else { return "undated".into() };
    if memory.date_source.is_note() {
        debug_assert!(memory.also_on.is_empty(), "a note's own date is a single day");
        let whose = if memory.date_source == crate::domain::DateSource::FileMetadata { "file's" } else { "note's" };
        return format!("{first} (the {whose} date)");
    }
    std::iter::once(first).chain(memory.also_on.iter().map(String::as_str)).collect::<Vec<_>>().join(", ")
}

/// `[consolidation:ID] INSIGHT (from memory:A, memory:B)`
pub fn insight_line(insight: &Consolidation) -> String {
    let sources: Vec<String> = insight.memory_ids.iter().map(|id| format!("memory:{}", id.0)).collect();
    format!("[consolidation:{}] {} (from {})", insight.id.0, insight.insight, sources.join(", "))
}

/// Tokens the element around a memory line adds in the prompt (`<memory>\n` and `\n</memory>`,
/// 19 characters), and one to spare for a closing marker the fence defuses inside the line.
/// Each memory is its own element so that text from a note cannot pass for another memory.
pub const MEMORY_ELEMENT_TOKENS: usize = 6;

/// Tokens an insight's element (`<insight>\n` and `\n</insight>`, 21 characters) and its date
/// (` · derived · newest memory YYYY-MM-DD`, 36 characters) add to its line, with one to spare.
pub const INSIGHT_ELEMENT_TOKENS: usize = 16;

/// The tokens an insight takes in the prompt: its line, its element and date, the line break.
pub fn insight_cost(insight: &Consolidation) -> usize {
    crate::tokens::estimate_tokens(&insight_line(insight)) + INSIGHT_ELEMENT_TOKENS + 1
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::{DateSource, MemoryId, Position, SourceKind};

    fn memory() -> Memory {
        Memory {
            id: MemoryId("m1".into()),
            source_path: "Work/Budget.md".into(),
            source_kind: SourceKind::Note,
            position: Position { heading: Some("Q3".into()), line_start: Some(0), line_end: Some(4) },
            raw_text: String::new(),
            summary: "Alice proposed a budget cut.".into(),
            entities: Vec::new(),
            topics: vec!["budget".into()],
            importance: 0.7,
            happened_on: Some("2026-02-01".into()),
            also_on: vec!["2026-02-03".into()],
            date_source: DateSource::Text,
            facts: vec![
                "Alice Nguyen proposed cutting the Q3 budget by 10%.".into(),
                "The vote is on 2026-02-03.".into(),
            ],
            created_at: 0,
            updated_at: 0,
            consolidated: false,
            content_hash: None,
        }
    }

    #[test]
    fn the_line_shows_every_day_and_the_facts() {
        assert_eq!(
            memory_line(&memory()),
            "[memory:m1] 2026-02-01, 2026-02-03 · Work/Budget.md#Q3 · Alice proposed a budget cut. · facts: Alice \
             Nguyen proposed cutting the Q3 budget by 10%.; The vote is on 2026-02-03. · topics: budget"
        );
    }

    #[test]
    fn the_line_says_what_its_date_is() {
        let mut from_note = memory();
        from_note.also_on.clear();
        from_note.date_source = DateSource::NoteName;
        assert!(memory_line(&from_note).starts_with("[memory:m1] 2026-02-01 (the note's date) · "));
        from_note.date_source = DateSource::FileMetadata;
        assert!(memory_line(&from_note).starts_with("[memory:m1] 2026-02-01 (the file's date) · "));
        let mut undated = memory();
        undated.happened_on = None;
        undated.also_on.clear();
        undated.facts.clear();
        assert_eq!(
            memory_line(&undated),
            "[memory:m1] undated · Work/Budget.md#Q3 · Alice proposed a budget cut. · topics: budget"
        );
    }

    fn entity(name: &str, kind: &str) -> crate::domain::Entity {
        crate::domain::Entity { name: name.into(), kind: kind.into() }
    }

    #[test]
    fn an_entity_is_listed_only_where_the_summary_and_facts_do_not_name_it() {
        let mut memory = memory();
        memory.topics.clear();
        memory.facts = vec!["Bob seconded it.".into()];
        memory.entities =
            vec![entity("Alice", "person"), entity("Bob", "person"), entity("Al", "person"), entity("Q3", "thing")];
        assert_eq!(
            memory_line(&memory),
            "[memory:m1] 2026-02-01, 2026-02-03 · Work/Budget.md#Q3 · Alice proposed a budget cut. · facts: Bob \
             seconded it. · entities: Al (person), Q3 (thing)",
            "Alice is in the summary, Bob in a fact; \"Al\" only begins \"Alice\"; the heading is not the text"
        );
        memory.summary = "Alice Nguyen's budget cut (with alice)".into();
        memory.entities = vec![entity("Alice Nguyen", "person"), entity("Alice", "person"), entity("Nguyen", "person")];
        memory.facts.clear();
        assert_eq!(
            memory_line(&memory),
            "[memory:m1] 2026-02-01, 2026-02-03 · Work/Budget.md#Q3 · Alice Nguyen's budget cut (with alice)",
            "a possessive ends a word; case counts, but \"Alice\" is written in \"Alice Nguyen\""
        );
    }

    #[test]
    fn written_in_finds_whole_words_only() {
        assert!(written_in("Met Bob.", "Bob"));
        assert!(written_in("Bob", "Bob"));
        assert!(written_in("café with Zoë", "Zoë"));
        assert!(!written_in("Bobby came", "Bob"));
        assert!(!written_in("a_Bob", "Bob"));
        assert!(!written_in("ZoëX", "Zoë"));
        assert!(!written_in("anything", ""));
        assert!(written_in("Bobby and Bob", "Bob"), "a later occurrence counts");
    }
}
