//! The one thing every error of the core shares: a stable machine-readable code.
//!
//! Codes look like `store.corrupt`; they are part of the plugin's contract (the facade puts
//! them on JS `Error.code`, the plugin branches on them), so a code never changes once
//! released. Messages are for people and may change.

/// An error that carries a stable code such as `store.corrupt`.
pub trait ErrorCode: std::error::Error {
    fn code(&self) -> &'static str;
}
