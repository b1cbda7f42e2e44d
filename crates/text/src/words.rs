//! The words of a question: split, lower-cased, folded (diacritics removed) and sorted
//! into content words and stop words, in English and Vietnamese.
//!
//! Folding lets a question typed without diacritics ("hom qua") match the same patterns as
//! one typed with them ("hôm qua"). It is a small table, not Unicode normalisation: the
//! core carries no Unicode data crate, and the letters of English, Vietnamese and the
//! common Latin-script languages are all that the query plan needs to recognise.

use std::sync::LazyLock;

use rustc_hash::{FxHashMap, FxHashSet};

/// One word of a question.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Word {
    /// As typed (for "is it capitalised?").
    pub text: String,
    /// Lower case, diacritics kept: what a keyword is searched as.
    pub lower: String,
    /// Lower case without diacritics (`đ` → `d`): what patterns are matched against.
    pub folded: String,
}

impl Word {
    /// Digits only (no separators), e.g. `2026`.
    pub fn number(&self) -> Option<u32> {
        if self.folded.is_empty() || !self.folded.bytes().all(|byte| byte.is_ascii_digit()) {
            return None;
        }
        self.folded.parse().ok()
    }

    /// Whether the word starts with a capital letter as typed.
    pub fn capitalised(&self) -> bool {
        self.text.chars().next().is_some_and(char::is_uppercase)
    }
}

/// Splits a question into words. Letters and digits make words; `/`, `-` and `.` between
/// two digits stay inside one (`1/2/2026`, `2026-02-01`); a possessive `'s` is dropped
/// ("Alice's" → "alice").
pub fn words(text: &str) -> Vec<Word> {
    let mut out = Vec::new();
    split_words(text, |text, _| out.push(word(text)));
    out
}

/// `words`, each with the byte offset in `text` where it ends: to write something after a
/// phrase the words make up.
pub fn words_ending(text: &str) -> Vec<(Word, usize)> {
    let mut out = Vec::new();
    split_words(text, |word_text, end| out.push((word(word_text), end)));
    out
}

/// A word as the selection compares it with names, made with one allocation instead of
/// `Word`'s three (candidates' summaries are split by the thousand per question).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FoldedWord {
    /// Lower case without diacritics.
    pub folded: String,
    /// Written with a capital first letter.
    pub capitalised: bool,
}

/// `words`, folded only.
pub fn folded_words(text: &str) -> Vec<FoldedWord> {
    let mut out = Vec::new();
    split_words(text, |text, _| {
        let capitalised = text.chars().next().is_some_and(char::is_uppercase);
        out.push(FoldedWord { folded: fold(&text), capitalised });
    });
    out
}

/// The splitting of `words`: calls `each` with every word's text and the byte offset where it
/// ends, in order. Reads the text in place (no copy of its characters): every memory entered in
/// the index is split several times.
fn split_words(text: &str, mut each: impl FnMut(String, usize)) {
    let char_at = |at: usize| text[at..].chars().next();
    let mut index = 0;
    while let Some(first) = char_at(index) {
        if !first.is_alphanumeric() {
            index += first.len_utf8();
            continue;
        }
        let start = index;
        let mut previous: Option<char> = None;
        while let Some(here) = char_at(index) {
            let joins_digits = matches!(here, '/' | '-' | '.')
                && previous.is_some_and(|before| before.is_ascii_digit())
                && char_at(index + here.len_utf8()).is_some_and(|after| after.is_ascii_digit());
            // Combining marks (decomposed Vietnamese, Thai tone marks) belong to their letter.
            let mark = ('\u{300}'..='\u{36f}').contains(&here) || is_thai_mark(here);
            if here.is_alphanumeric() || joins_digits || mark {
                previous = Some(here);
                index += here.len_utf8();
            } else {
                break;
            }
        }
        each(text[start..index].to_owned(), index);
        // "Alice's", "Alice’s": the possessive is not a word of its own.
        let mut after = text[index..].chars();
        if let (Some(quote @ ('\'' | '’')), Some('s' | 'S')) = (after.next(), after.next()) {
            if !after.next().is_some_and(char::is_alphanumeric) {
                index += quote.len_utf8() + 1;
            }
        }
    }
}

fn word(text: String) -> Word {
    let lower = text.to_lowercase();
    let folded = if lower.is_ascii() { lower.clone() } else { fold(&lower) };
    Word { text, lower, folded }
}

/// Lower case without diacritics: "Hôm Qua" → "hom qua", "Đức" → "duc".
pub fn fold(text: &str) -> String {
    // Most words are ASCII: lower case is all their folding (every index insert folds each word).
    if text.is_ascii() {
        return text.to_ascii_lowercase();
    }
    let mut out = String::with_capacity(text.len());
    for c in text.chars().flat_map(char::to_lowercase) {
        // Combining marks (text in decomposed form) carry only the diacritics.
        if ('\u{300}'..='\u{36f}').contains(&c) {
            continue;
        }
        out.push(base_letter(c));
    }
    out
}

/// Letters with diacritics, grouped by the letter they fold to.
const FOLDS: &[(char, &str)] = &[
    ('a', "àáảãạăằắẳẵặâầấẩẫậäåāąǎ"),
    ('e', "èéẻẽẹêềếểễệëēęěė"),
    ('i', "ìíỉĩịîïīįı"),
    ('o', "òóỏõọôồốổỗộơờớởỡợöøōő"),
    ('u', "ùúủũụưừứửữựûüūůűų"),
    ('y', "ỳýỷỹỵÿ"),
    ('d', "đď"),
    ('c', "çčć"),
    ('n', "ñńň"),
    ('s', "šśş"),
    ('z', "žźż"),
    ('r', "ř"),
    ('l', "łľ"),
    ('t', "ťţ"),
    ('g', "ğ"),
];

fn base_letter(c: char) -> char {
    if c.is_ascii() {
        return c;
    }
    FOLDS.iter().find(|(_, letters)| letters.contains(c)).map_or(c, |(base, _)| *base)
}

/// Which language rules a question needs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Script {
    /// English or anything else: English stop words (and Vietnamese ones as typed).
    Other,
    /// Vietnamese with its diacritics: "mình" is a stop word, "Minh" a name.
    Vietnamese,
    /// Vietnamese typed without diacritics ("hom qua toi lam gi"): folded stop words too.
    VietnameseFolded,
}

/// Whether the question is written in Vietnamese, with or without diacritics: any letter
/// only Vietnamese uses, or two of its most common function words.
pub fn script(question: &str, words: &[Word]) -> Script {
    const LETTERS: &str = "ăâđêôơưạảấầẩẫậắằẳẵặẹẻẽếềểễệỉịọỏốồổỗộớờởỡợụủứừửữựỳỵỷỹ";
    if question.to_lowercase().chars().any(|c| LETTERS.contains(c)) {
        return Script::Vietnamese;
    }
    const COMMON: &[&str] = &[
        "toi", "khong", "gi", "nao", "cua", "nhung", "duoc", "hom", "thang", "tuan", "ngay", "voi", "ve", "gap", "lan",
    ];
    if words.iter().filter(|word| COMMON.contains(&word.folded.as_str())).count() >= 2 {
        Script::VietnameseFolded
    } else {
        Script::Other
    }
}

/// English words that carry no subject: question words, pronouns, auxiliaries, and the
/// date and time words left over once the dates are read.
const ENGLISH: &str = "\
    a about above after again ago all also am an and any anything are as at be been before being between \
    both but by can could d date day days did do does doing done during each else ever every few for \
    from get got had happen happened happening happens has have having he her here hers him his how i if \
    in into is it its just know last latest lately ll m many me mine month months more most much my \
    myself newest no nor not now of off on once one only or other our ours out over own past please \
    previous re recent recently remember s said same say says she should since so some something such t \
    tell than that the their them then there these they thing things this those through time times to \
    today too under until up ve very was we week weeks were what whats when where which while who whom \
    whose why will with would year years yesterday you your yours";

/// Vietnamese function words, with their diacritics (as typed, lower case).
const VIETNAMESE: &str = "\
    à ai anh bao bị bởi các cái cho chị chưa chuyện có còn của cũng đã đang đâu để đến đi đó được em gần \
    gì giờ hay hoặc hỏi hôm không khi là làm lại lần lên lúc mà mình một mới năm nào này nên nếu ngày \
    nhất nhiều những nhớ như nói ở ra rất rồi sao sẽ tại tháng thế thì tôi trong trước từ tuần và vào về \
    vì việc với xảy biết bạn vừa";

/// The same words folded, for questions typed without diacritics. Only used for those:
/// several are English words too ("ban", "con"), or names ("Minh" is not "mình").
const VIETNAMESE_FOLDED: &str = "\
    a ai anh bao bi boi cac cai cho chi chua chuyen co con cua cung da dang dau de den di do duoc em gan \
    gi gio hay hoac hoi hom khong khi la lam lai lan len luc ma minh mot moi nam nao nay nen neu ngay \
    nhat nhieu nhung nho nhu noi o ra rat roi sao se tai thang the thi toi trong truoc tu tuan va vao ve \
    vi viec voi xay biet ban vua";

/// Whether `word` is a stop word of the question's language(s). A capitalised word after
/// the first is kept whatever it spells: "Minh" in the middle of a sentence is a name.
pub fn is_stop_word(word: &Word, script: Script, position: usize) -> bool {
    if position > 0 && word.capitalised() && word.lower.chars().count() >= 3 {
        return false;
    }
    // Sets, not the lists: every word of every memory entered in the index is checked.
    // The lists are texts: a table of `&str` is 8 bytes of pointers a word in the WebAssembly.
    static STOP_WORDS: LazyLock<FxHashSet<&str>> =
        LazyLock::new(|| ENGLISH.split_whitespace().chain(VIETNAMESE.split_whitespace()).collect());
    static FOLDED_STOP_WORDS: LazyLock<FxHashSet<&str>> =
        LazyLock::new(|| VIETNAMESE_FOLDED.split_whitespace().collect());
    let lower = word.lower.as_str();
    STOP_WORDS.contains(lower) || (script == Script::VietnameseFolded && FOLDED_STOP_WORDS.contains(lower))
}

/// The content words of `text` that none of `known` carries (no stop words, numbers or
/// one-letter words), folded, most frequent first, then in order of appearance, at most
/// `limit`; `None` when there are none.
pub fn content_keywords<'a>(text: &str, known: impl IntoIterator<Item = &'a str>, limit: usize) -> Option<String> {
    let mut known_words: FxHashSet<String> = FxHashSet::default();
    for text in known {
        known_words.extend(folded_words(text).into_iter().map(|word| word.folded));
    }
    let mut counts: FxHashMap<String, (usize, usize)> = FxHashMap::default();
    for (position, word) in words(text).into_iter().enumerate() {
        let content = word.folded.chars().count() >= 2
            && word.number().is_none()
            && !word.folded.chars().all(|c| c.is_ascii_digit())
            && !is_stop_word(&word, Script::Other, 0)
            && !known_words.contains(&word.folded);
        if content {
            counts.entry(fold(&word.lower)).or_insert((0, position)).0 += 1;
        }
    }
    let mut ranked: Vec<(String, (usize, usize))> = counts.into_iter().collect();
    ranked.sort_by(|a, b| b.1 .0.cmp(&a.1 .0).then(a.1 .1.cmp(&b.1 .1)));
    ranked.truncate(limit);
    (!ranked.is_empty()).then(|| ranked.into_iter().map(|(word, _)| word).collect::<Vec<_>>().join(" "))
}

/// Thai and Lao vowel and tone marks: the tokenizer splits words at them (and `stems` leaves
/// them out of character pairs).
pub fn is_thai_mark(c: char) -> bool {
    matches!(c as u32, 0x0E31 | 0x0E34..=0x0E3A | 0x0E47..=0x0E4E | 0x0EB1 | 0x0EB4..=0x0EBC | 0x0EC8..=0x0ECD)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lowers(text: &str) -> Vec<String> {
        words(text).into_iter().map(|word| word.lower).collect()
    }

    #[test]
    fn words_keep_dates_whole_and_drop_possessives() {
        assert_eq!(
            lowers("Alice's notes on 1/2/2026, 2026-02-01."),
            vec!["alice", "notes", "on", "1/2/2026", "2026-02-01"]
        );
        assert_eq!(lowers("Bob’s Q3 follow-up - 3.5.2025!"), vec!["bob", "q3", "follow", "up", "3.5.2025"]);
        assert_eq!(lowers("it's 5/"), vec!["it", "5"]);
        assert_eq!(lowers("Ngân sách quý 3"), vec!["ngân", "sách", "quý", "3"]);
    }

    #[test]
    fn folding_removes_vietnamese_and_latin_diacritics() {
        assert_eq!(
            fold("Hôm qua, THỨ BA, tháng trước, Đức, ngân sách"),
            "hom qua, thu ba, thang truoc, duc, ngan sach"
        );
        assert_eq!(fold("Crème Brûlée à São Paulo"), "creme brulee a sao paulo");
        assert_eq!(fold("ho\u{302}m"), "hom", "decomposed text");
        assert_eq!(fold("日本語"), "日本語", "other scripts stay as they are");
    }

    #[test]
    fn stop_words_in_both_languages_with_and_without_diacritics() {
        let stop = |text: &str, script: Script| is_stop_word(&words(text)[0], script, 0);
        assert!(stop("What", Script::Other) && stop("không", Script::Other) && stop("khong", Script::VietnameseFolded));
        assert!(!stop("khong", Script::Other), "folded Vietnamese only for Vietnamese questions");
        assert!(!stop("minh", Script::Vietnamese), "typed with diacritics, minh is not mình");
        assert!(
            !stop("budget", Script::VietnameseFolded) && !stop("bàn", Script::Vietnamese),
            "bàn (table) is not bạn"
        );
        let minh = &words("gap Minh")[1];
        assert!(!is_stop_word(minh, Script::VietnameseFolded, 1), "a capitalised word mid-sentence is a name");
        let script_of = |text: &str| script(text, &words(text));
        assert_eq!(script_of("Hôm qua tôi làm gì?"), Script::Vietnamese);
        assert_eq!(script_of("hom qua toi lam gi"), Script::VietnameseFolded);
        assert_eq!(script_of("What did Alice say?"), Script::Other);
    }
}
