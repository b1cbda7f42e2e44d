//! Test support shared by the native integration tests: virtual time and scripted IO.

#![allow(dead_code)]

pub mod connection;
pub mod fake_model;
pub mod note_memory;
pub mod png;
pub mod query_vault;
pub mod scripted_transport;
pub mod small_talk;
pub mod snapshot;
pub mod test_host;
pub mod virtual_time;
