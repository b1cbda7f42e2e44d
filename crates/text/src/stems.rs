//! Search terms that meet across word forms and scripts: Snowball stems for English, German,
//! French and Spanish (`rust-stemmers`), and two-character pieces for Chinese,
//! Japanese and Thai, which are written without spaces between words.
//!
//! The full-text tokenizer (SQLite's `unicode61`) splits on spaces and punctuation only: it
//! cannot stem, it keeps a run of Chinese or Japanese as one token, and it breaks Thai words
//! at their vowel and tone marks. So the store indexes, beside a memory's own words, the
//! terms made here (`index_terms`, the `stems` column), and a question's keywords are
//! searched through the same rules (`query_terms`): "married" and "marriage" meet, and
//! "会议记录" is found by "会议".
//!
//! Overlapping pairs (bigrams) rather than a dictionary segmenter: they need no word list
//! (a Chinese or Thai dictionary would weigh more than the whole plugin), every word of two
//! or more characters contains one, and BM25 ranks memories sharing more pairs first.
//!
//! Snowball strips endings; it cannot know that "met" is "meet" or "bought" "buy". English
//! irregular forms (`IRREGULAR_ENGLISH`) are indexed, and searched, as their base form too:
//! "When did Maria meet Jean?" finds "I met Jean at the gallery".
//!
//! The language of a text, for its stemmer, is the one whose common words it uses most;
//! English when none stands out. `STEMS_VERSION` changes whenever these rules change, and
//! the store then derives every memory's terms again.

use std::sync::LazyLock;

use rust_stemmers::{Algorithm, Stemmer};

use rustc_hash::{FxHashMap, FxHashSet};

use crate::words::{fold, is_thai_mark, words, Word};

/// Bumped when `index_terms` would give other terms for the same text (2: English irregular
/// forms).
pub const STEMS_VERSION: u32 = 2;

/// English irregular verb forms and plurals, sorted, each `form:base`: the common ones a
/// person writes of their own life. Left out where the form is as often another word ("rose",
/// "lay", "sat", "bit", "left" stays: "left the job" is the usual sense), and the forms the
/// selection's stop words already drop ("got", "said", "did", "had", "was", "knew"…).
const IRREGULAR_ENGLISH: &str = "\
    ate:eat began:begin begun:begin bought:buy broke:break broken:break brought:bring built:build came:come \
    caught:catch children:child chose:choose chosen:choose drank:drink drawn:draw drew:draw driven:drive drove:drive \
    eaten:eat fallen:fall fed:feed feet:foot fell:fall felt:feel flew:fly flown:fly forgot:forget \
    forgotten:forget fought:fight found:find gave:give given:give gone:go grew:grow grown:grow heard:hear \
    held:hold hid:hide hidden:hide kept:keep led:lead left:leave lent:lend lost:lose made:make \
    meant:mean men:man met:meet mice:mouse paid:pay ran:run rode:ride sang:sing saw:see \
    seen:see sent:send shook:shake shot:shoot slept:sleep sold:sell spent:spend spoke:speak spoken:speak \
    stole:steal stolen:steal stood:stand swam:swim taken:take taught:teach teeth:tooth thought:think threw:throw \
    thrown:throw told:tell took:take tore:tear understood:understand went:go woke:wake women:woman won:win \
    wore:wear worn:wear written:write wrote:write";

/// The base form of an English irregular form (lower case): "met" → "meet".
fn irregular_base(word: &str) -> Option<&'static str> {
    // One text rather than a table of pairs: a pair of `&str` is 16 bytes of pointers in the
    // WebAssembly, which compress poorly; the map is built once.
    static BASES: LazyLock<FxHashMap<&str, &str>> =
        LazyLock::new(|| IRREGULAR_ENGLISH.split_whitespace().filter_map(|pair| pair.split_once(':')).collect());
    BASES.get(word).copied()
}

/// The languages stemmed. Vietnamese and the other isolating languages need no stemmer.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Language {
    #[default]
    English,
    German,
    French,
    Spanish,
}

/// The common words that tell each language apart (few are shared, and none with English),
/// English first, so it wins a tie. Texts, not tables: a `&str` in a table is 8 bytes of
/// pointers in the WebAssembly.
const COMMON_WORDS: &[(Language, &str)] = &[
    (Language::English, "the and is of to in it that with for on was what how when did my you an"),
    (
        Language::German,
        "\
            der die das und ist nicht mit sich auf für ein eine dem den zu werden wird oder wie ich \
            wir sie im bei einer eines aus nach von wenn kann alle",
    ),
    (
        Language::French,
        "\
            le les et est des une pour dans qui pas sur au du avec ce cette sont je nous vous il elle \
            ou mais comment quand fichier",
    ),
    (
        Language::Spanish,
        "\
            el los las y es en que del para con por una un se su como cuando pero archivo está qué \
            cómo",
    ),
];

/// The language `text` is most likely in: the one whose common words it uses most, English on
/// a tie or when none is found.
pub fn language_of(text: &str) -> Language {
    language_of_words(&words(text))
}

/// `language_of` for a text already split into words.
/// `COMMON_WORDS` as sets: a memory's words are checked on every insert into the index.
static COMMON: LazyLock<Vec<(Language, FxHashSet<&'static str>)>> = LazyLock::new(|| {
    COMMON_WORDS.iter().map(|(language, common)| (*language, common.split_whitespace().collect())).collect()
});

fn language_of_words<'a>(words: impl IntoIterator<Item = &'a Word>) -> Language {
    let mut hits = vec![0usize; COMMON.len()];
    for word in words.into_iter().take(LANGUAGE_WORDS) {
        for (index, (_, common)) in COMMON.iter().enumerate() {
            hits[index] += usize::from(common.contains(word.lower.as_str()));
        }
    }
    let mut best = (Language::English, 0usize);
    for ((language, _), hits) in COMMON.iter().zip(hits) {
        if hits > best.1 {
            best = (*language, hits);
        }
    }
    best.0
}

/// How many of a text's first words `language_of` reads.
const LANGUAGE_WORDS: usize = 400;

/// Whether `word` (lower case) is one of the common words of `language` other than English
/// (English ones are the selection's stop words): "wie", "ich", "eine" say nothing about
/// what a German question asks.
pub fn is_common_word(word: &str, language: Language) -> bool {
    language != Language::English && COMMON.iter().any(|(listed, common)| *listed == language && common.contains(word))
}

fn stemmer(language: Language) -> Stemmer {
    Stemmer::create(match language {
        Language::English => Algorithm::English,
        Language::German => Algorithm::German,
        Language::French => Algorithm::French,
        Language::Spanish => Algorithm::Spanish,
    })
}

/// How a run of characters is searched.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// Spaced scripts: a word, stemmed.
    Spaced,
    /// Chinese characters, kana: pairs.
    Ideographic,
    /// Thai and Lao: pairs of letters, the marks left out.
    Thai,
}

fn kind_of(c: char) -> Kind {
    match c as u32 {
        0x0E00..=0x0EFF => Kind::Thai,
        0x3040..=0x30FF | 0x3400..=0x4DBF | 0x4E00..=0x9FFF | 0xF900..=0xFAFF | 0xFF66..=0xFF9F | 0x20000..=0x3134F => {
            Kind::Ideographic
        }
        _ => Kind::Spaced,
    }
}

/// A word split where its script changes ("Obsidian的插件" → "Obsidian", "的插件").
fn runs(word: &str) -> Vec<(Kind, String)> {
    let mut out: Vec<(Kind, String)> = Vec::new();
    for c in word.chars() {
        if is_thai_mark(c) {
            // Marks belong to the letter before them and are left out of the pairs.
            continue;
        }
        let kind = kind_of(c);
        match out.last_mut() {
            Some((last, text)) if *last == kind => text.push(c),
            _ => out.push((kind, c.to_string())),
        }
    }
    out
}

/// Overlapping pairs of characters; a lone character stands for itself.
fn char_pairs(text: &str) -> Vec<String> {
    let chars: Vec<char> = text.chars().collect();
    if chars.len() < 2 {
        return vec![text.to_owned()];
    }
    chars.windows(2).map(|pair| pair.iter().collect()).collect()
}

/// The search terms of a text besides the tokens `unicode61` already makes of it, folded,
/// each once, space-separated (`None` when there are none).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct IndexTerms {
    /// Stems that differ from their word, and the script runs of mixed words.
    pub stems: Option<String>,
    /// The pairs of Chinese, Japanese and Thai runs: the only terms those texts have.
    pub pairs: Option<String>,
}

/// The `IndexTerms` of a memory's fields, at most `limit` of each kind; `stem` says whether
/// to stem a text (names are not).
pub fn index_terms(texts: &[(&str, bool)], limit: usize) -> IndexTerms {
    IndexTerms { stems: index_stems(texts, limit), pairs: index_pairs(texts, limit) }
}

/// `IndexTerms::stems` alone (the index's view asks for each kind in its own column).
pub fn index_stems(texts: &[(&str, bool)], limit: usize) -> Option<String> {
    let split: Vec<Vec<Word>> = texts.iter().map(|(text, _)| words(text)).collect();
    // The words of the texts one after another are those of the texts joined by spaces.
    let language = language_of_words(split.iter().flatten());
    let mut stems = TermList::new(limit);
    STEMS.with_borrow_mut(|cache| {
        for ((_, stem), words) in texts.iter().zip(&split) {
            for word in words {
                // Most words are one run of a spaced script: no need to split them.
                if word.lower.is_ascii() {
                    let stemmed = if *stem { cache.stem(language, &word.lower) } else { fold(&word.lower) };
                    if stemmed != word.folded {
                        stems.push(stemmed);
                    }
                    if *stem && language == Language::English {
                        if let Some(base) = irregular_base(&word.lower) {
                            stems.push(cache.stem(language, base));
                        }
                    }
                    continue;
                }
                let pieces = runs(&word.lower);
                let whole = pieces.len() == 1;
                for (kind, piece) in pieces {
                    if kind == Kind::Spaced {
                        let stemmed = if *stem { cache.stem(language, &piece) } else { fold(&piece) };
                        if !(whole && stemmed == word.folded) {
                            stems.push(stemmed);
                        }
                    }
                }
            }
        }
    });
    stems.joined()
}

thread_local! {
    static STEMS: std::cell::RefCell<StemCache> = std::cell::RefCell::new(StemCache::default());
}

/// The folded stems of words already stemmed, per language: a vault's memories share most of
/// their words, and stemming is most of what entering a memory in the index costs (a rebuild
/// from the logs enters tens of thousands).
#[derive(Default)]
struct StemCache {
    languages: Vec<(Language, Stemmer, StemsOfWords)>,
}

/// Word → its folded stem.
type StemsOfWords = FxHashMap<Box<str>, Box<str>>;

impl StemCache {
    /// Beyond this many words a language's cache starts again (a few MB at most).
    const WORDS: usize = 50_000;

    /// The folded Snowball stem of `word` (lower case) in `language`.
    fn stem(&mut self, language: Language, word: &str) -> String {
        let index = match self.languages.iter().position(|(made, ..)| *made == language) {
            Some(index) => index,
            None => {
                self.languages.push((language, stemmer(language), FxHashMap::default()));
                self.languages.len() - 1
            }
        };
        let (_, stemmer, stems) = &mut self.languages[index];
        if let Some(stem) = stems.get(word) {
            return stem.to_string();
        }
        if stems.len() >= Self::WORDS {
            stems.clear();
        }
        let stem = fold(&stemmer.stem(word));
        stems.insert(Box::from(word), Box::from(stem.as_str()));
        stem
    }
}

/// `IndexTerms::pairs` alone.
pub fn index_pairs(texts: &[(&str, bool)], limit: usize) -> Option<String> {
    // Only Chinese, Japanese and Thai make pairs: most texts have none to split into words for.
    if !texts.iter().any(|(text, _)| text.chars().any(|c| kind_of(c) != Kind::Spaced)) {
        return None;
    }
    let mut pairs = TermList::new(limit);
    for (text, _) in texts {
        for word in words(text) {
            for (kind, piece) in runs(&word.lower) {
                if kind != Kind::Spaced {
                    char_pairs(&piece).into_iter().for_each(|pair| pairs.push(pair));
                }
            }
        }
    }
    pairs.joined()
}

/// Terms, each once, in the order first met, at most `limit`.
struct TermList {
    terms: Vec<String>,
    seen: FxHashSet<String>,
    limit: usize,
}

impl TermList {
    fn new(limit: usize) -> Self {
        TermList { terms: Vec::new(), seen: FxHashSet::default(), limit }
    }

    fn push(&mut self, term: String) {
        if !term.is_empty() && self.terms.len() < self.limit && !self.seen.contains(&term) {
            self.seen.insert(term.clone());
            self.terms.push(term);
        }
    }

    fn joined(self) -> Option<String> {
        (!self.terms.is_empty()).then(|| self.terms.join(" "))
    }
}

/// One term to search for, as `store::SearchTerm` takes it: text, and whether longer words
/// match too.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct QueryTerm {
    pub text: String,
    pub prefix: bool,
}

/// The shortest stem searched as a prefix: "run*" would find "rune" and "runway".
const MIN_PREFIX_CHARS: usize = 4;
/// Stems shorter than the keyword's by up to this many letters are searched too, whole:
/// Snowball stems "marriage" to "marriag" but "married" to "marri".
const SHORTER_STEMS: usize = 2;
/// No stem shorter than this is searched for a longer one.
const MIN_SHORTER_STEM: usize = 5;

/// The terms a question's keyword is searched as, in `language`: its stem (as a prefix when
/// long enough, so the word itself and longer forms match), the word itself when the stem is
/// not its beginning, stems a little shorter, and the pairs of its Chinese, Japanese or Thai
/// runs.
pub fn query_terms(keyword: &str, language: Language) -> Vec<QueryTerm> {
    let stemmer = stemmer(language);
    let mut out: Vec<QueryTerm> = Vec::new();
    let mut push = |term: QueryTerm| {
        if !term.text.is_empty() && !out.contains(&term) {
            out.push(term);
        }
    };
    for (kind, piece) in runs(&keyword.to_lowercase()) {
        match kind {
            Kind::Spaced => {
                let stem = fold(&stemmer.stem(&piece));
                let length = stem.chars().count();
                if piece.chars().all(|c| c.is_ascii_digit()) {
                    push(QueryTerm { text: stem, prefix: false });
                    continue;
                }
                push(QueryTerm { text: stem.clone(), prefix: length >= MIN_PREFIX_CHARS });
                // The word as asked, where the stem is not its beginning ("battery" → "batteri").
                let folded = fold(&piece);
                if !folded.starts_with(&stem) {
                    push(QueryTerm { text: folded, prefix: piece.chars().count() >= MIN_PREFIX_CHARS });
                }
                let shortest = length.saturating_sub(SHORTER_STEMS).max(MIN_SHORTER_STEM);
                for keep in (shortest..length).rev() {
                    push(QueryTerm { text: stem.chars().take(keep).collect(), prefix: false });
                }
                // "met" also finds "meet", "meeting" and every other irregular form of it.
                if language == Language::English {
                    if let Some(base) = irregular_base(&piece) {
                        push(QueryTerm { text: fold(&stemmer.stem(base)), prefix: false });
                    }
                }
            }
            Kind::Ideographic | Kind::Thai => {
                char_pairs(&piece).into_iter().for_each(|pair| push(QueryTerm { text: pair, prefix: false }))
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(terms: &[QueryTerm]) -> Vec<&str> {
        terms.iter().map(|term| term.text.as_str()).collect()
    }

    fn indexed(text: &str) -> Vec<String> {
        let terms = index_terms(&[(text, true)], 100);
        let joined = [terms.stems, terms.pairs].into_iter().flatten().collect::<Vec<_>>().join(" ");
        joined.split(' ').filter(|term| !term.is_empty()).map(str::to_owned).collect()
    }

    /// A query term matches an index term (or a word the tokenizer makes of the text).
    fn meets(question_word: &str, text: &str) -> bool {
        let mut tokens = indexed(text);
        tokens.extend(words(text).into_iter().map(|word| word.folded));
        query_terms(question_word, language_of(question_word)).iter().any(|term| {
            tokens.iter().any(|token| if term.prefix { token.starts_with(&term.text) } else { *token == term.text })
        })
    }

    #[test]
    fn word_forms_meet_through_their_stems() {
        for (asked, written) in [
            ("married", "They got married in June."),
            ("marriage", "They got married in June."),
            ("married", "Their marriage was in June."),
            ("running", "I run every morning."),
            ("volunteering", "She volunteered at the shelter."),
            ("volunteered", "Volunteering at the shelter."),
            ("paint", "She has been painting landscapes."),
            ("painting", "She paints landscapes."),
            ("meetings", "The meeting with Bob."),
            // Irregular forms, through their base.
            ("meet", "I met Jean at the gallery."),
            ("met", "We meet on Fridays."),
            ("met", "The meeting went well."),
            ("buy", "She bought new shoes."),
            ("bought", "I want to buy a bike."),
            ("see", "We saw the meteor shower."),
            ("win", "Nate won another tournament."),
            ("child", "The children loved the museum."),
            ("writing", "She wrote a screenplay."),
            ("go", "We went to the beach."),
        ] {
            assert!(meets(asked, written), "{asked} should find {written:?}");
        }
        assert!(!meets("running", "The rune stones."), "short stems are not prefixes");
        assert!(!meets("rise", "Rose came over."), "a form as often another word is left out");
        let forms: Vec<&str> =
            IRREGULAR_ENGLISH.split_whitespace().filter_map(|pair| Some(pair.split_once(':')?.0)).collect();
        assert_eq!(forms.len(), IRREGULAR_ENGLISH.split_whitespace().count(), "every entry is form:base");
        assert!(forms.windows(2).all(|pair| pair[0] < pair[1]), "sorted, so that a form is listed once");
        assert!(!meets("meet", "Wir trafen uns, er met die Grenze."), "only English text");
        assert!(!meets("paint", "The pain in my knee."));
    }

    #[test]
    fn german_text_gets_the_german_stemmer() {
        assert_eq!(language_of("Die Datei wird mit dem Befehl erstellt und ist nicht leer."), Language::German);
        assert_eq!(language_of("Alice approved the budget."), Language::English);
        assert_eq!(language_of("Budget approved"), Language::English, "English when nothing stands out");
        let terms = indexed("Die Dateien werden mit dem Befehl komprimiert.");
        assert!(terms.contains(&"datei".to_owned()), "{terms:?}");
        assert!(query_terms("Datei", Language::German).iter().any(|term| term.text == "datei"));
    }

    #[test]
    fn chinese_and_japanese_runs_become_pairs() {
        assert_eq!(indexed("会议记录"), vec!["会议", "议记", "记录"]);
        assert_eq!(texts(&query_terms("记录在哪", Language::English)), vec!["记录", "录在", "在哪"]);
        let mixed = indexed("Obsidian的插件");
        assert!(mixed.contains(&"obsidian".to_owned()) && mixed.contains(&"插件".to_owned()), "{mixed:?}");
        assert!(indexed("ファイルを作成").contains(&"作成".to_owned()));
    }

    #[test]
    fn thai_pairs_leave_the_marks_out() {
        // สร้าง (create): ส ร ้ า ง — the tone mark ้ splits the word for unicode61.
        assert_eq!(indexed("สร้าง"), vec!["สร", "รา", "าง"]);
        assert_eq!(texts(&query_terms("สร้าง", Language::English)), vec!["สร", "รา", "าง"]);
        for term in indexed("ไฟล์ใหม่") {
            assert!(!term.chars().any(is_thai_mark), "{term}");
        }
    }

    #[test]
    fn words_the_tokenizer_already_makes_are_not_repeated_and_names_are_not_stemmed() {
        let stems = |text: &str, stem: bool| index_terms(&[(text, stem)], 100).stems;
        assert_eq!(stems("Alice and Bob", true), Some("alic".to_owned()), "bob stems to itself");
        assert_eq!(stems("Melanie", false), None);
        assert_eq!(stems("", true), None);
        assert_eq!(stems("meeting meeting", true), Some("meet".to_owned()));
        assert_eq!(index_terms(&[("会议记录", true)], 100).stems, None, "pairs have their own column");
        assert_eq!(index_terms(&[("a b c d e f g h", true), ("会议记录", false)], 2).pairs, Some("会议 议记".into()));
    }
}
