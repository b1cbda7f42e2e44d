//! The selection on a small fixed store: a date question gets that day, a person question
//! that person, "the latest meeting with X" the newest one first; everything goes in when
//! it fits; the budget is never exceeded.

use memory_agent::calendar::CalendarDate;
use memory_agent::domain::{Consolidation, ConsolidationId, Entity, Memory, MemoryId, Position, SourceKind};
use memory_agent::select::{
    insight_cost, line_cost, lines_cost, select_context, DateOrder, NameCache, Selection, SelectionRequest,
};
use memory_agent::store::rusqlite_driver::RusqliteDriver;
use memory_agent::store::Store;

const DAY_MS: i64 = 86_400_000;

fn day(text: &str) -> CalendarDate {
    CalendarDate::parse(text).unwrap()
}

fn memory(id: &str, happened_on: Option<&str>, summary: &str, people: &[&str]) -> Memory {
    let created = happened_on.map_or(day("2026-02-01").to_days(), |text| day(text).to_days()) * DAY_MS + 10 * 3_600_000;
    Memory {
        id: MemoryId(id.into()),
        source_path: format!("Notes/{id}.md"),
        source_kind: SourceKind::Note,
        position: Position::default(),
        raw_text: summary.into(),
        summary: summary.into(),
        entities: people.iter().map(|name| Entity { name: (*name).into(), kind: "person".into() }).collect(),
        topics: vec![],
        importance: 0.4,
        happened_on: happened_on.map(str::to_owned),
        also_on: Vec::new(),
        date_source: Default::default(),
        facts: Vec::new(),
        created_at: created,
        updated_at: created,
        consolidated: false,
        content_hash: None,
    }
}

/// 150 filler memories of varied length over fourteen months, and the few that the
/// questions are about.
fn store() -> Store<RusqliteDriver> {
    let store = Store::open(RusqliteDriver::new()).unwrap();
    let mut seed: u64 = 7;
    let words = ["garden", "errands", "emails", "laundry", "groceries", "podcast", "traffic", "weather", "reading"];
    for index in 0..150 {
        seed = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
        let length = 1 + (seed >> 33) as usize % 12;
        let summary: Vec<&str> = (0..length).map(|at| words[(index + at * 7) % words.len()]).collect();
        let on = day("2025-01-02").add_days(index as i64 * 3).to_string();
        let who: &[&str] = if index % 2 == 0 { &["Bob"] } else { &["Carol"] };
        store
            .insert_memory(&memory(&format!("f{index:03}"), Some(&on), &format!("Filler: {}.", summary.join(" ")), who))
            .unwrap();
    }
    let special = [
        memory("day-run", Some("2026-02-01"), "Morning run by the river.", &[]),
        memory("day-lease", Some("2026-02-01"), "Signed the lease for the new flat.", &[]),
        memory("day-dinner", Some("2026-02-01"), "Dinner at Pho 24 with cousins.", &[]),
        memory("day-undated", None, "Paid the electricity bill.", &[]),
        memory("alice-1", Some("2025-02-11"), "Alice recommended a book on negotiation.", &["Alice"]),
        memory("alice-2", Some("2025-07-19"), "Alice moved to the Lisbon office.", &["Alice"]),
        memory("alice-3", Some("2025-11-02"), "Alice's daughter started school.", &["Alice"]),
        memory("alice-4", Some("2026-01-05"), "Alice will lead the Q3 planning.", &["Alice"]),
        memory("alice-5", Some("2026-02-27"), "Coffee with Alice at the corner bakery.", &[]),
        memory("dan-1", Some("2025-05-10"), "Meeting with Dan Pham about the roadmap.", &["Dan Pham"]),
        memory("dan-2", Some("2025-09-01"), "Meeting with Dan Pham about hiring.", &["Dan Pham"]),
        memory("dan-3", Some("2025-12-15"), "Meeting with Dan Pham about the budget.", &["Dan Pham"]),
        memory("dan-4", Some("2026-02-20"), "Meeting with Dan Pham about the launch date.", &["Dan Pham"]),
        memory("dan-future", Some("2026-04-01"), "Meeting with Dan Pham planned at the offsite.", &["Dan Pham"]),
        memory("wifi", Some("2025-03-03"), "The wifi password at the cabin is maple-otter-42.", &[]),
    ];
    for memory in &special {
        store.insert_memory(memory).unwrap();
    }
    let alice: Vec<MemoryId> = (1..=4).map(|n| MemoryId(format!("alice-{n}"))).collect();
    let insight = Consolidation {
        id: ConsolidationId("c-alice".into()),
        memory_ids: alice.clone(),
        insight: "Alice is taking on more responsibility.".into(),
        connections: vec![],
        created_at: 1,
    };
    store.save_consolidation_batch(&alice, &[insight]).unwrap();
    store
}

fn select(store: &Store<RusqliteDriver>, question: &str, budget: usize) -> Selection {
    let request = SelectionRequest {
        question,
        today: day("2026-03-12"),
        utc_offset_minutes: 0,
        date_order: DateOrder::DayMonth,
        budget_tokens: budget,
        names: &NameCache::new(),
        hint: None,
        earlier: &[],
        scope: None,
    };
    select_context(store, &request).unwrap()
}

fn ids(selection: &Selection) -> Vec<&str> {
    selection.packed.memories.iter().map(|memory| memory.id.0.as_str()).collect()
}

/// The packed tokens, counted again from the lines as the prompt writes them, in its order.
fn recount(selection: &Selection) -> usize {
    lines_cost(&selection.packed.memories) + selection.packed.insights.iter().map(insight_cost).sum::<usize>()
}

#[test]
fn a_date_question_gets_that_days_memories() {
    let store = store();
    let selection = select(&store, "What did I do on 1/2/2026?", 300);
    let chosen = ids(&selection);
    for id in ["day-run", "day-lease", "day-dinner", "day-undated"] {
        assert!(chosen.contains(&id), "{id} missing from {chosen:?}");
    }
    assert_eq!(selection.packed.reasons[0], ("2026-02-01".to_owned(), 4), "{:?}", selection.packed.reasons);
    assert!(selection.packed.tokens <= 300);
}

#[test]
fn a_person_question_gets_that_persons_memories_and_their_insight() {
    let store = store();
    // The insight takes 49 tokens (its line 33, its element and date 16): it may take a tenth
    // of the budget from the least relevant memories, so 600 lets it in (two of them, 60).
    let selection = select(&store, "What do I know about Alice?", 600);
    let chosen = ids(&selection);
    for n in 1..=5 {
        assert!(chosen.contains(&format!("alice-{n}").as_str()), "alice-{n} missing from {chosen:?}");
    }
    assert_eq!(selection.packed.reasons[0], ("Alice".to_owned(), 5), "an untagged mention counts too");
    assert_eq!(selection.packed.insights.len(), 1, "the insight over the chosen memories");
    assert!(select(&store, "What do I know about Alice?", 480).packed.insights.is_empty(), "too big for 480");
    assert_eq!(selection.plan.entities, vec!["Alice"]);
}

#[test]
fn the_latest_meeting_comes_first_and_planned_ones_after_past_ones() {
    let store = store();
    let newest = store.get_memory(&MemoryId("dan-4".into())).unwrap().unwrap();
    let one = line_cost(&newest);
    let selection = select(&store, "When was my latest meeting with Dan?", one);
    assert_eq!(ids(&selection), vec!["dan-4"]);
    assert!(selection.plan.wants_latest);
    let three = select(&store, "When was my latest meeting with Dan?", 3 * one);
    let chosen = ids(&three);
    assert!(chosen.contains(&"dan-4") && chosen.contains(&"dan-3"), "{chosen:?}");
    assert!(!chosen.contains(&"dan-future"), "a planned meeting is not the last one: {chosen:?}");
}

#[test]
fn the_latest_about_a_person_in_many_memories_is_the_latest_that_matches_the_words() {
    // A conversation: every other memory is Mel's; two older ones are about painting.
    let store = Store::open(RusqliteDriver::new()).unwrap();
    let small_talk = [
        "Mel says hi and asks how the week went.",
        "Mel is swamped with the kids and work.",
        "Mel laughs about the traffic today.",
    ];
    for index in 0..40 {
        let on = format!("2026-03-{:02}", 1 + index % 11);
        store.insert_memory(&memory(&format!("mel-{index}"), Some(&on), small_talk[index % 3], &["Mel"])).unwrap();
    }
    store
        .insert_memory(&memory("mel-paint-1", Some("2026-01-10"), "Mel painted a sunset with her kids.", &["Mel"]))
        .unwrap();
    store
        .insert_memory(&memory(
            "mel-paint-2",
            Some("2026-02-14"),
            "Mel painted a lake inspired by their trip.",
            &["Mel"],
        ))
        .unwrap();
    let one = line_cost(&store.get_memory(&MemoryId("mel-paint-2".into())).unwrap().unwrap());
    let selection = select(&store, "What did Mel paint recently?", 2 * one);
    assert!(selection.plan.wants_latest);
    assert_eq!(
        ids(&selection)[..2].iter().filter(|id| id.starts_with("mel-paint")).count(),
        2,
        "{:?}",
        ids(&selection)
    );
    assert_eq!(selection.packed.ranked[0].0, "mel-paint-2", "the newest painting first");
}

#[test]
fn a_fact_question_finds_the_fact_by_its_words() {
    let store = store();
    let selection = select(&store, "What is the wifi password for the cabin?", 200);
    assert!(ids(&selection).contains(&"wifi"), "{:?}", ids(&selection));
    assert_eq!(selection.packed.reasons[0].0, "text");
}

#[test]
fn the_next_best_whose_lines_did_not_fit_are_kept_for_their_passages() {
    let store = store();
    let one = line_cost(&store.get_memory(&MemoryId("dan-4".into())).unwrap().unwrap());
    let selection = select(&store, "When was my latest meeting with Dan?", 2 * one);
    let packed = &selection.packed;
    let runners_up: Vec<&str> = packed.runners_up.iter().map(|memory| memory.id.0.as_str()).collect();
    // Two of Dan's five meetings fit; the next of them come next, best first.
    assert_eq!(ids(&selection).len(), 2, "{:?}", ids(&selection));
    let dans: Vec<&str> = runners_up.iter().copied().filter(|id| id.starts_with("dan-")).collect();
    assert_eq!(dans.len(), 3, "{runners_up:?}");
    assert!(runners_up[..3].iter().all(|id| id.starts_with("dan-")), "Dan's first: {runners_up:?}");
    assert!(runners_up.len() <= memory_agent::select::MAX_RUNNERS_UP, "{}", runners_up.len());
    assert!(runners_up.iter().all(|id| !ids(&selection).contains(id)), "a chosen memory is no runner-up");
    // When everything fits, nothing is left over.
    assert!(select(&store, "When was my latest meeting with Dan?", 1_000_000).packed.runners_up.is_empty());
}

#[test]
fn everything_goes_in_when_it_fits() {
    let store = store();
    let selection = select(&store, "What do I know about Alice?", 100_000);
    assert_eq!(selection.packed.memories.len(), 165);
    assert_eq!(selection.packed.reasons, vec![("all".to_owned(), 165)]);
    assert_eq!(selection.packed.insights.len(), 1);
    assert_eq!((selection.memories_total, selection.insights_total), (165, 1));
    let days: Vec<String> = selection
        .packed
        .memories
        .iter()
        .map(|memory| memory.happened_on.clone().unwrap_or_else(|| "2026-02-01".into()))
        .collect();
    assert!(days.windows(2).all(|pair| pair[0] <= pair[1]), "chronological order");
}

#[test]
fn the_budget_is_never_exceeded() {
    let store = store();
    // All the memory lines each written in full (without the insight): the least that is
    // "all" (in the prompt a note's path is written once, so the lines take less).
    let everything = select(&store, "anything", 1_000_000);
    let total: usize = everything.packed.memories.iter().map(line_cost).sum();
    assert!(lines_cost(&everything.packed.memories) <= total, "a line written in full is the longest it can be");
    let questions = [
        "What did I do on 1/2/2026?",
        "What do I know about Alice?",
        "When was my latest meeting with Dan?",
        "What is the wifi password for the cabin?",
        "garden errands emails",
        "What happened last week?",
        "",
    ];
    for budget in [0, 1, 7, 17, 50, 100, 333, 600, 1_500, total - 1, total, total + 1] {
        for question in questions {
            let selection = select(&store, question, budget);
            assert!(selection.packed.tokens <= budget, "{question:?} at {budget}: {}", selection.packed.tokens);
            assert_eq!(recount(&selection), selection.packed.tokens, "{question:?} at {budget}");
            if budget >= total {
                assert_eq!(selection.packed.reasons, vec![("all".to_owned(), 165)], "{question:?} at {budget}");
            } else {
                assert_ne!(selection.packed.reasons, vec![("all".to_owned(), 165)], "{question:?} at {budget}");
            }
        }
    }
}
