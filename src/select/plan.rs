//! A question's query plan, made without a model call: the days it is about, the known
//! names it mentions, its remaining keywords, and whether it asks for the latest thing.
//!
//! Names are read first, so a person called June is not taken for a month, then dates,
//! then the words asking for "the latest"; what is left, minus stop words, are keywords.
//! Asking the model to plan would cost a call and a second of latency per question; these
//! rules cover the questions people ask their notes, in English and Vietnamese, and the
//! optional second pass (`more_memories`) lets the model fetch what they missed.

use std::cell::RefCell;
use std::collections::{BTreeMap, HashMap};
use std::rc::Rc;

use serde::{Deserialize, Serialize};

use super::dates::{find_dates, is_date_word, DateRange, DATE_PREPOSITIONS};
use super::kinds::instance_terms;
use crate::calendar::CalendarDate;
use crate::stems::{is_common_word, language_of, Language};
use crate::store::{NamesVersion, SqlDriver, Store, StoreError};
use crate::words::{fold, is_stop_word, script, words, Script, Word};

/// How the user writes numeric dates: `1/2/2026` is 1 February (`DayMonth`) or 2 January
/// (`MonthDay`). ISO dates (`2026-02-01`) read the same either way.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum DateOrder {
    #[default]
    DayMonth,
    MonthDay,
}

/// What a question asks about, as far as words can tell.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct QueryPlan {
    /// The days the question is about, first and last inclusive.
    pub dates: Option<(CalendarDate, CalendarDate)>,
    /// Known entity names the question mentions, spelled as the memories spell them.
    pub entities: Vec<String>,
    /// The other content words, lower case, diacritics kept.
    pub keywords: Vec<String>,
    /// "latest", "last time", "most recent", "gần đây nhất", "lần cuối", …
    pub wants_latest: bool,
    /// The language the keywords are stemmed in.
    #[serde(skip)]
    pub language: Language,
    /// Asks what several people share ("both", "in common"): what one side's memories name
    /// is searched among the other side's.
    #[serde(skip)]
    pub compares: bool,
    /// The keywords a query-planning call added to the question's own.
    #[serde(skip)]
    pub planned: Vec<String>,
    /// Each date expression of the question's own words, as written, and the days it means:
    /// the prompt tells the model which days the question is about ("1/2/2026 → 2026-02-01").
    #[serde(skip)]
    pub resolved_dates: Vec<ResolvedDate>,
    /// Asks where ("Where did …", "Which cities …"): memories naming a place answer it.
    #[serde(skip)]
    pub wants_place: bool,
    /// The search terms (stems) of everyday instances of the kind of thing it asks for ("What
    /// martial arts…" → karate, kickbox, …; `kinds`).
    #[serde(skip)]
    pub instance_terms: Vec<String>,
}

/// A date expression of a question and the days it was read as.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResolvedDate {
    /// As the question writes it ("1/2/2026", "last week").
    pub written: String,
    pub from: CalendarDate,
    /// The same as `from` for one day.
    pub to: CalendarDate,
}

/// At most this many keywords are searched: a pasted paragraph is not a question.
const MAX_KEYWORDS: usize = 16;
/// Only the first words of a question are planned, which bounds the work of matching
/// every known name against it.
const MAX_WORDS: usize = 400;
/// At most this many names are taken from a question: every name costs a candidate pool and
/// a pass over the candidates, and a first name shared by hundreds of entities ("Alice") must
/// not turn one question into hundreds.
pub const MAX_NAMES: usize = 8;
/// One capitalised word of the question stands for at most this many longer names (the most
/// mentioned ones): "Dan" finds "Dan Pham", not every Dan of the vault.
const MAX_NAMES_PER_PART: usize = 3;

/// The entity names of the store, prepared for matching against questions: looked up by
/// the words of the question, so planning costs the same with 50 names or 50,000.
#[derive(Debug, Clone, Default)]
pub struct KnownNames {
    /// Most used first, as `Store::entity_names` gives them.
    names: Vec<KnownName>,
    /// Names by their first word (folded), in usage order; ordered, for short forms.
    by_first_word: BTreeMap<String, Vec<usize>>,
    /// Names of several words by each word that may stand for the whole name ("Dan" for
    /// "Dan Pham"), in usage order.
    by_part: HashMap<String, Vec<usize>>,
}

#[derive(Debug, Clone)]
struct KnownName {
    name: String,
    /// Folded words.
    words: Vec<String>,
    /// Made only of date words ("June", "Today"): matched only where it cannot be a date.
    datelike: bool,
    /// One word that is also a stop word ("Do", "In", "Last", "Who"): matched only where it is
    /// written with a capital, not at the start of the question.
    common: bool,
}

impl KnownNames {
    pub fn new(names: &[String]) -> Self {
        let mut known = KnownNames::default();
        for name in names {
            let parts = words(name);
            if parts.is_empty() {
                continue;
            }
            let index = known.names.len();
            known.by_first_word.entry(parts[0].folded.clone()).or_default().push(index);
            if parts.len() > 1 {
                for part in &parts {
                    // Spelled as in the name: "Minh" is a name even where "minh" may be "mình"; and
                    // written with a capital there ("diff-pdf" is not what "PDF" stands for).
                    let usable = part.capitalised()
                        && part.folded.chars().count() >= 2
                        && !is_stop_word(part, Script::Vietnamese, 0)
                        && !is_date_word(&part.folded);
                    let entry = known.by_part.entry(part.folded.clone()).or_default();
                    if usable && entry.last() != Some(&index) {
                        entry.push(index);
                    }
                }
            }
            known.names.push(KnownName {
                name: name.clone(),
                datelike: parts.iter().all(|part| is_date_word(&part.folded)),
                common: parts.len() == 1 && is_stop_word(&parts[0], Script::Other, 0),
                words: parts.into_iter().map(|part| part.folded).collect(),
            });
        }
        known
    }
}

/// The shortest word taken for the short form of a name ("Mel", "Jon").
const MIN_SHORT_FORM: usize = 3;

impl KnownNames {
    /// The names `word` may be a short form of, most used first: names whose first word
    /// begins with it ("Mel" → "Melanie", "Caro" → "Caroline Reyes"), or is it with one letter
    /// more ("Jon" → "John"). The word is folded and capitalised in the question.
    fn short_forms(&self, word: &str) -> Vec<usize> {
        let mut found: Vec<usize> = self
            .by_first_word
            .range::<str, _>((std::ops::Bound::Excluded(word), std::ops::Bound::Unbounded))
            .take_while(|(first, _)| first.starts_with(word))
            .flat_map(|(_, names)| names.iter().copied())
            .collect();
        let chars: Vec<char> = word.chars().collect();
        for at in 0..=chars.len() {
            for letter in 'a'..='z' {
                let mut longer = chars.clone();
                longer.insert(at, letter);
                let longer: String = longer.into_iter().collect();
                if let Some(names) = self.by_first_word.get(&longer) {
                    found.extend(names.iter().copied());
                }
            }
        }
        // Only names written with a capital (people, places, projects: "melody" the command is
        // no Mel), whose first word really is longer; most used (lowest index) first.
        found.sort_unstable();
        found.dedup();
        found.retain(|&index| {
            let name = &self.names[index];
            name.name.chars().next().is_some_and(char::is_uppercase)
                && name.words.first().is_some_and(|first| first.len() > word.len())
        });
        found
    }
}

/// `KnownNames` of a store, made again only when its entity names changed.
#[derive(Debug, Default)]
pub struct NameCache {
    cached: RefCell<Option<(NamesVersion, Rc<KnownNames>)>>,
}

impl NameCache {
    pub fn new() -> Self {
        Self::default()
    }

    /// The store's names, prepared.
    pub fn get<D: SqlDriver>(&self, store: &Store<D>) -> Result<Rc<KnownNames>, StoreError> {
        let version = store.names_version();
        if let Some((cached, names)) = self.cached.borrow().as_ref() {
            if *cached == version {
                return Ok(names.clone());
            }
        }
        let names = Rc::new(KnownNames::new(&store.entity_names()?));
        *self.cached.borrow_mut() = Some((version, names.clone()));
        Ok(names)
    }
}

/// Plans `question`, asked on the user's local date `today`. `known` are the entity names
/// in the store (`NameCache::get`, or `KnownNames::new(&store.entity_names()?)`).
pub fn plan_query(question: &str, today: CalendarDate, order: DateOrder, known: &KnownNames) -> QueryPlan {
    let mut words = words(question);
    words.truncate(MAX_WORDS);
    let script = script(question, &words);
    let language = language_of(question);
    let mut taken = vec![false; words.len()];
    let (entities, also_keywords) = match_entities(&words, known, &mut taken);
    let mut dates: Option<DateRange> = None;
    let mut resolved_dates = Vec::new();
    let spans = word_spans(question, &words);
    for found in find_dates(&words, &taken, today, order) {
        taken[found.start..found.end].iter_mut().for_each(|word| *word = true);
        let (from, to) = found.range;
        let written = match (spans.get(found.start).copied().flatten(), spans.get(found.end - 1).copied().flatten()) {
            (Some((start, _)), Some((_, end))) if start <= end => question[start..end].to_owned(),
            _ => words[found.start..found.end].iter().map(|word| word.text.as_str()).collect::<Vec<_>>().join(" "),
        };
        resolved_dates.push(ResolvedDate { written, from, to });
        dates = Some(match dates {
            Some((first, last)) => (first.min(from), last.max(to)),
            None => (from, to),
        });
    }
    let wants_latest = find_latest(&words, &mut taken);
    let mut keywords: Vec<String> = Vec::new();
    let searched = |position: usize| !taken[position] || also_keywords.contains(&position);
    for (position, word) in words.iter().enumerate().filter(|(position, _)| searched(*position)) {
        let long_enough = word.lower.chars().count() >= 2;
        let is_number = word.number().is_some();
        let common = is_stop_word(word, script, position) || is_common_word(&word.lower, language);
        if long_enough && !is_number && !common && !keywords.contains(&word.lower) {
            keywords.push(word.lower.clone());
        }
    }
    keywords.truncate(MAX_KEYWORDS);
    const COMPARING: &[&str] = &["both", "common", "share", "shared", "together", "similar", "each"];
    let compares = words.iter().any(|word| COMPARING.contains(&word.folded.as_str()));
    let wants_place = words
        .iter()
        .enumerate()
        .any(|(at, word)| PLACE_WORDS.split(' ').any(|place| place == word.folded) && !names_the_place(&words, at));
    QueryPlan {
        dates,
        entities,
        keywords,
        wants_latest,
        language,
        compares,
        planned: Vec::new(),
        resolved_dates,
        wants_place,
        instance_terms: instance_terms(&words, language),
    }
}

/// The words of a question that asks for a place (one text: a table of `&str` costs 8 bytes a
/// word in the module).
const PLACE_WORDS: &str =
    "where city cities town towns village villages country countries state states place places location locations \
     destination destinations";

/// Words after which a capitalised word names a place: "a trip to Rome", "in Seattle".
pub(super) const LOCATIVES: &str = "in to from at near visit visited visiting around through across toward towards";

/// Whether the place word at `at` ends a place the question names ("visiting in New York City"):
/// after capitalised words that follow a locative. "Which US cities" asks for places.
fn names_the_place(words: &[Word], at: usize) -> bool {
    let mut start = at;
    while start > 1 && words[start - 1].capitalised() {
        start -= 1;
    }
    start < at && start >= 1 && LOCATIVES.split(' ').any(|locative| locative == words[start - 1].folded)
}

/// Where each word is in `text` (byte offsets), found left to right; `None` for a word not
/// written as is (the reader may have changed it).
fn word_spans(text: &str, words: &[Word]) -> Vec<Option<(usize, usize)>> {
    let mut cursor = 0;
    words
        .iter()
        .map(|word| {
            let at = text[cursor..].find(word.text.as_str())? + cursor;
            cursor = at + word.text.len();
            Some((at, cursor))
        })
        .collect()
}

/// Known names found in the question, in order of appearance; marks their words taken.
///
/// A name matches when its words appear together (case and diacritics aside: "alice
/// nguyen", "Alice's"). One word of a longer name also matches when the question writes
/// it with a capital: "Dan" finds "Dan Pham", "Linh" finds "Đặng Linh". A name made only
/// of date words ("June", "Today") must be capitalised and not follow a date preposition:
/// "with June" is a person, "in June" a month. A one-word name that is also a stop word
/// (a command called `do` or `which`, an app called "Last") must be capitalised and not open
/// the question: in "What did I do last week?" neither word is a name.
/// Also returns the positions of the words that stay keywords too (those of names written in
/// lower case).
fn match_entities(words: &[Word], known: &KnownNames, taken: &mut [bool]) -> (Vec<String>, Vec<usize>) {
    let mut also_keywords: Vec<usize> = Vec::new();
    let folded: Vec<&str> = words.iter().map(|word| word.folded.as_str()).collect();
    // The names that can start somewhere in the question, in usage order.
    let mut candidates: Vec<usize> =
        folded.iter().filter_map(|word| known.by_first_word.get(*word)).flatten().copied().collect();
    candidates.sort_unstable();
    candidates.dedup();
    let mut found: Vec<(usize, &String)> = Vec::new();
    let mut whole: Vec<usize> = Vec::new();
    // Words inside a whole name of several words ("Git branch"): their parts say no more.
    let mut in_long_name = vec![false; words.len()];
    for index in candidates {
        let name = &known.names[index];
        let needle: Vec<&str> = name.words.iter().map(String::as_str).collect();
        let fits = |at: usize| {
            let dated = !name.datelike
                || (words[at].capitalised()
                    && !at.checked_sub(1).is_some_and(|before| DATE_PREPOSITIONS.contains(&folded[before])));
            dated && (!name.common || (at > 0 && words[at].capitalised()))
        };
        let position =
            folded.windows(needle.len()).enumerate().position(|(at, window)| window == needle.as_slice() && fits(at));
        if let Some(at) = position {
            // A one-word name written in lower case in the question and in the store ("make",
            // "file", "see": commands, apps) is a word of the question like any other: the text
            // search finds the memories listing it, and it does not narrow the question the way
            // a person's name does.
            let lower_case = !name.name.chars().any(char::is_uppercase);
            if needle.len() == 1 && !words[at].capitalised() && lower_case {
                continue;
            }
            taken[at..at + needle.len()].iter_mut().for_each(|word| *word = true);
            // A name written in lower case ("git", "zip") is also searched as words: the
            // memories using it without listing it ("a zip archive") are found by them.
            if lower_case && !name.common {
                also_keywords.extend(at..at + needle.len());
            }
            if needle.len() > 1 {
                in_long_name[at..at + needle.len()].iter_mut().for_each(|word| *word = true);
            }
            found.push((at, &name.name));
            whole.push(index);
        }
    }
    for (at, word) in words.iter().enumerate() {
        if !word.capitalised() || in_long_name[at] {
            continue;
        }
        let mut names: Vec<usize> = known.by_part.get(&word.folded).cloned().unwrap_or_default();
        // Only a word no name has as it is: "Dan" is Dan Pham, never Đặng Thùy Linh.
        let could_be_short = at > 0
            && names.is_empty()
            && !taken[at]
            && word.folded.chars().count() >= MIN_SHORT_FORM
            && !is_stop_word(word, Script::Vietnamese, 0)
            && !is_date_word(&word.folded);
        if could_be_short {
            names = known.short_forms(&word.folded);
        }
        let names: Vec<usize> = names.into_iter().filter(|index| !whole.contains(index)).collect();
        let names = likeliest_names(names, words, at, known);
        let names: Vec<usize> = names.into_iter().take(MAX_NAMES_PER_PART).collect();
        if !names.is_empty() {
            taken[at] = true;
            found.extend(names.into_iter().map(|index| (at, &known.names[index].name)));
        }
    }
    found.sort_by_key(|(at, _)| *at);
    let mut names: Vec<String> = Vec::new();
    for (_, name) in found {
        if !names.contains(name) {
            names.push(name.clone());
        }
    }
    names.truncate(MAX_NAMES);
    (names, also_keywords)
}

/// Of the names one capitalised word may stand for, those holding its capitalised neighbours
/// too, when any does ("United Methodist" is the United Methodist Church, not the United
/// Kingdom, though each has "United"); then, when any is the word itself with a qualifier in
/// brackets, those ("Victoria" is "Victoria (Australia)" before the Victoria and Albert
/// Museum). Otherwise all of them: "Minh" may be Bùi Quang Minh as well as Minh Tran.
fn likeliest_names(names: Vec<usize>, words: &[Word], at: usize, known: &KnownNames) -> Vec<usize> {
    let neighbours: Vec<&str> = [at.checked_sub(1), Some(at + 1)]
        .into_iter()
        .flatten()
        .filter_map(|near| words.get(near))
        .filter(|near| near.capitalised() && !is_stop_word(near, Script::Vietnamese, 0))
        .map(|near| near.folded.as_str())
        .collect();
    let holds_neighbour =
        |index: &usize| known.names[*index].words.iter().any(|word| neighbours.contains(&word.as_str()));
    let names = keep_if_any(names, holds_neighbour);
    let qualified_word = |index: &usize| {
        let name = &known.names[*index].name;
        name.split_once(" (").is_some_and(|(before, _)| fold(before.trim()) == words[at].folded)
    };
    keep_if_any(names, qualified_word)
}

/// Those of `names` that `wanted` holds for, when it holds for any; else all of them.
fn keep_if_any(names: Vec<usize>, wanted: impl Fn(&usize) -> bool) -> Vec<usize> {
    if names.iter().any(&wanted) {
        names.into_iter().filter(|index| wanted(index)).collect()
    } else {
        names
    }
}

/// Whether the question asks for the latest occurrence; marks those words taken. "last"
/// counts only when the date reader did not take it ("last week" is a date).
fn find_latest(words: &[Word], taken: &mut [bool]) -> bool {
    const SINGLE: &[&str] = &["latest", "last", "newest", "recent", "recently", "lately"];
    const PAIRS: &[[&str; 2]] =
        &[["gan", "day"], ["gan", "nhat"], ["moi", "nhat"], ["lan", "cuoi"], ["cuoi", "cung"], ["moi", "day"]];
    let mut latest = false;
    for at in 0..words.len() {
        if taken[at] {
            continue;
        }
        if SINGLE.contains(&words[at].folded.as_str()) {
            taken[at] = true;
            latest = true;
            continue;
        }
        let pair =
            words.get(at + 1).filter(|_| !taken[at + 1]).map(|next| [words[at].folded.as_str(), next.folded.as_str()]);
        if pair.is_some_and(|pair| PAIRS.contains(&pair)) {
            taken[at] = true;
            taken[at + 1] = true;
            // "gần đây nhất": the superlative belongs to the pair.
            if words.get(at + 2).is_some_and(|next| next.folded == "nhat") {
                taken[at + 2] = true;
            }
            latest = true;
        }
    }
    latest
}
