//! Choosing what goes into the QueryAgent's prompt, within a token budget.
//!
//! Everything fits → everything goes in. Otherwise memories are ranked and packed greedily.
//! The ranking is one replaceable function (`rank`); each memory's cost is the estimated
//! tokens of the exact line the prompt will carry (`lines`).

mod lines;
mod pack;

pub use lines::{insight_line, memory_line};
pub use pack::{pack, Packed};
