//! Chunking: a note's body cut into the pieces the IngestAgent reads, one model call each.
//!
//! Headings are the natural seams of a note, so the body is cut there first. Small sections
//! are then merged with the sibling and child sections after them while they fit the token
//! bound (a short note is one chunk, one call), and a section too large for the bound is
//! split at paragraphs, then lines, then characters. Fixed-size windows were rejected: they
//! cut thoughts in half and lose the heading that says what the text is about.
//!
//! Every chunk's text is exactly its lines of the file joined by `\n` (or, for a single line
//! too long for the bound, a piece of that line), so `line_start..=line_end` can be trusted
//! to open the note at the right place.

use super::markdown::{heading, LineKind};
use crate::hash::sha256_hex;
use crate::tokens::{estimate_tokens, CharCounts};

/// A piece of a note the IngestAgent reads on its own.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Chunk {
    /// The enclosing headings, outermost first: `Projects > Q3 budget`. `None` before the
    /// first heading. A merged chunk keeps the path of its first section.
    pub heading_path: Option<String>,
    /// First line, 0-based in the whole file (frontmatter lines count), inclusive.
    pub line_start: u32,
    /// Last line, inclusive.
    pub line_end: u32,
    /// The text, its own heading line included.
    pub text: String,
    /// SHA-256 of `heading_path + "\n" + text` (an absent path counts as empty): the same
    /// content under the same headings has the same hash, wherever it moves in the file.
    pub content_hash: String,
}

/// A chunk's content hash: SHA-256 of `heading_path + "\n" + text` (an absent path counts as
/// empty). Public so that the QueryAgent can tell whether a passage is still what was remembered.
pub fn content_hash(heading_path: Option<&str>, text: &str) -> String {
    sha256_hex(format!("{}\n{text}", heading_path.unwrap_or("")).as_bytes())
}

/// Lines from one heading up to the next heading (or the end), with the heading's path.
struct Section {
    level: usize,
    path: Option<String>,
    /// Body line indices, `start..end`.
    start: usize,
    end: usize,
}

/// The body of a note and what the chunker needs to know about it.
struct Body<'a> {
    lines: &'a [&'a str],
    kinds: &'a [LineKind],
    /// The file line of body line 0 (the lines the frontmatter took).
    first_line: usize,
    max_tokens: usize,
    measure: Measure,
}

/// What measuring a range of lines needs, computed once per note, so that a chunk growing
/// line by line is measured in constant time rather than joined and counted again at each
/// step — which made a note of a million one-character lines take 75 s in the worker.
struct Measure {
    /// `counts_before[i]`: the characters of lines `0..i`, as the token estimate counts them.
    counts_before: Vec<CharCounts>,
    /// `next_filled[i]`: the first line at or after `i` that is not whitespace only (or the
    /// number of lines).
    next_filled: Vec<usize>,
    /// `filled_before[i]`: one more than the last line before `i` that is not whitespace
    /// only (or 0).
    filled_before: Vec<usize>,
}

impl Measure {
    fn new(lines: &[&str]) -> Measure {
        let mut counts_before = Vec::with_capacity(lines.len() + 1);
        let mut filled_before = Vec::with_capacity(lines.len() + 1);
        let (mut counts, mut filled) = (CharCounts::default(), 0);
        for (index, line) in lines.iter().enumerate() {
            counts_before.push(counts);
            filled_before.push(filled);
            counts = counts + CharCounts::of(line);
            if !line.trim().is_empty() {
                filled = index + 1;
            }
        }
        counts_before.push(counts);
        filled_before.push(filled);
        let mut next_filled = vec![lines.len(); lines.len() + 1];
        for index in (0..lines.len()).rev() {
            next_filled[index] = if lines[index].trim().is_empty() { next_filled[index + 1] } else { index };
        }
        Measure { counts_before, next_filled, filled_before }
    }

    /// Lines `start..end` without blank lines at either edge, as an inclusive range.
    fn trimmed(&self, start: usize, end: usize) -> Option<(usize, usize)> {
        let first = self.next_filled[start];
        if first >= end {
            return None;
        }
        let last = self.filled_before[end] - 1;
        debug_assert!(start <= first && first <= last && last < end, "trimmed {start}..{end} to {first}..={last}");
        Some((first, last))
    }

    /// `estimate_tokens` of lines `first..=last` joined by `\n`.
    fn tokens(&self, first: usize, last: usize) -> usize {
        let line_breaks = CharCounts { dense: 0, other: last - first };
        (self.counts_before[last + 1] - self.counts_before[first] + line_breaks).tokens()
    }
}

/// Chunks of the body `lines` (classified as `kinds`), which start at file line
/// `first_line`. A bound of 0 is read as 1: no text fits in zero tokens.
pub(super) fn chunk_body(lines: &[&str], kinds: &[LineKind], first_line: usize, max_tokens: usize) -> Vec<Chunk> {
    let body = Body { lines, kinds, first_line, max_tokens: max_tokens.max(1), measure: Measure::new(lines) };
    let sections = sections(lines, kinds);
    let mut chunks = Vec::new();
    let mut i = 0;
    while let Some(first) = sections.get(i) {
        i += 1;
        if !body.fits(first.start, first.end) {
            let paragraphs = body.paragraphs(first.start, first.end);
            body.pack(&paragraphs, &first.path, &mut chunks);
            continue;
        }
        // Merging stops at the first section that would not fit, or at a heading of a
        // higher level (a parent's sibling), which starts another part of the note.
        let mut end = first.end;
        while let Some(next) = sections.get(i).filter(|next| next.level >= first.level) {
            if !body.fits(first.start, next.end) {
                break;
            }
            end = next.end;
            i += 1;
        }
        body.emit(first.start, end, &first.path, &mut chunks);
    }
    debug_assert!(
        chunks.windows(2).all(|pair| pair[0].line_end <= pair[1].line_start),
        "chunks overlap or are out of order"
    );
    chunks
}

/// The body cut at its headings; the text before the first heading is a section of level 0,
/// so everything after it may merge into it.
fn sections(lines: &[&str], kinds: &[LineKind]) -> Vec<Section> {
    let mut sections = Vec::new();
    let mut open: Vec<(usize, String)> = Vec::new();
    let mut current = Section { level: 0, path: None, start: 0, end: 0 };
    for (index, (line, kind)) in lines.iter().zip(kinds).enumerate() {
        let LineKind::Heading(level) = *kind else { continue };
        current.end = index;
        sections.push(current);
        while open.last().is_some_and(|(open_level, _)| *open_level >= level) {
            open.pop();
        }
        open.push((level, heading(line).map_or("", |(_, title)| title).to_owned()));
        // An empty heading (`#` alone) still closes sections but adds nothing to the path.
        let titles: Vec<&str> =
            open.iter().map(|(_, title)| title.as_str()).filter(|title| !title.is_empty()).collect();
        let path = (!titles.is_empty()).then(|| titles.join(" > "));
        current = Section { level, path, start: index, end: index };
    }
    current.end = lines.len();
    sections.push(current);
    // Text before the first heading that holds nothing (blank lines, a stray `---`) would
    // otherwise lead a merged chunk and give it no heading path.
    let has_content = |section: &Section| {
        (section.start..section.end).any(|index| kinds[index].is_content() && !lines[index].trim().is_empty())
    };
    sections.retain(|section| section.level > 0 || has_content(section));
    sections
}

impl Body<'_> {
    /// Lines `start..end` without blank lines at either edge, as an inclusive range.
    fn trimmed(&self, start: usize, end: usize) -> Option<(usize, usize)> {
        self.measure.trimmed(start, end)
    }

    fn text(&self, first: usize, last: usize) -> String {
        self.lines[first..=last].join("\n")
    }

    /// Whether lines `start..end`, trimmed, fit the bound.
    fn fits(&self, start: usize, end: usize) -> bool {
        self.trimmed(start, end).is_none_or(|(first, last)| self.measure.tokens(first, last) <= self.max_tokens)
    }

    /// Paragraphs of `start..end` as inclusive ranges: runs of lines between blank lines
    /// (blank lines inside code blocks do not end a paragraph).
    fn paragraphs(&self, start: usize, end: usize) -> Vec<(usize, usize)> {
        let mut paragraphs = Vec::new();
        let mut open: Option<usize> = None;
        for index in start..end {
            match (self.kinds[index] == LineKind::Blank, open) {
                (true, Some(first)) => {
                    paragraphs.push((first, index - 1));
                    open = None;
                }
                (false, None) => open = Some(index),
                _ => {}
            }
        }
        if let Some(first) = open {
            paragraphs.push((first, end - 1));
        }
        paragraphs
    }

    /// Packs consecutive `units` (inclusive line ranges, in order) greedily into chunks
    /// within the bound. A unit too large on its own is packed again line by line, and a
    /// single line too large is cut into pieces.
    fn pack(&self, units: &[(usize, usize)], path: &Option<String>, out: &mut Vec<Chunk>) {
        let mut open: Option<(usize, usize)> = None;
        for &(first, last) in units {
            if let Some((open_first, open_last)) = open {
                if self.fits(open_first, last + 1) {
                    open = Some((open_first, last));
                    continue;
                }
                self.emit(open_first, open_last + 1, path, out);
                open = None;
            }
            if self.fits(first, last + 1) {
                open = Some((first, last));
            } else if first < last {
                let lines: Vec<(usize, usize)> = (first..=last).map(|index| (index, index)).collect();
                self.pack(&lines, path, out);
            } else {
                self.cut_line(first, path, out);
            }
        }
        if let Some((open_first, open_last)) = open {
            self.emit(open_first, open_last + 1, path, out);
        }
    }

    /// Pushes lines `start..end` as a chunk, trimmed, unless they hold nothing to remember.
    fn emit(&self, start: usize, end: usize, path: &Option<String>, out: &mut Vec<Chunk>) {
        let Some((first, last)) = self.trimmed(start, end) else { return };
        let has_content =
            (first..=last).any(|index| self.kinds[index].is_content() && !self.lines[index].trim().is_empty());
        if has_content {
            out.push(self.chunk(path, first, last, self.text(first, last)));
        }
    }

    /// Cuts one line longer than the bound into pieces that fit, preferring to cut after a
    /// space in the second half of a piece so words stay whole.
    fn cut_line(&self, index: usize, path: &Option<String>, out: &mut Vec<Chunk>) {
        if matches!(self.kinds[index], LineKind::Blank | LineKind::Rule) {
            return;
        }
        let mut rest = self.lines[index];
        while !rest.is_empty() {
            let piece = self.longest_fitting_prefix(rest);
            let piece = match piece.char_indices().rev().find(|(_, c)| c.is_whitespace()) {
                Some((at, space)) if piece.len() < rest.len() && at >= piece.len() / 2 => {
                    &piece[..at + space.len_utf8()]
                }
                _ => piece,
            };
            if !piece.trim().is_empty() {
                out.push(self.chunk(path, index, index, piece.to_owned()));
            }
            rest = &rest[piece.len()..];
        }
    }

    /// The longest prefix of `text` (at least one character) within the bound.
    fn longest_fitting_prefix<'t>(&self, text: &'t str) -> &'t str {
        // The estimate is four characters a token; halving keeps this right should it change.
        let mut chars = self.max_tokens.saturating_mul(4).max(1);
        loop {
            let end = text.char_indices().nth(chars).map_or(text.len(), |(at, _)| at);
            let prefix = &text[..end];
            if chars == 1 || estimate_tokens(prefix) <= self.max_tokens {
                return prefix;
            }
            chars /= 2;
        }
    }

    fn chunk(&self, path: &Option<String>, first: usize, last: usize, text: String) -> Chunk {
        debug_assert!(first <= last && last < self.lines.len(), "chunk of lines {first}..={last}");
        debug_assert!(estimate_tokens(&text) <= self.max_tokens, "a chunk over {} tokens", self.max_tokens);
        let line = |index: usize| u32::try_from(self.first_line + index).unwrap_or(u32::MAX);
        let content_hash = content_hash(path.as_deref(), &text);
        Chunk { heading_path: path.clone(), line_start: line(first), line_end: line(last), text, content_hash }
    }
}

#[cfg(test)]
pub(super) mod tests {
    use std::collections::BTreeMap;

    use crate::hash::sha256_hex;
    use crate::notes::decode::normalise_line_endings;
    use crate::notes::frontmatter::split;
    use crate::notes::markdown::classify;
    use crate::notes::{parse_note, Chunk, ParsedNote};
    use crate::tokens::estimate_tokens;

    /// What must hold for any note and bound: chunks in order, within the bound, inside the
    /// body, text equal to their lines (or pieces of one cut line), hashes as documented,
    /// and every content line of the body in exactly one chunk.
    pub(in crate::notes) fn check_invariants(text: &str, bound: usize, parsed: &ParsedNote) {
        let text = text.strip_prefix('\u{feff}').unwrap_or(text);
        let text = normalise_line_endings(text);
        let lines: Vec<&str> = text.split('\n').collect();
        let body_start = split(&lines).1;
        let kinds = classify(&lines[body_start..]);
        let mut covered = vec![0; lines.len()];
        let mut cut_lines: BTreeMap<usize, String> = BTreeMap::new();
        let mut previous_start = 0;
        for chunk in &parsed.chunks {
            let (start, end) = (chunk.line_start as usize, chunk.line_end as usize);
            assert!(body_start <= start && start <= end && end < lines.len(), "{chunk:?} outside the body");
            assert!(start >= previous_start, "chunks out of order");
            previous_start = start;
            assert!(estimate_tokens(&chunk.text) <= bound.max(1), "{chunk:?} over {bound} tokens");
            assert!(!chunk.text.trim().is_empty());
            let hashed = format!("{}\n{}", chunk.heading_path.as_deref().unwrap_or(""), chunk.text);
            assert_eq!(chunk.content_hash, sha256_hex(hashed.as_bytes()));
            if chunk.text == lines[start..=end].join("\n") {
                covered[start..=end].iter_mut().for_each(|count| *count += 1);
            } else {
                assert_eq!(start, end, "{chunk:?} is neither whole lines nor a piece of one");
                cut_lines.entry(start).or_default().push_str(&chunk.text);
            }
        }
        let visible = |text: &str| text.chars().filter(|c| !c.is_whitespace()).collect::<String>();
        for (line, pieces) in cut_lines {
            assert_eq!(visible(&pieces), visible(lines[line]), "the pieces of line {line} differ from it");
            covered[line] += 1;
        }
        for (index, kind) in kinds.iter().enumerate() {
            let line = body_start + index;
            assert!(covered[line] <= 1, "line {line} is in {} chunks", covered[line]);
            if kind.is_content() && !lines[line].trim().is_empty() {
                assert_eq!(covered[line], 1, "line {line} {:?} is in no chunk", lines[line]);
            }
        }
    }

    fn parse(text: &str, bound: usize) -> Vec<Chunk> {
        let parsed = parse_note(text, bound);
        check_invariants(text, bound, &parsed);
        parsed.chunks
    }

    /// (heading path, first line, last line) of each chunk.
    fn outline(chunks: &[Chunk]) -> Vec<(Option<&str>, u32, u32)> {
        chunks.iter().map(|chunk| (chunk.heading_path.as_deref(), chunk.line_start, chunk.line_end)).collect()
    }

    const NESTED: &str =
        "# Projects\nintro\n## Q3 budget\nspend less\n### Details\nfine print\n## Q4\nmore\n# Other\nx";

    #[test]
    fn chunks_follow_headings_with_exact_lines() {
        type Outline = &'static [(Option<&'static str>, u32, u32)];
        let cases: &[(&str, usize, Outline, &str)] = &[
            ("Just some text.\nMore text.\n", 100, &[(None, 0, 1)], "no headings: one chunk"),
            (NESTED, 1000, &[(Some("Projects"), 0, 9)], "a short note is one chunk"),
            (
                NESTED,
                6,
                &[
                    (Some("Projects"), 0, 1),
                    (Some("Projects > Q3 budget"), 2, 3),
                    (Some("Projects > Q3 budget > Details"), 4, 5),
                    (Some("Projects > Q4"), 6, 7),
                    (Some("Other"), 8, 9),
                ],
                "nested paths when nothing merges",
            ),
            (
                "# A\n### Deep\nx\n## B\ny\n#  \nz",
                3,
                &[(Some("A > Deep"), 1, 2), (Some("A > B"), 3, 4), (None, 5, 6)],
                "skipped levels; an empty heading adds nothing to the path",
            ),
            (
                "---\ntitle: x\n---\n\nintro\n\n# A\n\ntext a\n\n# B\ntext b\n",
                4,
                &[(None, 4, 4), (Some("A"), 6, 8), (Some("B"), 10, 11)],
                "frontmatter lines count; blank edges are trimmed",
            ),
            (
                "intro\n# Day\n## Morning\ncoffee\n## Evening\nrun\n# Next\nmore",
                100,
                &[(None, 0, 7)],
                "everything merges into the text before the first heading",
            ),
            (
                "## Morning\ncoffee\n### Later\ntea\n## Evening\nrun\n# Next\nmore",
                100,
                &[(Some("Morning"), 0, 5), (Some("Next"), 6, 7)],
                "siblings and children merge; a parent-level heading does not",
            ),
            (
                "## A\naaaa aaaa\n## B\nbbbb bbbb\n## C\ncccc cccc",
                10,
                &[(Some("A"), 0, 3), (Some("C"), 4, 5)],
                "merging stops at the bound",
            ),
            (
                "# Real\n```bash\n# not a heading\n\n## nor this\n```\ntext",
                1000,
                &[(Some("Real"), 0, 6)],
                "headings inside a code fence are code",
            ),
            (
                "# A\n\n# B\n---\n# C\n   \n# D\ncontent\n# E\n***\n",
                3,
                &[(Some("D"), 6, 7)],
                "sections with nothing to remember are dropped",
            ),
            (
                "# Nhật ký\nHôm nay ăn phở 🍜 với Lan.\n## Công việc\nHọp lúc 9 giờ ☕",
                12,
                &[(Some("Nhật ký"), 0, 1), (Some("Nhật ký > Công việc"), 2, 3)],
                "Vietnamese and emoji count as characters, not bytes",
            ),
            ("intro\n---\ntitle: x\n---\n", 100, &[(None, 0, 3)], "a later --- block is body, not frontmatter"),
            ("---\r\na: b\r\n---\r\n# A\rone\r\n# B\rtwo", 2, &[(Some("A"), 3, 4), (Some("B"), 5, 6)], "CR and CRLF"),
        ];
        for (text, bound, expected, why) in cases {
            assert_eq!(outline(&parse(text, *bound)), *expected, "{why}");
        }
    }

    #[test]
    fn notes_with_nothing_to_remember_have_no_chunks() {
        let cases = [
            "",
            "\n\n  \n\t",
            "---\ntitle: only properties\ntags: [a]\n---\n",
            "# Just a heading",
            "# One\n## Two\n\n### Three\n",
            "---\n\n***\n___",
            "```\n```",
        ];
        for text in cases {
            assert_eq!(parse(text, 100), [], "{text:?}");
        }
    }

    #[test]
    fn a_large_section_is_split_at_paragraphs_within_the_bound() {
        let paragraphs: Vec<String> =
            (0..30).map(|n| format!("Paragraph {n} line one.\nParagraph {n} line two.")).collect();
        let text = format!("# Big\n{}\n# After\nsmall", paragraphs.join("\n\n"));
        let bound = 40;
        let chunks = parse(&text, bound);
        assert!(chunks.len() > 3, "{} chunks", chunks.len());
        let lines: Vec<&str> = text.split('\n').collect();
        for chunk in &chunks[..chunks.len() - 1] {
            assert!(estimate_tokens(&chunk.text) <= bound, "{chunk:?} is over the bound");
            assert_eq!(chunk.heading_path.as_deref(), Some("Big"));
            let start = chunk.line_start as usize;
            assert!(start == 0 || lines[start - 1].is_empty(), "{chunk:?} does not start at a paragraph");
            assert!(lines[chunk.line_end as usize].ends_with("line two."), "{chunk:?} does not end a paragraph");
        }
        assert_eq!(chunks[0].text.lines().next(), Some("# Big"), "the heading stays with the first piece");
        assert_eq!(chunks.last().map(|chunk| chunk.text.as_str()), Some("# After\nsmall"));
    }

    #[test]
    fn oversized_paragraphs_split_at_lines_then_characters() {
        let long_paragraph: Vec<String> = (0..20).map(|n| format!("- list item number {n}")).collect();
        let giant_line = "Đây là một dòng rất dài 🌏 ".repeat(40);
        let cases = [
            (format!("# List\n{}", long_paragraph.join("\n")), 10),
            (format!("# Giant\n{giant_line}\nafter"), 10),
            (format!("```\n{}\n```", "x".repeat(500)), 7),
            (giant_line.clone(), 1),
            (giant_line.clone(), 0),
        ];
        for (text, bound) in cases {
            let chunks = parse(&text, bound);
            assert!(chunks.len() > 1, "{text:?} at {bound}");
        }
        // Pieces of a long line break after spaces, so words stay whole.
        let chunks = parse(&format!("# Giant\n{giant_line}"), 10);
        assert!(chunks.iter().filter(|chunk| chunk.line_start == 1).all(|chunk| chunk.text.ends_with(' ')));
    }

    #[test]
    fn pathological_shapes_chunk_within_the_bound_and_cover_the_note() {
        let bound = 1_500;
        // A million one-character lines: as many lines a chunk as the bound holds (n
        // characters and n - 1 line breaks, four a token: 2n - 1 <= 4 bound), in order, all covered.
        let lines = 1_000_000;
        let text = "x\n".repeat(lines);
        let chunks = parse(&text, bound);
        let lines_a_chunk = 2 * bound; // 2n - 1 characters fit in 4 · bound
        assert_eq!(chunks.len(), lines.div_ceil(lines_a_chunk));
        assert!(chunks.windows(2).all(|pair| pair[1].line_start as usize == pair[0].line_end as usize + 1));
        assert_eq!(chunks.last().map(|chunk| chunk.line_end as usize), Some(lines - 1));

        // One line of several megabytes, without a line break: pieces of it, words kept whole.
        let text = "word ".repeat(600_000);
        let chunks = parse(&text, bound);
        assert!(chunks.len() >= estimate_tokens(&text).div_ceil(bound), "{} pieces", chunks.len());
        assert!(chunks.iter().all(|chunk| chunk.line_start == 0 && chunk.line_end == 0 && chunk.text.ends_with(' ')));
        let text = "x".repeat(3_000_000);
        assert_eq!(parse(&text, bound).len(), estimate_tokens(&text).div_ceil(bound));

        // A hundred thousand headings, each with a line: sections merged up to the bound,
        // every chunk starting at a heading.
        let text: String = (0..100_000).map(|n| format!("# H{n}\nline {n}\n")).collect();
        let chunks = parse(&text, bound);
        assert!(chunks.len() >= estimate_tokens(&text).div_ceil(bound), "{} chunks", chunks.len());
        assert!(chunks.iter().all(|chunk| chunk.text.starts_with("# H") && chunk.line_start % 2 == 0));
        // Only headings: nothing to remember.
        let text: String = (0..100_000).map(|n| format!("## Heading {n}\n")).collect();
        assert_eq!(parse(&text, bound), []);
    }

    #[test]
    fn the_content_hash_depends_on_text_and_path_only() {
        let hash =
            |text: &str, bound| parse(text, bound).into_iter().map(|chunk| chunk.content_hash).collect::<Vec<_>>();
        let original = hash("# A\nsame text", 100);
        assert_eq!(original, hash("# A\nsame text", 100), "stable");
        assert_eq!(original, hash("---\nnew: property\n---\n\n\n# A\nsame text\n\n", 100), "moving it does not matter");
        assert_ne!(original, hash("# A\nsame text!", 100), "the text changed");
        assert_ne!(original, hash("# B\nsame text", 100), "the heading changed");
        let sections = hash("# A\none\n# B\ntwo", 3);
        let edited = hash("# A\none\n# B\ntwo, edited", 4);
        assert_eq!(sections[0], edited[0], "an edit in one section leaves the others' hashes alone");
        assert_ne!(sections[1], edited[1]);
        assert_eq!(
            parse("plain", 100)[0].content_hash,
            sha256_hex(b"\nplain"),
            "no heading path hashes as an empty one"
        );
    }
}
