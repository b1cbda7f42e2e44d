//! Just enough Markdown to cut a note well: which lines are headings, code, blank or rules.
//!
//! Chunking and tag extraction need the line structure of a note, not a rendered tree, so
//! this is a line classifier rather than a CommonMark parser (rejected: pulling in
//! `pulldown-cmark` for its byte offsets, a large dependency for the four facts used here).

/// What a body line is, as far as chunking and tags care.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum LineKind {
    /// Whitespace only, outside a code block: a paragraph boundary.
    Blank,
    /// An ATX heading (`#` to `######` and a space) of this level.
    Heading(usize),
    /// The ``` or ~~~ line opening or closing a fenced code block.
    Fence,
    /// A line inside a fenced code block, blank ones included.
    Code,
    /// A thematic break: `---`, `***`, `___` (spaces between allowed).
    Rule,
    /// Anything else: prose, list items, quotes, tables.
    Text,
}

impl LineKind {
    /// Whether a line of this kind is something to remember (given it is not whitespace),
    /// rather than structure such as a heading, a rule or a fence.
    pub(super) fn is_content(self) -> bool {
        matches!(self, LineKind::Text | LineKind::Code)
    }
}

/// The kind of each line, in order. An unclosed fence runs to the end of the note, as it
/// does in Obsidian's reading view.
pub(super) fn classify(lines: &[&str]) -> Vec<LineKind> {
    let mut kinds = Vec::with_capacity(lines.len());
    let mut open_fence: Option<(char, usize)> = None;
    for line in lines {
        let kind = match open_fence {
            Some((marker, length)) => {
                if closes_fence(line, marker, length) {
                    open_fence = None;
                    LineKind::Fence
                } else {
                    LineKind::Code
                }
            }
            None => {
                if let Some(fence) = opens_fence(line) {
                    open_fence = Some(fence);
                    LineKind::Fence
                } else if line.trim().is_empty() {
                    LineKind::Blank
                } else if let Some((level, _)) = heading(line) {
                    LineKind::Heading(level)
                } else if is_rule(line) {
                    LineKind::Rule
                } else {
                    LineKind::Text
                }
            }
        };
        kinds.push(kind);
    }
    kinds
}

/// The level and title of an ATX heading line: `## Q3 budget ##` is `(2, "Q3 budget")`.
/// `#tag` (no space) is not a heading, nor is a line indented by four spaces or a tab
/// (indented code).
pub(super) fn heading(line: &str) -> Option<(usize, &str)> {
    let line = line.trim_end();
    let indent = line.len() - line.trim_start_matches(' ').len();
    if indent > 3 {
        return None;
    }
    let marked = &line[indent..];
    let level = marked.bytes().take_while(|byte| *byte == b'#').count();
    if !(1..=6).contains(&level) {
        return None;
    }
    let rest = &marked[level..];
    if !(rest.is_empty() || rest.starts_with([' ', '\t'])) {
        return None;
    }
    let title = rest.trim();
    // An optional closing run of `#` belongs to the syntax, not the title, when it stands apart.
    let without_closing = title.trim_end_matches('#');
    let title = if without_closing.is_empty() {
        ""
    } else if without_closing.ends_with([' ', '\t']) {
        without_closing.trim_end()
    } else {
        title
    };
    Some((level, title))
}

/// A fence opener: its marker and length. Fences are recognised at any indentation, because
/// in Obsidian they often sit inside list items.
fn opens_fence(line: &str) -> Option<(char, usize)> {
    let trimmed = line.trim_start();
    let marker = trimmed.chars().next().filter(|c| *c == '`' || *c == '~')?;
    let length = trimmed.chars().take_while(|c| *c == marker).count();
    if length < 3 {
        return None;
    }
    // "```inline``` code" on one line is not a fence: a backtick info string cannot hold backticks.
    if marker == '`' && trimmed[length..].contains('`') {
        return None;
    }
    Some((marker, length))
}

fn closes_fence(line: &str, marker: char, length: usize) -> bool {
    let trimmed = line.trim();
    trimmed.chars().all(|c| c == marker) && trimmed.chars().count() >= length
}

fn is_rule(line: &str) -> bool {
    let trimmed = line.trim();
    let Some(marker) = trimmed.chars().next().filter(|c| matches!(c, '-' | '*' | '_')) else {
        return false;
    };
    trimmed.chars().all(|c| c == marker || c == ' ' || c == '\t')
        && trimmed.chars().filter(|c| *c == marker).count() >= 3
}

#[cfg(test)]
mod tests {
    use super::{classify, heading, LineKind};

    #[test]
    fn headings_are_hashes_and_a_space() {
        let cases = [
            ("# Title", Some((1, "Title"))),
            ("###### Six", Some((6, "Six"))),
            ("####### Seven", None),
            ("#tag", None),
            ("#", Some((1, ""))),
            ("## Closed ##", Some((2, "Closed"))),
            ("## C#", Some((2, "C#"))),
            ("   ### Indented three", Some((3, "Indented three"))),
            ("    # Indented four", None),
            ("\t# Tab", None),
            ("## Trailing CR\r", Some((2, "Trailing CR"))),
            ("## Ngày mới 🌅", Some((2, "Ngày mới 🌅"))),
            ("text # not", None),
        ];
        for (line, expected) in cases {
            assert_eq!(heading(line), expected, "{line:?}");
        }
    }

    #[test]
    fn classifies_fences_rules_and_blanks() {
        let lines = [
            "# Title",
            "",
            "```python",
            "# not a heading",
            "",
            "```",
            "~~~~",
            "```",
            "~~~~",
            "---",
            "* * *",
            "- item",
            "```inline``` code",
            "   ",
        ];
        use LineKind::*;
        let expected = [Heading(1), Blank, Fence, Code, Code, Fence, Fence, Code, Fence, Rule, Rule, Text, Text, Blank];
        assert_eq!(classify(&lines), expected);
        assert_eq!(classify(&["```", "# inside", "", "never closed"]), [Fence, Code, Code, Code]);
    }
}
