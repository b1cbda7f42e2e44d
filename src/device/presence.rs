//! Presence: how a running plugin and the `memory-agent` command keep from paying for the same
//! notes. The plugin rewrites its heartbeat (`running-<device>.json` beside its database) every
//! `HEARTBEAT_EVERY_MS`; the command's `index` refuses to start while one is younger than
//! `HEARTBEAT_FRESH_MS`. While `index` runs it rewrites `indexing.json` in its own log folder
//! every `INDEXING_EVERY_MS`; a plugin that sees one younger than `INDEXING_FRESH_MS` leaves
//! paid note work to the command. One set of numbers, read by both (the plugin through the
//! generated settings schema).

use crate::domain::Millis;

/// How often a loaded plugin rewrites its heartbeat.
pub const HEARTBEAT_EVERY_MS: Millis = 60_000;
/// A heartbeat younger than this means the plugin runs on this vault: two and a half beats,
/// so a late timer or a slow disk never looks like a closed Obsidian.
pub const HEARTBEAT_FRESH_MS: Millis = 150_000;
/// How often a running `index` rewrites `indexing.json`.
pub const INDEXING_EVERY_MS: Millis = 20_000;
/// An `indexing.json` younger than this means the command is indexing now (four and a half
/// rewrites: a sync tool may bring it late).
pub const INDEXING_FRESH_MS: Millis = 90_000;
/// The indexing marker's file name, in the command's own log folder.
pub const INDEXING_FILE: &str = "indexing.json";

/// The heartbeat file's name of `device`.
pub fn heartbeat_file(device: &str) -> String {
    format!("running-{device}.json")
}

const _: () = assert!(HEARTBEAT_EVERY_MS * 2 < HEARTBEAT_FRESH_MS && INDEXING_EVERY_MS * 4 < INDEXING_FRESH_MS);
