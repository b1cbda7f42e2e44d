//! The Bedrock client: Converse requests built, signed, sent, retried and parsed in Rust.
//!
//! The client never touches the network or the clock itself: the host hands in an
//! `HttpTransport` (Obsidian's `requestUrl` in the plugin, scripted replies in tests) and a
//! `Clock` (time and sleeping). Signing uses the `aws-sigv4` crate with the host's time.
//! Errors are classified into `LlmError`s with a sentence a person can act on.

mod catalog;
mod client;
mod config;
mod converse;
mod error;
mod http;
mod limiter;
pub mod models;
mod pricing;
mod retry;
mod retry_quota;
mod sign;
mod skew;

pub use catalog::ModelChoice;
pub use client::{BedrockClient, ModelFallback};
pub use config::{
    default_model_for, endpoint_host, endpoint_trust, is_aws_bedrock_runtime_host, previous_default_model_for,
    BedrockAuth, BedrockConfig, EndpointTrust, BEDROCK_REGIONS, DEFAULT_MODEL_ID, DEFAULT_REGION,
};
pub use converse::{
    document_name, ContentBlock, ConverseReply, ConverseRequest, DocumentFormat, Message, Role, StopReason,
    ThinkingEffort, ToolCall, ToolSpec,
};
pub use error::LlmError;
pub use http::{Clock, HttpRequest, HttpResponse, HttpTransport, TransportError};
pub use limiter::ConcurrencyLimiter;
pub use models::{model_spec, ModelSpec, Thinking};
pub use pricing::{
    cache_minimum_tokens, estimate_cost_usd, estimate_cost_usd_in, long_prompt_threshold, price_known, prices,
    prices_in, prompt_tokens, tier_of_call, PriceTier, Prices,
};
pub use retry::{Jitter, RetryPolicy};
pub use skew::parse_http_date;
