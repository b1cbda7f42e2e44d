//! The one token estimate used everywhere (chunking, packing, the recall benchmark).
//!
//! Claude's tokenizer is not available offline. Four characters a token is the usual rule
//! for Latin, Cyrillic and most alphabetic scripts and errs on the generous side; Chinese,
//! Japanese, Korean and Thai take about a token a character or more, so they count one token
//! each — four characters a token undercounted them about 3×, and a full budget of CJK
//! memories could pass the model's 200K window. Counting them whole keeps every request inside it.

/// Estimated tokens of `text`: a token for each CJK, Hangul or Thai character, plus
/// ceil(other characters / 4).
pub fn estimate_tokens(text: &str) -> usize {
    CharCounts::of(text).tokens()
}

/// The characters of a text as the estimate counts them. Counts of pieces add up, so the
/// estimate of pieces joined together is known without joining them (the chunker measures
/// growing chunks this way).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct CharCounts {
    /// Characters that count a token each.
    pub dense: usize,
    /// Characters that count a quarter of a token (a line break among them).
    pub other: usize,
}

impl CharCounts {
    pub fn of(text: &str) -> CharCounts {
        let mut counts = CharCounts::default();
        for c in text.chars() {
            if is_dense(c) {
                counts.dense += 1;
            } else {
                counts.other += 1;
            }
        }
        counts
    }

    /// The estimate for these characters: `estimate_tokens` of any text with these counts.
    pub fn tokens(self) -> usize {
        self.dense + self.other.div_ceil(4)
    }
}

impl std::ops::Add for CharCounts {
    type Output = CharCounts;
    fn add(self, other: CharCounts) -> CharCounts {
        CharCounts { dense: self.dense + other.dense, other: self.other + other.other }
    }
}

impl std::ops::Sub for CharCounts {
    type Output = CharCounts;
    /// The counts of a range from the counts before its end and before its start.
    fn sub(self, before: CharCounts) -> CharCounts {
        debug_assert!(self.dense >= before.dense && self.other >= before.other, "counts of a negative range");
        CharCounts { dense: self.dense - before.dense, other: self.other - before.other }
    }
}

/// Characters Claude's tokenizer spends about a token (or more) on.
fn is_dense(c: char) -> bool {
    matches!(c as u32,
        0x0E00..=0x0E7F          // Thai
        | 0x1100..=0x11FF        // Hangul Jamo
        | 0x3040..=0x30FF        // Hiragana, Katakana
        | 0x3100..=0x312F        // Bopomofo
        | 0x3130..=0x318F        // Hangul compatibility Jamo
        | 0x3400..=0x4DBF        // CJK extension A
        | 0x4E00..=0x9FFF        // CJK unified ideographs
        | 0xAC00..=0xD7AF        // Hangul syllables
        | 0xF900..=0xFAFF        // CJK compatibility ideographs
        | 0xFF66..=0xFF9F        // half-width Katakana
        | 0x20000..=0x3134F // CJK extensions B–G
    )
}

#[cfg(test)]
mod tests {
    use super::{estimate_tokens, CharCounts};

    #[test]
    fn four_characters_a_token_rounded_up() {
        assert_eq!(estimate_tokens(""), 0);
        assert_eq!(estimate_tokens("abc"), 1);
        assert_eq!(estimate_tokens("abcd"), 1);
        assert_eq!(estimate_tokens("abcde"), 2);
        assert_eq!(estimate_tokens("ngày"), 1, "characters, not bytes");
    }

    #[test]
    fn cjk_and_thai_count_a_token_a_character() {
        assert_eq!(estimate_tokens("東京で会議"), 5);
        assert_eq!(estimate_tokens("회의가 있었다"), 6 + 1, "six syllables and a space");
        assert_eq!(estimate_tokens("ประชุม"), 6);
        assert_eq!(estimate_tokens("会議 at 10am"), 2 + 2, "\" at 10am\" is eight characters");
    }

    #[test]
    fn counts_of_pieces_add_up_to_the_estimate_of_the_whole() {
        let pieces = ["会議 at 10am", "", "ประชุม with Lan", "plain"];
        let joined = pieces.join("\n");
        let newlines = CharCounts::of(&"\n".repeat(pieces.len() - 1));
        let sum = pieces.iter().fold(newlines, |sum, piece| sum + CharCounts::of(piece));
        assert_eq!(sum, CharCounts::of(&joined));
        assert_eq!(sum.tokens(), estimate_tokens(&joined));
        assert_eq!(CharCounts::of(&joined) - CharCounts::of(pieces[0]), sum - CharCounts::of(pieces[0]));
    }
}
