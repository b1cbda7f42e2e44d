//! An answer read once into pieces: text, and numbered citations.
//!
//! The model cites with `[memory:ID]` and `[consolidation:ID]`, often several in one bracket
//! (`[memory:a, memory:b]`, `[memory:a; consolidation:c]`, `[memory: a, b]`). They are parsed
//! here and nowhere else: the ask panel, "Copy", saved conversations, the command and the MCP
//! server draw the pieces, none of them reads markers again. An id that was not given to the
//! model for this question is not a citation: it is reported as unknown and leaves nothing in
//! the text (the space before it goes too: "fact [memory:bad]." reads "fact."). Rejected: showing
//! an unknown id as plain text, which tells the reader nothing and looks like a broken link.

use serde::Serialize;

/// A piece of an answer, in reading order. Adjacent citation pieces came from one bracket (or
/// brackets side by side) and are drawn as one group.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "camelCase")]
pub enum AnswerPiece {
    /// Markdown, as the model wrote it.
    Text { text: String },
    /// A citation by its number: the 1-based place of the cited item in the answer's
    /// citation list. The same item is always the same number.
    Citation { number: usize },
}

/// What a citation points at.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CitedKind {
    Memory,
    Consolidation,
}

impl CitedKind {
    pub fn as_str(self) -> &'static str {
        match self {
            CitedKind::Memory => "memory",
            CitedKind::Consolidation => "consolidation",
        }
    }

    fn parse(text: &str) -> Option<CitedKind> {
        if text.eq_ignore_ascii_case("memory") {
            Some(CitedKind::Memory)
        } else if text.eq_ignore_ascii_case("consolidation") {
            Some(CitedKind::Consolidation)
        } else {
            None
        }
    }
}

/// A memory or insight an answer cites.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Reference {
    pub kind: CitedKind,
    pub id: String,
}

/// An answer's text read into pieces.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ParsedAnswer {
    pub pieces: Vec<AnswerPiece>,
    /// The cited items in order of first citation: citation `n` is `cited[n - 1]`.
    pub cited: Vec<Reference>,
    /// Ids cited that `is_known` refused, each once, in order.
    pub unknown: Vec<String>,
}

/// An answer's text without the evidence the model gathered before answering.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Stripped {
    /// What is shown and cited: the text outside `<evidence>…</evidence>`.
    pub answer: String,
    /// An `<evidence>` section was opened and never closed (the model was cut off in it).
    pub evidence_unfinished: bool,
}

const EVIDENCE_OPEN: &str = "<evidence>";
const EVIDENCE_CLOSE: &str = "</evidence>";

/// `text` without its evidence sections, read before anything is shown or its citations
/// resolved: an id the evidence names is not cited by the answer. A closing marker with no
/// opening one ends evidence that began with the text (the model left out the opening tag).
pub fn without_evidence(text: &str) -> Stripped {
    // ASCII lowercasing keeps byte offsets, so positions in `lower` are positions in `text`.
    let lower = text.to_ascii_lowercase();
    let mut answer = String::with_capacity(text.len());
    let mut at = 0;
    if let (Some(close), open) = (lower.find(EVIDENCE_CLOSE), lower.find(EVIDENCE_OPEN)) {
        if open.is_none_or(|open| close < open) {
            at = close + EVIDENCE_CLOSE.len();
        }
    }
    loop {
        let Some(open) = lower[at..].find(EVIDENCE_OPEN).map(|found| at + found) else {
            answer.push_str(&text[at..]);
            return Stripped { answer, evidence_unfinished: false };
        };
        answer.push_str(&text[at..open]);
        let body = open + EVIDENCE_OPEN.len();
        let Some(close) = lower[body..].find(EVIDENCE_CLOSE).map(|found| body + found) else {
            return Stripped { answer, evidence_unfinished: true };
        };
        at = close + EVIDENCE_CLOSE.len();
    }
}

/// Reads `text` into pieces; `is_known` says which cited items exist for this answer.
pub fn parse_answer(text: &str, is_known: impl Fn(&Reference) -> bool) -> ParsedAnswer {
    let mut parser = Parser { parsed: ParsedAnswer::default(), pending: String::new(), is_known };
    let mut rest = text;
    while let Some(open) = rest.find('[') {
        let after = &rest[open + 1..];
        // A bracket ends at the first `]`; a `[` before it opens the bracket that counts.
        let Some(end) = after.find([']', '[']) else { break };
        if after.as_bytes()[end] == b'[' {
            parser.pending.push_str(&rest[..=open + end]);
            rest = &after[end..];
            continue;
        }
        match references(&after[..end]) {
            Some(references) => {
                parser.pending.push_str(&rest[..open]);
                parser.cite(references);
            }
            None => parser.pending.push_str(&rest[..open + end + 2]),
        }
        rest = &after[end + 1..];
    }
    parser.pending.push_str(rest);
    parser.finish()
}

struct Parser<F> {
    parsed: ParsedAnswer,
    /// Text read since the last citation.
    pending: String,
    is_known: F,
}

impl<F: Fn(&Reference) -> bool> Parser<F> {
    /// One bracket's references: the known ones become citation pieces (each once).
    fn cite(&mut self, references: Vec<Reference>) {
        let mut numbers: Vec<usize> = Vec::new();
        for reference in references {
            if !(self.is_known)(&reference) {
                if !self.parsed.unknown.contains(&reference.id) {
                    self.parsed.unknown.push(reference.id);
                }
                continue;
            }
            let number = self.number_of(reference);
            if !numbers.contains(&number) {
                numbers.push(number);
            }
        }
        if numbers.is_empty() {
            // Nothing left of the bracket: "fact [bad] and" reads "fact and", "fact [bad]." "fact.".
            let kept = self.pending.trim_end_matches([' ', '\t']).len();
            self.pending.truncate(kept);
            return;
        }
        self.flush_text();
        self.parsed.pieces.extend(numbers.into_iter().map(|number| AnswerPiece::Citation { number }));
    }

    fn number_of(&mut self, reference: Reference) -> usize {
        let cited = &mut self.parsed.cited;
        match cited.iter().position(|known| *known == reference) {
            Some(at) => at + 1,
            None => {
                cited.push(reference);
                cited.len()
            }
        }
    }

    fn flush_text(&mut self) {
        if !self.pending.is_empty() {
            self.parsed.pieces.push(AnswerPiece::Text { text: std::mem::take(&mut self.pending) });
        }
    }

    /// The pieces, without the blank space the answer starts or ends with.
    fn finish(mut self) -> ParsedAnswer {
        self.flush_text();
        let pieces = &mut self.parsed.pieces;
        if let Some(AnswerPiece::Text { text }) = pieces.first_mut() {
            *text = text.trim_start().to_owned();
        }
        if let Some(AnswerPiece::Text { text }) = pieces.last_mut() {
            *text = text.trim_end().to_owned();
        }
        pieces.retain(|piece| !matches!(piece, AnswerPiece::Text { text } if text.is_empty()));
        debug_assert!(self.parsed.pieces.iter().all(|piece| match piece {
            AnswerPiece::Citation { number } => (1..=self.parsed.cited.len()).contains(number),
            AnswerPiece::Text { .. } => true,
        }));
        self.parsed
    }
}

/// The references in a bracket's inside (`memory:a, memory:b`, `memory:a; consolidation:c`,
/// `memory: a, b`), or `None` when it is not a citation: every part must be `kind:id`, or an
/// id of the kind named before it.
fn references(inside: &str) -> Option<Vec<Reference>> {
    let mut references = Vec::new();
    let mut kind = None;
    for part in inside.split([',', ';']).map(str::trim).filter(|part| !part.is_empty()) {
        let id = match part.split_once(':') {
            Some((named, id)) => {
                kind = Some(CitedKind::parse(named.trim())?);
                id.trim()
            }
            None => part,
        };
        if !is_id(id) {
            return None;
        }
        references.push(Reference { kind: kind?, id: id.to_owned() });
    }
    (!references.is_empty()).then_some(references)
}

/// Ids are made of letters, digits, `-` and `_` (`m-55f0a1b2c3`).
fn is_id(text: &str) -> bool {
    !text.is_empty() && text.chars().all(|c| c.is_alphanumeric() || c == '-' || c == '_')
}

/// The pieces as one text, each run of adjacent citations drawn by `group` from their
/// numbers: the one place pieces turn back into text with markers (for a follow-up) or
/// numbers (the command).
pub fn render_pieces(pieces: &[AnswerPiece], mut group: impl FnMut(&[usize]) -> String) -> String {
    let mut text = String::new();
    let mut run: Vec<usize> = Vec::new();
    for piece in pieces {
        match piece {
            AnswerPiece::Citation { number } => run.push(*number),
            AnswerPiece::Text { text: part } => {
                if !run.is_empty() {
                    text.push_str(&group(&run));
                    run.clear();
                }
                text.push_str(part);
            }
        }
    }
    if !run.is_empty() {
        text.push_str(&group(&run));
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    fn known(reference: &Reference) -> bool {
        !reference.id.starts_with("bad")
    }

    #[test]
    fn the_evidence_is_stripped_before_the_answer_is_read() {
        let text = "<evidence>\n- [memory:m1] 2026-02-01: paid 40 EUR\n</evidence>\nYou paid 40 EUR [memory:m2].";
        let stripped = without_evidence(text);
        assert_eq!(stripped.answer, "\nYou paid 40 EUR [memory:m2].");
        assert!(!stripped.evidence_unfinished);
        let parsed = parse_answer(&stripped.answer, known);
        assert_eq!(parsed.cited, vec![Reference { kind: CitedKind::Memory, id: "m2".into() }], "m1 was only evidence");
        let cut = without_evidence("<Evidence>\n- [memory:m1] paid");
        assert_eq!((cut.answer.as_str(), cut.evidence_unfinished), ("", true));
        let unopened = without_evidence("- [memory:m1] paid\n</evidence>\nPaid.");
        assert_eq!(unopened.answer, "\nPaid.");
        let none = without_evidence("Just an answer [memory:m1].");
        assert_eq!(none.answer, "Just an answer [memory:m1].");
        let two = without_evidence("<evidence>a</evidence>One. <evidence>b</evidence>Two.");
        assert_eq!(two.answer, "One. Two.");
    }

    fn text(text: &str) -> AnswerPiece {
        AnswerPiece::Text { text: text.into() }
    }

    fn cite(number: usize) -> AnswerPiece {
        AnswerPiece::Citation { number }
    }

    fn memory(id: &str) -> Reference {
        Reference { kind: CitedKind::Memory, id: id.into() }
    }

    fn insight(id: &str) -> Reference {
        Reference { kind: CitedKind::Consolidation, id: id.into() }
    }

    #[test]
    fn single_citations_are_numbered_in_order_of_first_citation() {
        let parsed = parse_answer("We fly [memory:m-1]. Ana comes [consolidation:c_2].", known);
        assert_eq!(parsed.pieces, vec![text("We fly "), cite(1), text(". Ana comes "), cite(2), text(".")]);
        assert_eq!(parsed.cited, vec![memory("m-1"), insight("c_2")]);
        assert!(parsed.unknown.is_empty());
    }

    #[test]
    fn a_grouped_bracket_is_one_citation_per_id_however_it_is_written() {
        for written in [
            "[memory:a, memory:b]",
            "[memory:a,memory:b]",
            "[memory:a; memory:b]",
            "[ memory: a , memory : b ]",
            "[memory:a, b]",
            "[Memory:a,b,]",
        ] {
            let parsed = parse_answer(&format!("Both {written}."), known);
            assert_eq!(parsed.pieces, vec![text("Both "), cite(1), cite(2), text(".")], "{written}");
            assert_eq!(parsed.cited, vec![memory("a"), memory("b")], "{written}");
        }
        let mixed = parse_answer("Both [memory:a; consolidation:c, memory:b]", known);
        assert_eq!(mixed.pieces, vec![text("Both "), cite(1), cite(2), cite(3)]);
        assert_eq!(mixed.cited, vec![memory("a"), insight("c"), memory("b")]);
    }

    #[test]
    fn a_repeated_citation_keeps_its_number_and_is_not_doubled_in_one_bracket() {
        let parsed = parse_answer("A [memory:a]. B [memory:b, memory:a, memory:b]. A again [memory:a].", known);
        assert_eq!(
            parsed.pieces,
            vec![text("A "), cite(1), text(". B "), cite(2), cite(1), text(". A again "), cite(1), text(".")]
        );
        assert_eq!(parsed.cited, vec![memory("a"), memory("b")]);
    }

    #[test]
    fn unknown_ids_are_reported_once_and_leave_nothing_behind() {
        let parsed = parse_answer("Fact [memory:bad1] and [memory:a, memory:bad2]. Also [consolidation:bad1].", known);
        assert_eq!(parsed.pieces, vec![text("Fact and "), cite(1), text(". Also.")]);
        assert_eq!(parsed.cited, vec![memory("a")]);
        assert_eq!(parsed.unknown, vec!["bad1", "bad2"]);
        let none = parse_answer("[memory:bad] It was decided.", known);
        assert_eq!(none.pieces, vec![text("It was decided.")]);
    }

    #[test]
    fn brackets_that_are_not_citations_stay_text() {
        for plain in [
            "A [link](https://example.com) and [x] and [see memory:a later]",
            "An open [memory:a and no close",
            "Empty [memory:] and [:a] and [] and [memory:a, two words]",
            "Other kinds [note:a] and a task [ ] and [[Wiki link]]",
        ] {
            let parsed = parse_answer(plain, known);
            assert_eq!(parsed.pieces, vec![text(plain)], "{plain}");
            assert!(parsed.cited.is_empty());
        }
    }

    #[test]
    fn a_bracket_opened_inside_another_is_the_one_read() {
        let parsed = parse_answer("Broken [memory:a [memory:b] end", known);
        assert_eq!(parsed.pieces, vec![text("Broken [memory:a "), cite(1), text(" end")]);
        assert_eq!(parsed.cited, vec![memory("b")]);
    }

    #[test]
    fn text_around_is_kept_and_the_answer_trimmed() {
        let parsed =
            parse_answer("\n  [memory:a] starts, `code` and **bold** [memory:b]\n\n- item [memory:a]\n", known);
        assert_eq!(
            parsed.pieces,
            vec![cite(1), text(" starts, `code` and **bold** "), cite(2), text("\n\n- item "), cite(1)]
        );
        assert_eq!(parse_answer("  plain  ", known).pieces, vec![text("plain")]);
        assert!(parse_answer("  ", known).pieces.is_empty());
    }

    #[test]
    fn rendering_draws_each_run_of_citations_once() {
        let pieces = vec![text("A "), cite(1), cite(2), text(", B "), cite(2), text(".")];
        let rendered = render_pieces(&pieces, |numbers| format!("{numbers:?}"));
        assert_eq!(rendered, "A [1, 2], B [2].");
        assert_eq!(render_pieces(&[cite(3)], |numbers| format!("<{}>", numbers[0])), "<3>");
    }
}
