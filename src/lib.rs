//! Memory Agent's core: the memory store and (in later modules) the agents, in plain Rust.
//!
//! Nothing here knows about JavaScript except `wasm`, the facade compiled only for
//! `wasm32`. IO comes in through small traits (`store::SqlDriver` for SQL); time comes in
//! as arguments (`domain::Millis`), never from the system clock, so every path runs
//! deterministically in native tests. See ARCHITECTURE.md for the map.

pub mod agents;
pub mod calendar;
pub mod device;
pub mod domain;
pub mod engine;
pub mod error;
pub mod hash;
pub mod images;
pub mod llm;
#[cfg(all(feature = "cli", not(target_arch = "wasm32")))]
pub mod native;
pub mod notes;
pub mod select;
pub mod settings_schema;
pub mod store;
pub mod tokens;

// Words and stems run for every memory entered in the full-text index: their own crate, built for
// speed while the rest is built for size (Cargo.toml, `[profile.release.package]`).
pub use memory_agent_text::{stems, words};

#[cfg(target_arch = "wasm32")]
mod wasm;
