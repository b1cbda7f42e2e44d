//! The one token estimate used everywhere (chunking, packing, the recall benchmark).
//!
//! Claude's tokenizer is not available offline; four characters per token is the usual
//! rule of thumb for English and errs on the generous side for most other scripts.

/// Estimated tokens of `text`: ceil(characters / 4).
pub fn estimate_tokens(text: &str) -> usize {
    text.chars().count().div_ceil(4)
}

#[cfg(test)]
mod tests {
    #[test]
    fn four_characters_a_token_rounded_up() {
        assert_eq!(super::estimate_tokens(""), 0);
        assert_eq!(super::estimate_tokens("abc"), 1);
        assert_eq!(super::estimate_tokens("abcd"), 1);
        assert_eq!(super::estimate_tokens("abcde"), 2);
        assert_eq!(super::estimate_tokens("ngày"), 1, "characters, not bytes");
    }
}
