//! The three agents: ingest (text → memory), consolidate (memories → insights) and query
//! (question → answer with citations). No embeddings, no vector index: the model reads.
//!
//! Every agent asks for structured output through a forced tool call and validates what
//! comes back; an invalid answer is retried once with the reason, then the agent fails.
//! Nothing half-made ever reaches the store: agents return values, the engine stores them.

pub mod answer_pieces;
pub mod consolidate;
pub mod excerpt;
pub mod fence;
pub mod ingest;
pub mod ingest_batch;
mod model;
pub mod passages;
pub mod planner;
pub mod query;

use thiserror::Error;

use crate::error::ErrorCode;
use crate::llm::LlmError;
use crate::store::StoreError;

pub use model::{cached_if_worth_it, BedrockModel, Model};

/// Why an agent could not finish.
#[derive(Debug, Error)]
pub enum AgentError {
    /// The model call failed (after the client's own retries).
    #[error(transparent)]
    Model(#[from] LlmError),
    /// The model answered twice with output that breaks the rules; the reason is recorded.
    #[error("the model's answer was not usable twice in a row: {0}")]
    InvalidOutput(String),
    /// Reading or writing memories failed.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// The model declined the text twice (a refusal, a guardrail, output it could not shape):
    /// not tried again; a note is skipped with the reason.
    #[error("the model declined it twice: {0}")]
    Refused(String),
    /// A spending limit would be passed; the user is asked before it is.
    #[error("{0}")]
    OverLimit(String),
}

impl ErrorCode for AgentError {
    fn code(&self) -> &'static str {
        match self {
            AgentError::Model(error) => error.code(),
            AgentError::InvalidOutput(_) => "agent.invalid_output",
            AgentError::Store(error) => error.code(),
            AgentError::OverLimit(_) => "budget.over_limit",
            AgentError::Refused(_) => "agent.refused",
        }
    }
}
