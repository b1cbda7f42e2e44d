//! Notes: a vault file turned into what the IngestAgent reads — its text, its frontmatter,
//! its chunks, its tags and the day it belongs to.
//!
//! Everything here is pure and total: notes come from users' vaults, so any input (binary
//! junk, broken YAML, a 2 MB single line) gives a result or a `NoteError`, never a panic.
//! The module knows nothing of the store, the model or the clock; the caller hands in the
//! bytes, the limits, the modification time and the user's UTC offset.

use std::borrow::Cow;

mod chunks;
mod date;
mod decode;
mod frontmatter;
mod glob;
pub mod kind;
mod markdown;
pub mod pdf;
pub mod place;
mod scope;
mod tags;
pub mod vault_path;

pub use chunks::{content_hash, Chunk};
pub use date::{note_date, own_date, path_date};
pub use decode::{decode_note, NoteError};
pub use frontmatter::{Frontmatter, FrontmatterValue};
pub use glob::{glob_matches, Glob, GlobSet};
pub use kind::FileKind;
pub use place::{FilePlace, PlacedMemory};
pub use scope::{is_regex_filter, CompiledPatterns, NoteMetadata, ScopeRules};

/// A note read for ingestion.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ParsedNote {
    /// The properties block; not part of any chunk.
    pub frontmatter: Frontmatter,
    /// The body in reading order; empty when the note holds nothing to remember.
    pub chunks: Vec<Chunk>,
    /// `#tags` in the body (code excluded): lowercase, without `#`, unique, in order.
    pub inline_tags: Vec<String>,
}

/// Reads a note's text into its frontmatter, chunks of at most `max_chunk_tokens`
/// estimated tokens (0 counts as 1), and body tags. Text that did not come through
/// `decode_note` (a selection, typed text) is read the same way: a BOM is dropped and CRLF
/// or CR line endings count as one line break each, so line numbers match the editor's.
pub fn parse_note(text: &str, max_chunk_tokens: usize) -> ParsedNote {
    parse(text, max_chunk_tokens, true)
}

/// Reads a piece of text that is not a whole note (a selection, typed text): like
/// `parse_note`, but a leading `---` block is content, not properties.
pub fn parse_fragment(text: &str, max_chunk_tokens: usize) -> ParsedNote {
    parse(text, max_chunk_tokens, false)
}

/// A note's properties and the first line of its body with anything on it (a title, often):
/// what a note is dated by, read without chunking it.
pub fn properties_and_first_line(text: &str) -> (Frontmatter, Option<&str>) {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut lines = text.split('\n').map(|line| line.strip_suffix('\r').unwrap_or(line));
    let has_body_line = |line: &&str| !line.trim().is_empty();
    if !text.starts_with("---") {
        // No properties block: the first lines are enough (a note is read for every question).
        return (Frontmatter::default(), lines.find(has_body_line));
    }
    let lines: Vec<&str> = lines.collect();
    let (frontmatter, body_start) = frontmatter::split(&lines);
    let first = lines.get(body_start..).unwrap_or_default().iter().copied().find(has_body_line);
    (frontmatter, first)
}

fn parse(text: &str, max_chunk_tokens: usize, has_frontmatter: bool) -> ParsedNote {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let text: Cow<str> =
        if text.contains('\r') { Cow::Owned(decode::normalise_line_endings(text)) } else { Cow::Borrowed(text) };
    let lines: Vec<&str> = text.split('\n').collect();
    let (frontmatter, body_start) =
        if has_frontmatter { frontmatter::split(&lines) } else { (Frontmatter::default(), 0) };
    let body = lines.get(body_start..).unwrap_or_default();
    let kinds = markdown::classify(body);
    ParsedNote {
        frontmatter,
        chunks: chunks::chunk_body(body, &kinds, body_start, max_chunk_tokens),
        inline_tags: tags::inline_tags(body, &kinds),
    }
}

#[cfg(test)]
mod tests {
    use super::chunks::tests::check_invariants;
    use super::{decode_note, note_date, parse_note};

    #[test]
    fn a_fragment_keeps_a_leading_dashes_block_as_content() {
        let text = "---\nstatus: decided\n---\nAlice owns it.";
        assert_eq!(super::parse_note(text, 500).chunks.len(), 1);
        assert!(!super::parse_note(text, 500).chunks[0].text.contains("status: decided"));
        let fragment = super::parse_fragment(text, 500);
        assert!(fragment.frontmatter.is_empty());
        assert!(fragment.chunks[0].text.contains("status: decided"), "{:?}", fragment.chunks);
        assert_eq!(fragment.chunks[0].line_start, 0);
    }

    #[test]
    fn a_daily_note_end_to_end() {
        let bytes = concat!(
            "\u{feff}---\r\ntags: [daily]\r\nmemory: true\r\n---\r\n",
            "# Thứ Hai\r\nCoffee with Lan #friends\r\n\r\n",
            "## Work\r\nShipped the #project/alpha release.\r\n```\r\n#not-a-tag\r\n```\r\n",
        );
        let text = decode_note(bytes.as_bytes(), 1024).unwrap();
        let note = parse_note(&text, 500);
        check_invariants(&text, 500, &note);
        assert_eq!(note.frontmatter.tags(), ["daily"]);
        assert!(!note.frontmatter.is_memory_disabled());
        assert_eq!(note.inline_tags, ["friends", "project/alpha"]);
        assert_eq!(note.chunks.len(), 1);
        assert_eq!(note.chunks[0].heading_path.as_deref(), Some("Thứ Hai"));
        assert_eq!((note.chunks[0].line_start, note.chunks[0].line_end), (4, 11));
        assert!(note.chunks[0].text.starts_with("# Thứ Hai\nCoffee") && note.chunks[0].text.ends_with("```"));
        assert_eq!(note_date("Daily/2026-02-02 Thứ Hai.md", &note.frontmatter, None, 0, 0).to_string(), "2026-02-02");
    }

    /// SplitMix64: a fixed-seed generator, so a failure here reproduces exactly.
    struct Random(u64);

    impl Random {
        fn next(&mut self) -> u64 {
            self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
            let mut z = self.0;
            z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
            z ^ (z >> 31)
        }

        fn below(&mut self, bound: usize) -> usize {
            (self.next() % bound as u64) as usize
        }
    }

    #[test]
    fn adversarial_input_never_panics_and_keeps_the_invariants() {
        // Whole lines that steer into the parsers' branches (frontmatter markers, fences,
        // headings, YAML forms), and fragments that break them, mixed with raw bytes.
        const LINES: &[&str] = &[
            "---",
            "...",
            "",
            "# Heading",
            "### Deep",
            "```",
            "~~~~",
            "tags:",
            "  - a",
            "- b",
            "key: 'x''y'",
            "list: [a, \"b",
            "memory: off",
            "text: |",
            "  block",
            "date: 2026-02-30",
            "* * *",
            "    # code",
        ];
        const FRAGMENTS: &[&str] = &[
            "---",
            "\n",
            "\r",
            "\r\n",
            "# ",
            "#",
            "#tag",
            " #a/b",
            "```",
            "`",
            "- ",
            ": ",
            ":",
            "'",
            "\"",
            "\\",
            "\\u12",
            "[",
            "]",
            "{",
            ",",
            "|",
            ">-",
            "  ",
            "\t",
            "ệ",
            "🍜",
            "\u{feff}",
            "2026-02-01",
            "20260201",
            "1e9",
            "-.5",
            "007",
            "null",
            "no",
        ];
        let mut random = Random(0x5eed_fa11_1dea_0001);
        for _ in 0..600 {
            // A third of the notes open with `---`, so the frontmatter reader gets its share.
            let mut bytes = if random.below(3) == 0 { b"---\n".to_vec() } else { Vec::new() };
            for _ in 0..random.below(40) {
                if random.below(2) == 0 {
                    bytes.extend_from_slice(LINES[random.below(LINES.len())].as_bytes());
                } else {
                    for _ in 0..random.below(8) {
                        if random.below(4) == 0 {
                            bytes.push(random.next() as u8);
                        } else {
                            bytes.extend_from_slice(FRAGMENTS[random.below(FRAGMENTS.len())].as_bytes());
                        }
                    }
                }
                bytes.extend_from_slice(if random.below(5) == 0 { b"\r\n" } else { b"\n" });
            }
            let _ = decode_note(&bytes, random.next() % 4096);
            let text = String::from_utf8_lossy(&bytes);
            for bound in [0, 1, 3, 17, 400] {
                let note = parse_note(&text, bound);
                check_invariants(&text, bound, &note);
                let _ = (note.frontmatter.tags(), note.frontmatter.to_json(), note.frontmatter.is_memory_disabled());
                let _ = note_date(&text, &note.frontmatter, None, random.next() as i64, random.next() as i32);
            }
        }
    }
}
