//! Memories: insert, read, list, replace a note's memories, forget — and the orphan fix.
//!
//! Removing a memory also removes every insight that cites it and marks the other
//! memories those insights cited as unconsolidated, so their insights are made again
//! instead of silently disappearing.

use std::collections::BTreeSet;

use serde::Serialize;

use super::driver::SqlValue;
use super::rows::{to_json, RowReader};
use super::{SqlDriver, Store, StoreError};
use crate::domain::{ConsolidationId, Memory, MemoryId, Position, SourceKind};

/// Every column of a memory, in the order `read_memory` reads them.
pub(super) const COLUMNS: &str = "id, source_path, source_kind, heading, line_start, line_end, raw_text, summary, \
     entities, topics, importance, happened_on, created_at, updated_at, consolidated, content_hash";

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
    pub fn insert_memory(&self, memory: &Memory) -> Result<(), StoreError> {
        validate(memory)?;
        self.change(
            &format!("INSERT INTO memories ({COLUMNS}) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)"),
            &[
                memory.id.0.as_str().into(),
                memory.source_path.as_str().into(),
                memory.source_kind.as_str().into(),
                memory.position.heading.clone().into(),
                memory.position.line_start.into(),
                memory.position.line_end.into(),
                memory.raw_text.as_str().into(),
                memory.summary.as_str().into(),
                to_json(&memory.entities),
                to_json(&memory.topics),
                memory.importance.into(),
                memory.happened_on.clone().into(),
                memory.created_at.into(),
                memory.updated_at.into(),
                memory.consolidated.into(),
                memory.content_hash.clone().into(),
            ],
        )?;
        Ok(())
    }

    pub fn get_memory(&self, id: &MemoryId) -> Result<Option<Memory>, StoreError> {
        let rows = self.query(&format!("SELECT {COLUMNS} FROM memories WHERE id = ?"), &[id.0.as_str().into()])?;
        rows.into_iter().next().map(read_memory).transpose()
    }

    /// Memories newest first.
    pub fn list_memories(&self, filter: &MemoryFilter) -> Result<Vec<Memory>, StoreError> {
        let limit = if filter.limit == 0 { -1 } else { i64::from(filter.limit) };
        let rows = self.query(
            &format!(
                "SELECT {COLUMNS} FROM memories WHERE (?1 IS NULL OR source_path = ?1)
                 ORDER BY created_at DESC, id LIMIT ?2 OFFSET ?3"
            ),
            &[filter.source_path.clone().into(), limit.into(), filter.offset.into()],
        )?;
        rows.into_iter().map(read_memory).collect()
    }

    /// The memories made from one source, in the order they appear in it.
    pub fn memories_of_source(&self, path: &str, kind: SourceKind) -> Result<Vec<Memory>, StoreError> {
        let rows = self.query(
            &format!(
                "SELECT {COLUMNS} FROM memories WHERE source_path = ? AND source_kind = ?
                 ORDER BY line_start, created_at, id"
            ),
            &[path.into(), kind.as_str().into()],
        )?;
        rows.into_iter().map(read_memory).collect()
    }

    /// The oldest memories no consolidation has looked at yet.
    pub fn unconsolidated_memories(&self, limit: u32) -> Result<Vec<Memory>, StoreError> {
        let rows = self.query(
            &format!("SELECT {COLUMNS} FROM memories WHERE consolidated = 0 ORDER BY created_at, id LIMIT ?"),
            &[limit.into()],
        )?;
        rows.into_iter().map(read_memory).collect()
    }

    pub fn count_unconsolidated(&self) -> Result<u64, StoreError> {
        let rows = self.query("SELECT count(*) FROM memories WHERE consolidated = 0", &[])?;
        super::rows::single(rows)?.u64()
    }

    /// Forgets one memory (the user asked to), with the orphan fix.
    pub fn forget_memory(&self, id: &MemoryId) -> Result<Removal, StoreError> {
        self.transaction(|store| {
            if store.get_memory(id)?.is_none() {
                return Err(StoreError::NotFound(format!("memory {}", id.0)));
            }
            store.remove_memories(std::slice::from_ref(id))
        })
    }

    /// Makes `memories` the note memories of `path`: memories whose id is kept stay as they
    /// are (with their insights), the others are removed with the orphan fix, new ones are
    /// inserted. Selections taken from the note are not touched.
    pub fn replace_note_memories(&self, path: &str, memories: &[Memory]) -> Result<Removal, StoreError> {
        self.transaction(|store| {
            let old = store.memories_of_source(path, SourceKind::Note)?;
            let new_ids: BTreeSet<&MemoryId> = memories.iter().map(|memory| &memory.id).collect();
            let old_ids: BTreeSet<&MemoryId> = old.iter().map(|memory| &memory.id).collect();
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
    pub fn update_memory_position(&self, id: &MemoryId, position: &Position, now: i64) -> Result<(), StoreError> {
        self.change(
            "UPDATE memories SET heading = ?, line_start = ?, line_end = ?, updated_at = ?
             WHERE id = ? AND (heading IS NOT ? OR line_start IS NOT ? OR line_end IS NOT ?)",
            &[
                position.heading.clone().into(),
                position.line_start.into(),
                position.line_end.into(),
                now.into(),
                id.0.as_str().into(),
                position.heading.clone().into(),
                position.line_start.into(),
                position.line_end.into(),
            ],
        )?;
        Ok(())
    }

    /// The memory of `kind` from `path` made from text with this hash, if any.
    pub fn find_memory_by_content(
        &self,
        path: &str,
        kind: SourceKind,
        content_hash: &str,
    ) -> Result<Option<Memory>, StoreError> {
        let rows = self.query(
            &format!(
                "SELECT {COLUMNS} FROM memories WHERE source_path = ? AND source_kind = ? AND content_hash = ? LIMIT 1"
            ),
            &[path.into(), kind.as_str().into(), content_hash.into()],
        )?;
        rows.into_iter().next().map(read_memory).transpose()
    }

    pub fn memory_exists(&self, id: &MemoryId) -> Result<bool, StoreError> {
        Ok(!self.query("SELECT 1 FROM memories WHERE id = ?", &[id.0.as_str().into()])?.is_empty())
    }

    /// Removes memories and applies the orphan fix; must run inside a transaction.
    pub(super) fn remove_memories(&self, ids: &[MemoryId]) -> Result<Removal, StoreError> {
        let removed: BTreeSet<&MemoryId> = ids.iter().collect();
        let mut consolidations = BTreeSet::new();
        let mut cited = BTreeSet::new();
        for id in ids {
            for (consolidation, memory_ids) in self.consolidations_citing(id)? {
                cited.extend(memory_ids);
                consolidations.insert(consolidation);
            }
        }
        for consolidation in &consolidations {
            self.change("DELETE FROM consolidations WHERE id = ?", &[consolidation.0.as_str().into()])?;
        }
        for id in ids {
            self.change("DELETE FROM memories WHERE id = ?", &[id.0.as_str().into()])?;
        }
        let mut reopened = Vec::new();
        for id in cited.iter().filter(|id| !removed.contains(id)) {
            if self.change("UPDATE memories SET consolidated = 0 WHERE id = ?", &[id.0.as_str().into()])? > 0 {
                reopened.push(id.clone());
            }
        }
        Ok(Removal { memories: ids.to_vec(), consolidations: consolidations.into_iter().collect(), reopened })
    }
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
    Ok(())
}

pub(super) fn read_memory(row: Vec<SqlValue>) -> Result<Memory, StoreError> {
    let mut row = RowReader::new(row);
    let id = MemoryId(row.text()?);
    let source_path = row.text()?;
    let kind = row.text()?;
    let source_kind =
        SourceKind::parse(&kind).ok_or_else(|| StoreError::InvalidData(format!("unknown source kind `{kind}`")))?;
    Ok(Memory {
        id,
        source_path,
        source_kind,
        position: Position { heading: row.opt_text()?, line_start: row.opt_u32()?, line_end: row.opt_u32()? },
        raw_text: row.text()?,
        summary: row.text()?,
        entities: row.json()?,
        topics: row.json()?,
        importance: row.f64()?,
        happened_on: row.opt_text()?,
        created_at: row.i64()?,
        updated_at: row.i64()?,
        consolidated: row.bool()?,
        content_hash: row.opt_text()?,
    })
}
