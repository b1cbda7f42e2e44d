//! The device runtime: what one device does with the memory folder of the vault, sans IO.
//!
//! Each device appends what it remembers to its own log files in the vault
//! (`<memory folder>/<device>/000001.jsonl`), the truth a sync tool carries; its database is a
//! cache of every device's logs, which it can rebuild. This module owns every rule of those
//! files — their layout (`layout`), appends and sealing, replay in slices, purges of what the
//! user removed, compaction (`log`), and presence (`presence`) — and speaks in file operations
//! (`files::VaultFiles`: list, read, append, create, remove) that a host carries out: the
//! plugin through Obsidian's adapter, the command through `std::fs`, the simulation over its
//! own vaults. No host holds a rule of its own.

pub mod files;
pub mod layout;
pub mod log;
#[cfg(not(target_arch = "wasm32"))]
pub mod memory_files;
pub mod presence;

pub use files::{Listing, VaultFiles};
pub use log::{DeviceLog, DeviceLogError, Limits, LogReplay, LogSync, ReplayProblem, ReplayProgress};
#[cfg(not(target_arch = "wasm32"))]
pub use memory_files::MemoryFiles;
