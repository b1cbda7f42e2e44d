//! `read_note`: the passage a memory cites, or a note's lines by path, for an agent that wants
//! the note's own words and not only a memory's summary. The passage is read by the code that
//! reads a question's passages (`Engine::passage_of`, `agents::passages`), so it holds the same
//! rules: only inside the vault, never from a note the user's rules exclude (folders, patterns,
//! tags, `memory: false`, Obsidian's "Excluded files"), a note's lines checked against the
//! memory's hash. Each refusal says why, so the agent can tell the user.

use super::reports::NotePassage;
use super::session::Session;
use crate::agents::passages::cut_lines;
use crate::domain::MemoryId;
use crate::notes::vault_path::normalize_vault_path;
use crate::notes::{FileKind, FilePlace};

/// What `read_note` is asked for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PassageRequest {
    /// The passage a memory cites, by the id `recall` gave.
    Memory(String),
    /// A note's lines `line_start..=line_end` (0-based, as `recall`'s `lineStart`; the whole
    /// note when neither is given).
    Lines { path: String, line_start: Option<u32>, line_end: Option<u32> },
}

impl Session {
    /// The passage `request` names, or why it may not or cannot be read.
    pub async fn read_note(&self, request: &PassageRequest) -> Result<NotePassage, String> {
        match request {
            PassageRequest::Memory(id) => self.memory_passage(id.trim()).await,
            PassageRequest::Lines { path, line_start, line_end } => {
                // Every rule below compares the vault's own spelling of the path.
                let path = self.vault.as_on_disk(&normalize_vault_path(path)?)?;
                self.note_lines(&path, *line_start, *line_end).await
            }
        }
    }

    async fn memory_passage(&self, id: &str) -> Result<NotePassage, String> {
        if id.is_empty() {
            return Err("Give the id of a memory, as `recall` returns it.".into());
        }
        let memory = self
            .engine
            .store()
            .get_memory(&MemoryId(id.to_owned()))
            .map_err(|error| error.to_string())?
            .ok_or_else(|| format!("No memory has the id \"{id}\": give an id `recall` returned."))?;
        let path = memory.source_path.as_str();
        let place = FilePlace::of_memory(&memory);
        let typed = path.is_empty();
        if !typed {
            self.check_readable(path)?;
        }
        if place.file_kind == "image" {
            return Err(format!(
                "{path} is an image: Memory Agent keeps no text of it but its memory's summary and facts, which \
`recall` gives."
            ));
        }
        let passage =
            self.engine.passage_of(&self.host, &memory).await.map_err(|error| error.to_string())?.ok_or_else(|| {
                format!(
                    "{path} no longer has this memory's lines, cannot be read, or its properties or tags now exclude \
it from memory."
                )
            })?;
        let note = place.file_kind == "note" && !typed;
        Ok(NotePassage {
            memory_id: Some(memory.id.0.clone()),
            source_path: memory.source_path.clone(),
            file_kind: if typed { "text" } else { place.file_kind },
            heading: memory.position.heading.clone(),
            line_start: memory.position.line_start.filter(|_| note),
            line_end: memory.position.line_end.filter(|_| note),
            page: place.page,
            last_page: place.last_page,
            text: passage.text,
            changed: passage.changed,
        })
    }

    async fn note_lines(
        &self,
        path: &str,
        line_start: Option<u32>,
        line_end: Option<u32>,
    ) -> Result<NotePassage, String> {
        self.check_readable(path)?;
        if FileKind::of(path) != FileKind::Note {
            return Err(format!(
                "{path} is not a note: a PDF's text is read by its memory's id (`recall` gives it), and an image has \
none."
            ));
        }
        let text = self.engine.readable_note(&self.host, path).await.ok_or_else(|| {
            format!(
                "{path} cannot be read, is over the note size limit, or its properties or tags exclude it from memory."
            )
        })?;
        let last_line = u32::try_from(text.split('\n').count().saturating_sub(1)).unwrap_or(u32::MAX);
        let first = line_start.unwrap_or(0);
        let last = line_end.unwrap_or(last_line).min(last_line);
        if first > last {
            return Err(format!("{path} has lines 0 to {last_line}: line {first} is not among them."));
        }
        let lines =
            cut_lines(&text, first, last).ok_or_else(|| format!("Lines {first} to {last} of {path} are empty."))?;
        Ok(NotePassage {
            memory_id: None,
            source_path: path.to_owned(),
            file_kind: "note",
            heading: None,
            line_start: Some(first),
            line_end: Some(last),
            page: None,
            last_page: None,
            text: lines,
            changed: false,
        })
    }

    /// Refuses a path that leaves the vault (`..`, absolute, a symbolic link out of it) or that
    /// the user's rules exclude, whatever the store still holds of it.
    fn check_readable(&self, path: &str) -> Result<(), String> {
        self.vault.file(path)?;
        if let Some(reason) = self.engine.path_exclusion(path) {
            return Err(format!("{path} is excluded from memory ({reason}): Memory Agent does not read it."));
        }
        // Only a note is read from the disk (a PDF's passage is its stored text).
        if FileKind::of(path) == FileKind::Note {
            self.vault.file_to_read(path)?;
        }
        Ok(())
    }
}
