//! Format 1 of the per-device log (`log.rs`), in types of its own: the lines already in users'
//! vaults must keep replaying, so a change to a domain struct must not change what is written or
//! read. Each struct copies, field for field and in order, the domain type format 1 was
//! serialized from, with its serde attributes; the conversions destructure the domain types
//! whole, so a new domain field fails to compile here until the format decides about it.
//! `tests/fixtures/log-v1/` holds lines this format wrote; every later version replays them.

use serde::{Deserialize, Serialize};

use super::log::LogEntry;
use super::{StoreError, UsageRecord, LOG_FORMAT};
use crate::domain::{
    Connection, Consolidation, ConsolidationId, DateSource, Entity, Memory, MemoryId, Millis, Position, Source,
    SourceKind,
};

/// The `v` of this format's lines.
const FORMAT: u32 = 1;

// The writer writes the newest format: a format 2 gets a module (and types) of its own.
const _: () = assert!(LOG_FORMAT == FORMAT, "log_v1 writes format 1 only");

/// One line as written: `v`, `at`, then the entry's fields (tagged by `op`) at the same level.
#[derive(Serialize)]
struct LineV1 {
    v: u32,
    at: i64,
    #[serde(flatten)]
    entry: EntryV1,
}

/// A line is read in two passes over its text: this head first (the rest skipped), then the
/// entry its `op` names, straight from the text. serde's reading of `flatten` with an
/// internally tagged enum buffered every line in its generic `Content` tree instead: tens of
/// KB of the plugin's module and a tree of allocations per line.
#[derive(Deserialize)]
struct HeadV1 {
    v: u32,
    at: i64,
    op: OpV1,
}

#[derive(Clone, Copy, Deserialize)]
#[serde(rename_all = "snake_case")]
enum OpV1 {
    Note,
    Removed,
    Memory,
    Insight,
    Usage,
}

/// The entries, each variant's fields a struct of its own so that it reads alone.
#[derive(Serialize)]
#[serde(tag = "op", rename_all = "snake_case")]
enum EntryV1 {
    Note(NoteV1),
    Removed(RemovedV1),
    Memory(MemoryEntryV1),
    Insight(InsightV1),
    Usage(UsageEntryV1),
}

#[derive(Serialize, Deserialize)]
struct NoteV1 {
    source: SourceV1,
    memories: Vec<MemoryV1>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    quiet: Option<String>,
}

#[derive(Serialize, Deserialize)]
struct RemovedV1 {
    tombstone: String,
}

#[derive(Serialize, Deserialize)]
struct MemoryEntryV1 {
    memory: MemoryV1,
}

#[derive(Serialize, Deserialize)]
struct InsightV1 {
    insight: ConsolidationV1,
}

#[derive(Serialize, Deserialize)]
struct UsageEntryV1 {
    device: String,
    usage: UsageV1,
}

/// The entry `op` names, from the whole line's text (its `v`, `at` and `op` ignored).
fn read_entry(op: OpV1, text: &str) -> serde_json::Result<EntryV1> {
    match op {
        OpV1::Note => serde_json::from_str(text).map(EntryV1::Note),
        OpV1::Removed => serde_json::from_str(text).map(EntryV1::Removed),
        OpV1::Memory => serde_json::from_str(text).map(EntryV1::Memory),
        OpV1::Insight => serde_json::from_str(text).map(EntryV1::Insight),
        OpV1::Usage => serde_json::from_str(text).map(EntryV1::Usage),
    }
}

#[derive(Serialize, Deserialize)]
struct SourceV1 {
    path: String,
    mtime: i64,
    size: u64,
    sha256: String,
    updated_at: i64,
    skipped: Option<String>,
}

/// Ids were newtypes serialized transparently: plain strings.
#[derive(Serialize, Deserialize)]
struct MemoryV1 {
    id: String,
    source_path: String,
    source_kind: SourceKindV1,
    position: PositionV1,
    raw_text: String,
    summary: String,
    entities: Vec<EntityV1>,
    topics: Vec<String>,
    importance: f64,
    happened_on: Option<String>,
    #[serde(default)]
    also_on: Vec<String>,
    #[serde(default)]
    date_source: DateSourceV1,
    #[serde(default)]
    facts: Vec<String>,
    created_at: i64,
    updated_at: i64,
    consolidated: bool,
    content_hash: Option<String>,
}

#[derive(Clone, Copy, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
enum SourceKindV1 {
    Note,
    Selection,
    Text,
}

/// Missing fields read as `None` (serde's rule for `Option`), as they did.
#[derive(Serialize, Deserialize)]
struct PositionV1 {
    heading: Option<String>,
    line_start: Option<u32>,
    line_end: Option<u32>,
}

/// The kind stays free text (`person`, `place`, `organisation`, `thing` by the prompt, but
/// the domain never restricted it): an enum would refuse lines format 1 wrote.
#[derive(Serialize, Deserialize)]
struct EntityV1 {
    name: String,
    kind: String,
}

#[derive(Clone, Copy, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
enum DateSourceV1 {
    #[default]
    Text,
    NoteName,
    NoteProperty,
    FileMetadata,
}

#[derive(Serialize, Deserialize)]
struct ConsolidationV1 {
    id: String,
    memory_ids: Vec<String>,
    insight: String,
    connections: Vec<ConnectionV1>,
    created_at: i64,
}

#[derive(Serialize, Deserialize)]
struct ConnectionV1 {
    from: String,
    to: String,
    relationship: String,
}

#[derive(Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct UsageV1 {
    day: String,
    agent: String,
    calls: u64,
    input_tokens: u64,
    output_tokens: u64,
    cache_read_tokens: u64,
    cache_write_tokens: u64,
}

/// One line of format 1 for `entry`, without its newline.
pub(super) fn encode_line(at: Millis, entry: &LogEntry) -> Result<String, StoreError> {
    serde_json::to_string(&LineV1 { v: FORMAT, at, entry: entry.into() })
        .map_err(|error| StoreError::InvalidData(error.to_string()))
}

/// What a line of a log file holds.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum DecodedLine {
    Entry {
        at: Millis,
        entry: Box<LogEntry>,
    },
    /// Only white space.
    Blank,
    /// Damaged: not UTF-8, not JSON, or not an entry of this format.
    Unreadable,
    /// Of a newer format: it and what follows wait for a newer Memory Agent.
    Newer,
}

/// Reads one line (its newline included or not).
pub(super) fn decode_line(line: &[u8]) -> DecodedLine {
    let Ok(text) = std::str::from_utf8(line) else { return DecodedLine::Unreadable };
    let text = text.trim();
    if text.is_empty() {
        return DecodedLine::Blank;
    }
    match serde_json::from_str::<HeadV1>(text) {
        Ok(head) if head.v > FORMAT => DecodedLine::Newer,
        Ok(head) => match read_entry(head.op, text) {
            Ok(entry) => DecodedLine::Entry { at: head.at, entry: Box::new(entry.into()) },
            Err(_) => DecodedLine::Unreadable,
        },
        // A line of a newer format may not read as ours at all.
        Err(_) => match serde_json::from_str::<serde_json::Value>(text) {
            Ok(value) if value.get("v").and_then(serde_json::Value::as_u64).is_some_and(|v| v > u64::from(FORMAT)) => {
                DecodedLine::Newer
            }
            _ => DecodedLine::Unreadable,
        },
    }
}

/// A line of format 1 decoded into the domain's types and encoded again (`None` when it is no
/// entry): the test that the wire types and their conversions lose nothing.
#[doc(hidden)]
pub fn round_trip(line: &str) -> Option<String> {
    match decode_line(line.as_bytes()) {
        DecodedLine::Entry { at, entry } => encode_line(at, &entry).ok(),
        DecodedLine::Blank | DecodedLine::Unreadable | DecodedLine::Newer => None,
    }
}

impl From<&LogEntry> for EntryV1 {
    fn from(entry: &LogEntry) -> Self {
        match entry {
            LogEntry::Note { source, memories, quiet } => EntryV1::Note(NoteV1 {
                source: source.into(),
                memories: memories.iter().map(MemoryV1::from).collect(),
                quiet: quiet.clone(),
            }),
            LogEntry::Removed { tombstone } => EntryV1::Removed(RemovedV1 { tombstone: tombstone.clone() }),
            LogEntry::Memory { memory } => EntryV1::Memory(MemoryEntryV1 { memory: memory.into() }),
            LogEntry::Insight { insight } => EntryV1::Insight(InsightV1 { insight: insight.into() }),
            LogEntry::Usage { device, usage } => {
                EntryV1::Usage(UsageEntryV1 { device: device.clone(), usage: usage.into() })
            }
        }
    }
}

impl From<EntryV1> for LogEntry {
    fn from(entry: EntryV1) -> Self {
        match entry {
            EntryV1::Note(NoteV1 { source, memories, quiet }) => LogEntry::Note {
                source: source.into(),
                memories: memories.into_iter().map(Memory::from).collect(),
                quiet,
            },
            EntryV1::Removed(RemovedV1 { tombstone }) => LogEntry::Removed { tombstone },
            EntryV1::Memory(MemoryEntryV1 { memory }) => LogEntry::Memory { memory: memory.into() },
            EntryV1::Insight(InsightV1 { insight }) => LogEntry::Insight { insight: insight.into() },
            EntryV1::Usage(UsageEntryV1 { device, usage }) => LogEntry::Usage { device, usage: usage.into() },
        }
    }
}

impl From<&Source> for SourceV1 {
    fn from(source: &Source) -> Self {
        let Source { path, mtime, size, sha256, updated_at, skipped } = source;
        SourceV1 {
            path: path.clone(),
            mtime: *mtime,
            size: *size,
            sha256: sha256.clone(),
            updated_at: *updated_at,
            skipped: skipped.clone(),
        }
    }
}

impl From<SourceV1> for Source {
    fn from(source: SourceV1) -> Self {
        let SourceV1 { path, mtime, size, sha256, updated_at, skipped } = source;
        Source { path, mtime, size, sha256, updated_at, skipped }
    }
}

impl From<&Memory> for MemoryV1 {
    fn from(memory: &Memory) -> Self {
        let Memory {
            id,
            source_path,
            source_kind,
            position,
            raw_text,
            summary,
            entities,
            topics,
            importance,
            happened_on,
            also_on,
            date_source,
            facts,
            created_at,
            updated_at,
            consolidated,
            content_hash,
        } = memory;
        let Position { heading, line_start, line_end } = position;
        MemoryV1 {
            id: id.0.clone(),
            source_path: source_path.clone(),
            source_kind: (*source_kind).into(),
            position: PositionV1 { heading: heading.clone(), line_start: *line_start, line_end: *line_end },
            raw_text: raw_text.clone(),
            summary: summary.clone(),
            entities: entities
                .iter()
                .map(|Entity { name, kind }| EntityV1 { name: name.clone(), kind: kind.clone() })
                .collect(),
            topics: topics.clone(),
            importance: *importance,
            happened_on: happened_on.clone(),
            also_on: also_on.clone(),
            date_source: (*date_source).into(),
            facts: facts.clone(),
            created_at: *created_at,
            updated_at: *updated_at,
            consolidated: *consolidated,
            content_hash: content_hash.clone(),
        }
    }
}

impl From<MemoryV1> for Memory {
    fn from(memory: MemoryV1) -> Self {
        let MemoryV1 {
            id,
            source_path,
            source_kind,
            position: PositionV1 { heading, line_start, line_end },
            raw_text,
            summary,
            entities,
            topics,
            importance,
            happened_on,
            also_on,
            date_source,
            facts,
            created_at,
            updated_at,
            consolidated,
            content_hash,
        } = memory;
        Memory {
            id: MemoryId(id),
            source_path,
            source_kind: source_kind.into(),
            position: Position { heading, line_start, line_end },
            raw_text,
            summary,
            entities: entities.into_iter().map(|EntityV1 { name, kind }| Entity { name, kind }).collect(),
            topics,
            importance,
            happened_on,
            also_on,
            date_source: date_source.into(),
            facts,
            created_at,
            updated_at,
            consolidated,
            content_hash,
        }
    }
}

impl From<SourceKind> for SourceKindV1 {
    fn from(kind: SourceKind) -> Self {
        match kind {
            SourceKind::Note => SourceKindV1::Note,
            SourceKind::Selection => SourceKindV1::Selection,
            SourceKind::Text => SourceKindV1::Text,
        }
    }
}

impl From<SourceKindV1> for SourceKind {
    fn from(kind: SourceKindV1) -> Self {
        match kind {
            SourceKindV1::Note => SourceKind::Note,
            SourceKindV1::Selection => SourceKind::Selection,
            SourceKindV1::Text => SourceKind::Text,
        }
    }
}

impl From<DateSource> for DateSourceV1 {
    fn from(source: DateSource) -> Self {
        match source {
            DateSource::Text => DateSourceV1::Text,
            DateSource::NoteName => DateSourceV1::NoteName,
            DateSource::NoteProperty => DateSourceV1::NoteProperty,
            DateSource::FileMetadata => DateSourceV1::FileMetadata,
        }
    }
}

impl From<DateSourceV1> for DateSource {
    fn from(source: DateSourceV1) -> Self {
        match source {
            DateSourceV1::Text => DateSource::Text,
            DateSourceV1::NoteName => DateSource::NoteName,
            DateSourceV1::NoteProperty => DateSource::NoteProperty,
            DateSourceV1::FileMetadata => DateSource::FileMetadata,
        }
    }
}

impl From<&Consolidation> for ConsolidationV1 {
    fn from(insight: &Consolidation) -> Self {
        let Consolidation { id, memory_ids, insight, connections, created_at } = insight;
        ConsolidationV1 {
            id: id.0.clone(),
            memory_ids: memory_ids.iter().map(|id| id.0.clone()).collect(),
            insight: insight.clone(),
            connections: connections
                .iter()
                .map(|Connection { from, to, relationship }| ConnectionV1 {
                    from: from.0.clone(),
                    to: to.0.clone(),
                    relationship: relationship.clone(),
                })
                .collect(),
            created_at: *created_at,
        }
    }
}

impl From<ConsolidationV1> for Consolidation {
    fn from(insight: ConsolidationV1) -> Self {
        let ConsolidationV1 { id, memory_ids, insight, connections, created_at } = insight;
        Consolidation {
            id: ConsolidationId(id),
            memory_ids: memory_ids.into_iter().map(MemoryId).collect(),
            insight,
            connections: connections
                .into_iter()
                .map(|ConnectionV1 { from, to, relationship }| Connection {
                    from: MemoryId(from),
                    to: MemoryId(to),
                    relationship,
                })
                .collect(),
            created_at,
        }
    }
}

impl From<&UsageRecord> for UsageV1 {
    fn from(usage: &UsageRecord) -> Self {
        let UsageRecord { day, agent, calls, input_tokens, output_tokens, cache_read_tokens, cache_write_tokens } =
            usage;
        UsageV1 {
            day: day.clone(),
            agent: agent.clone(),
            calls: *calls,
            input_tokens: *input_tokens,
            output_tokens: *output_tokens,
            cache_read_tokens: *cache_read_tokens,
            cache_write_tokens: *cache_write_tokens,
        }
    }
}

impl From<UsageV1> for UsageRecord {
    fn from(usage: UsageV1) -> Self {
        let UsageV1 { day, agent, calls, input_tokens, output_tokens, cache_read_tokens, cache_write_tokens } = usage;
        UsageRecord { day, agent, calls, input_tokens, output_tokens, cache_read_tokens, cache_write_tokens }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Lines format 1 wrote (made by the code of its time, `serde_json` over the domain types).
    const FIXTURE: &str = include_str!("../../tests/fixtures/log-v1/all-entries.jsonl");

    #[test]
    fn every_line_of_the_fixture_reads_and_writes_back_byte_for_byte() {
        let mut lines = 0;
        for line in FIXTURE.lines() {
            let DecodedLine::Entry { at, entry } = decode_line(line.as_bytes()) else { panic!("not read: {line}") };
            assert_eq!(encode_line(at, &entry).unwrap(), line);
            lines += 1;
        }
        assert!(lines >= 10, "the fixture lost its lines");
    }

    #[test]
    fn a_newer_format_waits_even_when_it_does_not_read_as_ours() {
        assert_eq!(decode_line(br#"{"v":2,"at":5,"op":"usage","device":"d","usage":{}}"#), DecodedLine::Newer);
        assert_eq!(decode_line(br#"{"v":2,"at":5,"op":"removed","tombstone":"m-1"}"#), DecodedLine::Newer);
        assert_eq!(decode_line(b"{\"v\":7,\"op\":\"teleported\"}\n"), DecodedLine::Newer);
    }

    #[test]
    fn blank_and_damaged_lines() {
        assert_eq!(decode_line(b"  \t\r\n"), DecodedLine::Blank);
        assert_eq!(decode_line(b"\xff\xfe{}\n"), DecodedLine::Unreadable);
        assert_eq!(decode_line(b"{\"v\":1,\"at\":5,\"op\":\"remov"), DecodedLine::Unreadable);
        assert_eq!(decode_line(br#"{"v":1,"at":5,"op":"teleported"}"#), DecodedLine::Unreadable);
        assert_eq!(decode_line(br#"{"v":"2","at":5,"op":"teleported"}"#), DecodedLine::Unreadable);
    }

    #[test]
    fn a_line_without_the_optional_fields_reads_with_their_defaults() {
        let line = br#"{"v":1,"at":9,"op":"memory","memory":{"id":"m-1","source_path":"","source_kind":"text","position":{},"raw_text":"Buy milk","summary":"Buy milk.","entities":[],"topics":[],"importance":0.2,"happened_on":null,"created_at":1,"updated_at":1,"consolidated":false,"content_hash":null}}"#;
        let DecodedLine::Entry { at, entry } = decode_line(line) else { panic!("not read") };
        let LogEntry::Memory { memory } = *entry else { panic!("not a memory") };
        assert_eq!(at, 9);
        assert_eq!(memory.position, Position::default());
        assert_eq!((memory.also_on.len(), memory.facts.len(), memory.date_source), (0, 0, DateSource::Text));
    }

    #[test]
    fn a_line_reads_whatever_the_order_of_its_fields() {
        let written = br#"{"v":1,"at":5,"op":"usage","device":"d","usage":{"day":"2026-02-01","agent":"query","calls":1,"inputTokens":2,"outputTokens":3,"cacheReadTokens":0,"cacheWriteTokens":0}}"#;
        let reordered = br#"{"usage":{"day":"2026-02-01","agent":"query","calls":1,"inputTokens":2,"outputTokens":3,"cacheReadTokens":0,"cacheWriteTokens":0},"device":"d","op":"usage","at":5,"v":1}"#;
        let entry = decode_line(written);
        assert!(matches!(entry, DecodedLine::Entry { at: 5, .. }), "{entry:?}");
        assert_eq!(decode_line(reordered), entry);
        // The head reads, the entry its `op` names does not: damaged, not newer.
        assert_eq!(decode_line(br#"{"v":1,"at":5,"op":"usage","device":"d"}"#), DecodedLine::Unreadable);
    }
}
