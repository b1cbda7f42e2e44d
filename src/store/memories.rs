//! Memories: insert, read, list, replace a note's memories, forget — and the orphan fix.
//!
//! A memory row points to its source (`paths`), links its entities (`entities`), and is
//! entered in the full-text index when inserted and taken out before it changes or goes
//! (`search_index`). Removing a memory also removes every insight that cites it and marks
//! the other memories those insights cited as unconsolidated, so their insights are made
//! again instead of silently disappearing.

use std::collections::BTreeSet;

use serde::Serialize;

use super::driver::SqlValue;
use super::rows::{to_json, RowReader};
use super::tombstones::Tombstone;
use super::{SqlDriver, Store, StoreError};
use crate::calendar::CalendarDate;
use crate::domain::{ConsolidationId, DateSource, Entity, Memory, MemoryId, Position, SourceKind};
use crate::hash::{hex, unhex};

/// The columns of a memory as `read_memory` reads them, with its text or without (lists and
/// candidates never carry a selection's text).
macro_rules! memory_select {
    ($text:literal) => {
        concat!(
            "SELECT m.key, m.id, p.path, m.kind, m.heading, m.line_start, m.line_end, ",
            $text,
            ", m.summary, (SELECT group_concat(e.kind || char(31) || e.name, char(30))
               FROM json_each(m.entity_ids) AS listed JOIN entities AS e ON e.id = listed.value),
             m.topics, m.importance, m.day, m.dated, m.created_at, m.updated_at, m.consolidated, m.content_hash,
             m.facts, m.also_on, m.date_source
             FROM memories AS m JOIN paths AS p ON p.id = m.path_id"
        )
    };
}

/// A whole memory, its text included.
pub(super) const SELECT_FULL: &str = memory_select!("coalesce(m.text, '')");
/// A memory without its text: what lists read.
pub(super) const SELECT_CARD: &str = memory_select!("''");

/// What a question's candidates need — the fields of the prompt's line and of the ranking —
/// read by the thousand per question, so nothing else (`read_candidate`).
pub(super) const SELECT_CANDIDATE: &str = "SELECT m.key, m.id, p.path, m.kind, m.heading, m.summary,
     (SELECT group_concat(e.kind || char(31) || e.name, char(30))
      FROM json_each(m.entity_ids) AS listed JOIN entities AS e ON e.id = listed.value),
     m.topics, m.importance, m.day, m.dated, m.created_at, m.facts, m.also_on, m.date_source
     FROM memories AS m JOIN paths AS p ON p.id = m.path_id";

/// Importance is stored in thousandths: three decimals are more than the model gives.
const IMPORTANCE_SCALE: f64 = 1_000.0;
/// Bytes of a content hash kept: 64 bits tell one chunk's text from another's with a chance
/// of a mix-up below one in ten billion even across every memory of a 50,000-memory vault
/// (where moved notes are matched), and far below one in a trillion within one note.
pub const CONTENT_HASH_BYTES: usize = 8;

/// Which memories to list.
#[derive(Debug, Clone, Default)]
pub struct MemoryFilter {
    /// Only memories from this source path.
    pub source_path: Option<String>,
    /// At most this many (0 = no limit).
    pub limit: u32,
    pub offset: u32,
}

/// What a removal took away and what it re-opened for consolidation.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Removal {
    pub memories: Vec<MemoryId>,
    pub consolidations: Vec<ConsolidationId>,
    /// Memories that lost an insight and will be consolidated again.
    pub reopened: Vec<MemoryId>,
}

impl<D: SqlDriver> Store<D> {
    /// Stores a new memory. Its id must be new.
    ///
    /// A note's memory keeps only a few words of its text (the note is in the vault); a
    /// selection or typed text keeps its text, which has no other home, and so does a PDF's
    /// (reading a PDF again takes pdf.js, which a question's passages must not wait for).
    pub fn insert_memory(&self, memory: &Memory) -> Result<(), StoreError> {
        validate(memory)?;
        let days = event_days(memory)?;
        let day = match days.first() {
            Some(first) => *first,
            None => CalendarDate::at(memory.created_at, self.utc_offset_minutes.get()),
        };
        let also_on: Vec<String> = days.iter().skip(1).map(CalendarDate::to_string).collect();
        let content_hash = memory.content_hash.as_deref().map(stored_hash).transpose()?;
        let (text, keywords) = match memory.source_kind {
            SourceKind::Note if keeps_its_text(memory) => (Some(memory.raw_text.clone()), None),
            SourceKind::Note => (None, super::search_index::keywords(memory)),
            SourceKind::Selection | SourceKind::Text => (Some(memory.raw_text.clone()), None),
        };
        self.transaction(|store| {
            let path_id = store.path_id(&memory.source_path)?;
            let entities = store.entity_ids(&memory.entities)?;
            let key = store.insert_returning_key(
                "INSERT INTO memories (id, path_id, kind, heading, line_start, line_end, summary, topics, text,
                    keywords, importance, day, dated, created_at, updated_at, consolidated, content_hash,
                    facts, also_on, date_source, entity_ids, theirs)
                 VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?) RETURNING key",
                &[
                    memory.id.0.as_str().into(),
                    path_id.into(),
                    kind_code(memory.source_kind).into(),
                    memory.position.heading.clone().into(),
                    memory.position.line_start.into(),
                    memory.position.line_end.into(),
                    memory.summary.as_str().into(),
                    to_json(&memory.topics),
                    text.into(),
                    keywords.into(),
                    ((memory.importance * IMPORTANCE_SCALE).round() as i64).into(),
                    day.to_days().into(),
                    (!days.is_empty()).into(),
                    memory.created_at.into(),
                    memory.updated_at.into(),
                    memory.consolidated.into(),
                    content_hash.map(SqlValue::Blob).unwrap_or(SqlValue::Null),
                    json_list_or_null(&memory.facts),
                    json_list_or_null(&also_on),
                    date_source_code(memory.date_source).into(),
                    entities.as_deref().into(),
                    // Another device's (a replay of its log): its to consolidate (`schema::V12`).
                    store.merging_theirs.get().into(),
                ],
            )?;
            for later in days.iter().skip(1) {
                store.change(
                    "INSERT INTO memory_days (day, memory_key) VALUES (?, ?)",
                    &[later.to_days().into(), key.into()],
                )?;
            }
            if let Some(listed) = &entities {
                store.link_entities(key, listed)?;
            }
            store.index_memory(key)
        })
    }

    pub fn get_memory(&self, id: &MemoryId) -> Result<Option<Memory>, StoreError> {
        let rows = self.query(&format!("{SELECT_FULL} WHERE m.id = ?"), &[id.0.as_str().into()])?;
        rows.into_iter().next().map(read_memory).transpose()
    }

    /// The memories with these ids (without their text), in the order asked; unknown ids
    /// are left out.
    pub fn get_memories(&self, ids: &[MemoryId]) -> Result<Vec<Memory>, StoreError> {
        if ids.is_empty() {
            return Ok(Vec::new());
        }
        let rows =
            self.query(&format!("{SELECT_CARD} WHERE m.id IN (SELECT value FROM json_each(?1))"), &[to_json(&ids)])?;
        let mut found: std::collections::HashMap<String, Memory> = std::collections::HashMap::new();
        for row in rows {
            let memory = read_memory(row)?;
            found.insert(memory.id.0.clone(), memory);
        }
        Ok(ids.iter().filter_map(|id| found.remove(&id.0)).collect())
    }

    /// Memories newest first — in the order they were made — (without their text).
    pub fn list_memories(&self, filter: &MemoryFilter) -> Result<Vec<Memory>, StoreError> {
        let limit = if filter.limit == 0 { -1 } else { i64::from(filter.limit) };
        let rows = match &filter.source_path {
            Some(path) => self.query(
                &format!("{SELECT_CARD} WHERE p.path = +?1 ORDER BY m.key DESC LIMIT ?2 OFFSET ?3"),
                &[path.as_str().into(), limit.into(), filter.offset.into()],
            )?,
            None => self.query(
                &format!("{SELECT_CARD} ORDER BY m.key DESC LIMIT ?1 OFFSET ?2"),
                &[limit.into(), filter.offset.into()],
            )?,
        };
        rows.into_iter().map(read_memory).collect()
    }

    /// The memories made from one source, in the order they appear in it.
    pub fn memories_of_source(&self, path: &str, kind: SourceKind) -> Result<Vec<Memory>, StoreError> {
        let Some(path_id) = self.find_path_id(path)? else { return Ok(Vec::new()) };
        let rows = self.query(
            &format!("{SELECT_FULL} WHERE m.path_id = +? AND m.kind = +? ORDER BY m.line_start, m.key"),
            &[path_id.into(), kind_code(kind).into()],
        )?;
        rows.into_iter().map(read_memory).collect()
    }

    /// The oldest memories no consolidation has looked at yet (without their text).
    pub fn unconsolidated_memories(&self, limit: u32) -> Result<Vec<Memory>, StoreError> {
        let rows =
            self.query(&format!("{SELECT_CARD} WHERE m.consolidated = 0 AND m.theirs = 0 AND m.consolidation_failed = 0 ORDER BY m.key LIMIT ?"), &[limit.into()])?;
        rows.into_iter().map(read_memory).collect()
    }

    pub fn count_unconsolidated(&self) -> Result<u64, StoreError> {
        let rows = self.query(
            "SELECT count(*) FROM memories WHERE consolidated = 0 AND theirs = 0 AND consolidation_failed = 0",
            &[],
        )?;
        super::rows::single(rows)?.u64()
    }

    /// The model answered wrongly every time it was asked to consolidate `batch`: those
    /// memories are set aside (not consolidated), so the ones after them still are.
    pub fn set_consolidation_failed(&self, batch: &[MemoryId]) -> Result<(), StoreError> {
        self.transaction(|store| {
            for id in batch {
                store.change(
                    "UPDATE memories SET consolidation_failed = 1 WHERE id = ? AND consolidated = 0",
                    &[id.0.as_str().into()],
                )?;
            }
            Ok(())
        })
    }

    /// The memories set aside by `set_consolidation_failed` wait for a consolidation again
    /// ("Retry failed"); how many.
    pub fn retry_failed_consolidations(&self) -> Result<usize, StoreError> {
        self.change("UPDATE memories SET consolidation_failed = 0 WHERE consolidation_failed = 1", &[])
    }

    /// Forgets one memory (the user asked to), with the orphan fix — everywhere: the row and
    /// its links go (with `secure_delete`, their bytes are overwritten), and the full-text
    /// index is merged so that its words are not left in an older segment of the index.
    pub fn forget_memory(&self, id: &MemoryId) -> Result<Removal, StoreError> {
        let removal = self.transaction(|store| {
            if !store.memory_exists(id)? {
                return Err(StoreError::NotFound(format!("memory {}", id.0)));
            }
            store.quiet_forgotten_chunk(id)?;
            // Forgotten wherever it is, also under another name on another device.
            store.add_tombstone(&Tombstone::Forgotten { id: id.0.clone() })?;
            // The note's entry is written again as it is now (its other memories, the chunk
            // quiet; the triggers note it): the purge takes every older entry holding the
            // forgotten text out of the log, and the note must not leave the log with them.
            store.remove_memories(std::slice::from_ref(id))
        })?;
        self.merge_search_index()?;
        Ok(removal)
    }

    /// Gives each note memory the few words it keeps for search as its `raw_text` (all of the
    /// store's, or one note's), so that inserted into another copy they make the same words.
    pub(super) fn carry_keywords(&self, memories: &mut [Memory], path: Option<&str>) -> Result<(), StoreError> {
        let rows = match path {
            Some(path) => self.query(
                "SELECT m.id, m.keywords FROM memories AS m JOIN paths AS p ON p.id = m.path_id
                 WHERE p.path = +? AND m.keywords IS NOT NULL",
                &[path.into()],
            )?,
            None => self.query("SELECT id, keywords FROM memories WHERE keywords IS NOT NULL", &[])?,
        };
        let keywords: std::collections::HashMap<String, String> = rows
            .into_iter()
            .filter_map(|row| match (row.first(), row.get(1)) {
                (Some(SqlValue::Text(id)), Some(SqlValue::Text(words))) => Some((id.clone(), words.clone())),
                _ => None,
            })
            .collect();
        for memory in memories.iter_mut() {
            if let Some(words) = keywords.get(&memory.id.0) {
                memory.raw_text.clone_from(words);
            }
        }
        Ok(())
    }

    /// A note's chunk that was forgotten is not sent again while it stays as it is (an edit
    /// elsewhere in the note would otherwise remember it again): its content hash joins the
    /// note's chunks with nothing to remember. Also when the forget comes from another device.
    pub(super) fn quiet_forgotten_chunk(&self, id: &MemoryId) -> Result<(), StoreError> {
        self.change(
            // `||` makes text of blobs: cast back, or the list reads as none (schema 11 repairs
            // the rows older versions wrote so).
            "UPDATE sources SET quiet = CAST(coalesce(quiet, x'') || m.content_hash AS BLOB)
             FROM (SELECT path_id, content_hash FROM memories WHERE id = ?1 AND kind = ?2
                   AND content_hash IS NOT NULL) AS m
             WHERE sources.path_id = m.path_id",
            &[id.0.as_str().into(), kind_code(SourceKind::Note).into()],
        )?;
        Ok(())
    }

    /// Makes `memories` the note memories of `path`: memories whose id is kept stay as they
    /// are (with their insights), the others are removed with the orphan fix, new ones are
    /// inserted. Selections taken from the note are not touched.
    pub fn replace_note_memories(&self, path: &str, memories: &[Memory]) -> Result<Removal, StoreError> {
        self.transaction(|store| {
            let old = store.memory_ids_of(path, SourceKind::Note)?;
            let new_ids: BTreeSet<&MemoryId> = memories.iter().map(|memory| &memory.id).collect();
            let old_ids: BTreeSet<&MemoryId> = old.iter().collect();
            let gone: Vec<MemoryId> = old_ids.difference(&new_ids).map(|id| (*id).clone()).collect();
            let removal = store.remove_memories(&gone)?;
            for memory in memories.iter().filter(|memory| !old_ids.contains(&memory.id)) {
                if memory.source_path != path || memory.source_kind != SourceKind::Note {
                    return Err(StoreError::InvalidInput(format!(
                        "memory {} does not belong to note {path}",
                        memory.id.0
                    )));
                }
                store.insert_memory(memory)?;
            }
            Ok(removal)
        })
    }

    /// Moves a memory to a new place in its note (text above it changed; no model call).
    /// The heading is part of what the full-text index reads, so a changed heading is
    /// indexed again.
    pub fn update_memory_position(&self, id: &MemoryId, position: &Position, now: i64) -> Result<(), StoreError> {
        self.transaction(|store| {
            let rows = store.query("SELECT key, heading FROM memories WHERE id = ?", &[id.0.as_str().into()])?;
            let Some(row) = rows.into_iter().next() else { return Ok(()) };
            let mut row = RowReader::new(row);
            let (key, heading) = (row.i64()?, row.opt_text()?);
            let heading_changed = heading != position.heading;
            if heading_changed {
                store.unindex_memory(key)?;
            }
            store.change(
                "UPDATE memories SET heading = ?, line_start = ?, line_end = ?, updated_at = ?
                 WHERE key = ? AND (heading IS NOT ? OR line_start IS NOT ? OR line_end IS NOT ?)",
                &[
                    position.heading.clone().into(),
                    position.line_start.into(),
                    position.line_end.into(),
                    now.into(),
                    key.into(),
                    position.heading.clone().into(),
                    position.line_start.into(),
                    position.line_end.into(),
                ],
            )?;
            if heading_changed {
                store.index_memory(key)?;
            }
            Ok(())
        })
    }

    /// The memory of `kind` from `path` made from text with this hash, if any.
    pub fn find_memory_by_content(
        &self,
        path: &str,
        kind: SourceKind,
        content_hash: &str,
    ) -> Result<Option<Memory>, StoreError> {
        let Some(path_id) = self.find_path_id(path)? else { return Ok(None) };
        let hash = stored_hash(content_hash)?;
        let rows = self.query(
            &format!("{SELECT_FULL} WHERE m.path_id = +? AND m.kind = +? AND m.content_hash = ? LIMIT 1"),
            &[path_id.into(), kind_code(kind).into(), SqlValue::Blob(hash)],
        )?;
        rows.into_iter().next().map(read_memory).transpose()
    }

    pub fn memory_exists(&self, id: &MemoryId) -> Result<bool, StoreError> {
        Ok(self.memory_key(id)?.is_some())
    }

    /// The row key of a memory, which the index and the links use.
    pub(super) fn memory_key(&self, id: &MemoryId) -> Result<Option<i64>, StoreError> {
        let rows = self.query("SELECT key FROM memories WHERE id = ?", &[id.0.as_str().into()])?;
        rows.into_iter().next().map(|row| RowReader::new(row).i64()).transpose()
    }

    /// The ids of the memories of `kind` from `path`.
    pub(super) fn memory_ids_of(&self, path: &str, kind: SourceKind) -> Result<Vec<MemoryId>, StoreError> {
        let Some(path_id) = self.find_path_id(path)? else { return Ok(Vec::new()) };
        let rows = self.query(
            "SELECT id FROM memories WHERE path_id = ? AND kind = ? ORDER BY key",
            &[path_id.into(), kind_code(kind).into()],
        )?;
        rows.into_iter().map(|row| Ok(MemoryId(RowReader::new(row).text()?))).collect()
    }

    /// The memories of `ids` marked consolidated wait for a consolidation again (the orphan
    /// fix): an insight of theirs is gone. Which of them were marked.
    pub(super) fn reopen<'a>(&self, ids: impl Iterator<Item = &'a MemoryId>) -> Result<Vec<MemoryId>, StoreError> {
        let mut reopened = Vec::new();
        for id in ids {
            if self.change(
                "UPDATE memories SET consolidated = 0 WHERE id = ? AND consolidated = 1",
                &[id.0.as_str().into()],
            )? > 0
            {
                reopened.push(id.clone());
            }
        }
        Ok(reopened)
    }

    /// Removes memories and applies the orphan fix; must run inside a transaction.
    pub(super) fn remove_memories(&self, ids: &[MemoryId]) -> Result<Removal, StoreError> {
        let removed: BTreeSet<&MemoryId> = ids.iter().collect();
        let mut consolidations = BTreeSet::new();
        let mut cited = BTreeSet::new();
        let mut keys = Vec::with_capacity(ids.len());
        for id in ids {
            let Some(key) = self.memory_key(id)? else { continue };
            keys.push(key);
            for (consolidation, memory_ids) in self.insights_of_key(key)? {
                // Set aside (a replay), the insight may come back whole with its memory under
                // a new path: its other memories stay consolidated until it is dropped for good
                // (`merge::retry_waiting_insights`), or they would be paid for again.
                if self.is_logging() {
                    cited.extend(memory_ids);
                }
                consolidations.insert(consolidation);
            }
        }
        for consolidation in &consolidations {
            // A removal replayed from another device: that device decides the insight's fate.
            if self.is_logging() {
                self.delete_consolidation(consolidation)?;
            } else {
                self.set_insight_aside(consolidation)?;
            }
        }
        let mut paths = BTreeSet::new();
        for key in keys {
            let rows = self.query(
                "SELECT m.path_id, m.entity_ids, m.id, p.path, m.also_on FROM memories AS m
                 JOIN paths AS p ON p.id = m.path_id WHERE m.key = ?",
                &[key.into()],
            )?;
            let Some(row) = rows.into_iter().next() else { continue };
            let mut row = RowReader::new(row);
            paths.insert(row.i64()?);
            let entity_ids = row.opt_text()?;
            let (id, path) = (row.text()?, row.text()?);
            let also_on: Vec<String> = row.opt_json_list()?;
            for later in also_on.iter().filter_map(|date| CalendarDate::parse(date)) {
                self.change(
                    "DELETE FROM memory_days WHERE day = ? AND memory_key = ?",
                    &[later.to_days().into(), key.into()],
                )?;
            }
            self.unindex_memory(key)?;
            self.unlink_entities(key, entity_ids.as_deref())?;
            // Kept, so that a merge with another device's copy does not bring it back there: with
            // its path, since the other copy may have moved it with a rename.
            self.add_tombstone(&Tombstone::RemovedWithNote { id, path })?;
            self.change("DELETE FROM memories WHERE key = ?", &[key.into()])?;
        }
        for path_id in paths {
            self.drop_path_if_unused(path_id)?;
        }
        let reopened = self.reopen(cited.iter().filter(|id| !removed.contains(id)))?;
        Ok(Removal { memories: ids.to_vec(), consolidations: consolidations.into_iter().collect(), reopened })
    }
}

/// How a source kind is stored: the small integers SQLite keeps in no bytes at all.
pub(super) fn kind_code(kind: SourceKind) -> i64 {
    match kind {
        SourceKind::Note => 0,
        SourceKind::Selection => 1,
        SourceKind::Text => 2,
    }
}

fn kind_from_code(code: i64) -> Result<SourceKind, StoreError> {
    match code {
        0 => Ok(SourceKind::Note),
        1 => Ok(SourceKind::Selection),
        2 => Ok(SourceKind::Text),
        other => Err(StoreError::InvalidData(format!("unknown source kind {other}"))),
    }
}

/// The stored form of a content hash: its first 128 bits. The hash is the hex the engine
/// computes (SHA-256, 64 digits) or one read back from the store (32 digits).
pub(super) fn stored_hash(hash: &str) -> Result<Vec<u8>, StoreError> {
    let bytes = unhex(hash).ok_or_else(|| StoreError::InvalidInput(format!("content hash `{hash}` is not hex")))?;
    if bytes.len() < CONTENT_HASH_BYTES {
        return Err(StoreError::InvalidInput(format!("content hash `{hash}` is too short")));
    }
    Ok(bytes[..CONTENT_HASH_BYTES].to_vec())
}

/// Everything `insert_memory` refuses, checked without the database: a replay skips a line of
/// another device's log that holds such a memory, before anything of it is kept.
pub(super) fn check_insertable(memory: &Memory) -> Result<(), StoreError> {
    validate(memory)?;
    event_days(memory)?;
    memory.content_hash.as_deref().map(stored_hash).transpose()?;
    Ok(())
}

fn validate(memory: &Memory) -> Result<(), StoreError> {
    if memory.id.0.trim().is_empty() {
        return Err(StoreError::InvalidInput("a memory needs an id".into()));
    }
    if memory.summary.trim().is_empty() {
        return Err(StoreError::InvalidInput("a memory needs a summary".into()));
    }
    if !(0.0..=1.0).contains(&memory.importance) {
        return Err(StoreError::InvalidInput(format!("importance {} is outside 0..1", memory.importance)));
    }
    // Entities are read back joined by these separators.
    let separators = |text: &str| text.contains(['\u{1e}', '\u{1f}']);
    if memory.entities.iter().any(|entity| separators(&entity.name) || separators(&entity.kind)) {
        return Err(StoreError::InvalidInput("an entity name holds a control character".into()));
    }
    Ok(())
}

/// Reads a row of `SELECT_FULL` or `SELECT_CARD`.
pub(super) fn read_memory(row: Vec<SqlValue>) -> Result<Memory, StoreError> {
    let mut row = RowReader::new(row);
    let _key = row.i64()?;
    let id = MemoryId(row.text()?);
    let source_path = row.text()?;
    let source_kind = kind_from_code(row.i64()?)?;
    let position = Position { heading: row.opt_text()?, line_start: row.opt_u32()?, line_end: row.opt_u32()? };
    let raw_text = row.text()?;
    let summary = row.text()?;
    let entities = read_entities(row.opt_text()?.as_deref().unwrap_or(""));
    let topics = row.json()?;
    let importance = row.i64()? as f64 / IMPORTANCE_SCALE;
    let day = CalendarDate::from_days(row.i64()?);
    let happened_on = row.bool()?.then(|| day.to_string());
    let (created_at, updated_at, consolidated) = (row.i64()?, row.i64()?, row.bool()?);
    let content_hash = row.opt_blob()?.map(|bytes| hex(&bytes));
    let (facts, also_on, date_source) = read_facts_and_days(&mut row, &source_path)?;
    Ok(Memory {
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
    })
}

/// Reads a row of `SELECT_CANDIDATE`: a memory for the prompt, without its text, lines,
/// hash or bookkeeping (`line_start`/`line_end` None, `updated_at` = `created_at`, not
/// consolidated); citations look memories up whole by id.
pub(super) fn read_candidate(row: Vec<SqlValue>) -> Result<Memory, StoreError> {
    let mut row = RowReader::new(row);
    let _key = row.i64()?;
    let id = MemoryId(row.text()?);
    let source_path = row.text()?;
    let source_kind = kind_from_code(row.i64()?)?;
    let heading = row.opt_text()?;
    let summary = row.text()?;
    let entities = read_entities(row.opt_text()?.as_deref().unwrap_or(""));
    let topics = row.json()?;
    let importance = row.i64()? as f64 / IMPORTANCE_SCALE;
    let day = CalendarDate::from_days(row.i64()?);
    let happened_on = row.bool()?.then(|| day.to_string());
    let created_at = row.i64()?;
    let (facts, also_on, date_source) = read_facts_and_days(&mut row, &source_path)?;
    Ok(Memory {
        id,
        source_path,
        source_kind,
        position: Position { heading, line_start: None, line_end: None },
        raw_text: String::new(),
        summary,
        entities,
        topics,
        importance,
        happened_on,
        also_on,
        date_source,
        facts,
        created_at,
        updated_at: created_at,
        consolidated: false,
        content_hash: None,
    })
}

/// The trailing `facts, also_on, date_source` columns of every memory select.
fn read_facts_and_days(
    row: &mut RowReader,
    source_path: &str,
) -> Result<(Vec<String>, Vec<String>, DateSource), StoreError> {
    let facts = row.opt_json_list()?;
    let also_on = row.opt_json_list()?;
    let date_source = match row.i64()? {
        0 => DateSource::Text,
        1 => DateSource::NoteName,
        2 if is_note_path(source_path) => DateSource::NoteProperty,
        2 => DateSource::FileMetadata,
        other => return Err(StoreError::InvalidData(format!("unknown date source {other}"))),
    };
    Ok((facts, also_on, date_source))
}

/// Whether a vault file's memory keeps its chunk's text: a PDF's (`notes::kind::PDF_EXTENSIONS`,
/// by the path's extension; the store may not use `notes`). An image's memory has no text.
fn keeps_its_text(memory: &Memory) -> bool {
    let name = memory.source_path.rsplit('/').next().unwrap_or(&memory.source_path);
    name.rsplit_once('.').is_some_and(|(_, extension)| extension.eq_ignore_ascii_case("pdf"))
}

/// Whether `path` names a note (Markdown or plain text, `notes::kind::NOTE_EXTENSIONS`; the
/// store may not use `notes`) or no file (typed text), rather than a PDF or an image.
fn is_note_path(path: &str) -> bool {
    let name = path.rsplit('/').next().unwrap_or(path);
    path.is_empty()
        || name
            .rsplit_once('.')
            .is_some_and(|(_, extension)| extension.eq_ignore_ascii_case("md") || extension.eq_ignore_ascii_case("txt"))
}

/// How a date source is stored (`schema::V10`).
fn date_source_code(source: DateSource) -> i64 {
    match source {
        DateSource::Text => 0,
        DateSource::NoteName => 1,
        // Schema 10 allows 0–2. A PDF or an image has no properties: its own metadata (when it
        // was made or taken) is what stands in for them, and reads back as such by its path.
        DateSource::NoteProperty | DateSource::FileMetadata => 2,
    }
}

/// A list as JSON, or NULL when empty: nearly every memory has one day and most a few
/// facts at most, and NULL costs no bytes.
fn json_list_or_null(items: &[String]) -> SqlValue {
    if items.is_empty() {
        SqlValue::Null
    } else {
        to_json(&items)
    }
}

/// Every day the memory's events happened on, earliest first, without repeats; empty when
/// undated. A day listed in `also_on` without `happened_on` is refused: the earliest day is
/// the one the memory is filed under.
fn event_days(memory: &Memory) -> Result<Vec<CalendarDate>, StoreError> {
    let parse = |date: &str| {
        CalendarDate::parse(date).ok_or_else(|| StoreError::InvalidInput(format!("date `{date}` is not YYYY-MM-DD")))
    };
    let Some(first) = memory.happened_on.as_deref() else {
        if !memory.also_on.is_empty() {
            return Err(StoreError::InvalidInput("a memory with later days needs happened_on".into()));
        }
        return Ok(Vec::new());
    };
    let mut days = vec![parse(first)?];
    for date in &memory.also_on {
        days.push(parse(date)?);
    }
    days.sort();
    days.dedup();
    Ok(days)
}

/// `kind␟name␞kind␟name`, as the memory columns read them.
fn read_entities(joined: &str) -> Vec<Entity> {
    if joined.is_empty() {
        return Vec::new();
    }
    joined
        .split('\u{1e}')
        .map(|pair| match pair.split_once('\u{1f}') {
            Some((kind, name)) => Entity { name: name.to_owned(), kind: kind.to_owned() },
            None => Entity { name: pair.to_owned(), kind: String::new() },
        })
        .collect()
}
