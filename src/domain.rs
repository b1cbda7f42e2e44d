//! The things Memory Agent remembers, in plain Rust: memories, insights (consolidations),
//! the notes they come from, and the jobs that produce them.
//!
//! Times are UTC milliseconds since the Unix epoch handed in by the host (`Millis`);
//! calendar dates (when a remembered thing happened) are ISO `YYYY-MM-DD` strings,
//! because "it happened on 2 January" has no time zone.

use serde::{Deserialize, Serialize};

/// UTC milliseconds since the Unix epoch, as JavaScript's `Date.now()` gives them.
pub type Millis = i64;

/// Identifies a memory; cited by answers as `[memory:ID]`.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(transparent)]
pub struct MemoryId(pub String);

/// Identifies an insight; cited by answers as `[consolidation:ID]`.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(transparent)]
pub struct ConsolidationId(pub String);

/// Where the remembered text came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SourceKind {
    /// A note (or a chunk of one) in the vault, kept current by vault events.
    Note,
    /// Text the user selected in a note and asked to remember.
    Selection,
    /// Text the user typed into the "Remember…" box.
    Text,
}

impl SourceKind {
    pub fn as_str(self) -> &'static str {
        match self {
            SourceKind::Note => "note",
            SourceKind::Selection => "selection",
            SourceKind::Text => "text",
        }
    }

    pub fn parse(value: &str) -> Option<Self> {
        match value {
            "note" => Some(SourceKind::Note),
            "selection" => Some(SourceKind::Selection),
            "text" => Some(SourceKind::Text),
            _ => None,
        }
    }
}

/// Where in its source a memory sits, so a citation can open the note at that place.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Position {
    /// Heading path, e.g. `Projects > Q3 budget`; `None` for text before the first heading.
    pub heading: Option<String>,
    /// First line, 0-based, inclusive.
    pub line_start: Option<u32>,
    /// Last line, 0-based, inclusive.
    pub line_end: Option<u32>,
}

/// Something a memory is about: a person, place, organisation or thing.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Entity {
    pub name: String,
    /// `person`, `place`, `organisation` or `thing`.
    pub kind: String,
}

/// Where a memory's date comes from: the text itself, or — when the text names no day — the
/// note's own date, from its file name (`Daily/2026-11-23.md`) or its properties (`date:`), or a
/// PDF's or image's own metadata.
/// A file's modification time is never a memory's date: it moves whenever the note is touched.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DateSource {
    #[default]
    Text,
    NoteName,
    NoteProperty,
    /// A PDF's information dictionary (when it was made) or an image's EXIF (when it was taken):
    /// "the file's date".
    FileMetadata,
}

impl DateSource {
    /// Whether the day is the note's rather than one the text names.
    pub fn is_note(self) -> bool {
        self != DateSource::Text
    }
}

/// One structured memory made from a piece of text.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Memory {
    pub id: MemoryId,
    pub source_path: String,
    pub source_kind: SourceKind,
    pub position: Position,
    /// For a selection or typed text, the text itself (it exists nowhere else). For a note's
    /// chunk, the text only while the memory is being made and searched for keywords: the store
    /// keeps a few of its words (`keywords`), and the note stays the place of its text.
    pub raw_text: String,
    pub summary: String,
    pub entities: Vec<Entity>,
    pub topics: Vec<String>,
    /// 0 (trivia) to 1 (life-changing).
    pub importance: f64,
    /// When the remembered thing happened (`YYYY-MM-DD`), if known: the earliest of its days,
    /// the one the memory is filed under (the day index).
    pub happened_on: Option<String>,
    /// The other days its events happened on (`YYYY-MM-DD`), ascending, all after
    /// `happened_on`; empty when there is one day or none.
    #[serde(default)]
    pub also_on: Vec<String>,
    /// Where `happened_on` came from; meaningful only when it is set.
    #[serde(default)]
    pub date_source: DateSource,
    /// Self-contained facts the text states (full names, exact numbers, absolute dates,
    /// decisions, action items), in the note's language: what a summary would drop.
    #[serde(default)]
    pub facts: Vec<String>,
    pub created_at: Millis,
    pub updated_at: Millis,
    /// Whether a consolidation has looked at this memory since it last changed.
    pub consolidated: bool,
    /// SHA-256 of the text it was made from (with its heading): unchanged text, same memory.
    pub content_hash: Option<String>,
}

/// A pairwise link an insight found between two memories.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Connection {
    pub from: MemoryId,
    pub to: MemoryId,
    pub relationship: String,
}

/// An insight: connections the ConsolidateAgent found across memories.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Consolidation {
    pub id: ConsolidationId,
    pub memory_ids: Vec<MemoryId>,
    pub insight: String,
    pub connections: Vec<Connection>,
    pub created_at: Millis,
}

/// What the store knows about a vault file it has read, to notice changes cheaply.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Source {
    pub path: String,
    pub mtime: Millis,
    pub size: u64,
    /// The first 16 bytes of the remembered content's SHA-256, lower-case hex
    /// (`hash::file_digest_hex`).
    pub sha256: String,
    pub updated_at: Millis,
    /// Why the file is not remembered (binary, too large, `memory: false`, …), if it is not.
    pub skipped: Option<String>,
}

/// What a job does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum JobKind {
    /// Read a vault note and (re)make its memories.
    IngestSource,
    /// Remember a selection or typed text.
    IngestText,
    /// Find connections across unconsolidated memories.
    Consolidate,
}

impl JobKind {
    pub fn as_str(self) -> &'static str {
        match self {
            JobKind::IngestSource => "ingest_source",
            JobKind::IngestText => "ingest_text",
            JobKind::Consolidate => "consolidate",
        }
    }

    pub fn parse(value: &str) -> Option<Self> {
        match value {
            "ingest_source" => Some(JobKind::IngestSource),
            "ingest_text" => Some(JobKind::IngestText),
            "consolidate" => Some(JobKind::Consolidate),
            _ => None,
        }
    }
}

/// Where a job is in its life: queued → running → deleted when done, or failed (kept, with
/// its reason, until the user retries it). A finished job is deleted, so there is no "done".
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum JobState {
    Queued,
    Running,
    Failed,
}

impl JobState {
    pub fn as_str(self) -> &'static str {
        match self {
            JobState::Queued => "queued",
            JobState::Running => "running",
            JobState::Failed => "failed",
        }
    }

    pub fn parse(value: &str) -> Option<Self> {
        match value {
            "queued" => Some(JobState::Queued),
            "running" => Some(JobState::Running),
            "failed" => Some(JobState::Failed),
            _ => None,
        }
    }
}

/// What a job does, with its input. Stored as the job's `kind` and `payload` columns (the
/// payload's JSON as every version wrote it; `store::jobs` is the one place that reads and
/// writes them) and sent to the plugin as `{kind, payload}` (serde's adjacent tagging).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "kind", content = "payload", rename_all = "snake_case")]
pub enum JobWork {
    /// Read a vault note and (re)make its memories.
    IngestSource(NoteJob),
    /// Remember a selection or typed text.
    IngestText(TextToRemember),
    /// Find connections across unconsolidated memories.
    Consolidate(ConsolidateJob),
}

impl JobWork {
    pub fn kind(&self) -> JobKind {
        match self {
            JobWork::IngestSource(_) => JobKind::IngestSource,
            JobWork::IngestText(_) => JobKind::IngestText,
            JobWork::Consolidate(_) => JobKind::Consolidate,
        }
    }
}

/// A note to read.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct NoteJob {
    pub path: String,
    /// No model call is sent for the note before this: another device's memory of it may be
    /// on its way (see `Engine::enqueue_note_paying_after`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pay_after: Option<Millis>,
    /// The user chose Retry failed for it: a file whose text turned out far larger than its
    /// size suggested (and than the bulk confirmation counted) is remembered anyway.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub confirmed: bool,
}

/// Text to remember that is not a whole note: a selection or typed text.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TextToRemember {
    pub text: String,
    /// The note a selection comes from; empty for typed text.
    #[serde(default)]
    pub source_path: String,
    pub kind: SourceKind,
    #[serde(default)]
    pub heading: Option<String>,
    #[serde(default)]
    pub line_start: Option<u32>,
    /// The date the text belongs to (`YYYY-MM-DD`); today when missing.
    #[serde(default)]
    pub note_date: Option<String>,
}

/// A consolidation, with what asked for it (`threshold`, `daily`, `command`…).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
pub struct ConsolidateJob {
    #[serde(default)]
    pub trigger: Option<String>,
}

/// A unit of work in the durable queue.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Job {
    pub id: i64,
    /// What it does: serialized as `kind` and `payload`.
    #[serde(flatten)]
    pub work: JobWork,
    /// Jobs with the same key are never queued or run twice at once (e.g. one note's path).
    pub key: String,
    pub state: JobState,
    /// Tries that ended with a wrong or refused answer (bounded by `max_job_attempts`), and
    /// the try under way while running. Transient failures (throttling, 5xx, the network, a
    /// vault read) never count: they wait and try again.
    pub attempts: u32,
    /// The earliest time the job may run (again): when a waiting job's next try is.
    pub next_run_at: Millis,
    /// Why the last try failed, and what happens next, in words for the user.
    pub last_error: Option<String>,
    pub created_at: Millis,
    pub updated_at: Millis,
}

/// Counts for the status bar and the status command.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct StoreStatus {
    /// Whether another device's copy of this memory was ever merged into it (a sync tool
    /// shares it): then notes changed elsewhere wait for that device's memories.
    #[serde(default)]
    pub shared: bool,
    pub memories: u64,
    pub insights: u64,
    pub queued: u64,
    pub running: u64,
    pub failed: u64,
    pub schema_version: u32,
}

/// Tokens billed for one model call.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TokenUsage {
    pub input_tokens: u64,
    pub output_tokens: u64,
    pub cache_read_tokens: u64,
    pub cache_write_tokens: u64,
}
