//! Choosing what goes into the QueryAgent's prompt, within a token budget.
//!
//! Everything fits → everything goes in. Otherwise the question is planned without a
//! model call (`plan`: dates, names, keywords, "the latest"), candidates come from the
//! store (by date, by name, by BM25 full-text search, recent, important), and they are
//! ranked and packed greedily (`choose`). Each memory's cost is the estimated tokens of
//! the exact line the prompt will carry (`lines`; a note's path is written once for its
//! memories, so the packer counts it once a note). No embeddings, no vector index.

mod choose;
mod dates;
mod kinds;
mod lines;
mod pack;
mod plan;

pub use choose::{
    closes_sentence, ends_sentence, event_day, line_cost, packed_tokens, reading_order, select_context, select_more,
    Selection, SelectionRequest, MAX_RUNNERS_UP,
};
pub use dates::{line_date, with_relative_dates, MONTH_NAMES};
pub use lines::{
    insight_cost, insight_line, lines_cost, memory_line, memory_lines, INSIGHT_ELEMENT_TOKENS, MEMORY_ELEMENT_TOKENS,
};
pub use pack::{pack, Packed};
pub use plan::{plan_query, DateOrder, KnownNames, NameCache, QueryPlan, ResolvedDate};
