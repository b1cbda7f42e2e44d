//! "Is the answer in what the model was shown?": an answer is in a packed text when every one
//! of its words is a word of that text.
//!
//! Words are the crate's (`memory_agent::words`, the splitting the query plan uses): letters
//! and digits, lower-cased and folded (diacritics removed), a possessive `'s` dropped, dates
//! like `2026-02-01` kept whole. An answer's stop words are left out ("the 2015 season" needs
//! `2015` and `season`); numbers are never stop words, so "seven" and "7" are different
//! words, as they are to a reader checking the answer. An answer made only of stop words
//! ("it", "the") keeps them all, so it still needs words. A question with several accepted
//! answers is answered in context when any one of them is.

use std::collections::HashSet;

use memory_agent::words::{folded_words, is_stop_word, script, words};

/// The folded words of a packed text, to test answers against.
pub struct PackedWords(HashSet<String>);

impl PackedWords {
    pub fn of(packed: &str) -> PackedWords {
        PackedWords(folded_words(packed).into_iter().map(|word| word.folded).collect())
    }

    /// Whether every word of some answer is here; `false` without answers.
    pub fn hold_any(&self, answers: &[String]) -> bool {
        answers.iter().any(|answer| {
            let needed = answer_words(answer);
            !needed.is_empty() && needed.iter().all(|word| self.0.contains(word))
        })
    }
}

/// The folded content words of an answer, or all its words when it has no content word.
pub fn answer_words(answer: &str) -> Vec<String> {
    let all = words(answer);
    let language = script(answer, &all);
    let content: Vec<String> = all
        .iter()
        .enumerate()
        .filter(|(position, word)| !is_stop_word(word, language, *position))
        .map(|(_, word)| word.folded.clone())
        .collect();
    if content.is_empty() {
        all.into_iter().map(|word| word.folded).collect()
    } else {
        content
    }
}

#[cfg(test)]
mod tests {
    use super::{answer_words, PackedWords};

    #[test]
    fn stop_words_go_numbers_stay_and_letters_fold() {
        assert_eq!(answer_words("the 2015 season"), vec!["2015", "season"]);
        assert_eq!(answer_words("Café Müller's"), vec!["cafe", "muller"]);
        assert_eq!(answer_words("it"), vec!["it"]);
        assert!(answer_words("…").is_empty());
    }

    #[test]
    fn an_answer_is_in_context_when_all_its_words_are() {
        let packed = PackedWords::of("[memory:a] Super Bowl 50 decided the NFL champion for the 2015 season.");
        assert!(packed.hold_any(&["The 2015 season".into()]));
        assert!(!packed.hold_any(&["the 2016 season".into()]));
        assert!(packed.hold_any(&["2016".into(), "2015".into()]), "any accepted answer");
        assert!(!packed.hold_any(&[]));
        assert!(!packed.hold_any(&["…".into()]), "an answer without words is never found");
    }
}
