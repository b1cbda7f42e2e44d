//! Choosing what a question's prompt carries: the one function the QueryAgent and the
//! recall benchmark both call (`select_context`), replaceable as a whole.
//!
//! When every memory fits the budget, every memory goes in (the model reads them all, no
//! retrieval can do better). Otherwise the question is planned (`plan_query`), candidates
//! come from the store — the plan's days, its names, a BM25 full-text search, the most
//! recent and the most important — and are ranked and packed greedily:
//!
//! 1. When the plan names days or people, memories matching more of them come first (the
//!    days, and each name, listed as an entity or written in the summary), the rest last.
//! 2. Within a group, "the latest …" sorts by the memory's day, newest first, days up to
//!    today before planned ones; any other question sorts by a blend of text relevance,
//!    recency and importance. A latest-question naming no day or person first takes the
//!    memories that match its keywords well ("my latest dentist appointment").
//!
//! Each memory costs the estimated tokens of the exact line the prompt carries, plus one
//! for the line break, so the packed total never exceeds the budget. `select` sits above
//! `store` (it asks for candidates) and below `agents`; it never calls the model.

use std::collections::{HashMap, HashSet};

use super::dates::is_date_word;
use super::lines::{insight_line, memory_line};
use super::pack::{pack, Packed};
use super::plan::{plan_query, DateOrder, NameCache, QueryPlan};
use crate::calendar::CalendarDate;
use crate::domain::{Memory, MemoryId};
use crate::store::{MemoryFilter, MemorySizes, SearchTerm, SqlDriver, Store, StoreError};
use crate::tokens::estimate_tokens;
use crate::words::{fold, folded_words, is_stop_word, words, FoldedWord, Script};

/// Everything the selection needs besides the store.
#[derive(Debug, Clone)]
pub struct SelectionRequest<'a> {
    pub question: &'a str,
    /// The user's local date when asking.
    pub today: CalendarDate,
    /// The user's offset from UTC when asking, to date memories by their creation time.
    pub utc_offset_minutes: i32,
    pub date_order: DateOrder,
    /// Tokens the memories and insights may take in the prompt.
    pub budget_tokens: usize,
    /// The store's entity names, prepared once and kept while they do not change.
    pub names: &'a NameCache,
}

/// What was chosen, and from how much. Memories chosen for the question (rather than all
/// of them) come without their raw text, which the prompt never carries.
#[derive(Debug, Clone, PartialEq)]
pub struct Selection {
    pub plan: QueryPlan,
    pub packed: Packed,
    pub memories_total: usize,
    pub insights_total: usize,
}

/// Characters every memory line has besides its fields: `[memory:` `] ` the two ` · `
/// separators, ` · importance ` and `0.5`.
const LINE_FIXED_CHARS: u64 = 33;

/// The fewest tokens any memory line costs: the fixed characters, a one-character id,
/// source and summary, "undated" (`LINE_FIXED_CHARS + 10` characters), and the line break.
const MIN_LINE_TOKENS: u64 = (LINE_FIXED_CHARS + 10) / 4 + 1;

/// How many of the newest memories tell what a line typically costs.
const LINE_SAMPLE: u32 = 100;

/// Chooses the memories and insights for `request.question`.
pub fn select_context<D: SqlDriver>(store: &Store<D>, request: &SelectionRequest<'_>) -> Result<Selection, StoreError> {
    let status = store.status()?;
    let names = request.names.get(store)?;
    let plan = plan_query(request.question, request.today, request.date_order, &names);
    let memories_total = status.memories as usize;
    let insights_total = status.insights as usize;
    let budget = request.budget_tokens as u64;
    // Reading every memory to count its tokens is only worth it when they might all fit:
    // first by their number alone, then by their sizes.
    if status.memories * MIN_LINE_TOKENS <= budget && lower_bound_tokens(&store.memory_sizes()?) <= budget {
        let memories = store.list_memories(&MemoryFilter::default())?;
        let all: u64 = memories.iter().map(|memory| line_cost(memory) as u64).sum();
        if all <= budget {
            let packed = pack(memories, store.list_consolidations(0, 0)?, request.budget_tokens);
            return Ok(Selection { plan, packed, memories_total, insights_total });
        }
    }
    let context = Context { today: request.today, utc_offset_minutes: request.utc_offset_minutes };
    let pool = pool_size(request.budget_tokens, typical_line_cost(store)?);
    let packed = gather_and_pack(store, &plan, &context, &HashSet::new(), request.budget_tokens, pool, true)?;
    Ok(Selection { plan, packed, memories_total, insights_total })
}

/// The second pass: memories for a plan the model asked for (`more_memories`), leaving
/// out those already in the prompt, within `budget_tokens`. No filler (recent, important):
/// the model asked for something specific.
pub fn select_more<D: SqlDriver>(
    store: &Store<D>,
    plan: &QueryPlan,
    today: CalendarDate,
    utc_offset_minutes: i32,
    exclude: &[MemoryId],
    budget_tokens: usize,
) -> Result<Packed, StoreError> {
    let exclude: HashSet<&str> = exclude.iter().map(|id| id.0.as_str()).collect();
    let pool = pool_size(budget_tokens, typical_line_cost(store)?);
    gather_and_pack(store, plan, &Context { today, utc_offset_minutes }, &exclude, budget_tokens, pool, false)
}

/// The tokens a memory takes in the prompt: its line and the line break.
pub fn line_cost(memory: &Memory) -> usize {
    estimate_tokens(&memory_line(memory)) + 1
}

/// At most the tokens of all memory lines, from character counts alone: a line is at
/// least its fields plus the fixed characters, and costs at least a quarter token a
/// character plus one for the line break.
fn lower_bound_tokens(sizes: &MemorySizes) -> u64 {
    (sizes.core_chars + LINE_FIXED_CHARS * sizes.count) / 4 + sizes.count
}

struct Context {
    today: CalendarDate,
    utc_offset_minutes: i32,
}

/// A memory the store offered, with what the ranking needs to know about it.
struct Candidate {
    memory: Memory,
    day: CalendarDate,
    in_dates: bool,
    /// Index in `plan.entities` of the first name it is about.
    entity: Option<usize>,
    /// How many of the plan's names it is about.
    entities_matched: usize,
    /// BM25 score (0 when the text search did not find it).
    text: f64,
    recent: bool,
}

/// How many candidates each source offers: twice what fills the budget with lines of the
/// typical cost, so that the ranking has a choice.
fn pool_size(budget: usize, typical_cost: usize) -> u32 {
    (2 * budget / typical_cost.max(1)).clamp(60, 4_000) as u32
}

/// The mean cost of the newest memories' lines (the cheapest possible line when there are
/// none): a sample, not a pass over every memory.
fn typical_line_cost<D: SqlDriver>(store: &Store<D>) -> Result<usize, StoreError> {
    let sample = store.list_memories(&MemoryFilter { source_path: None, limit: LINE_SAMPLE, offset: 0 })?;
    if sample.is_empty() {
        return Ok(MIN_LINE_TOKENS as usize);
    }
    Ok(sample.iter().map(line_cost).sum::<usize>() / sample.len())
}

fn gather_and_pack<D: SqlDriver>(
    store: &Store<D>,
    plan: &QueryPlan,
    context: &Context,
    exclude: &HashSet<&str>,
    budget: usize,
    pool: u32,
    filler: bool,
) -> Result<Packed, StoreError> {
    let mut candidates: Vec<Candidate> = Vec::new();
    let mut index: HashMap<String, usize> = HashMap::new();
    let mut add = |memory: Memory| -> Option<usize> {
        if exclude.contains(memory.id.0.as_str()) {
            return None;
        }
        if let Some(&at) = index.get(&memory.id.0) {
            return Some(at);
        }
        index.insert(memory.id.0.clone(), candidates.len());
        let day = event_day(&memory, context.utc_offset_minutes);
        candidates.push(Candidate {
            memory,
            day,
            in_dates: false,
            entity: None,
            entities_matched: 0,
            text: 0.0,
            recent: false,
        });
        Some(candidates.len() - 1)
    };
    if let Some((from, to)) = plan.dates {
        for memory in store.memories_between(from, to, context.utc_offset_minutes, pool * 2)? {
            add(memory);
        }
    }
    for memory in store.memories_about(&plan.entities, pool * 2)? {
        add(memory);
    }
    let mut scores: Vec<(usize, f64)> = Vec::new();
    // The full-text search only adds candidates: if SQLite refuses the expression (FTS's limits),
    // the question is answered from the dates, names and recent memories rather than failing.
    let found = match store.search_memories(&search_terms(plan), pool as usize) {
        Ok(found) => found,
        Err(StoreError::Sql(_)) => Vec::new(),
        Err(other) => return Err(other),
    };
    for found in found {
        if let Some(at) = add(found.memory) {
            scores.push((at, found.score));
        }
    }
    let mut recent: Vec<usize> = Vec::new();
    if filler {
        recent.extend(store.recent_memories(pool)?.into_iter().filter_map(&mut add));
        for memory in store.important_memories(pool / 4)? {
            add(memory);
        }
    }
    for (at, score) in scores {
        candidates[at].text = score;
    }
    for at in recent {
        candidates[at].recent = true;
    }
    let names: Vec<Name> = plan.entities.iter().map(|name| Name::new(name)).collect();
    for candidate in &mut candidates {
        candidate.in_dates = plan.dates.is_some_and(|(from, to)| (from..=to).contains(&candidate.day));
        if names.is_empty() {
            continue;
        }
        let listed: Vec<String> = candidate.memory.entities.iter().map(|entity| fold(&entity.name)).collect();
        // The summary is split into words only when a name it does not list may be in it.
        let folded_summary = fold(&candidate.memory.summary);
        let mut summary: Option<Vec<FoldedWord>> = None;
        let about: Vec<usize> = (0..names.len())
            .filter(|&at| {
                listed.contains(&names[at].folded)
                    || (names[at].may_be_in(&folded_summary)
                        && names[at]
                            .mentioned_in(summary.get_or_insert_with(|| folded_words(&candidate.memory.summary))))
            })
            .collect();
        candidate.entity = about.first().copied();
        candidate.entities_matched = about.len();
    }
    let ranked = rank(candidates, plan, context.today);
    fill(store, ranked, plan, budget)
}

/// A name of the plan, and how a summary may mention it: the whole name in any case, or
/// one of its capitalised parts written with a capital ("Coffee with Frank" is about Frank
/// Miller; Vietnamese notes call Đặng Thùy Linh "Linh").
struct Name {
    folded: String,
    words: Vec<String>,
    parts: Vec<String>,
}

impl Name {
    fn new(name: &str) -> Self {
        let name_words = words(name);
        let parts = if name_words.len() > 1 {
            name_words
                .iter()
                .filter(|word| {
                    word.capitalised()
                        && word.folded.chars().count() >= 3
                        && !is_stop_word(word, Script::Vietnamese, 0)
                        && !is_date_word(&word.folded)
                })
                .map(|word| word.folded.clone())
                .collect()
        } else {
            Vec::new()
        };
        Name { folded: fold(name), words: name_words.into_iter().map(|word| word.folded).collect(), parts }
    }

    /// False when `folded` (a folded text) cannot mention the name: none of its words is in it.
    fn may_be_in(&self, folded: &str) -> bool {
        self.words.first().is_some_and(|first| folded.contains(first.as_str()))
            || self.parts.iter().any(|part| folded.contains(part.as_str()))
    }

    fn mentioned_in(&self, text: &[FoldedWord]) -> bool {
        if self.words.is_empty() {
            return false;
        }
        let whole = text.windows(self.words.len()).any(|window| window.iter().map(|word| &word.folded).eq(&self.words));
        whole || text.iter().any(|word| word.capitalised && self.parts.contains(&word.folded))
    }
}

/// The search for a plan: each keyword (English words as stems with a prefix match, so
/// "meetings" finds "meeting"), each name as a phrase and its capitalised parts, to find
/// memories that mention a person without listing them as an entity.
fn search_terms(plan: &QueryPlan) -> Vec<SearchTerm> {
    let mut terms: Vec<SearchTerm> = plan.keywords.iter().map(|keyword| stem(keyword)).collect();
    for name in &plan.entities {
        terms.push(SearchTerm { text: name.clone(), prefix: false });
        for part in Name::new(name).parts {
            if !terms.iter().any(|term| term.text == part) {
                terms.push(SearchTerm { text: part, prefix: false });
            }
        }
    }
    // Keywords first, then names: a bounded expression whatever the question says.
    terms.truncate(MAX_SEARCH_TERMS);
    terms
}

/// At most this many words and names go into one full-text search.
const MAX_SEARCH_TERMS: usize = 32;

/// A light English stemmer: enough for plurals and -ing/-ed forms to meet in a prefix
/// search. Other scripts and short words are searched as they are.
fn stem(keyword: &str) -> SearchTerm {
    if !keyword.is_ascii() || keyword.len() < 4 {
        return SearchTerm { text: keyword.to_owned(), prefix: false };
    }
    let mut word = keyword;
    for suffix in ["s", "ing", "ed"] {
        if let Some(shorter) = word.strip_suffix(suffix) {
            if shorter.len() >= 4 && !shorter.ends_with('s') {
                word = shorter;
            }
        }
    }
    SearchTerm { text: word.to_owned(), prefix: true }
}

/// Best first: groups by how well a memory matches the plan's days and names, then by
/// date (latest questions) or a score within each group.
fn rank(candidates: Vec<Candidate>, plan: &QueryPlan, today: CalendarDate) -> Vec<Candidate> {
    let focused = plan.dates.is_some() || !plan.entities.is_empty();
    let constraints = usize::from(plan.dates.is_some()) + plan.entities.len();
    let best_text = candidates.iter().map(|candidate| candidate.text).fold(0.0, f64::max);
    let text_norm = |candidate: &Candidate| if best_text > 0.0 { candidate.text / best_text } else { 0.0 };
    let (text_weight, recency_weight, importance_weight) = if !plan.keywords.is_empty() {
        (0.6, 0.25, 0.15)
    } else if !plan.entities.is_empty() {
        (0.4, 0.35, 0.25)
    } else {
        (0.0, 0.6, 0.4)
    };
    let group = |candidate: &Candidate| -> usize {
        if focused {
            let matched = usize::from(candidate.in_dates) + candidate.entities_matched;
            if matched == 0 {
                usize::MAX
            } else {
                constraints.saturating_sub(matched)
            }
        } else if plan.wants_latest && !plan.keywords.is_empty() && text_norm(candidate) < 0.35 {
            // "my latest dentist appointment": the good matches, by date, first.
            1
        } else {
            0
        }
    };
    let mut keyed: Vec<(usize, bool, f64, Candidate)> = candidates
        .into_iter()
        .map(|candidate| {
            let age = (today.to_days() - candidate.day.to_days()).max(0) as f64;
            let recency = 0.5_f64.powf(age / 180.0);
            let score = text_weight * text_norm(&candidate)
                + recency_weight * recency
                + importance_weight * candidate.memory.importance;
            (group(&candidate), candidate.day <= today, score, candidate)
        })
        .collect();
    keyed.sort_by(|a, b| {
        a.0.cmp(&b.0).then_with(|| {
            if plan.wants_latest {
                b.1.cmp(&a.1)
                    .then(b.3.day.cmp(&a.3.day))
                    .then(b.3.memory.created_at.cmp(&a.3.memory.created_at))
                    .then(a.3.memory.id.cmp(&b.3.memory.id))
            } else {
                b.2.total_cmp(&a.2).then(a.3.memory.id.cmp(&b.3.memory.id))
            }
        })
    });
    keyed.into_iter().map(|(.., candidate)| candidate).collect()
}

/// Insights over the chosen memories may take up to this share of the budget (1/10) from
/// the least relevant chosen memories. Without it, memories always fill the budget and no
/// insight ever gets in; with a fixed reserve instead, tight budgets would lose their best
/// memory to a shorter, worse one.
const INSIGHT_SHARE: usize = 10;

/// Packs ranked candidates greedily, then insights over the packed memories (making room
/// at the tail when needed), and says why each memory was chosen.
fn fill<D: SqlDriver>(
    store: &Store<D>,
    ranked: Vec<Candidate>,
    plan: &QueryPlan,
    budget: usize,
) -> Result<Packed, StoreError> {
    let mut packed = Packed::default();
    // In rank order: the tail is the least relevant.
    let mut chosen: Vec<Candidate> = Vec::new();
    for candidate in ranked {
        // No line is shorter than this: the rest cannot fit.
        if budget - packed.tokens < MIN_LINE_TOKENS as usize {
            break;
        }
        let cost = line_cost(&candidate.memory);
        if packed.tokens + cost <= budget {
            packed.tokens += cost;
            chosen.push(candidate);
        }
    }
    let ids: Vec<MemoryId> = chosen.iter().map(|candidate| candidate.memory.id.clone()).collect();
    let mut insights = store.insights_citing_any(&ids)?;
    let included: HashSet<&str> = ids.iter().map(|id| id.0.as_str()).collect();
    // Insights over more of the chosen memories first.
    insights.sort_by_key(|insight| {
        std::cmp::Reverse(insight.memory_ids.iter().filter(|id| included.contains(id.0.as_str())).count())
    });
    let mut room_left = budget / INSIGHT_SHARE;
    for insight in insights {
        let cost = estimate_tokens(&insight_line(&insight)) + 1;
        let mut keep = chosen.len();
        let mut freed = 0;
        while packed.tokens + cost > budget + freed && keep > 0 {
            let last = &chosen[keep - 1].memory;
            if insight.memory_ids.contains(&last.id) {
                break;
            }
            freed += line_cost(last);
            keep -= 1;
        }
        if packed.tokens + cost <= budget + freed && freed <= room_left && cost <= room_left {
            chosen.truncate(keep);
            packed.tokens = packed.tokens - freed + cost;
            room_left -= cost.max(freed);
            packed.insights.push(insight);
        }
    }
    // An insight may have lost sources to a later one's room: keep only those still backed.
    let kept: HashSet<&str> = chosen.iter().map(|candidate| candidate.memory.id.0.as_str()).collect();
    let mut unbacked = 0;
    packed.insights.retain(|insight| {
        let backed = insight.memory_ids.iter().any(|id| kept.contains(id.0.as_str()));
        if !backed {
            unbacked += estimate_tokens(&insight_line(insight)) + 1;
        }
        backed
    });
    packed.tokens -= unbacked;
    packed.reasons = reasons(&chosen, plan);
    chosen.sort_by(|a, b| a.day.cmp(&b.day).then(a.memory.created_at.cmp(&b.memory.created_at)));
    packed.memories = chosen.into_iter().map(|candidate| candidate.memory).collect();
    Ok(packed)
}

/// One reason per chosen memory, the first that applies: its day is the plan's, it is
/// about a name of the plan, the text search found it, it is recent, it is important.
fn reasons(chosen: &[Candidate], plan: &QueryPlan) -> Vec<(String, usize)> {
    let mut labels: Vec<String> = Vec::new();
    if let Some((from, to)) = plan.dates {
        labels.push(if from == to { from.to_string() } else { format!("{from}..{to}") });
    }
    let date_slot = usize::from(plan.dates.is_some());
    labels.extend(plan.entities.iter().cloned());
    let text_slot = labels.len();
    labels.extend(["text".to_owned(), "recent".to_owned(), "important".to_owned()]);
    let mut counts = vec![0usize; labels.len()];
    for candidate in chosen {
        let slot = if candidate.in_dates {
            0
        } else if let Some(entity) = candidate.entity {
            date_slot + entity
        } else if candidate.text > 0.0 {
            text_slot
        } else if candidate.recent {
            text_slot + 1
        } else {
            text_slot + 2
        };
        counts[slot] += 1;
    }
    labels.into_iter().zip(counts).filter(|(_, count)| *count > 0).collect()
}

/// The day a memory is about: when it happened, else the local day it was made.
fn event_day(memory: &Memory, utc_offset_minutes: i32) -> CalendarDate {
    memory
        .happened_on
        .as_deref()
        .and_then(CalendarDate::parse)
        .unwrap_or_else(|| CalendarDate::at(memory.created_at, utc_offset_minutes))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stems_meet_in_a_prefix_search_and_other_words_stay_whole() {
        let stemmed = |word: &str| {
            let term = stem(word);
            (term.text, term.prefix)
        };
        assert_eq!(stemmed("meetings"), ("meet".to_owned(), true));
        assert_eq!(stemmed("passwords"), ("password".to_owned(), true));
        assert_eq!(stemmed("planned"), ("plann".to_owned(), true));
        assert_eq!(stemmed("address"), ("address".to_owned(), true), "a double s is not a plural");
        assert_eq!(stemmed("bus"), ("bus".to_owned(), false));
        assert_eq!(stemmed("ngân"), ("ngân".to_owned(), false));
    }

    #[test]
    fn a_name_is_mentioned_whole_or_by_a_capitalised_part() {
        let name = Name::new("Frank Miller");
        assert!(name.mentioned_in(&folded_words("Coffee with Frank at noon.")));
        assert!(name.mentioned_in(&folded_words("frank miller called")));
        assert!(!name.mentioned_in(&folded_words("to be frank, no")), "a lower-case part is just a word");
        assert!(!name.mentioned_in(&folded_words("Frankly, no")));
        let linh = Name::new("Đặng Thùy Linh");
        assert!(linh.mentioned_in(&folded_words("Họp với Linh về ngân sách")));
        assert!(Name::new("Alice").parts.is_empty(), "a one-word name matches whole only");
        assert!(Name::new("Alice").mentioned_in(&folded_words("Alice's daughter")));
    }

    #[test]
    fn the_lower_bound_never_exceeds_the_real_tokens() {
        let memory = Memory {
            id: MemoryId("m1".into()),
            source_path: String::new(),
            source_kind: crate::domain::SourceKind::Text,
            position: crate::domain::Position { heading: Some("H".into()), line_start: None, line_end: None },
            raw_text: String::new(),
            summary: "ngày".into(),
            entities: vec![],
            topics: vec![],
            importance: 1.0,
            happened_on: None,
            created_at: 0,
            updated_at: 0,
            consolidated: false,
            content_hash: None,
        };
        // id "m1", no source path, "#H", the summary, "undated".
        let core = 2 + 2 + 4 + 7;
        assert!(lower_bound_tokens(&MemorySizes { count: 1, core_chars: core }) <= line_cost(&memory) as u64);
        assert_eq!(memory_line(&memory).chars().count() as u64, core + LINE_FIXED_CHARS + 5, "plus \"typed\"");
    }
}
