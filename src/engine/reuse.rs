//! A chunk already remembered in another note costs no call: the note was moved or renamed
//! in a way that arrived as "deleted, created" (a sync tool, another program, a rename while
//! Obsidian was closed that the plugin did not pair), or another device remembered it under
//! another name. The memory is copied into this note under a new id.
//!
//! A copy of a note that still exists elsewhere is reused only when both notes have the same
//! date: the model dates what a chunk tells by its note, so a daily note's template text in
//! another day's note is asked about again.
//!
//! When the delete comes first, the memories are gone from the store at once (the user's
//! delete wins), but the last few thousand paid-for memories that left the store — removed
//! with their notes, replaced by an edit, or displaced by a merge with another device's copy —
//! stay in memory here, only to be copied if the same text comes back (under another name, or
//! from the other device); nothing else reads them, they are never saved, and a forgotten
//! memory is never among them.

use std::cell::RefCell;
use std::collections::VecDeque;

use super::failure::JobError;
use super::host::Host;
use super::Engine;
use crate::calendar::CalendarDate;
use crate::domain::{Memory, MemoryId, Millis, Position, SourceKind};
use crate::notes::{decode_note, note_date, parse_note, path_date, Chunk};
use crate::store::{MemoryFilter, SqlDriver, StoreError, CONTENT_HASH_BYTES};

/// How many memories of removed notes are kept for a return under another name.
const REMOVED_KEPT: usize = 2_000;
/// How many other notes holding the same text are looked at (each is read to compare dates):
/// text repeated in hundreds of notes, a template's, must not cost hundreds of reads per chunk.
const NOTES_COMPARED: usize = 4;

/// Memories of notes removed lately, newest last.
#[derive(Default)]
pub(super) struct RemovedNotes(RefCell<VecDeque<Memory>>);

impl RemovedNotes {
    pub(super) fn keep(&self, memories: Vec<Memory>) {
        let mut kept = self.0.borrow_mut();
        kept.extend(memories.into_iter().filter(|memory| memory.source_kind == SourceKind::Note));
        while kept.len() > REMOVED_KEPT {
            kept.pop_front();
        }
    }

    pub(super) fn drop_content(&self, stored_hash: &str) {
        self.0.borrow_mut().retain(|memory| memory.content_hash.as_deref() != Some(stored_hash));
    }

    /// The newest kept memory of text with `content_hash` (the store keeps its first bytes).
    fn with_content(&self, content_hash: &str) -> Option<Memory> {
        let stored = content_hash.get(..2 * CONTENT_HASH_BYTES)?;
        self.0.borrow().iter().rev().find(|memory| memory.content_hash.as_deref() == Some(stored)).cloned()
    }
}

impl<D: SqlDriver> Engine<D> {
    /// Keeps the memories of `path` (about to be removed with their note) for `memory_from_elsewhere`.
    pub(super) fn keep_removed(&self, path: &str) -> Result<(), StoreError> {
        let memories =
            self.store.list_memories(&MemoryFilter { source_path: Some(path.to_owned()), ..Default::default() })?;
        self.removed_notes.keep(memories);
        Ok(())
    }

    pub(super) fn keep_removed_memories(&self, memories: Vec<Memory>) {
        self.removed_notes.keep(memories);
    }

    /// A memory of `chunk` made in another note, copied to `path` at `position`, when one can
    /// stand for it (see the module's rule).
    pub(super) async fn memory_from_elsewhere<H: Host>(
        &self,
        host: &H,
        path: &str,
        chunk: &Chunk,
        position: &Position,
        date: CalendarDate,
        now: Millis,
    ) -> Result<Option<Memory>, JobError> {
        // A removed note's first (nothing to read; its name must give the same date, if any,
        // as this note's), then the newest notes holding the text.
        let mut source = self
            .removed_notes
            .with_content(&chunk.content_hash)
            .filter(|kept| path_date(&kept.source_path) == path_date(path));
        if source.is_none() {
            for found in self.store.note_memories_with_content(path, &chunk.content_hash, NOTES_COMPARED)? {
                if self.dated_alike(host, &found.source_path, date).await? {
                    source = Some(found);
                    break;
                }
            }
        }
        let Some(found) = source else { return Ok(None) };
        Ok(Some(Memory {
            id: MemoryId(self.fresh_id("m", now)?),
            source_path: path.to_owned(),
            position: position.clone(),
            raw_text: chunk.text.clone(),
            created_at: now,
            updated_at: now,
            consolidated: false,
            ..found
        }))
    }

    /// Whether a memory of the note at `other` may stand in a note dated `date`: the note is
    /// gone (it moved), or it is dated the same.
    /// A failed read is transient, as the job's own note's is.
    async fn dated_alike<H: Host>(&self, host: &H, other: &str, date: CalendarDate) -> Result<bool, JobError> {
        let settings = self.settings();
        if crate::notes::FileKind::of(other) != crate::notes::FileKind::Note {
            // A PDF or image is never decoded as a note: its memory stands in only once the
            // file is gone (renamed or moved), asked without reading its bytes.
            let file = host
                .read_file(other, 0)
                .await
                .map_err(|reason| JobError::VaultRead { path: other.to_owned(), reason })?;
            return Ok(file.is_none());
        }
        let file = host
            .read_file(other, settings.max_note_bytes)
            .await
            .map_err(|reason| JobError::VaultRead { path: other.to_owned(), reason })?;
        let Some(file) = file else { return Ok(true) };
        let Ok(text) = decode_note(&file.bytes, settings.max_note_bytes) else { return Ok(false) };
        let parsed = parse_note(&text, settings.max_chunk_tokens);
        Ok(note_date(other, &parsed.frontmatter, file.mtime, host.utc_offset_minutes()) == date)
    }
}
