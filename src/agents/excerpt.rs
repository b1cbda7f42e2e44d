//! The lines of a long passage that bear on the question.
//!
//! A passage is all or nothing only while it fits: a chunk of 1,500 tokens (or a long session
//! of a conversation kept as one note) behind a memory takes a small budget's whole room for
//! passages, and the passages of the next memories, where the answer often is, are left out.
//! So a passage longer than its share of the room is cut to an excerpt: the lines that share the
//! most telling of the question's terms, each with the line before and the line after (a
//! question and its answer, a heading and its text), in the passage's order, the lines left out
//! marked. The model is told it is an excerpt (`excerpt="yes"` on its element, explained in the system prompt).
//! The question's names count only in a passage without its words: a speaker's name is on
//! every other line of a conversation.

use crate::select::{closes_sentence, ends_sentence, QueryPlan};
use crate::stems::{index_pairs, index_stems, query_terms, QueryTerm};
use crate::tokens::CharCounts;
use crate::words::{fold, folded_words, words};

/// What a question looks for in a passage's lines: the terms the selection searched for (its
/// keywords as stems and pairs, the instances of a kind it asks for, its names' words as written).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Focus {
    terms: Vec<QueryTerm>,
    /// How many of `terms`, from the first, are the keywords' (the rest are the names').
    keyword_terms: usize,
}

impl Focus {
    /// The terms of `plan`, each once.
    pub fn of_plan(plan: &QueryPlan) -> Focus {
        let mut terms: Vec<QueryTerm> = Vec::new();
        let push = |terms: &mut Vec<QueryTerm>, term: QueryTerm| {
            if !term.text.is_empty() && !terms.contains(&term) {
                terms.push(term);
            }
        };
        for term in plan.keywords.iter().flat_map(|keyword| query_terms(keyword, plan.language)) {
            push(&mut terms, term);
        }
        // "What martial arts…": the line saying "kickboxing" bears on it.
        for stem in &plan.instance_terms {
            push(&mut terms, QueryTerm { text: stem.clone(), prefix: false });
        }
        let keyword_terms = terms.len();
        let names = plan
            .entities
            .iter()
            .flat_map(|name| words(name))
            .map(|word| QueryTerm { text: word.folded, prefix: false });
        for term in names {
            push(&mut terms, term);
        }
        Focus { terms, keyword_terms }
    }

    /// Which of the question's words (not its names) `text` holds, one flag a keyword term.
    pub fn keywords_held(&self, text: &str) -> Vec<bool> {
        if self.keyword_terms == 0 {
            return Vec::new();
        }
        terms_held(text, &self.terms[..self.keyword_terms])
    }

    /// No terms: an excerpt is the passage's beginning.
    pub fn none() -> Focus {
        Focus::default()
    }
}

/// Written on its own line where lines were left out.
pub const GAP: &str = "…";

/// The lines before and after a telling line that come with it.
const CONTEXT_BEFORE: usize = 1;
const CONTEXT_AFTER: usize = 1;

/// The passage's first line comes first when it takes at most this share of the excerpt: a
/// heading or a date line says what and when the rest is.
const HEAD_SHARE: usize = 8;

/// A line longer than this share of an excerpt (1/N) is cut into its sentences
/// (`units`). SQuAD's paragraphs are one line each; at 4K / 16K / 32K their answer was in the
/// packed prompt 0.905 / 0.961 / 0.978 → 0.908 / 0.961 / 0.977 (a half), the same at a third
/// and a quarter; LoCoMo's sessions, whose lines are turns, 0.701 / 0.780 / 0.811 at a
/// half, 0.707 / 0.779 / 0.811 at a quarter (with `passages::MAX_FIRST_TOKENS`).
const LONG_LINE_SHARE: usize = 2;

/// The lines of `text` that bear on `focus` within `max_tokens` (the estimate of the excerpt
/// as written, gaps included), or its first lines when none does; `None` when not one line
/// fits. A text that fits whole is returned whole.
pub fn excerpt(text: &str, focus: &Focus, max_tokens: usize) -> Option<String> {
    if crate::tokens::estimate_tokens(text) <= max_tokens {
        return Some(text.to_owned());
    }
    let lines = units(text, max_tokens / LONG_LINE_SHARE);
    let mut kept = Kept::new(lines.iter().map(|line| CharCounts::of(line)).collect());
    kept.take(0..=0, max_tokens / HEAD_SHARE);
    let scores = line_scores(&lines, focus);
    let mut telling: Vec<usize> = (0..lines.len()).filter(|&at| scores[at] > 0.0).collect();
    telling.sort_by(|&a, &b| scores[b].total_cmp(&scores[a]).then(a.cmp(&b)));
    for at in telling {
        let window = at.saturating_sub(CONTEXT_BEFORE)..=(at + CONTEXT_AFTER).min(lines.len() - 1);
        if !kept.take(window, max_tokens) {
            kept.take(at..=at, max_tokens);
        }
    }
    if kept.chosen.iter().skip(1).all(|&chosen| !chosen) {
        // Nothing told: the beginning, as far as it fits.
        for at in 0..lines.len() {
            if !kept.take(at..=at, max_tokens) {
                break;
            }
        }
    }
    if !kept.chosen.contains(&true) {
        return None;
    }
    let excerpt = kept.written(&lines);
    debug_assert_eq!(
        crate::tokens::estimate_tokens(&excerpt),
        kept.tokens(),
        "the kept lines' cost, counted as they were taken"
    );
    debug_assert!(kept.tokens() <= max_tokens, "an excerpt over {max_tokens} tokens");
    Some(excerpt)
}

/// The lines of `text`, a line longer than `long_line` tokens cut into its sentences: a
/// paragraph written on one line (Obsidian's editor wraps it) could otherwise only be taken
/// whole or not at all, and a passage of one such paragraph over its share not at all.
fn units(text: &str, long_line: usize) -> Vec<&str> {
    let mut units = Vec::new();
    for line in text.split('\n') {
        if crate::tokens::estimate_tokens(line) <= long_line {
            units.push(line);
        } else {
            units.extend(sentences(line));
        }
    }
    units
}

/// The sentences of `line`, trimmed, each to where `select::ends_sentence` says (with the quotes
/// or brackets that close it). An abbreviation ends one too soon, which costs an excerpt
/// nothing: a telling sentence comes with its neighbours.
fn sentences(line: &str) -> impl Iterator<Item = &str> {
    let mut ends: Vec<usize> = Vec::new();
    let mut chars = line.char_indices().peekable();
    while let Some((at, mark)) = chars.next() {
        if ends_sentence(mark, chars.peek().map(|&(_, next)| next)) {
            let mut end = at + mark.len_utf8();
            while let Some((at, closer)) = chars.next_if(|&(_, next)| closes_sentence(next)) {
                end = at + closer.len_utf8();
            }
            ends.push(end);
        }
    }
    ends.push(line.len());
    let mut start = 0;
    ends.into_iter()
        .map(move |end| {
            let sentence = &line[start..end];
            start = end;
            sentence.trim()
        })
        .filter(|sentence| !sentence.is_empty())
}

/// The lines chosen so far, and the characters of the excerpt they make, counted as lines are
/// taken (a pass over every line for each would be quadratic in a note of many short lines).
struct Kept {
    chosen: Vec<bool>,
    counts: Vec<CharCounts>,
    gap: CharCounts,
    /// The characters of the chosen lines and the gap markers, line breaks aside.
    total: CharCounts,
    /// The chosen lines and gap markers: one line break fewer joins them.
    pieces: usize,
}

impl Kept {
    /// Nothing chosen: the excerpt is one gap.
    fn new(counts: Vec<CharCounts>) -> Kept {
        let gap = CharCounts::of(GAP);
        Kept { chosen: vec![false; counts.len()], counts, gap, total: gap, pieces: 1 }
    }

    fn tokens(&self) -> usize {
        (self.total + CharCounts { dense: 0, other: self.pieces.saturating_sub(1) }).tokens()
    }

    /// Chooses line `at`: the gap it was in shrinks, closes or splits in two.
    fn choose(&mut self, at: usize) {
        debug_assert!(!self.chosen[at], "line {at} chosen twice");
        // Beyond either end there is no gap to close or split.
        let before = at == 0 || self.chosen[at - 1];
        let after = at + 1 == self.chosen.len() || self.chosen[at + 1];
        self.chosen[at] = true;
        self.total = self.total + self.counts[at];
        match (before, after) {
            (true, true) => {
                self.total = self.total - self.gap;
            }
            (false, false) => {
                self.total = self.total + self.gap;
                self.pieces += 2;
            }
            _ => self.pieces += 1,
        }
    }

    /// Chooses the lines of `range` if the excerpt stays within `max_tokens`; whether it did.
    fn take(&mut self, range: std::ops::RangeInclusive<usize>, max_tokens: usize) -> bool {
        let saved = (self.total, self.pieces, self.chosen[range.clone()].to_vec());
        for at in range.clone() {
            if !self.chosen[at] {
                self.choose(at);
            }
        }
        if self.tokens() <= max_tokens {
            return true;
        }
        (self.total, self.pieces) = (saved.0, saved.1);
        self.chosen[range].copy_from_slice(&saved.2);
        false
    }

    /// The chosen lines in order, each run of left-out lines as one `GAP` line.
    fn written(&self, lines: &[&str]) -> String {
        let mut out: Vec<&str> = Vec::new();
        for (at, line) in lines.iter().enumerate() {
            if self.chosen[at] {
                out.push(line);
            } else if out.last() != Some(&GAP) {
                out.push(GAP);
            }
        }
        out.join("\n")
    }
}

/// How much each line tells of `focus`: the sum, over the terms it holds, of how rare each is
/// among the passage's lines (`rarity_weights`: a name on every other line tells little).
fn line_scores(lines: &[&str], focus: &Focus) -> Vec<f64> {
    if focus.terms.is_empty() {
        return vec![0.0; lines.len()];
    }
    let held: Vec<Vec<bool>> = lines.iter().map(|line| terms_held(line, &focus.terms)).collect();
    let weights = rarity_weights(&held, focus.terms.len());
    // Where the question's words are found, a line holding only a name tells nothing: in a
    // conversation the speaker's name is on every other line, and those lines took the room the
    // next passages needed (LoCoMo's sessions, answer in context at 4K: 0.620 → 0.624).
    let keyword_found = (0..focus.keyword_terms).any(|term| weights[term] > 0.0);
    held.iter()
        .map(|held| {
            if keyword_found && !(0..focus.keyword_terms).any(|term| held[term]) {
                return 0.0;
            }
            weight_held(held, &weights)
        })
        .collect()
}

/// How telling each of `terms` is among texts, one row of `held` flags a text: the rarer, the
/// more (ln(1 + texts / texts holding it)); 0 for a term none holds.
pub fn rarity_weights(held: &[Vec<bool>], terms: usize) -> Vec<f64> {
    (0..terms)
        .map(|term| {
            let with = held.iter().filter(|held| held[term]).count();
            if with == 0 {
                0.0
            } else {
                (1.0 + held.len() as f64 / with as f64).ln()
            }
        })
        .collect()
}

/// The sum of the `weights` of the terms a text holds.
pub fn weight_held(held: &[bool], weights: &[f64]) -> f64 {
    (0..weights.len()).filter(|&term| held[term]).map(|term| weights[term]).sum()
}

/// Which of `terms` the line holds, as the full-text index would find them: its folded words,
/// their stems and the pairs of its Chinese, Japanese and Thai runs; a prefix term matches the
/// start of any of them.
fn terms_held(line: &str, terms: &[QueryTerm]) -> Vec<bool> {
    let mut line_terms: Vec<String> = folded_words(line).into_iter().map(|word| word.folded).collect();
    let texts = [(line, true)];
    for extra in [index_stems(&texts, usize::MAX), index_pairs(&texts, usize::MAX)].into_iter().flatten() {
        line_terms.extend(extra.split(' ').map(fold));
    }
    terms
        .iter()
        .map(|term| {
            line_terms.iter().any(|held| if term.prefix { held.starts_with(&term.text) } else { held == &term.text })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tokens::estimate_tokens;

    fn focus(keywords: &[&str], names: &[&str]) -> Focus {
        let plan = QueryPlan {
            keywords: keywords.iter().map(|word| word.to_string()).collect(),
            entities: names.iter().map(|name| name.to_string()).collect(),
            ..QueryPlan::default()
        };
        Focus::of_plan(&plan)
    }

    fn conversation() -> String {
        let mut lines = vec!["Conversation on Monday 08 May 2023".to_owned()];
        for turn in 0..40 {
            lines.push(format!("Joanna: turn {turn} says something about the weather and the week ahead."));
            lines.push(format!("Nate: turn {turn} answers with more about the weekend plans we made."));
        }
        lines[31] = "Joanna: How long have you had your turtles?".to_owned();
        lines[32] = "Nate: I've had them for 3 years now and they bring me tons of joy!".to_owned();
        lines.join("\n")
    }

    #[test]
    fn a_passage_that_fits_is_whole() {
        let text = "one line\ntwo lines";
        assert_eq!(excerpt(text, &focus(&["line"], &[]), 100).as_deref(), Some(text));
    }

    #[test]
    fn the_telling_line_comes_with_its_neighbours_the_head_and_gaps() {
        let text = conversation();
        let got = excerpt(&text, &focus(&["long", "turtles"], &["Nate"]), 80).expect("an excerpt");
        assert!(got.starts_with("Conversation on Monday 08 May 2023\n…\n"), "{got}");
        let window = "\nNate: turn 14 answers with more about the weekend plans we made.\n\
                      Joanna: How long have you had your turtles?\n\
                      Nate: I've had them for 3 years now and they bring me tons of joy!\n";
        assert!(got.contains(window), "{got}");
        assert!(got.ends_with("\n…"), "{got}");
        assert!(estimate_tokens(&got) <= 80);
        // Too little room for the head: the telling lines alone.
        let got = excerpt(&text, &focus(&["long", "turtles"], &[]), 60).expect("an excerpt");
        assert_eq!(got, format!("…{window}…"));
    }

    #[test]
    fn stems_match_other_forms_and_a_name_on_every_line_tells_little() {
        let text = conversation();
        // "turtle" finds "turtles"; "Nate" is on half the lines and does not pull them in.
        let got = excerpt(&text, &focus(&["turtle"], &["Nate"]), 60).expect("an excerpt");
        assert!(got.contains("How long have you had your turtles?"), "{got}");
        assert!(got.contains("3 years"), "{got}");
    }

    #[test]
    fn a_name_alone_tells_only_where_the_questions_words_are_not_found() {
        let text = conversation();
        let got = excerpt(&text, &focus(&["turtles"], &["Nate"]), 400).expect("an excerpt");
        assert!(got.contains("How long have you had your turtles?\nNate: I've had them"), "{got}");
        assert!(!got.contains("Nate: turn 3 "), "Nate's other turns are left for other passages: {got}");
        assert!(estimate_tokens(&got) < 100, "{got}");
        // Nate speaks only late in this one: without the question's word, his turns tell.
        let text = (0..40)
            .map(|turn| format!("{}: turn {turn}.", if turn < 30 { "Joanna" } else { "Nate" }))
            .collect::<Vec<_>>();
        let got = excerpt(&text.join("\n"), &focus(&["giraffes"], &["Nate"]), 40).expect("an excerpt");
        assert!(got.contains("Nate: turn 30.") && !got.contains("Joanna: turn 1."), "{got}");
    }

    #[test]
    fn a_line_naming_an_instance_of_the_kind_asked_for_tells() {
        let text = conversation();
        let plan = crate::select::plan_query(
            "What pets does Nate have?",
            crate::calendar::CalendarDate::parse("2023-06-01").unwrap(),
            crate::select::DateOrder::DayMonth,
            &crate::select::KnownNames::new(&["Nate".to_owned()]),
        );
        let got = excerpt(&text, &Focus::of_plan(&plan), 60).expect("an excerpt");
        assert!(got.contains("How long have you had your turtles?"), "{got}");
        assert!(got.contains("3 years"), "{got}");
    }

    #[test]
    fn nothing_telling_gives_the_beginning() {
        let text = conversation();
        let got = excerpt(&text, &Focus::none(), 40).expect("an excerpt");
        assert!(got.starts_with("Conversation on Monday 08 May 2023\nJoanna: turn 0"), "{got}");
        assert!(got.ends_with("\n…"), "{got}");
        assert!(estimate_tokens(&got) <= 40);
    }

    #[test]
    fn too_small_a_room_gives_none() {
        assert_eq!(excerpt(&conversation(), &focus(&["turtles"], &[]), 3), None);
    }

    #[test]
    fn an_excerpt_never_passes_its_room() {
        let text = conversation();
        for room in 4..200 {
            if let Some(got) = excerpt(&text, &focus(&["turtles", "weekend", "weather"], &["Joanna"]), room) {
                assert!(estimate_tokens(&got) <= room, "{room}: {got}");
            }
        }
    }

    #[test]
    fn a_note_of_many_short_lines_is_cut_in_one_pass() {
        // 50,000 one-word lines: a pass over every line for each line taken would not end.
        let mut lines: Vec<&str> = vec!["word"; 50_000];
        lines[30_000] = "passport";
        let got = excerpt(&lines.join("\n"), &focus(&["passport"], &[]), 50).expect("an excerpt");
        assert!(got.contains("word\npassport\nword"), "{got}");
        assert!(estimate_tokens(&got) <= 50);
    }

    #[test]
    fn a_paragraph_on_one_line_is_cut_at_its_sentences() {
        let filler = "The court heard many other cases about trade that year, each at length and in detail.";
        let mut sentences = vec![filler; 20];
        sentences[12] =
            "In Konsumentombudsmannen v De Agostini the Court reviewed Swedish bans on advertising to children.";
        let paragraph = sentences.join(" ");
        let got = excerpt(&paragraph, &focus(&["advertising", "Swedish"], &[]), 80).expect("an excerpt");
        assert!(
            got.contains(sentences[12]) && got.contains(&format!("{filler}\n{}\n{filler}", sentences[12])),
            "{got}"
        );
        assert!(got.ends_with("\n…") && estimate_tokens(&got) <= 80, "{got}");
        // A conversation's turns are shorter than half an excerpt: kept whole, speaker and all.
        let text = conversation();
        assert!(excerpt(&text, &focus(&["turtles"], &[]), 60).expect("an excerpt").contains("\nNate: I've had them"));
    }

    #[test]
    fn sentences_end_at_a_stop_before_a_space_with_what_closes_them_or_at_an_ideographic_stop() {
        let got: Vec<&str> = sentences("It cost 3.5 million. Why? Ask Dr. Lee!  He said \"Go.\") Done").collect();
        assert_eq!(got, ["It cost 3.5 million.", "Why?", "Ask Dr.", "Lee!", "He said \"Go.\")", "Done"]);
        assert_eq!(sentences("会议结束了。我们回家了！").collect::<Vec<_>>(), ["会议结束了。", "我们回家了！"]);
        assert_eq!(sentences(" . ").collect::<Vec<_>>(), ["."]);
    }

    #[test]
    fn chinese_pairs_are_found() {
        let mut lines: Vec<String> = (0..30).map(|at| format!("第{at}行 今天天气很好")).collect();
        lines[20] = "我们讨论了会议记录".to_owned();
        let got = excerpt(&lines.join("\n"), &focus(&["会议"], &[]), 30).expect("an excerpt");
        assert!(got.contains("我们讨论了会议记录"), "{got}");
    }
}
