//! The words of a text as Memory Agent searches them: split, folded (`words`) and stemmed or
//! paired by script (`stems`). Its own crate so that it is built for speed (see the workspace's
//! Cargo.toml): a rebuild from the logs runs it for every memory.

pub mod stems;
pub mod words;
