//! A chunk already remembered in another note costs no call: the note was moved or renamed
//! in a way that arrived as "deleted, created" (a sync tool, another program, a rename while
//! Obsidian was closed that the plugin did not pair), or another device remembered it under
//! another name. The memory is copied into this note: under a new id when the other note still
//! holds it; under its own id when it left the store with its note, since that is a move (what
//! a rename does, here or on the device that renamed the note), so a forget of that id on
//! another device reaches the moved memory too.
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
//! memory (here, or on a device whose removals were replayed here) is never copied back.

use std::cell::RefCell;
use std::collections::VecDeque;

use super::failure::JobError;
use super::host::Host;
use super::Engine;
use crate::agents::passages::title_date;
use crate::calendar::CalendarDate;
use crate::domain::{Memory, MemoryId, Millis, Position, SourceKind};
use crate::notes::{decode_note, note_date, parse_note, path_date, Chunk};
use crate::store::{MemoryFilter, RemovedHere, SqlDriver, StoreError, CONTENT_HASH_BYTES};

/// How many memories of removed notes are kept for a return under another name.
const REMOVED_KEPT: usize = 2_000;
/// How many other notes holding the same text are looked at (each is read to compare dates):
/// text repeated in hundreds of notes, a template's, must not cost hundreds of reads per chunk.
const NOTES_COMPARED: usize = 4;

/// Memories of notes removed lately, newest last, and which of them came back under their
/// own id.
#[derive(Default)]
pub(super) struct RemovedNotes {
    kept: RefCell<VecDeque<Memory>>,
    /// Ids given back lately, with the note each went to: jobs of two notes may bring back the
    /// same text at once (a note copied, then the original deleted), and only the first takes
    /// the id (a retry of the same note may take it again).
    returned: RefCell<VecDeque<(MemoryId, String)>>,
}

impl RemovedNotes {
    pub(super) fn keep(&self, memories: Vec<Memory>) {
        let mut kept = self.kept.borrow_mut();
        let mut returned = self.returned.borrow_mut();
        for memory in memories.into_iter().filter(|memory| memory.source_kind == SourceKind::Note) {
            // Removed again: its id is free to come back once more.
            returned.retain(|(id, _)| *id != memory.id);
            kept.push_back(memory);
        }
        while kept.len() > REMOVED_KEPT {
            kept.pop_front();
        }
    }

    pub(super) fn drop_content(&self, stored_hash: &str) {
        self.kept.borrow_mut().retain(|memory| memory.content_hash.as_deref() != Some(stored_hash));
    }

    fn drop_id(&self, id: &MemoryId) {
        self.kept.borrow_mut().retain(|memory| memory.id != *id);
    }

    /// The newest kept memory of text with `content_hash` (the store keeps its first bytes).
    fn with_content(&self, content_hash: &str) -> Option<Memory> {
        let stored = content_hash.get(..2 * CONTENT_HASH_BYTES)?;
        self.kept.borrow().iter().rev().find(|memory| memory.content_hash.as_deref() == Some(stored)).cloned()
    }

    /// Whether `id` may come back in the note at `path`: not given to another note lately.
    fn give_back(&self, id: &MemoryId, path: &str) -> bool {
        let mut returned = self.returned.borrow_mut();
        if let Some((_, to)) = returned.iter().find(|(given, _)| given == id) {
            return to == path;
        }
        returned.push_back((id.clone(), path.to_owned()));
        // Older ones are in the store by now (or their job failed for good).
        while returned.len() > REMOVED_KEPT {
            returned.pop_front();
        }
        true
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
        let mut source = None;
        if let Some(kept) = self.removed_for(path, &chunk.content_hash)? {
            source = Some((self.returning_id(kept.id.clone(), path, now)?, kept));
        } else {
            for found in self.store.note_memories_with_content(path, &chunk.content_hash, NOTES_COMPARED)? {
                if self.dated_alike(host, &found.source_path, date).await? {
                    source = Some((MemoryId(self.fresh_id("m", now)?), found));
                    break;
                }
            }
        }
        let Some((id, found)) = source else { return Ok(None) };
        Ok(Some(Memory {
            id,
            source_path: path.to_owned(),
            position: position.clone(),
            raw_text: chunk.text.clone(),
            created_at: now,
            updated_at: now,
            consolidated: false,
            ..found
        }))
    }

    /// The kept memory of a removed note that may stand for `content_hash` in `path`: its name
    /// gives the same date, if any, and it was not forgotten since (on another device, its
    /// forget replayed here).
    fn removed_for(&self, path: &str, content_hash: &str) -> Result<Option<Memory>, StoreError> {
        let Some(kept) = self.removed_notes.with_content(content_hash) else { return Ok(None) };
        if self.store.memory_removal(&kept.id, &kept.source_path)? == Some(RemovedHere::Forgotten) {
            self.removed_notes.drop_id(&kept.id);
            return Ok(None);
        }
        Ok(Some(kept).filter(|kept| path_date(&kept.source_path) == path_date(path)))
    }

    /// The id a removed note's memory comes back under in `path`: its own (a move), unless the
    /// id is in the store again, was removed with a note at `path` (that removal would take it
    /// on the devices that replay it), or went to another note lately.
    fn returning_id(&self, id: MemoryId, path: &str, now: Millis) -> Result<MemoryId, StoreError> {
        let free = !self.store.memory_exists(&id)?
            && self.store.memory_removal(&id, path)?.is_none()
            && self.removed_notes.give_back(&id, path);
        if free {
            return Ok(id);
        }
        Ok(MemoryId(self.fresh_id("m", now)?))
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
        let title = title_date(&text, settings.date_order);
        Ok(note_date(other, &parsed.frontmatter, title, file.mtime, host.utc_offset_minutes()) == date)
    }
}
