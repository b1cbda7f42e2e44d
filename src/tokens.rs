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
    let (mut dense, mut other) = (0usize, 0usize);
    for c in text.chars() {
        if is_dense(c) {
            dense += 1;
        } else {
            other += 1;
        }
    }
    dense + other.div_ceil(4)
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
    use super::estimate_tokens;

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
}
