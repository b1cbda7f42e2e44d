//! What the command's verbs answer, as plain data: printed as text, or as JSON with `--json`
//! and to MCP clients. Memories carry their note's path (and a PDF's pages), so an agent can
//! open the source.
//!
//! A field that may be absent is left out of the JSON, never written as `null`, and its schema
//! (`schemars`, the MCP server's `outputSchema`) is its plain type, not `["T", "null"]`: some
//! MCP clients handle such unions badly (issue 26).

use schemars::JsonSchema;
use serde::Serialize;

use crate::notes::FilePlace;

/// Where a memory's source is, as a person reads it: `Papers/Budget.pdf, page 2` (`pages 2–3`
/// for a range), an image's or a note's path (`path › heading` for a note's section), or
/// `typed text`.
pub fn describe_place(
    path: &str,
    heading: Option<&str>,
    file_kind: &'static str,
    page: Option<u32>,
    last_page: Option<u32>,
) -> String {
    match (path, heading) {
        ("", _) => "typed text".to_owned(),
        (path, _) if file_kind != "note" => FilePlace { file_kind, page, last_page }.describe(path),
        (path, Some(heading)) => format!("{path} › {heading}"),
        (path, None) => path.to_owned(),
    }
}

/// A memory the selection would give the model.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct RecalledMemory {
    pub id: String,
    /// `YYYY-MM-DD` when it happened (or was made), none when unknown.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "String")]
    pub date: Option<String>,
    /// The note's vault path; "" for typed text.
    pub source_path: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "String")]
    pub heading: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "u32")]
    pub line_start: Option<u32>,
    /// `note`, `pdf` or `image`: what kind of file `source_path` is.
    pub file_kind: &'static str,
    /// A PDF memory's first and last page (1-based); none for anything else.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "u32")]
    pub page: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "u32")]
    pub last_page: Option<u32>,
    pub summary: String,
    /// The self-contained facts recorded besides the summary (names, amounts, dates, decisions).
    pub facts: Vec<String>,
    /// The later days its events happened on, after `date`.
    pub also_on: Vec<String>,
    /// Where `date` came from: `text`, or the note's own date (`note_name`, `note_property`, `file_metadata`);
    /// `made` when the memory is undated and `date` is the day it was made.
    pub date_source: String,
    pub entities: Vec<String>,
    pub importance: f64,
}

#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct RecalledInsight {
    pub id: String,
    pub insight: String,
    pub memory_ids: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct RecallReport {
    pub question: String,
    pub memories: Vec<RecalledMemory>,
    pub insights: Vec<RecalledInsight>,
    pub memories_total: usize,
    pub insights_total: usize,
    pub tokens: usize,
}

/// A cited memory or insight with the note to open.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct CitedSource {
    pub kind: String,
    pub id: String,
    pub summary: String,
    pub source_path: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "String")]
    pub heading: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "u32")]
    pub line_start: Option<u32>,
    /// `note`, `pdf` or `image` (`note` for an insight).
    pub file_kind: &'static str,
    /// A PDF memory's first and last page (1-based); none for anything else.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "u32")]
    pub page: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "u32")]
    pub last_page: Option<u32>,
    /// For an insight, the notes of the memories it connects.
    pub connects: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct AskReport {
    pub question: String,
    /// Markdown; each citation is its number in `sources`, those cited together share a
    /// bracket (`[1]`, `[1, 2]`).
    pub answer: String,
    pub sources: Vec<CitedSource>,
    pub input_tokens: u64,
    pub output_tokens: u64,
    pub cost_usd: f64,
}

/// A memory `remember` made (or found already made of the same text).
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct RememberedMemory {
    pub id: String,
    pub summary: String,
    /// `YYYY-MM-DD`: the day it happened, else the day it was made.
    pub date: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct RememberReport {
    /// Empty when nothing in the text was worth a memory.
    pub memories: Vec<RememberedMemory>,
    pub how: String,
}

/// What `index` did to the vault's notes.
#[derive(Debug, Clone, Default, PartialEq, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct IndexReport {
    pub device: String,
    /// Notes the settings keep in scope.
    pub notes: u64,
    /// New or changed notes queued to be read.
    pub queued: u64,
    /// Notes gone from the vault or left out, whose memories went.
    pub removed: u64,
    pub done: u64,
    pub skipped: u64,
    pub failed: u64,
    /// Work still waiting (a retry after a failure, another device's wait).
    pub waiting: u64,
    /// Requests sent to Bedrock.
    pub calls: u64,
    pub cost_usd: f64,
}

#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct StatusReport {
    pub vault: String,
    /// This computer's device id: its index and its log folder are named for it.
    pub device: String,
    pub database: String,
    pub database_bytes: u64,
    pub memories: u64,
    pub insights: u64,
    pub notes: u64,
    pub queued_jobs: u64,
    pub failed_jobs: u64,
    pub paused: bool,
    pub region: String,
    pub model_id: String,
}

/// What `read_note` gives: the passage a memory cites (or a note's lines asked for by path),
/// with where it is, so an agent can quote the note itself and not only the memory's summary.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct NotePassage {
    /// The memory whose passage this is; absent when the lines were asked for by path.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "String")]
    pub memory_id: Option<String>,
    /// The file's vault path; "" for typed text.
    pub source_path: String,
    /// `note` or `pdf` (an image's memory has no passage), or `text` for typed text.
    pub file_kind: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "String")]
    pub heading: Option<String>,
    /// The note's first and last line of the passage (0-based, as `recall`'s `lineStart`).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "u32")]
    pub line_start: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "u32")]
    pub line_end: Option<u32>,
    /// A PDF passage's first and last page (1-based).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "u32")]
    pub page: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "u32")]
    pub last_page: Option<u32>,
    /// The passage as the note holds it now (a PDF's or typed text as it was remembered).
    pub text: String,
    /// The note's lines were edited since the memory was made: `text` is what they say now.
    pub changed: bool,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pdfs_place_is_its_page_an_images_its_path() {
        assert_eq!(
            describe_place("Papers/Budget.pdf", Some("Budget"), "pdf", Some(2), Some(2)),
            "Papers/Budget.pdf, page 2"
        );
        assert_eq!(describe_place("Papers/Budget.pdf", None, "pdf", Some(2), Some(3)), "Papers/Budget.pdf, pages 2–3");
        assert_eq!(describe_place("Photos/IMG_1.jpg", None, "image", None, None), "Photos/IMG_1.jpg");
        assert_eq!(describe_place("Trips/Rome.md", Some("Day 1"), "note", None, None), "Trips/Rome.md › Day 1");
        assert_eq!(describe_place("Trips/Rome.md", None, "note", None, None), "Trips/Rome.md");
        assert_eq!(describe_place("", None, "note", None, None), "typed text");
    }
}
