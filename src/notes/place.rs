//! Where a memory's source is, as every view shows it: the kind of its file (note, PDF, image)
//! and, for a PDF, its pages. The one place these are derived from a memory's path and
//! position, so the plugin, the command and the MCP tools never re-decide them.
//!
//! A PDF memory keeps its first and last page (1-based) in `Position.line_start`/`line_end`
//! (the files part stores them there); a note's are 0-based lines and never a page.

use serde::Serialize;

use super::kind::FileKind;
use crate::domain::{Memory, Position, SourceKind};

/// A memory's file kind and first page, as the plugin's DTOs carry them (`fileKind`, `page`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct FilePlace {
    /// `note`, `pdf` or `image` (`FileKind::dto_name`).
    pub file_kind: &'static str,
    /// The first page of a PDF memory, 1-based; `None` for anything else.
    pub page: Option<u32>,
    /// The last page of a PDF memory (not sent: the DTOs carry the first page only).
    #[serde(skip)]
    pub last_page: Option<u32>,
}

impl FilePlace {
    /// The place of a memory from `path` of `source_kind` at `position`. Only a vault file's
    /// memory has pages: a selection or typed text keeps the line numbers of its own text.
    pub fn of(path: &str, source_kind: SourceKind, position: &Position) -> FilePlace {
        let kind = FileKind::of(path);
        let paged = source_kind == SourceKind::Note && kind == FileKind::Pdf;
        let (page, last_page) = if paged {
            // Page 0 cannot be: a store written before pages were 1-based, or damage; no page then.
            let page = position.line_start.filter(|page| *page >= 1);
            (page, page.and(position.line_end).filter(|last| Some(*last) >= page).or(page))
        } else {
            (None, None)
        };
        debug_assert!(page.is_none() || last_page >= page, "a page range never runs backwards");
        FilePlace { file_kind: kind.dto_name(), page, last_page }
    }

    pub fn of_memory(memory: &Memory) -> FilePlace {
        FilePlace::of(&memory.source_path, memory.source_kind, &memory.position)
    }

    /// `path, page 2` or `path, pages 2–3` for a PDF memory; `path` for any other file.
    pub fn describe(&self, path: &str) -> String {
        match (self.page, self.last_page) {
            (Some(first), Some(last)) if last > first => format!("{path}, pages {first}–{last}"),
            (Some(first), _) => format!("{path}, page {first}"),
            _ => path.to_owned(),
        }
    }
}

/// A memory as the facade sends it: the memory's own fields and its `fileKind` and `page`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PlacedMemory {
    #[serde(flatten)]
    pub memory: Memory,
    #[serde(flatten)]
    pub place: FilePlace,
}

impl From<Memory> for PlacedMemory {
    fn from(memory: Memory) -> Self {
        let place = FilePlace::of_memory(&memory);
        PlacedMemory { memory, place }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(first: u32, last: u32) -> Position {
        Position { heading: None, line_start: Some(first), line_end: Some(last) }
    }

    #[test]
    fn a_pdf_memory_has_its_pages_and_others_none() {
        let pdf = FilePlace::of("Papers/Budget.PDF", SourceKind::Note, &at(2, 3));
        assert_eq!((pdf.file_kind, pdf.page, pdf.last_page), ("pdf", Some(2), Some(3)));
        assert_eq!(pdf.describe("Papers/Budget.PDF"), "Papers/Budget.PDF, pages 2–3");
        let one = FilePlace::of("Papers/Budget.pdf", SourceKind::Note, &at(2, 2));
        assert_eq!(one.describe("Papers/Budget.pdf"), "Papers/Budget.pdf, page 2");

        let note = FilePlace::of("Daily/2026-01-02.md", SourceKind::Note, &at(4, 9));
        assert_eq!((note.file_kind, note.page), ("note", None), "a note's lines are not pages");
        assert_eq!(note.describe("Daily/2026-01-02.md"), "Daily/2026-01-02.md");
        let image = FilePlace::of("img/IMG_0001.JPG", SourceKind::Note, &Position::default());
        assert_eq!((image.file_kind, image.page), ("image", None));
        assert_eq!(FilePlace::of("scan.heic", SourceKind::Note, &Position::default()).file_kind, "image");
        assert_eq!(FilePlace::of("", SourceKind::Text, &at(0, 3)).file_kind, "note");
    }

    #[test]
    fn only_a_vault_files_memory_has_pages_and_never_page_zero() {
        let selection = FilePlace::of("Papers/Budget.pdf", SourceKind::Selection, &at(2, 3));
        assert_eq!((selection.file_kind, selection.page), ("pdf", None));
        assert_eq!(FilePlace::of("a.pdf", SourceKind::Note, &at(0, 0)).page, None);
        let backwards = FilePlace::of("a.pdf", SourceKind::Note, &at(5, 3));
        assert_eq!((backwards.page, backwards.last_page), (Some(5), Some(5)));
        let no_end = FilePlace::of("a.pdf", SourceKind::Note, &Position { line_start: Some(4), ..Position::default() });
        assert_eq!(no_end.describe("a.pdf"), "a.pdf, page 4");
    }

    #[test]
    fn a_placed_memory_is_the_memory_with_file_kind_and_page() {
        let memory = Memory {
            id: crate::domain::MemoryId("m1".into()),
            source_path: "Papers/Budget.pdf".into(),
            source_kind: SourceKind::Note,
            position: at(2, 2),
            raw_text: String::new(),
            summary: "The Q3 budget is 40,000 EUR.".into(),
            entities: vec![],
            topics: vec![],
            importance: 0.5,
            happened_on: None,
            also_on: vec![],
            date_source: Default::default(),
            facts: vec![],
            created_at: 1,
            updated_at: 1,
            consolidated: false,
            content_hash: None,
        };
        let json = serde_json::to_value(PlacedMemory::from(memory)).unwrap();
        assert_eq!(json["fileKind"], "pdf");
        assert_eq!(json["page"], 2);
        assert_eq!(json["source_path"], "Papers/Budget.pdf");
        assert!(json.get("last_page").is_none() && json.get("lastPage").is_none());
    }
}
