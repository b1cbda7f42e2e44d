//! What a line of a device's log must be before a replay keeps anything of it. Any writer of
//! the vault can drop a well-formed line (another device, a sync tool's copy, a shared
//! folder): each entry is checked here against what the store accepts and against limits far
//! above what Memory Agent writes, and a line that fails is skipped, counted and named, never
//! a reason to stop the rest of the file or the other devices' files.

use super::log::LogEntry;
use super::memories::check_insertable;
use super::usage::UsageRecord;
use crate::domain::{Memory, Millis, Source};

/// A note's memories: one per chunk, and a note is read up to the size limit (at most a few
/// hundred chunks).
pub const MAX_MEMORIES_PER_NOTE: usize = 2_000;
/// Memories an insight cites: a consolidation batch holds a few dozen.
pub const MAX_IDS_PER_INSIGHT: usize = 200;
/// Characters of a summary, a fact, a name, a topic or an insight.
pub const MAX_FIELD_CHARS: usize = 20_000;
/// Facts, names or topics of one memory.
pub const MAX_LIST_ITEMS: usize = 200;
/// Bytes of a memory's text (a typed text or selection keeps its own; a note's keeps a few
/// words): as large as a note may be.
pub const MAX_TEXT_BYTES: usize = 4 * 1024 * 1024;
/// Tokens (of each kind) or calls one device can have counted in one day for one agent: about
/// $3,000 of Haiku's input, far above any day of real use, and small enough that no sum of
/// them overflows.
pub const MAX_DAY_USAGE: u64 = 1_000_000_000;

/// How far ahead of this device's clock another device's may be: beyond it a time is not
/// believed. The newest version of a note wins a merge, so a line dated in 2100 would otherwise
/// win over every genuine edit to come.
pub const MAX_CLOCK_SKEW_MS: Millis = 24 * 60 * 60 * 1000;

/// Why the entry, written at `at` and read from the log of `folder_device` on a device whose
/// clock says `now`, is refused; `None` when it may be kept.
pub(super) fn refusal(entry: &LogEntry, at: Millis, folder_device: &str, now: Millis) -> Option<String> {
    let latest = now.saturating_add(MAX_CLOCK_SKEW_MS);
    let times = entry_times(entry);
    if let Some(future) = std::iter::once(at).chain(times).find(|time| *time > latest) {
        return Some(format!(
            "dated {} days ahead of this device's clock (is the clock of device {} right?)",
            (future - now) / (24 * 60 * 60 * 1000),
            short(folder_device)
        ));
    }
    match entry {
        LogEntry::Note { source, memories, quiet } => note_refusal(source, memories, quiet.as_deref()),
        LogEntry::Memory { memory } => memory_refusal(memory),
        LogEntry::Insight { insight } => {
            if insight.memory_ids.len() > MAX_IDS_PER_INSIGHT {
                return Some(format!(
                    "an insight cites {} memories (at most {MAX_IDS_PER_INSIGHT})",
                    insight.memory_ids.len()
                ));
            }
            if insight.insight.chars().count() > MAX_FIELD_CHARS || insight.connections.len() > MAX_LIST_ITEMS {
                return Some("an insight's text or connections are too long".into());
            }
            super::consolidations::validate(insight)
                .err()
                .map(|error| format!("insight {}: {error}", short(&insight.id.0)))
        }
        LogEntry::Usage { device, usage } => usage_refusal(device, usage, folder_device),
        LogEntry::Removed { tombstone } => (tombstone.is_empty() || tombstone.len() > MAX_FIELD_CHARS)
            .then(|| "a removal names nothing, or too much".into()),
    }
}

/// The times an entry states (when its note version, memories or insight were made).
fn entry_times(entry: &LogEntry) -> Vec<Millis> {
    let of_memory = |memory: &Memory| [memory.created_at, memory.updated_at];
    match entry {
        LogEntry::Note { source, memories, .. } => {
            std::iter::once(source.updated_at).chain(memories.iter().flat_map(of_memory)).collect()
        }
        LogEntry::Memory { memory } => of_memory(memory).to_vec(),
        LogEntry::Insight { insight } => vec![insight.created_at],
        LogEntry::Removed { .. } | LogEntry::Usage { .. } => Vec::new(),
    }
}

fn note_refusal(source: &Source, memories: &[Memory], quiet: Option<&str>) -> Option<String> {
    if source.path.trim().is_empty() || source.path.len() > MAX_FIELD_CHARS {
        return Some("a note's path is empty or too long".into());
    }
    if let Err(error) = super::sources::source_columns(source) {
        return Some(format!("note {}: {error}", short(&source.path)));
    }
    if memories.len() > MAX_MEMORIES_PER_NOTE {
        return Some(format!("a note has {} memories (at most {MAX_MEMORIES_PER_NOTE})", memories.len()));
    }
    if let Some(quiet) = quiet {
        if crate::hash::unhex(quiet).is_none() || quiet.len() > MAX_TEXT_BYTES {
            return Some("a note's quiet chunks are not hex".into());
        }
    }
    memories.iter().find_map(memory_refusal)
}

fn memory_refusal(memory: &Memory) -> Option<String> {
    let long = |text: &str| text.chars().count() > MAX_FIELD_CHARS;
    if memory.raw_text.len() > MAX_TEXT_BYTES || long(&memory.summary) {
        return Some(format!("memory {}: its text or summary is too long", short(&memory.id.0)));
    }
    let lists = [memory.facts.len(), memory.entities.len(), memory.topics.len(), memory.also_on.len()];
    if lists.iter().any(|count| *count > MAX_LIST_ITEMS) {
        return Some(format!(
            "memory {}: more than {MAX_LIST_ITEMS} facts, names, topics or days",
            short(&memory.id.0)
        ));
    }
    let items = memory.facts.iter().chain(&memory.topics).chain(memory.entities.iter().map(|entity| &entity.name));
    if items.map(String::as_str).any(long) || long(&memory.id.0) {
        return Some(format!("memory {}: a fact, name or topic is too long", short(&memory.id.0)));
    }
    check_insertable(memory).err().map(|error| format!("memory {}: {error}", short(&memory.id.0)))
}

/// A device counts its own calls: a row in another device's folder, or one beyond a plausible
/// day, is not believed (it would pause every device's work at the spending limit).
fn usage_refusal(device: &str, usage: &UsageRecord, folder_device: &str) -> Option<String> {
    if device != folder_device {
        return Some(format!("usage of device {} in the folder of {}", short(device), short(folder_device)));
    }
    let counts =
        [usage.calls, usage.input_tokens, usage.output_tokens, usage.cache_read_tokens, usage.cache_write_tokens];
    if counts.iter().any(|count| *count > MAX_DAY_USAGE) {
        return Some(format!("usage of {} beyond {MAX_DAY_USAGE} tokens or calls in a day", short(&usage.day)));
    }
    None
}

/// At most 40 characters of a value written by someone else, for a message.
fn short(text: &str) -> String {
    let mut shown: String = text.chars().take(40).filter(|c| !c.is_control()).collect();
    if text.chars().count() > 40 {
        shown.push('…');
    }
    shown
}
