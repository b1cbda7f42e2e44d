//! Tags: `#tag` and `#nested/tag` written in a note's body, and the one spelling of a tag.
//!
//! Tags decide which notes are never remembered (an excluded tag), so when in doubt this
//! errs towards finding a tag: tags inside heading text count, as they do in Obsidian.

use super::markdown::LineKind;

/// The spelling every tag is compared in: without leading `#`, trimmed, lowercase.
pub(super) fn normalise(tag: &str) -> Option<String> {
    let tag = tag.trim().trim_start_matches('#').trim();
    (!tag.is_empty()).then(|| tag.to_lowercase())
}

/// Pushes `tag` unless it is already there, keeping the order of first appearance.
pub(super) fn push_unique(tags: &mut Vec<String>, tag: String) {
    if !tags.contains(&tag) {
        tags.push(tag);
    }
}

/// The tags written in the body: outside code blocks and inline code, unique, in order.
pub(super) fn inline_tags(lines: &[&str], kinds: &[LineKind]) -> Vec<String> {
    let mut tags = Vec::new();
    // Looked up here rather than in `tags`: a note of many distinct tags stays linear.
    let mut seen = std::collections::HashSet::new();
    for (line, kind) in lines.iter().zip(kinds) {
        if matches!(kind, LineKind::Text | LineKind::Heading(_)) && line.contains('#') {
            for tag in tags_in_line(line) {
                if seen.insert(tag.clone()) {
                    tags.push(tag);
                }
            }
        }
    }
    tags
}

/// Obsidian's rule: `#` at the start or after whitespace, then letters, digits, `_`, `-`
/// and `/`, with at least one character that is not a digit (`#1984` is not a tag).
fn tags_in_line(line: &str) -> Vec<String> {
    let chars: Vec<char> = line.chars().collect();
    let mut backticks = BacktickRuns::new(&chars);
    let mut tags = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c == '`' {
            i = backticks.skip_span(i);
            continue;
        }
        let starts_tag = c == '#' && (i == 0 || chars[i - 1].is_whitespace());
        i += 1;
        if !starts_tag {
            continue;
        }
        let start = i;
        while i < chars.len() && is_tag_char(chars[i]) {
            i += 1;
        }
        let body: String = chars[start..i].iter().collect();
        let body = body.trim_matches('/');
        if body.chars().any(|c| !c.is_ascii_digit()) {
            if let Some(tag) = normalise(body) {
                tags.push(tag);
            }
        }
    }
    tags
}

fn is_tag_char(c: char) -> bool {
    c.is_alphanumeric() || matches!(c, '_' | '-' | '/')
}

/// The runs of backticks of a line, each with the run that would close a code span it opens
/// (the next run of the same length), found in one pass each way: looking for the closing
/// run from each opening one scans a line of many unclosed runs to its end again and again.
struct BacktickRuns {
    /// The first index and the length of each run, in order.
    runs: Vec<(usize, usize)>,
    /// For each run, the next run of the same length, if any.
    closing: Vec<Option<usize>>,
    /// The first run the reader has not passed.
    cursor: usize,
}

impl BacktickRuns {
    fn new(chars: &[char]) -> BacktickRuns {
        let mut runs = Vec::new();
        let mut at = 0;
        while at < chars.len() {
            let length = chars[at..].iter().take_while(|c| **c == '`').count();
            if length > 0 {
                runs.push((at, length));
            }
            at += length.max(1);
        }
        let mut closing = vec![None; runs.len()];
        let mut next_of_length = std::collections::HashMap::new();
        for (index, (_, length)) in runs.iter().enumerate().rev() {
            closing[index] = next_of_length.insert(*length, index);
        }
        BacktickRuns { runs, closing, cursor: 0 }
    }

    /// The index after the inline code span opening at `start` (a run of backticks closed by
    /// a run of the same length), or after the run alone when nothing closes it.
    fn skip_span(&mut self, start: usize) -> usize {
        while self.runs.get(self.cursor).is_some_and(|(first, _)| *first < start) {
            self.cursor += 1;
        }
        let Some(&(first, length)) = self.runs.get(self.cursor) else { return start + 1 };
        debug_assert_eq!(first, start, "a code span opens where no run of backticks starts");
        match self.closing[self.cursor] {
            Some(close) => {
                self.cursor = close + 1;
                let (closing_first, closing_length) = self.runs[close];
                closing_first + closing_length
            }
            None => {
                self.cursor += 1;
                start + length
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{inline_tags, normalise, tags_in_line};
    use crate::notes::markdown::classify;

    #[test]
    fn finds_tags_the_way_obsidian_does() {
        let cases: &[(&str, &[&str])] = &[
            ("#work and #Home", &["work", "home"]),
            ("#project/Q3-budget_v2", &["project/q3-budget_v2"]),
            ("#1984 is a year, #y1984 a tag", &["y1984"]),
            ("email me@x.com#frag, url http://x.org/#anchor, [[Note#Heading]]", &[]),
            ("`#code` and ``a ` #still code`` but #real", &["real"]),
            ("unclosed ` then #tag", &["tag"]),
            ("``a ` #in code `` #out ``` #unclosed ` #code `", &["out", "unclosed"]),
            ("` #a `` #b ` #c", &["c"]),
            ("#nhật-ký và #Đi_chơi 🎉", &["nhật-ký", "đi_chơi"]),
            ("#trailing/ #/", &["trailing"]),
            ("## heading marker is not a tag", &[]),
            ("#", &[]),
        ];
        for (line, expected) in cases {
            assert_eq!(tags_in_line(line), *expected, "{line}");
        }
    }

    #[test]
    fn body_tags_skip_code_and_are_unique_in_order() {
        let lines = ["# Trip #Travel", "#b #a", "```", "#code", "```", "    #indented #b", "---"];
        assert_eq!(inline_tags(&lines, &classify(&lines)), ["travel", "b", "a", "indented"]);
    }

    #[test]
    fn normalising_strips_hashes_and_lowercases() {
        assert_eq!(normalise(" #Private ").as_deref(), Some("private"));
        assert_eq!(normalise("##"), None);
        assert_eq!(normalise(""), None);
    }
}
