//! Choosing what a question's prompt carries: the one function the QueryAgent and the
//! recall benchmark both call (`select_context`), replaceable as a whole.
//!
//! When every memory fits the budget, every memory goes in (the model reads them all, no
//! retrieval can do better). Otherwise the question is planned (`plan_query`), candidates
//! come from the store — the plan's days, its names, a BM25 full-text search, the most
//! recent and the most important — and are ranked and packed greedily:
//!
//! 1. When the plan names days, the memories on them come first (of a span longer than a
//!    week, only those that also match a name or the words), the rest after.
//! 2. Within a group, "the latest …" sorts by the memory's day, newest first, days up to
//!    today before planned ones, the memories matching more of its names first; a
//!    latest-question naming no person first takes the memories that match its keywords well
//!    ("my latest dentist appointment"). Any other question sorts by a score of text relevance
//!    (BM25), its names (each by the share of its memories that fit), what the best matches
//!    lend their neighbours, the words they share and the instances of a kind it asks for,
//!    recency and importance; the people it names take turns.
//!
//! Each memory costs the estimated tokens of the exact line the prompt carries, plus one
//! for the line break, so the packed total never exceeds the budget. `select` sits above
//! `store` (it asks for candidates) and below `agents`; it never calls the model.

use std::collections::{HashMap, HashSet};

use super::dates::is_date_word;
use super::lines::{
    in_a_note, insight_cost, line_tokens, lines_cost, memory_line, memory_line_in_note, MEMORY_ELEMENT_TOKENS,
};
use super::pack::{pack, Packed};
use super::plan::{plan_query, DateOrder, KnownNames, NameCache, QueryPlan, LOCATIVES, MAX_NAMES};
use crate::calendar::CalendarDate;
use crate::domain::{Memory, MemoryId};
use crate::stems::query_terms;
use crate::store::{MemoryFilter, MemoryScope, MemorySizes, ScoredMemory, SearchTerm, SqlDriver, Store, StoreError};
use crate::tokens::CharCounts;
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
    /// What a query-planning model call made of the question (search words, names, dates),
    /// added to the plan the rules make.
    pub hint: Option<&'a QueryPlan>,
    /// The conversation's earlier questions, latest first: a follow-up without names or dates
    /// of its own ("and when was that?") is about theirs.
    pub earlier: &'a [&'a str],
    /// Only memories inside this scope are chosen (the user asked about a note, a folder, a
    /// tag's notes or some days); `None`, or a scope that limits nothing, means all.
    pub scope: Option<&'a MemoryScope>,
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

/// Characters every memory line has besides its fields: `[memory:`, `] ` and a ` · ` separator
/// (the line of a note's memory after another of it has no path, and one separator fewer).
const LINE_FIXED_CHARS: u64 = 13;

/// The fewest tokens any memory line costs: the fixed characters, a one-character id and
/// summary, "undated" (`LINE_FIXED_CHARS + 9` characters), its element and the line break.
const MIN_LINE_TOKENS: u64 = (LINE_FIXED_CHARS + 9) / 4 + MEMORY_ELEMENT_TOKENS as u64 + 1;

/// At most this many of the best-ranked memories whose lines did not fit are kept for their
/// passages (`Packed::runners_up`): the candidates a question's passages are chosen from when
/// the lines' share of the budget is spent, read only while the pool of passages has room
/// (`agents::passages`).
pub const MAX_RUNNERS_UP: usize = 40;

/// How many of the newest memories tell what a line typically costs.
const LINE_SAMPLE: u32 = 100;

/// Chooses the memories and insights for `request.question`.
pub fn select_context<D: SqlDriver>(store: &Store<D>, request: &SelectionRequest<'_>) -> Result<Selection, StoreError> {
    let status = store.status()?;
    let names = request.names.get(store)?;
    let mut plan = plan_query(request.question, request.today, request.date_order, &names);
    if let Some(hint) = request.hint {
        add_hint(&mut plan, hint, request, &names);
    }
    if !request.earlier.is_empty() {
        let before = plan_query(&request.earlier.join("\n"), request.today, request.date_order, &names);
        add_earlier(&mut plan, before);
    }
    let scope = request.scope.filter(|scope| scope.limits());
    let insights_total = status.insights as usize;
    let budget = request.budget_tokens as u64;
    if let Some(scope) = scope {
        // The scope first: when all of it fits, all of it goes in, and nothing outside it.
        let in_scope = store.count_in_scope(scope)?;
        if in_scope * MIN_LINE_TOKENS <= budget {
            let memories = store.memories_in_scope(scope, false, 0)?;
            if memories.iter().map(|memory| line_cost(memory) as u64).sum::<u64>() <= budget {
                let ids: Vec<MemoryId> = memories.iter().map(|memory| memory.id.clone()).collect();
                let insights = store.insights_citing_any(&ids)?;
                let mut packed = pack(memories, insights, request.budget_tokens);
                rank_for_question(store, &plan, request, Some(scope), &mut packed)?;
                placed_in_reading_order(store, &mut packed, request.utc_offset_minutes)?;
                return Ok(Selection { plan, packed, memories_total: in_scope as usize, insights_total });
            }
        }
        let typical = typical_line_cost(store)?;
        let context = Context {
            today: request.today,
            utc_offset_minutes: request.utc_offset_minutes,
            capacity: request.budget_tokens / typical.max(1),
            scope: Some(scope),
        };
        let pool = pool_size(request.budget_tokens, typical);
        let mut packed = gather_and_pack(store, &plan, &context, &HashSet::new(), request.budget_tokens, pool, true)?;
        placed_in_reading_order(store, &mut packed, request.utc_offset_minutes)?;
        return Ok(Selection { plan, packed, memories_total: in_scope as usize, insights_total });
    }
    let memories_total = status.memories as usize;
    // Reading every memory to count its tokens is only worth it when they might all fit:
    // first by their number alone, then by their sizes.
    if status.memories * MIN_LINE_TOKENS <= budget && lower_bound_tokens(&store.memory_sizes()?) <= budget {
        let memories = store.list_memories(&MemoryFilter::default())?;
        let all: u64 = memories.iter().map(|memory| line_cost(memory) as u64).sum();
        if all <= budget {
            let mut packed = pack(memories, store.list_consolidations(0, 0)?, request.budget_tokens);
            rank_for_question(store, &plan, request, None, &mut packed)?;
            placed_in_reading_order(store, &mut packed, request.utc_offset_minutes)?;
            return Ok(Selection { plan, packed, memories_total, insights_total });
        }
    }
    let typical = typical_line_cost(store)?;
    let capacity = request.budget_tokens / typical.max(1);
    let context =
        Context { today: request.today, utc_offset_minutes: request.utc_offset_minutes, capacity, scope: None };
    let pool = pool_size(request.budget_tokens, typical);
    let mut packed = gather_and_pack(store, &plan, &context, &HashSet::new(), request.budget_tokens, pool, true)?;
    placed_in_reading_order(store, &mut packed, request.utc_offset_minutes)?;
    Ok(Selection { plan, packed, memories_total, insights_total })
}

/// When every memory fits, they all go in, but the passages behind them may not: ranks them
/// for the question as a search would (`gather_and_rank`), the ones it does not find after, in
/// `pack`'s order of recency and importance.
fn rank_for_question<D: SqlDriver>(
    store: &Store<D>,
    plan: &QueryPlan,
    request: &SelectionRequest<'_>,
    scope: Option<&MemoryScope>,
    packed: &mut Packed,
) -> Result<(), StoreError> {
    let typical = typical_line_cost(store)?;
    let context = Context {
        today: request.today,
        utc_offset_minutes: request.utc_offset_minutes,
        capacity: request.budget_tokens / typical.max(1),
        scope,
    };
    let pool = pool_size(request.budget_tokens, typical);
    let found = gather_and_rank(store, plan, &context, &HashSet::new(), pool, true)?;
    let packed_ids: HashSet<&MemoryId> = packed.ranked.iter().collect();
    let mut ranked: Vec<MemoryId> = Vec::with_capacity(packed.ranked.len());
    let mut taken: HashSet<MemoryId> = HashSet::new();
    for candidate in found {
        let id = candidate.memory.id;
        if packed_ids.contains(&id) && taken.insert(id.clone()) {
            ranked.push(id);
        }
    }
    ranked.extend(packed.ranked.iter().filter(|id| !taken.contains(*id)).cloned());
    debug_assert_eq!(ranked.len(), packed.ranked.len(), "the ranking holds every packed memory once");
    packed.ranked = ranked;
    Ok(())
}

/// The chosen memories and the runners-up with where they are in their notes (candidates are
/// read without it, by the thousand), the chosen in reading order: their lines order a note's
/// memories, and its passages are cut by them. One query for both; the fields the memory line
/// shows are left as the packer counted them.
fn placed_in_reading_order<D: SqlDriver>(
    store: &Store<D>,
    packed: &mut Packed,
    utc_offset_minutes: i32,
) -> Result<(), StoreError> {
    let unplaced: Vec<MemoryId> = packed
        .memories
        .iter()
        .chain(&packed.runners_up)
        .filter(|memory| memory.source_kind == crate::domain::SourceKind::Note && memory.position.line_start.is_none())
        .map(|memory| memory.id.clone())
        .collect();
    if !unplaced.is_empty() {
        let mut cards: HashMap<String, Memory> =
            store.get_memories(&unplaced)?.into_iter().map(|card| (card.id.0.clone(), card)).collect();
        for memory in packed.memories.iter_mut().chain(packed.runners_up.iter_mut()) {
            if let Some(card) = cards.remove(&memory.id.0) {
                memory.position.line_start = card.position.line_start;
                memory.position.line_end = card.position.line_end;
                memory.content_hash = card.content_hash;
            }
        }
    }
    reading_order(&mut packed.memories, utc_offset_minutes);
    // The packer counted each note's path on every line it could be first on; now the order
    // is known, the tokens are what the prompt will carry.
    let exact = packed_tokens(packed);
    debug_assert!(exact <= packed.tokens, "the lines in order cost at most what the packer counted");
    packed.tokens = exact;
    Ok(())
}

/// The tokens `packed` takes in the prompt as it is ordered: its memory lines (`lines_cost`)
/// and its insights.
pub fn packed_tokens(packed: &Packed) -> usize {
    lines_cost(&packed.memories) + packed.insights.iter().map(insight_cost).sum::<usize>()
}

/// Sorts memories as the prompt carries them: by date, except that one note's memories stay
/// together in line order, at the place of its earliest one — its chunks read as the note does,
/// where a strict date order would interleave them with other notes' (and a note's later chunk
/// can carry an earlier date than the first). Typed text and selections stand alone.
pub fn reading_order(memories: &mut [Memory], utc_offset_minutes: i32) {
    let is_note = |memory: &Memory| memory.source_kind == crate::domain::SourceKind::Note;
    let mut first_of_note: HashMap<String, (CalendarDate, i64)> = HashMap::new();
    for memory in memories.iter().filter(|memory| is_note(memory)) {
        let at = (event_day(memory, utc_offset_minutes), memory.created_at);
        first_of_note.entry(memory.source_path.clone()).and_modify(|first| *first = (*first).min(at)).or_insert(at);
    }
    memories.sort_by_cached_key(|memory| {
        let (day, created) = (event_day(memory, utc_offset_minutes), memory.created_at);
        let note = if is_note(memory) { first_of_note.get(&memory.source_path).copied() } else { None };
        let (group_day, group_created) = note.unwrap_or((day, created));
        ReadingPlace {
            group_day,
            group_created,
            // A note is one group by its path; anything else is a group of its own, by its id.
            group: if note.is_some() { memory.source_path.clone() } else { format!("\u{0}{}", memory.id.0) },
            line: memory.position.line_start.unwrap_or(0),
            day,
            created,
            id: memory.id.0.clone(),
        }
    });
}

/// Where a memory goes in reading order: its group (a note, or the memory alone) at the group's
/// earliest date, then its line in the note, then its own date.
#[derive(PartialEq, Eq, PartialOrd, Ord)]
struct ReadingPlace {
    group_day: CalendarDate,
    group_created: i64,
    group: String,
    line: u32,
    day: CalendarDate,
    created: i64,
    id: String,
}

/// At most this many keywords come from a planning call besides the question's own.
const MAX_HINT_KEYWORDS: usize = 16;

/// Adds a planning call's plan to the rules' one: its keywords after the question's own (the
/// words the notes may use instead: "outdoorsy" → hiking, camping), its names as the store
/// spells them, its dates when the question's words named none.
fn add_hint(plan: &mut QueryPlan, hint: &QueryPlan, request: &SelectionRequest<'_>, names: &KnownNames) {
    let mut added = 0;
    for keyword in &hint.keywords {
        for word in words(keyword) {
            let common = is_stop_word(&word, Script::Other, 0) || word.lower.chars().count() < 2;
            if !common && added < MAX_HINT_KEYWORDS && !plan.keywords.contains(&word.lower) {
                plan.keywords.push(word.lower.clone());
                plan.planned.push(word.lower);
                added += 1;
            }
        }
    }
    // The names as the store has them: the planner may write "Mel" for Melanie.
    let spelled = plan_query(&hint.entities.join(", "), request.today, request.date_order, names);
    for name in spelled.entities {
        if !plan.entities.contains(&name) && plan.entities.len() < MAX_NAMES {
            plan.entities.push(name);
        }
    }
    if plan.dates.is_none() {
        plan.dates = hint.dates;
    }
}

/// At most this many keywords come from the conversation's earlier questions.
const MAX_EARLIER_KEYWORDS: usize = 8;

/// Adds the plan of the earlier questions to a follow-up's: their names and dates where it has
/// none of its own, their keywords after its own.
fn add_earlier(plan: &mut QueryPlan, before: QueryPlan) {
    if plan.entities.is_empty() {
        plan.entities = before.entities;
    }
    if plan.dates.is_none() {
        plan.dates = before.dates;
    }
    for keyword in before.keywords.into_iter().take(MAX_EARLIER_KEYWORDS) {
        if !plan.keywords.contains(&keyword) {
            plan.keywords.push(keyword);
        }
    }
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
    scope: Option<&MemoryScope>,
) -> Result<Packed, StoreError> {
    let exclude: HashSet<&str> = exclude.iter().map(|id| id.0.as_str()).collect();
    let typical = typical_line_cost(store)?;
    let scope = scope.filter(|scope| scope.limits());
    let context = Context { today, utc_offset_minutes, capacity: budget_tokens / typical.max(1), scope };
    let mut packed =
        gather_and_pack(store, plan, &context, &exclude, budget_tokens, pool_size(budget_tokens, typical), false)?;
    placed_in_reading_order(store, &mut packed, utc_offset_minutes)?;
    Ok(packed)
}

/// The tokens a memory takes in the prompt: its line, its element and the line break.
pub fn line_cost(memory: &Memory) -> usize {
    line_tokens(&memory_line(memory))
}

/// At most the tokens of all memory lines each written in full (as `line_cost` counts them for
/// "everything fits"), from character counts alone: a line is at least its fields plus the
/// fixed characters, and costs at least a quarter token a character plus its element and one
/// for the line break.
fn lower_bound_tokens(sizes: &MemorySizes) -> u64 {
    (sizes.core_chars + LINE_FIXED_CHARS * sizes.count) / 4 + (MEMORY_ELEMENT_TOKENS as u64 + 1) * sizes.count
}

struct Context<'a> {
    today: CalendarDate,
    utc_offset_minutes: i32,
    /// About how many memory lines fit the budget.
    capacity: usize,
    /// Candidates outside it are never taken.
    scope: Option<&'a MemoryScope>,
}

/// A memory the store offered, with what the ranking needs to know about it.
struct Candidate {
    memory: Memory,
    day: CalendarDate,
    in_dates: bool,
    /// Indexes in `plan.entities` of the names it is about.
    about: Vec<usize>,
    /// Those of `about` it only mentions while listing others: the memory's entities were
    /// read, and the name was not one of them ("Thanks, Melanie!" in Caroline's turn).
    only_mentions: Vec<usize>,
    /// BM25 score (0 when the text search did not find it).
    text: f64,
    recent: bool,
    /// What the question gives it: text, names, recency and importance, and its `lift` (`score`).
    score: f64,
    /// The part of `score` its names give.
    name_credit: f64,
    /// What it matches of the words the best matches share, when the question's own words did
    /// not find it (`add_expansion`).
    lift: f64,
    /// A share of the score of a memory it neighbours in its source.
    borrowed: f64,
    /// The share borrowed from the memory right before it when that one asks something: added to
    /// its own score, not instead of it. "What do you take away from it?" is answered by the next
    /// turn, which is also the person's the question names; the one after a paragraph of an
    /// article is only near it (SQuAD loses when every neighbour adds).
    answers: f64,
    /// Names a place (only looked for when the question asks where).
    place: bool,
}

impl Candidate {
    fn new(memory: Memory, utc_offset_minutes: i32) -> Self {
        let day = event_day(&memory, utc_offset_minutes);
        Candidate {
            memory,
            day,
            in_dates: false,
            about: Vec::new(),
            only_mentions: Vec::new(),
            text: 0.0,
            recent: false,
            score: 0.0,
            name_credit: 0.0,
            lift: 0.0,
            borrowed: 0.0,
            answers: 0.0,
            place: false,
        }
    }

    /// Whether anything of the question (a day, a name, a word) points at it.
    fn matched(&self) -> bool {
        self.in_dates || !self.about.is_empty() || self.text > 0.0
    }

    /// Its own score with what it may answer, or what it borrowed, whichever is more.
    fn rank_score(&self) -> f64 {
        (self.score + self.answers).max(self.borrowed)
    }
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

/// The best memories whose neighbours become candidates too.
const NEIGHBOURED: usize = 40;
/// The share of a memory's score (beyond its names' part, `NAME_CARRIED`) its neighbours in
/// the source get: evidence in a conversation or a note clusters ("What did she say next?").
const NEIGHBOUR_SHARE: f64 = 0.5;
/// The share of a memory's name credit (the question's people) its neighbours borrow, instead
/// of `NEIGHBOUR_SHARE`: the reply to a person's turn is part of their exchange. With half, a
/// bigger budget lost evidence a smaller one had: once a person's memories counted fully (as
/// they did up to 1.5 times what fits) all their small talk outranked the other side's reply
/// to their best match ("That letter is awesome!" after Joanna's "My brother sent me something…"). On LoCoMo's
/// turns (development half) evidence recall 0.853 / 0.919 / 0.955 → 0.853 / 0.922 / 0.960 at
/// 4K / 8K / 16K tokens, 9 → 5 questions with less at 16K than at 8K; 0.65 / 0.7 / 0.85 / 1.0
/// gave 0.958 / 0.959 / 0.957 / 0.953 at 16K. Sessions, SQuAD, the synthetic sets and tldr
/// unchanged.
const NAME_CARRIED: f64 = 0.75;
/// How far from the best the neighbours go: the turn after a match is often a question ("How
/// long have you had them?") and the one after it the answer ("For 3 years now"). Each step
/// passes on `NEIGHBOUR_SHARE` of what the step before borrowed. On LoCoMo's turns (development
/// half) one step gave 0.792 / 0.855 / 0.882 at 4K / 8K / 16K tokens, two 0.796 / 0.882 / 0.907,
/// three 0.795 / 0.883 / 0.909 (one more query a question, for nothing).
const NEIGHBOUR_STEPS: usize = 2;

/// The share of the best score a memory about one of the question's people gets when it
/// names what the best memories about the others name.
const FEEDBACK_SHARE: f64 = 0.6;
/// The best memories (matching a name and the words) whose names are searched again.
const FEEDBACK_FROM: usize = 3;
/// At most this many names are taken from them.
const FEEDBACK_TERMS: usize = 4;

/// The names (capitalised words that are not the question's own, not opening a sentence, and
/// the entities they list) of the best memories matching both a name and the words.
fn feedback_terms(candidates: &[Candidate], plan: &QueryPlan) -> Vec<SearchTerm> {
    let mut best: Vec<&Candidate> =
        candidates.iter().filter(|candidate| candidate.text > 0.0 && !candidate.about.is_empty()).collect();
    best.sort_by(|a, b| b.score.total_cmp(&a.score));
    let own: HashSet<String> = plan.entities.iter().flat_map(|name| words(name)).map(|word| word.folded).collect();
    let mut terms: Vec<SearchTerm> = Vec::new();
    for candidate in best.into_iter().take(FEEDBACK_FROM) {
        let mut found: Vec<String> = Vec::new();
        // A sentence's first word is capitalised whatever it is: only the others are names.
        for sentence in candidate.memory.summary.split(['.', '!', '?', ':', ';']) {
            for word in words(sentence).into_iter().skip(1) {
                if word.capitalised() && word.folded.chars().count() >= 3 && !is_stop_word(&word, Script::Other, 0) {
                    found.push(word.folded);
                }
            }
        }
        found.extend(candidate.memory.entities.iter().map(|entity| fold(&entity.name)));
        for text in found {
            let term = SearchTerm::word(text, false);
            if !own.contains(&term.text) && !terms.contains(&term) && terms.len() < FEEDBACK_TERMS {
                terms.push(term);
            }
        }
    }
    terms
}

/// Gathers candidates for `plan` from the store, ranks them and packs the best into `budget`;
/// `filler` adds the recent and important memories (of the scope, when there is one).
fn gather_and_pack<D: SqlDriver>(
    store: &Store<D>,
    plan: &QueryPlan,
    context: &Context<'_>,
    exclude: &HashSet<&str>,
    budget: usize,
    pool: u32,
    filler: bool,
) -> Result<Packed, StoreError> {
    let ranked = gather_and_rank(store, plan, context, exclude, pool, filler)?;
    fill(store, ranked, plan, budget)
}

/// The candidates for `plan`, best first.
fn gather_and_rank<D: SqlDriver>(
    store: &Store<D>,
    plan: &QueryPlan,
    context: &Context<'_>,
    exclude: &HashSet<&str>,
    pool: u32,
    filler: bool,
) -> Result<Vec<Candidate>, StoreError> {
    let mut gathered = Gathered { candidates: Vec::new(), index: HashMap::new(), exclude, context };
    let within = context.scope.cloned().unwrap_or_default();
    gathered.add_matches(store, plan, pool, &within)?;
    if filler {
        gathered.add_filler(store, pool)?;
    }
    let names: Vec<Name> = plan.entities.iter().map(|name| Name::new(name)).collect();
    for candidate in &mut gathered.candidates {
        judge(candidate, plan, &names);
    }
    score(&mut gathered.candidates, plan, context);
    if plan.compares && plan.entities.len() >= 2 {
        gathered.add_feedback(store, plan, &names, pool, &within)?;
    }
    let kinds = gathered.add_kinds(store, plan, &names, pool, &within)?;
    if gathered.add_expansion(store, plan, &names, pool, &within)? || kinds {
        // Again, with the lifts and the memories the expansion added.
        score(&mut gathered.candidates, plan, context);
    }
    gathered.add_neighbours(store, plan, &names)?;
    Ok(rank(gathered.candidates, plan, context.today))
}

/// The candidates gathered so far, each memory once.
struct Gathered<'a> {
    candidates: Vec<Candidate>,
    /// Where each memory id is in `candidates`.
    index: HashMap<String, usize>,
    exclude: &'a HashSet<&'a str>,
    context: &'a Context<'a>,
}

impl Gathered<'_> {
    /// Takes `memory` as a candidate unless it is excluded or outside the scope; where it is
    /// in `candidates` (also when it was there already), `None` when not taken.
    fn add(&mut self, memory: Memory) -> Option<usize> {
        if self.exclude.contains(memory.id.0.as_str()) {
            return None;
        }
        let offset = self.context.utc_offset_minutes;
        if self.context.scope.is_some_and(|scope| !scope.contains_memory(&memory, event_day(&memory, offset))) {
            return None;
        }
        if let Some(&at) = self.index.get(&memory.id.0) {
            return Some(at);
        }
        self.index.insert(memory.id.0.clone(), self.candidates.len());
        self.candidates.push(Candidate::new(memory, offset));
        debug_assert_eq!(self.index.len(), self.candidates.len(), "each memory is one candidate");
        Some(self.candidates.len() - 1)
    }

    /// The memories the plan points at: on its days, about its names, with its words (scored)
    /// or its names written in them.
    fn add_matches<D: SqlDriver>(
        &mut self,
        store: &Store<D>,
        plan: &QueryPlan,
        pool: u32,
        within: &MemoryScope,
    ) -> Result<(), StoreError> {
        if let Some((from, to)) = plan.dates {
            for memory in store.memories_between(from, to, self.context.utc_offset_minutes, pool * 2)? {
                self.add(memory);
            }
        }
        for memory in store.memories_about(&plan.entities, pool * 2)? {
            self.add(memory);
        }
        // The words are scored; the names only find memories that mention them without listing
        // them (a name's own weight is in `score`, and scoring its every mention again would rank a
        // person's memories by how often they say the name).
        let (words, names) = search_terms(plan);
        for found in search(store, &words, pool as usize, within)? {
            if let Some(at) = self.add(found.memory) {
                self.candidates[at].text = found.score;
            }
        }
        for found in search(store, &names, pool as usize, within)? {
            self.add(found.memory);
        }
        Ok(())
    }

    /// The most recent and the most important memories, of the scope when there is one (the
    /// searches cover every memory; these are the scope's own filler).
    fn add_filler<D: SqlDriver>(&mut self, store: &Store<D>, pool: u32) -> Result<(), StoreError> {
        let (recent, important) = match self.context.scope {
            Some(scope) => {
                (store.memories_in_scope(scope, false, pool)?, store.memories_in_scope(scope, true, pool / 4)?)
            }
            None => (store.recent_memories(pool)?, store.important_memories(pool / 4)?),
        };
        for memory in recent {
            if let Some(at) = self.add(memory) {
                self.candidates[at].recent = true;
            }
        }
        for memory in important {
            self.add(memory);
        }
        Ok(())
    }

    /// "Which city have both Jean and John visited?": the place one side's best memory names
    /// ("I visited Lisbon") is searched among the other side's ("When I was in Lisbon …").
    fn add_feedback<D: SqlDriver>(
        &mut self,
        store: &Store<D>,
        plan: &QueryPlan,
        names: &[Name],
        pool: u32,
        within: &MemoryScope,
    ) -> Result<(), StoreError> {
        let best_score = self.candidates.iter().map(|candidate| candidate.score).fold(0.0, f64::max);
        let fresh_from = self.candidates.len();
        for found in search(store, &feedback_terms(&self.candidates, plan), pool as usize / 4, within)? {
            if let Some(at) = self.add(found.memory) {
                let candidate = &mut self.candidates[at];
                if at >= fresh_from {
                    judge(candidate, plan, names);
                }
                if !candidate.about.is_empty() {
                    candidate.borrowed = candidate.borrowed.max(FEEDBACK_SHARE * best_score);
                }
            }
        }
        Ok(())
    }

    /// The memories of the question's people that its words did not find, lifted by how well
    /// they match the words the best matches share (`expansion_terms`); whether it lifted or
    /// added any (the scores are then to be counted again).
    fn add_expansion<D: SqlDriver>(
        &mut self,
        store: &Store<D>,
        plan: &QueryPlan,
        names: &[Name],
        pool: u32,
        within: &MemoryScope,
    ) -> Result<bool, StoreError> {
        let terms = expansion_terms(store, &self.candidates, plan)?;
        if terms.is_empty() {
            return Ok(false);
        }
        let found = search(store, &terms, pool as usize, within)?;
        let best_score = self.candidates.iter().map(|candidate| candidate.score).fold(0.0, f64::max);
        Ok(self.lift_found(found, EXPAND_SHARE * best_score, |share| share, plan, names))
    }

    /// The memories naming an instance of the kind the question asks for (`kinds`: "What martial
    /// arts…" → kickboxing, taekwondo, …) that its words did not find, lifted by how well they
    /// match; of its people when it names any. Whether it lifted or added any.
    fn add_kinds<D: SqlDriver>(
        &mut self,
        store: &Store<D>,
        plan: &QueryPlan,
        names: &[Name],
        pool: u32,
        within: &MemoryScope,
    ) -> Result<bool, StoreError> {
        if plan.instance_terms.is_empty() {
            return Ok(false);
        }
        let terms: Vec<SearchTerm> = plan
            .instance_terms
            .iter()
            .take(MAX_SEARCH_TERMS)
            .map(|stem| SearchTerm::word(stem.clone(), false))
            .collect();
        let found = search(store, &terms, pool as usize, within)?;
        // Among a person's memories any instance tells; across the whole store a weak match is one
        // of many, lifted as it scored.
        let shape: fn(f64) -> f64 = if plan.entities.is_empty() { |share| share } else { instance_share };
        Ok(self.lift_found(found, KIND_LIFT, shape, plan, names))
    }

    /// Lifts each memory `found` that the question's own words did not find (of its people,
    /// when it names any) by up to `most`, by how well it matched (its share of the best match,
    /// shaped by `shape`); whether it lifted or added any.
    fn lift_found(
        &mut self,
        found: Vec<ScoredMemory>,
        most: f64,
        shape: fn(f64) -> f64,
        plan: &QueryPlan,
        names: &[Name],
    ) -> bool {
        let best_found = found.iter().map(|found| found.score).fold(0.0, f64::max);
        if best_found <= 0.0 {
            return false;
        }
        let fresh_from = self.candidates.len();
        for found in found {
            let lift = most * shape(found.score / best_found);
            let Some(at) = self.add(found.memory) else { continue };
            let candidate = &mut self.candidates[at];
            if at >= fresh_from {
                judge(candidate, plan, names);
            }
            if candidate.text == 0.0 && (plan.entities.is_empty() || !candidate.about.is_empty()) {
                candidate.lift = candidate.lift.max(lift);
            }
        }
        true
    }

    /// Neighbours of the best, and theirs (`NEIGHBOUR_STEPS`): the turn after an answer, the
    /// chunk after a heading, the answer to a question next to a match.
    fn add_neighbours<D: SqlDriver>(
        &mut self,
        store: &Store<D>,
        plan: &QueryPlan,
        names: &[Name],
    ) -> Result<(), StoreError> {
        let candidates = &self.candidates;
        let mut best: Vec<usize> = (0..candidates.len()).filter(|&at| candidates[at].matched()).collect();
        best.sort_by(|&a, &b| candidates[b].score.total_cmp(&candidates[a].score));
        best.truncate(NEIGHBOURED.min(self.context.capacity.max(1)));
        let mut reached: HashSet<String> = best.iter().map(|&at| candidates[at].memory.id.0.clone()).collect();
        // Each memory whose neighbours are asked for: what it gives them, and whether it asks.
        let mut step: HashMap<String, Parent> = best
            .iter()
            .map(|&at| {
                let candidate = &candidates[at];
                (
                    candidate.memory.id.0.clone(),
                    Parent {
                        score: candidate.score,
                        name_credit: candidate.name_credit,
                        asks: asks(&candidate.memory),
                    },
                )
            })
            .collect();
        for _ in 0..NEIGHBOUR_STEPS {
            if step.is_empty() {
                break;
            }
            let mut ids: Vec<MemoryId> = step.keys().map(|id| MemoryId(id.clone())).collect();
            // The order the store is asked in decides ties: the same every time.
            ids.sort();
            let fresh_from = self.candidates.len();
            let mut next: HashMap<String, Parent> = HashMap::new();
            for neighbour in store.neighbours_of(&ids)? {
                let Some(parent) = step.get(&neighbour.of.0).copied() else { continue };
                debug_assert!(parent.name_credit <= parent.score + 1e-9, "the names' part is part of the score");
                let share = NEIGHBOUR_SHARE * (parent.score - parent.name_credit) + NAME_CARRIED * parent.name_credit;
                let Some(at) = self.add(neighbour.memory) else { continue };
                let candidate = &mut self.candidates[at];
                if at >= fresh_from && candidate.about.is_empty() && !candidate.in_dates {
                    judge(candidate, plan, names);
                }
                candidate.borrowed = candidate.borrowed.max(share);
                if parent.asks && neighbour.after {
                    candidate.answers = candidate.answers.max(share);
                }
                if !reached.contains(&candidate.memory.id.0) {
                    let asks = asks(&candidate.memory);
                    let entry = next.entry(candidate.memory.id.0.clone()).or_insert(Parent {
                        score: 0.0,
                        name_credit: 0.0,
                        asks,
                    });
                    entry.score = entry.score.max(share);
                }
            }
            reached.extend(next.keys().cloned());
            step = next;
        }
        Ok(())
    }
}

/// A memory whose neighbours become candidates: the score they borrow a share of, and whether
/// it asks something (its next memory may answer).
#[derive(Clone, Copy)]
struct Parent {
    score: f64,
    name_credit: f64,
    asks: bool,
}

/// Expansion, when a question names people and its words find some of their memories: the
/// best of those (`EXPAND_FROM`) are read for the words at least two of them share
/// (`EXPAND_MIN_SHARED`); the most telling of those (`EXPAND_TERMS`, by how many of the best
/// hold them and how rare they are in the store) are searched, and a memory of those people that
/// the question's own words did not find gets up to `EXPAND_SHARE` of the best score by how well
/// it matches them. "What activities has Melanie done with her family?" finds her turns that
/// say "family"; they also say "kids", and her turns about the kids that never say "family" then
/// come before her small talk.
///
/// A memory the question's words found keeps its own text score: lifting those too ranked
/// near-copies of the best match ("We should meet up in the city soon") over the one answer
/// sharing no word with it (the synthetic conversations lost "Which city have both John and
/// Jean visited?"). A question without names is left alone: lifting any memory gave SQuAD
/// +0.003 at 16K and 32K and took a German page's twin out of tldr-pages at 16K (−0.002).
/// On LoCoMo's turns (development half) evidence recall 0.838 / 0.900 / 0.943 → 0.839 / 0.907
/// / 0.947 at 4K / 8K / 16K tokens: multi-hop 0.736 → 0.765 and open-domain 0.661 → 0.678 at
/// 8K, single-hop 0.963 → 0.958; every older set unchanged. One search and a few term counts
/// more a question (about 2 ms natively).
const EXPAND_FROM: usize = 5;
const EXPAND_MIN_SHARED: usize = 2;
const EXPAND_TERMS: usize = 8;
const EXPAND_SHARE: f64 = 0.2;

/// What naming an instance of the kind a question asks for adds to a memory's score, at most
/// (`add_kinds`): about what a question's word adds (`score`), whatever the rest scored. On
/// LoCoMo's turns (development half) at 4K / 8K / 16K tokens, evidence recall 0.853 / 0.922 /
/// 0.960 → 0.860 / 0.930 / 0.967 (multi-hop 0.673 / 0.795 / 0.902 → 0.702 / 0.837 / 0.935,
/// open-domain 0.693 → 0.705 at 8K); 0.35 to 0.7 within a question of it, 0.15 a few less; as a
/// share of the best score (as `EXPAND_SHARE`), 0.3: 0.859 / 0.929 / 0.967, and a person's small
/// talk outranked their kickboxing when no word of the question matched (`recall_patterns.rs`).
const KIND_LIFT: f64 = 0.5;
/// How a memory's match of the instances, as a share of the best match, shapes its lift: to the
/// power 5/8, so that naming one instance ("I'm also trying out yoga") counts nearly as much as
/// listing several ("weight training, running and the gym"), which the sum of their matches put
/// far ahead. In square roots (x^1/2 · x^1/8): `powf` with an exponent that is not a constant
/// brings libm's `pow` into the module, 1.3 KB of `main.js`. On LoCoMo's turns (development
/// half) at 4K / 8K / 16K tokens, the share itself → x^5/8: evidence recall 0.877 / 0.938 /
/// 0.971 → 0.879 / 0.939 / 0.972 (open-domain 0.682 / 0.797 / 0.877 → 0.722 / 0.809 / 0.877,
/// multi-hop 0.734 / 0.852 / 0.936 → 0.732 / 0.853 / 0.941); the powers 0.6, 0.7 and 0.75 gave
/// 0.879 / 0.939 / 0.972, 0.878 / 0.939 / 0.971 and the same; 0.5 0.880 / 0.939 / 0.972 but the
/// sessions lost a question at 8K (answer in the packed prompt 0.780 → 0.779); 0 (any instance
/// lifts fully) 0.882 / 0.938 / 0.971. The sessions' answer in the packed prompt 0.701 → 0.700
/// at 4K (one question) and unchanged at 8K and 16K; the synthetic sets and tldr-pages unchanged
/// (`recall_patterns.rs` fails with the share itself). Only for a question naming people
/// (`add_kinds`): across the whole store the flatter lift let many weak matches of "languages"
/// and "political" push two of SQuAD's paragraphs out at 4K (recall 0.898 → 0.896).
fn instance_share(share: f64) -> f64 {
    debug_assert!((0.0..=1.0 + 1e-9).contains(&share), "a share of the best match: {share}");
    let root = share.sqrt();
    root * root.sqrt().sqrt()
}

/// The words the best matches share that the question does not say (`EXPAND_FROM`), as the
/// full-text index holds them (stems); none when fewer than two memories matched.
fn expansion_terms<D: SqlDriver>(
    store: &Store<D>,
    candidates: &[Candidate],
    plan: &QueryPlan,
) -> Result<Vec<SearchTerm>, StoreError> {
    if plan.keywords.is_empty() || plan.entities.is_empty() {
        return Ok(Vec::new());
    }
    let mut best: Vec<&Candidate> =
        candidates.iter().filter(|candidate| candidate.text > 0.0 && !candidate.about.is_empty()).collect();
    best.sort_by(|a, b| b.score.total_cmp(&a.score).then(a.memory.id.cmp(&b.memory.id)));
    best.truncate(EXPAND_FROM);
    if best.len() < EXPAND_MIN_SHARED {
        return Ok(Vec::new());
    }
    let asked: Vec<String> = plan
        .keywords
        .iter()
        .flat_map(|keyword| query_terms(keyword, plan.language))
        .map(|term| term.text)
        .chain(plan.entities.iter().flat_map(|name| words(name)).map(|word| word.folded))
        .collect();
    // A form of a word the question says is not a new word ("visit" for "visited").
    let is_asked = |stem: &str| asked.iter().any(|asked| stem.starts_with(asked.as_str()) || asked.starts_with(stem));
    let mut shared: HashMap<String, usize> = HashMap::new();
    for candidate in &best {
        let mut seen: HashSet<String> = HashSet::new();
        for (position, word) in words(&candidate.memory.summary).iter().enumerate() {
            // Names are the feedback's (`add_feedback`): a name shared by the best is most often
            // the other side of the conversation.
            let plain = !word.capitalised() && word.lower.chars().count() >= 3 && word.number().is_none();
            if !plain || is_stop_word(word, Script::Other, position) {
                continue;
            }
            let Some(stem) = query_terms(&word.lower, plan.language).into_iter().next() else { continue };
            if !is_asked(&stem.text) && seen.insert(stem.text.clone()) {
                *shared.entry(stem.text).or_default() += 1;
            }
        }
    }
    let total = store.status()?.memories.max(1) as f64;
    let mut weighed: Vec<(f64, String)> = Vec::new();
    for (text, holders) in shared.into_iter().filter(|(_, holders)| *holders >= EXPAND_MIN_SHARED) {
        let documents = store.documents_with(&SearchTerm::word(text.clone(), false))?;
        if documents > 0 {
            weighed.push((holders as f64 * (total / documents as f64).ln(), text));
        }
    }
    weighed.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
    Ok(weighed.into_iter().take(EXPAND_TERMS).map(|(_, text)| SearchTerm::word(text, false)).collect())
}

/// Whether a memory asks something: a question in a conversation, whose next turn answers it.
/// A question mark ends a sentence (not a link's `?id=`); `？` is the full-width one.
fn asks(memory: &Memory) -> bool {
    let mut chars = memory.summary.chars().peekable();
    while let Some(c) = chars.next() {
        if matches!(c, '?' | '？') && ends_sentence(c, chars.peek().copied()) {
            return true;
        }
    }
    false
}

/// Whether `c` may follow a sentence's mark and still close the sentence: a quote, a bracket,
/// Markdown's emphasis.
pub fn closes_sentence(c: char) -> bool {
    matches!(c, '"' | '\'' | '”' | '’' | ')' | ']' | '*' | '_')
}

/// Whether `mark` ends a sentence when `next` follows it (`None`: the text ends): an ideographic
/// stop always does; a full stop, question or exclamation mark before a space or what closes a
/// sentence (`closes_sentence`), so that "3.5", "v1.2" and a link's `?id=` do not.
pub fn ends_sentence(mark: char, next: Option<char>) -> bool {
    match mark {
        '。' | '！' | '？' => true,
        '.' | '!' | '?' => next.is_none_or(|next| next.is_whitespace() || closes_sentence(next)),
        _ => false,
    }
}

/// The full-text search, which only adds candidates: when SQLite refuses an expression (its
/// limits on size and depth), it is tried again with the rarer half of the terms, down to
/// one; a question is never failed by search.
fn search<D: SqlDriver>(
    store: &Store<D>,
    terms: &[SearchTerm],
    limit: usize,
    scope: &MemoryScope,
) -> Result<Vec<ScoredMemory>, StoreError> {
    let mut terms = terms.to_vec();
    loop {
        match store.search_memories_within(&terms, limit, scope) {
            Ok(found) => return Ok(found),
            Err(StoreError::Sql(_)) if terms.len() > 1 => terms = store.rarest_terms(&terms, terms.len() / 2)?,
            Err(StoreError::Sql(_)) => return Ok(Vec::new()),
            Err(other) => return Err(other),
        }
    }
}

/// Whether the candidate falls on the plan's days and which of its names it is about.
fn judge(candidate: &mut Candidate, plan: &QueryPlan, names: &[Name]) {
    // Any of its days counts: a trip from the 3rd to the 9th is "on the 5th" too.
    candidate.in_dates = plan.dates.is_some_and(|(from, to)| {
        (from..=to).contains(&candidate.day) || later_days(&candidate.memory).any(|day| (from..=to).contains(&day))
    });
    if names.is_empty() {
        return;
    }
    let listed: Vec<String> = candidate.memory.entities.iter().map(|entity| fold(&entity.name)).collect();
    // The summary is split into words only when a name it does not list may be in it.
    let folded_summary = fold(&candidate.memory.summary);
    let mut summary: Option<Vec<FoldedWord>> = None;
    candidate.about.clear();
    candidate.only_mentions.clear();
    for (at, name) in names.iter().enumerate() {
        if name.listed_in(&listed) {
            candidate.about.push(at);
        } else if name.may_be_in(&folded_summary)
            && name.mentioned_in(summary.get_or_insert_with(|| folded_words(&candidate.memory.summary)))
        {
            candidate.about.push(at);
            if !listed.is_empty() {
                candidate.only_mentions.push(at);
            }
        }
    }
}

/// What a name counts in a memory that only mentions it while listing other entities. On
/// LoCoMo's turns (one memory a turn, its speaker listed) the other speaker's "Thanks,
/// Melanie!" counted as Melanie's own turns did; at half, evidence recall went 0.832 / 0.894 /
/// 0.924 → 0.837 / 0.899 / 0.942 at 4K / 8K / 16K tokens (0.25: the same; 0.75: 0.940 at 16K),
/// SQuAD 0.878 → 0.888 at 4K. A memory listing no entity is read by its text alone, and a
/// mention counts fully: half there cost the synthetic notes' facts 0.986 → 0.932 at 4K.
const MENTION_SHARE: f64 = 0.5;

/// The least a name counts, however many memories it has: it still tells the person's
/// memories from anyone's.
const NAME_FLOOR: f64 = 0.1;

/// Each candidate's score from everything the question gives, so that a frequent name
/// narrows the search instead of filling the budget:
///
/// - text: BM25 against the best found, the most telling part when the question has words;
/// - names: each name the memory is about, weighted by how much it narrows. A name whose
///   memories fit the budget outweighs any text ("What is Bob's kid's name?": all of Bob's
///   memories, whatever they say); one with more memories than fit counts by the share that
///   fits ("When did Maria go to the beach?" with Maria in hundreds of memories: Maria's beach
///   memories first, then other beach memories, then the rest of Maria's);
/// - recency and importance, a little;
/// - for a question that asks where, naming a place (`PLACE_SHARE`).
fn score(candidates: &mut [Candidate], plan: &QueryPlan, context: &Context<'_>) {
    if plan.wants_place {
        mark_places(candidates);
    }
    let best_text = candidates.iter().map(|candidate| candidate.text).fold(0.0, f64::max);
    let mut about_counts = vec![0usize; plan.entities.len()];
    for candidate in candidates.iter() {
        candidate.about.iter().for_each(|&at| about_counts[at] += 1);
    }
    let name_weights: Vec<f64> = about_counts
        .iter()
        .map(|&count| {
            // The share of the name's memories that fit. LoCoMo's turns (development half),
            // evidence recall at 4K / 8K / 16K tokens: 0.862 / 0.931 / 0.967 with the share
            // squared and full up to 1.5 times what fits, 0.871 / 0.934 / 0.967 with this;
            // sessions' answer in the packed prompt 0.672 / 0.762 / 0.809 → 0.680 / 0.763 /
            // 0.809; SQuAD 0.897 → 0.895 at 4K (a name read for another: "Victoria"), the
            // same above; the synthetic sets and tldr the same.
            (context.capacity as f64 / count.max(1) as f64).clamp(NAME_FLOOR, 1.0)
        })
        .collect();
    let (text_weight, name_weight, recency_weight, importance_weight) =
        match (plan.keywords.is_empty(), plan.entities.is_empty()) {
            (false, _) => (0.6, 0.8, 0.15, 0.1),
            (true, false) => (0.3, 0.8, 0.3, 0.2),
            (true, true) => (0.0, 0.0, 0.6, 0.4),
        };
    let names = plan.entities.len().max(1) as f64;
    // A memory about the question's people is measured against their best match, not against
    // anyone's: for "What is Melanie's reason for getting into running?" someone else's memory
    // full of "running" left Melanie's session about her running a sixth of the text's weight,
    // less than what a newer session of hers without the word got from its date.
    let best_about = candidates
        .iter()
        .filter(|candidate| !candidate.about.is_empty())
        .map(|candidate| candidate.text)
        .fold(0.0, f64::max);
    let place = if plan.wants_place { place_weight(candidates) } else { 0.0 };
    for candidate in candidates.iter_mut() {
        let best = if candidate.about.is_empty() { best_text } else { best_about };
        let text = if best > 0.0 { candidate.text / best } else { 0.0 };
        let named: f64 = candidate
            .about
            .iter()
            .map(|at| name_weights[*at] * if candidate.only_mentions.contains(at) { MENTION_SHARE } else { 1.0 })
            .sum::<f64>()
            / names;
        let age = (context.today.to_days() - candidate.day.to_days()).max(0) as f64;
        let recency = 0.5_f64.powf(age / 180.0);
        candidate.name_credit = name_weight * named;
        candidate.score = text_weight * text
            + candidate.name_credit
            + recency_weight * recency
            + importance_weight * candidate.memory.importance
            + candidate.lift
            + if candidate.place && !candidate.about.is_empty() { place } else { 0.0 };
    }
}

/// What naming a place adds to a memory of the question's people when it asks where ("Which
/// cities has Jon visited?": "Took a short trip last week to Rome", which shares no word with
/// it), at most: the answer's kind, when the words cannot meet. Measured on LoCoMo's turns
/// (development half), evidence recall 0.849 / 0.913 / 0.953 → 0.853 / 0.919 / 0.955 at 4K /
/// 8K / 16K tokens (multi-hop 0.768 → 0.795 at 8K); 0.2 and 0.5 a question or two less.
/// Only the people's memories: for any memory, SQuAD's Wikipedia paragraphs (nearly all name
/// places) lost 0.898 → 0.892 at 4K.
const PLACE_SHARE: f64 = 0.3;

/// `PLACE_SHARE` for this question, less the more of the people's memories name a place: a
/// signal all of them carry tells nothing (a travel diary), one few carry tells much.
fn place_weight(candidates: &[Candidate]) -> f64 {
    let about = candidates.iter().filter(|candidate| !candidate.about.is_empty());
    let (all, placed) =
        about.fold((0usize, 0usize), |(all, placed), candidate| (all + 1, placed + usize::from(candidate.place)));
    let share = if all == 0 { 0.0 } else { placed as f64 / all as f64 };
    PLACE_SHARE * (1.0 - share).powi(2)
}

/// Marks the candidates that name a place: one that lists a place, or whose summary or facts
/// write a capitalised word after a locative that is no person's name among the candidates
/// (memories made without a model, and places the model did not list).
fn mark_places(candidates: &mut [Candidate]) {
    let people: HashSet<String> = candidates
        .iter()
        .flat_map(|candidate| candidate.memory.entities.iter())
        .filter(|entity| entity.kind != "place")
        .flat_map(|entity| words(&entity.name).into_iter().map(|word| word.folded))
        .collect();
    for candidate in candidates.iter_mut() {
        let memory = &candidate.memory;
        let is_person = |word: &str| people.contains(word);
        candidate.place = memory.entities.iter().any(|entity| entity.kind == "place")
            || std::iter::once(&memory.summary).chain(&memory.facts).any(|text| names_a_place(text, &is_person));
    }
}

/// Whether `text` names a place: a capitalised word after a locative ("a trip to Rome", "in
/// the Smoky Mountains") that is not a date word nor, by `is_person`, someone's name.
fn names_a_place(text: &str, is_person: &dyn Fn(&str) -> bool) -> bool {
    let text = words(text);
    (1..text.len()).any(|at| {
        if !LOCATIVES.split(' ').any(|locative| locative == text[at - 1].folded) {
            return false;
        }
        let at = if text[at].folded == "the" { at + 1 } else { at };
        text.get(at).is_some_and(|word| {
            word.capitalised()
                && !is_stop_word(word, Script::Other, at)
                && !is_date_word(&word.folded)
                && !is_person(&word.folded)
        })
    })
}

/// A name of the plan, and how a summary may mention it: the whole name in any case, or
/// one of its capitalised parts written with a capital ("Coffee with Frank" is about Frank
/// Miller; Vietnamese notes call Đặng Thùy Linh "Linh").
struct Name {
    folded: String,
    words: Vec<String>,
    parts: Vec<String>,
    /// A name written in lower case ("make", "file", "php"): a summary mentions it only where
    /// it is written with a capital ("PHP"); "make a file" is not about `make` or `file`.
    lower_case: bool,
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
        let lower_case = !name.chars().any(char::is_uppercase);
        Name { folded: fold(name), words: name_words.into_iter().map(|word| word.folded).collect(), parts, lower_case }
    }

    /// Whether one of `listed` (folded entity names) is the name or begins with it, word by
    /// word: a memory listing "git archive" is about `git`, one listing "Bob Tran" about "Bob".
    fn listed_in(&self, listed: &[String]) -> bool {
        listed.iter().any(|entity| {
            entity == &self.folded
                || entity.strip_prefix(self.folded.as_str()).is_some_and(|rest| rest.starts_with(' '))
        })
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
        let whole = text.windows(self.words.len()).any(|window| {
            window.iter().map(|word| &word.folded).eq(&self.words) && (!self.lower_case || window[0].capitalised)
        });
        whole || text.iter().any(|word| word.capitalised && self.parts.contains(&word.folded))
    }
}

/// The searches for a plan: the words — each keyword through the stemmer of the question's
/// language (`stems::query_terms`: "married" finds "marriage", "会议" finds "会议记录") — and
/// the names, each as a phrase and its capitalised parts, to find memories that mention a
/// person without listing them as an entity. Each list is cut at `MAX_SEARCH_TERMS`,
/// whatever the question says.
fn search_terms(plan: &QueryPlan) -> (Vec<SearchTerm>, Vec<SearchTerm>) {
    let mut words: Vec<SearchTerm> = Vec::new();
    for keyword in &plan.keywords {
        for term in query_terms(keyword, plan.language) {
            let term = SearchTerm::word(term.text, term.prefix);
            if !words.contains(&term) {
                words.push(term);
            }
        }
    }
    let mut names: Vec<SearchTerm> = Vec::new();
    for name in &plan.entities {
        let name = Name::new(name);
        for text in std::iter::once(name.folded.clone()).chain(name.parts) {
            let term = SearchTerm::word(text, false);
            if !names.contains(&term) {
                names.push(term);
            }
        }
    }
    words.truncate(MAX_SEARCH_TERMS);
    names.truncate(MAX_SEARCH_TERMS);
    (words, names)
}

/// At most this many words and names go into one full-text search.
const MAX_SEARCH_TERMS: usize = 48;

/// A span of at most this many days (a week) is specific: its memories come first whatever
/// else the question says. On LoCoMo's turns, questions naming "last year" or a month in a
/// longer span: evidence recall 0.826 / 0.884 / 0.919 → 0.834 / 0.890 / 0.923 at 4K / 8K /
/// 16K tokens; the synthetic notes' day questions stay at 1.000 (all of a day's memories first).
const FEW_DAYS: i64 = 7;

/// Best first. Memories on the plan's days come before the rest (over more than `FEW_DAYS`,
/// only those that also match a name or the words). "The latest …" then sorts
/// the memories matching most of its names (or its words well) by day, newest first, days
/// up to today before planned ones; any other question sorts by score, and when it names
/// several people, their memories take turns (`take_turns`), so every one is represented.
fn rank(candidates: Vec<Candidate>, plan: &QueryPlan, today: CalendarDate) -> Vec<Candidate> {
    let best_text = candidates.iter().map(|candidate| candidate.text).fold(0.0, f64::max);
    let text_norm = |candidate: &Candidate| if best_text > 0.0 { candidate.text / best_text } else { 0.0 };
    // Over more than a few days, the days alone do not put a memory first when the question
    // has names or words: "What did Melanie's family see camping last year?" is not answered by
    // everyone else's memories of last year.
    let coarse_days = plan.dates.is_some_and(|(from, to)| to.to_days() - from.to_days() >= FEW_DAYS)
        && (!plan.entities.is_empty() || !plan.keywords.is_empty());
    let on_the_days = |candidate: &Candidate| {
        candidate.in_dates
            && (!coarse_days || !candidate.about.is_empty() || candidate.text > 0.0 || candidate.borrowed > 0.0)
    };
    let dated = |candidate: &Candidate| usize::from(plan.dates.is_some() && !on_the_days(candidate));
    let mut keyed: Vec<((usize, usize), Candidate)> = candidates
        .into_iter()
        .map(|candidate| {
            // "my latest dentist appointment": the good matches of the words, by date, first.
            let weak_text =
                !plan.keywords.is_empty() && text_norm(&candidate) < LATEST_TEXT_MATCH && candidate.borrowed == 0.0;
            let tier = if !plan.wants_latest {
                0
            } else if !plan.entities.is_empty() {
                if candidate.about.is_empty() {
                    usize::MAX
                } else {
                    // "What did Melanie paint recently?": in a conversation every other memory
                    // is Melanie's; her painting ones come first, then the rest of hers.
                    2 * (plan.entities.len() - candidate.about.len()) + usize::from(weak_text)
                }
            } else {
                usize::from(weak_text)
            };
            ((dated(&candidate), tier), candidate)
        })
        .collect();
    keyed.sort_by(|(a_key, a), (b_key, b)| {
        a_key.cmp(b_key).then_with(|| {
            if plan.wants_latest {
                (b.day <= today)
                    .cmp(&(a.day <= today))
                    .then(b.day.cmp(&a.day))
                    .then(b.memory.created_at.cmp(&a.memory.created_at))
                    .then(a.memory.id.cmp(&b.memory.id))
            } else {
                b.rank_score().total_cmp(&a.rank_score()).then(a.memory.id.cmp(&b.memory.id))
            }
        })
    });
    let ranked: Vec<(usize, Candidate)> = keyed.into_iter().map(|((group, _), candidate)| (group, candidate)).collect();
    if plan.entities.len() < 2 || plan.wants_latest {
        return ranked.into_iter().map(|(_, candidate)| candidate).collect();
    }
    take_turns(ranked, plan.entities.len())
}

/// "The latest …" sorts by day the memories whose text matches at least this share of the
/// best match (or that borrowed a score from one), before the others.
const LATEST_TEXT_MATCH: f64 = 0.35;

/// How much each memory already taken from a person's turn lowers the next one's claim.
const TURN_DECAY: f64 = 0.15;

/// Merges the ranking so that memories about only one of the question's people take turns
/// ("Which city have both Jean and John visited?": Jean's and John's, not only the side with
/// more text): each next pick is the best of the heads of the groups (one per person, one for
/// the rest), its score lowered by how many its group already gave. Date groups stay first.
fn take_turns(ranked: Vec<(usize, Candidate)>, names: usize) -> Vec<Candidate> {
    let mut out = Vec::with_capacity(ranked.len());
    let mut by_group: Vec<Vec<(usize, Candidate)>> = Vec::new();
    for (group, candidate) in ranked {
        if by_group.last().is_none_or(|last| last[0].0 != group) {
            by_group.push(Vec::new());
        }
        if let Some(last) = by_group.last_mut() {
            last.push((group, candidate));
        }
    }
    for group in by_group {
        let mut queues: Vec<std::collections::VecDeque<Candidate>> = (0..=names).map(|_| Default::default()).collect();
        for (_, candidate) in group {
            let queue = if candidate.about.len() == 1 { candidate.about[0] } else { names };
            queues[queue].push_back(candidate);
        }
        let mut taken = vec![0usize; names + 1];
        loop {
            // A person's claim drops only with how far they are ahead of the others still
            // waiting: the turns balance the people, not the people against everything else.
            let behind = (0..names).filter(|&at| !queues[at].is_empty()).map(|at| taken[at]).min().unwrap_or(0);
            let claim = |at: usize, queue: &std::collections::VecDeque<Candidate>| {
                let decay = if at == names { 0.0 } else { TURN_DECAY * taken[at].saturating_sub(behind) as f64 };
                queue.front().map(|head| head.rank_score() - decay)
            };
            let next = (0..queues.len())
                .filter_map(|at| claim(at, &queues[at]).map(|claim| (at, claim)))
                .max_by(|a, b| a.1.total_cmp(&b.1).then(b.0.cmp(&a.0)));
            let Some((at, _)) = next else { break };
            taken[at] += 1;
            out.extend(queues[at].pop_front());
        }
    }
    out
}

/// Insights over the chosen memories may take up to this share of the budget (1/10) from
/// the least relevant chosen memories. Without it, memories always fill the budget and no
/// insight ever gets in; with a fixed reserve instead, tight budgets would lose their best
/// memory to a shorter, worse one.
const INSIGHT_SHARE: usize = 10;

/// What the packer counts for memory lines when it does not yet know their order: a note's
/// memories go together in the prompt (`reading_order`), the first line with the note's path and
/// the others without (`lines::memory_lines`). Each line is counted without the path, and each
/// note once with the most any of its lines adds by carrying it: at least what the prompt
/// takes, whichever line comes first.
#[derive(Default)]
struct NoteLines {
    /// For each note with lines counted, the most one of them adds with the path.
    path_tokens: HashMap<String, usize>,
}

impl NoteLines {
    /// The tokens `memory`'s line adds to those counted, given its `line_parts`.
    fn cost_of_adding(&self, memory: &Memory, parts: Option<(usize, usize)>) -> usize {
        let Some((short, extra)) = parts else { return line_cost(memory) };
        short + extra.saturating_sub(self.path_tokens.get(&memory.source_path).copied().unwrap_or(0))
    }

    fn add(&mut self, memory: &Memory, parts: Option<(usize, usize)>) {
        if let Some((_, extra)) = parts {
            let counted = self.path_tokens.entry(memory.source_path.clone()).or_default();
            *counted = (*counted).max(extra);
        }
    }
}

/// The tokens leaving `memory`'s line out frees for sure: its note's path stays counted (the
/// count stays at least what the prompt takes).
fn freed_by(memory: &Memory) -> usize {
    line_parts(memory).map_or_else(|| line_cost(memory), |(short, _)| short)
}

/// A note's memory line: its tokens without the note's path, and what the path adds; `None`
/// for typed text and selections, whose lines always carry their source.
fn line_parts(memory: &Memory) -> Option<(usize, usize)> {
    if !in_a_note(memory) {
        return None;
    }
    // One line written, the other counted from it: character counts add up.
    let line = CharCounts::of(&memory_line(memory));
    let separator = if memory.position.heading.is_some() { "" } else { " · " };
    let path = CharCounts::of(&memory.source_path) + CharCounts::of(separator);
    let (full, short) = (line.tokens(), (line - path).tokens());
    debug_assert_eq!(short + MEMORY_ELEMENT_TOKENS + 1, line_tokens(&memory_line_in_note(memory)));
    Some((short + MEMORY_ELEMENT_TOKENS + 1, full - short))
}

/// Two memories of one day about the same people and things, whose summaries and facts share at
/// least this share of their words (of the words either has), say the same thing: a note copied,
/// a passage remembered again as a selection, a meeting pasted into the day's note. The
/// better-ranked one goes in; the other would only spend the budget the evidence needs. The same
/// words about someone else are no copy ("I baked a lemon cake", said by each of two friends).
const SAME_WORDS_SHARE: f64 = 0.8;

/// Lines with fewer words than this are never counted as saying the same: "Good to see you!" is
/// alike by chance, and costs little.
const SAME_WORDS_MIN: usize = 6;

/// What the memories chosen so far say, by their day (`SAME_WORDS_SHARE`).
#[derive(Default)]
struct SaidOnDays {
    by_day: HashMap<CalendarDate, Vec<Saying>>,
}

/// What a memory says: the distinct folded words of its summary and facts, and the names of its
/// entities, each sorted.
#[derive(PartialEq)]
struct Saying {
    words: Vec<String>,
    about: Vec<String>,
}

impl SaidOnDays {
    /// Whether `candidate` says something no chosen memory of its day says; if so, it counts as
    /// said from now on.
    fn is_new(&mut self, candidate: &Candidate) -> bool {
        let saying = Saying::of(&candidate.memory);
        if saying.words.len() < SAME_WORDS_MIN {
            return true;
        }
        let said = self.by_day.entry(candidate.day).or_default();
        let same = |other: &Saying| {
            other.about == saying.about && share_of_same_words(&saying.words, &other.words) >= SAME_WORDS_SHARE
        };
        if said.iter().any(same) {
            return false;
        }
        said.push(saying);
        true
    }
}

impl Saying {
    fn of(memory: &Memory) -> Saying {
        let sorted = |mut words: Vec<String>| {
            words.sort_unstable();
            words.dedup();
            words
        };
        let texts = std::iter::once(&memory.summary).chain(&memory.facts);
        Saying {
            words: sorted(texts.flat_map(|text| folded_words(text)).map(|word| word.folded).collect()),
            about: sorted(memory.entities.iter().map(|entity| fold(&entity.name)).collect()),
        }
    }
}

/// The share of the words of two sorted, distinct word lists that both hold (Jaccard).
fn share_of_same_words(a: &[String], b: &[String]) -> f64 {
    let (mut at_a, mut at_b, mut both) = (0, 0, 0);
    while at_a < a.len() && at_b < b.len() {
        match a[at_a].cmp(&b[at_b]) {
            std::cmp::Ordering::Less => at_a += 1,
            std::cmp::Ordering::Greater => at_b += 1,
            std::cmp::Ordering::Equal => {
                both += 1;
                at_a += 1;
                at_b += 1;
            }
        }
    }
    let either = a.len() + b.len() - both;
    if either == 0 {
        0.0
    } else {
        both as f64 / either as f64
    }
}

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
    let mut notes = NoteLines::default();
    let mut said = SaidOnDays::default();
    // The best of those whose lines did not fit, for their passages (`Packed::runners_up`).
    let mut runners_up: Vec<Memory> = Vec::new();
    let mut rest = ranked.into_iter();
    let mut first_left = None;
    for candidate in rest.by_ref() {
        // No line is shorter than this: the rest cannot fit.
        if budget - packed.tokens < MIN_LINE_TOKENS as usize {
            first_left = Some(candidate);
            break;
        }
        let parts = line_parts(&candidate.memory);
        let cost = notes.cost_of_adding(&candidate.memory, parts);
        if packed.tokens + cost > budget {
            if runners_up.len() < MAX_RUNNERS_UP {
                runners_up.push(candidate.memory);
            }
        } else if said.is_new(&candidate) {
            packed.tokens += cost;
            notes.add(&candidate.memory, parts);
            chosen.push(candidate);
        }
    }
    let wanted = MAX_RUNNERS_UP.saturating_sub(runners_up.len());
    runners_up.extend(first_left.into_iter().chain(rest).take(wanted).map(|candidate| candidate.memory));
    debug_assert!(runners_up.len() <= MAX_RUNNERS_UP);
    let ids: Vec<MemoryId> = chosen.iter().map(|candidate| candidate.memory.id.clone()).collect();
    let mut insights = store.insights_citing_any(&ids)?;
    let included: HashSet<&str> = ids.iter().map(|id| id.0.as_str()).collect();
    // Insights over more of the chosen memories first.
    insights.sort_by_key(|insight| {
        std::cmp::Reverse(insight.memory_ids.iter().filter(|id| included.contains(id.0.as_str())).count())
    });
    let mut room_left = budget / INSIGHT_SHARE;
    for insight in insights {
        let cost = insight_cost(&insight);
        let mut keep = chosen.len();
        let mut freed = 0;
        while packed.tokens + cost > budget + freed && keep > 0 {
            let last = &chosen[keep - 1].memory;
            if insight.memory_ids.contains(&last.id) {
                break;
            }
            freed += freed_by(last);
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
            unbacked += insight_cost(insight);
        }
        backed
    });
    packed.tokens -= unbacked;
    packed.reasons = reasons(&chosen, plan);
    packed.ranked = chosen.iter().map(|candidate| candidate.memory.id.clone()).collect();
    packed.runners_up = runners_up;
    chosen.sort_by(|a, b| a.day.cmp(&b.day).then(a.memory.created_at.cmp(&b.memory.created_at)));
    packed.memories = chosen.into_iter().map(|candidate| candidate.memory).collect();
    Ok(packed)
}

/// One reason per chosen memory, the first that applies: its day is the plan's, it is
/// about a name of the plan, the text search found it, words related to the question's found
/// it (`lift`: what the best matches share, an instance of the kind asked for), it is recent,
/// it is important.
fn reasons(chosen: &[Candidate], plan: &QueryPlan) -> Vec<(String, usize)> {
    let mut labels: Vec<String> = Vec::new();
    if let Some((from, to)) = plan.dates {
        labels.push(if from == to { from.to_string() } else { format!("{from}..{to}") });
    }
    let date_slot = usize::from(plan.dates.is_some());
    labels.extend(plan.entities.iter().cloned());
    let text_slot = labels.len();
    labels.extend(["text", "related", "recent", "important"].map(str::to_owned));
    let mut counts = vec![0usize; labels.len()];
    for candidate in chosen {
        let slot = if candidate.in_dates {
            0
        } else if let Some(&entity) = candidate.about.first() {
            date_slot + entity
        } else if candidate.text > 0.0 {
            text_slot
        } else if candidate.lift > 0.0 {
            text_slot + 1
        } else if candidate.recent {
            text_slot + 2
        } else {
            text_slot + 3
        };
        counts[slot] += 1;
    }
    labels.into_iter().zip(counts).filter(|(_, count)| *count > 0).collect()
}

/// The day a memory is about: when it happened, else the local day it was made.
pub fn event_day(memory: &Memory, utc_offset_minutes: i32) -> CalendarDate {
    memory
        .happened_on
        .as_deref()
        .and_then(CalendarDate::parse)
        .unwrap_or_else(|| CalendarDate::at(memory.created_at, utc_offset_minutes))
}

/// The days after its first a memory's events happened on (`Memory::also_on`).
pub fn later_days(memory: &Memory) -> impl Iterator<Item = CalendarDate> + '_ {
    memory.also_on.iter().filter_map(|date| CalendarDate::parse(date))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_instance_share_is_the_share_to_the_power_five_eighths() {
        for (share, shaped) in [(0.0, 0.0), (1.0, 1.0), (2f64.powi(-8), 2f64.powi(-5)), (0.25, 0.25f64.powf(0.625))] {
            assert!((instance_share(share) - shaped).abs() < 1e-12, "{share}: {}", instance_share(share));
        }
        assert!(instance_share(1.0 / 6.0) > 0.3, "a sixth of the best match lifts by nearly a third");
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
    fn a_memory_asks_with_a_question_mark_ending_a_sentence() {
        let memory = |summary: &str| Memory { summary: summary.into(), ..said_nothing() };
        assert!(asks(&memory("Awww! How long have you had them?")));
        assert!(asks(&memory("Did you go? I did.")));
        assert!(asks(&memory("She asked \"why?\" twice")));
        assert!(asks(&memory("你去过吗？")));
        assert!(!asks(&memory("See https://example.com/page?id=7 for the form.")));
        assert!(!asks(&memory("Three years now, pure joy.")));
    }

    #[test]
    fn a_memory_of_the_same_day_saying_the_same_about_the_same_people_is_not_new() {
        let memory = |path: &str, day: &str, people: &[&str], summary: &str, facts: &[&str]| {
            let entities =
                people.iter().map(|name| crate::domain::Entity { name: (*name).into(), kind: "person".into() });
            let memory = Memory {
                source_path: path.into(),
                happened_on: Some(day.into()),
                entities: entities.collect(),
                summary: summary.into(),
                facts: facts.iter().map(|fact| (*fact).to_owned()).collect(),
                ..said_nothing()
            };
            Candidate::new(memory, 0)
        };
        let met = "Met Ana at the Porto riverside to plan the budget review.";
        let mut said = SaidOnDays::default();
        assert!(said.is_new(&memory(
            "Daily/2026-03-02.md",
            "2026-03-02",
            &["Ana"],
            met,
            &["Budget review on Friday."]
        )));
        // Copied into another note, or worded a little differently.
        assert!(!said.is_new(&memory("Meetings/Ana.md", "2026-03-02", &["Ana"], met, &["Budget review on Friday."])));
        let reworded = "Met Ana at the Porto riverside to plan the budget review together.";
        assert!(!said.is_new(&memory(
            "Meetings/Ana.md",
            "2026-03-02",
            &["ana"],
            reworded,
            &["Budget review on Friday."]
        )));
        // The same words on another day, about someone else, or saying more, are news.
        assert!(said.is_new(&memory(
            "Daily/2026-03-09.md",
            "2026-03-09",
            &["Ana"],
            met,
            &["Budget review on Friday."]
        )));
        assert!(said.is_new(&memory(
            "Daily/2026-03-02.md",
            "2026-03-02",
            &["Bob"],
            met,
            &["Budget review on Friday."]
        )));
        let more = ["Budget review on Friday.", "Ana takes travel, Bob marketing; the cap is 12,000 EUR."];
        assert!(said.is_new(&memory("Meetings/Ana.md", "2026-03-02", &["Ana"], met, &more)));
        // Short lines are alike by chance.
        assert!(said.is_new(&memory("a.md", "2026-03-02", &["Ana"], "Good to see you!", &[])));
        assert!(said.is_new(&memory("b.md", "2026-03-02", &["Ana"], "Good to see you!", &[])));
        assert_eq!(share_of_same_words(&[], &[]), 0.0);
    }

    /// A memory of a note that says nothing, to be filled in.
    fn said_nothing() -> Memory {
        Memory {
            id: MemoryId("m".into()),
            source_path: "chat.md".into(),
            source_kind: crate::domain::SourceKind::Note,
            position: Default::default(),
            raw_text: String::new(),
            summary: String::new(),
            entities: vec![],
            topics: vec![],
            importance: 0.5,
            happened_on: None,
            also_on: Vec::new(),
            date_source: Default::default(),
            facts: Vec::new(),
            created_at: 0,
            updated_at: 0,
            consolidated: false,
            content_hash: None,
        }
    }

    #[test]
    fn the_lower_bound_never_exceeds_the_real_tokens() {
        let memory = Memory {
            id: MemoryId("m1".into()),
            source_path: String::new(),
            source_kind: crate::domain::SourceKind::Text,
            position: crate::domain::Position { heading: Some("H".into()), line_start: None, line_end: None },
            summary: "ngày".into(),
            importance: 1.0,
            ..said_nothing()
        };
        // id "m1", no source path, "#H", the summary, "undated".
        let core = 2 + 2 + 4 + 7;
        assert!(lower_bound_tokens(&MemorySizes { count: 1, core_chars: core }) <= line_cost(&memory) as u64);
        assert_eq!(
            memory_line(&memory).chars().count() as u64,
            core + LINE_FIXED_CHARS + 3 + 5,
            "a separator, \"typed\""
        );
        let in_note = Memory { source_kind: crate::domain::SourceKind::Note, source_path: "a.md".into(), ..memory };
        let shortest = memory_line_in_note(&Memory { position: Default::default(), ..in_note });
        assert_eq!(shortest.chars().count() as u64, core - 2 + LINE_FIXED_CHARS, "a later line of a note, no heading");
        assert!(MIN_LINE_TOKENS as usize <= line_tokens(&shortest));
    }
}
