//! Greedy packing by recency and importance: the selection of the first release, kept for
//! the case where every memory fits (`select_context` then packs them all with it, in
//! date order) and as the plain baseline. Question-aware selection lives in `choose`.

use std::collections::HashSet;

use super::lines::insight_cost;
use crate::domain::{Consolidation, Memory, MemoryId};

/// What was packed into the prompt.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Packed {
    /// In reading order: by date, one note's memories together in line order
    /// (`choose::reading_order`).
    pub memories: Vec<Memory>,
    /// The ids of `memories`, best for the question first: the passages behind them are read
    /// in this order while they fit.
    pub ranked: Vec<MemoryId>,
    pub insights: Vec<Consolidation>,
    /// The best-ranked memories whose lines did not fit, best first (at most
    /// `choose::MAX_RUNNERS_UP`): their passages may still take the room the lines leave, when
    /// they hold the question's words (a summary leaves out the details a question asks about),
    /// and then their lines come with them.
    pub runners_up: Vec<Memory>,
    pub tokens: usize,
    /// Why memories were chosen, e.g. `("recent", 300)`.
    pub reasons: Vec<(String, usize)>,
}

/// Packs memories (then insights over packed memories) into `budget` tokens.
pub fn pack(memories: Vec<Memory>, insights: Vec<Consolidation>, budget: usize) -> Packed {
    let total_memories = memories.len();
    let mut ranked = rank(memories);
    let mut packed = Packed::default();
    let mut chosen = Vec::new();
    for memory in ranked.drain(..) {
        let cost = super::choose::line_cost(&memory);
        if packed.tokens + cost <= budget {
            packed.tokens += cost;
            chosen.push(memory);
        }
    }
    let reason = if chosen.len() == total_memories { "all" } else { "recent and important" };
    packed.reasons.push((reason.to_owned(), chosen.len()));
    let included: HashSet<&str> = chosen.iter().map(|memory| memory.id.0.as_str()).collect();
    for insight in insights {
        if !insight.memory_ids.iter().any(|id| included.contains(id.0.as_str())) {
            continue;
        }
        let cost = insight_cost(&insight);
        if packed.tokens + cost <= budget {
            packed.tokens += cost;
            packed.insights.push(insight);
        }
    }
    packed.ranked = chosen.iter().map(|memory| memory.id.clone()).collect();
    chosen.sort_by_key(|memory| (event_day(memory), memory.created_at));
    packed.memories = chosen;
    packed
}

/// Best first: a blend of recency (by event date, else creation) and importance.
fn rank(mut memories: Vec<Memory>) -> Vec<Memory> {
    memories.sort_by_key(|memory| std::cmp::Reverse((event_day(memory), memory.created_at)));
    let count = memories.len().max(1) as f64;
    let mut scored: Vec<(f64, Memory)> = memories
        .into_iter()
        .enumerate()
        .map(|(position, memory)| (0.6 * (1.0 - position as f64 / count) + 0.4 * memory.importance, memory))
        .collect();
    scored.sort_by(|a, b| b.0.total_cmp(&a.0));
    scored.into_iter().map(|(_, memory)| memory).collect()
}

/// The day the memory is about: when it happened, else when it was made.
fn event_day(memory: &Memory) -> String {
    memory.happened_on.clone().unwrap_or_else(|| crate::calendar::CalendarDate::at(memory.created_at, 0).to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::{ConsolidationId, MemoryId, Position, SourceKind};

    fn memory(id: &str, day: &str, importance: f64) -> Memory {
        Memory {
            id: MemoryId(id.into()),
            source_path: "n.md".into(),
            source_kind: SourceKind::Note,
            position: Position::default(),
            raw_text: String::new(),
            summary: "A memory of moderate length that takes some tokens.".into(),
            entities: vec![],
            topics: vec![],
            importance,
            happened_on: Some(day.into()),
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
    fn everything_goes_in_when_it_fits_in_date_order() {
        let packed = pack(vec![memory("b", "2026-03-01", 0.1), memory("a", "2026-01-01", 0.9)], vec![], 10_000);
        assert_eq!(packed.memories.iter().map(|m| m.id.0.as_str()).collect::<Vec<_>>(), vec!["a", "b"]);
        assert_eq!(packed.reasons, vec![("all".to_owned(), 2)]);
    }

    #[test]
    fn the_budget_is_never_exceeded_and_recent_important_win() {
        let memories: Vec<Memory> =
            (0..200).map(|day| memory(&format!("m{day:03}"), &format!("2026-01-{:02}", day % 28 + 1), 0.5)).collect();
        let one = super::super::choose::line_cost(&memories[0]);
        for budget in [0, one - 1, one, 10 * one, 57 * one + 3] {
            let packed = pack(memories.clone(), vec![], budget);
            assert!(packed.tokens <= budget, "{} > {budget}", packed.tokens);
            assert_eq!(packed.memories.len(), budget / one);
        }
        let mut mixed = vec![memory("old-vital", "2020-01-01", 1.0), memory("old-trivial", "2020-01-02", 0.0)];
        mixed.extend((0..10).map(|n| memory(&format!("new{n}"), "2026-01-01", 0.3)));
        let packed = pack(mixed, vec![], 8 * one + 10);
        let ids: Vec<&str> = packed.memories.iter().map(|m| m.id.0.as_str()).collect();
        assert!(ids.contains(&"old-vital") && !ids.contains(&"old-trivial"), "{ids:?}");
    }

    #[test]
    fn only_insights_over_packed_memories_go_in() {
        let insight = |id: &str, over: &str| Consolidation {
            id: ConsolidationId(id.into()),
            memory_ids: vec![MemoryId(over.into())],
            insight: "Linked.".into(),
            connections: vec![],
            created_at: 0,
        };
        let packed =
            pack(vec![memory("a", "2026-01-01", 0.5)], vec![insight("c1", "a"), insight("c2", "gone")], 10_000);
        assert_eq!(packed.insights.len(), 1);
        assert_eq!(packed.insights[0].id.0, "c1");
    }
}
