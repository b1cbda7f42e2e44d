//! Entities: each name (with its kind) is stored once and linked to the memories that
//! mention it, so "memories about Alice" is an index lookup and a name costs its bytes once.
//!
//! `folded` is the name lower-cased without diacritics (`words::fold`), what a question's
//! names are compared with and what makes two spellings one entity ("Zoë Berg" and "zoe
//! berg" are one person; the first spelling is the one shown), so one index serves both the
//! lookup and the uniqueness. `uses` counts the links, so the names the query plan matches
//! come most-mentioned first without a pass over every memory.

use std::cell::Cell;
use std::sync::atomic::{AtomicU64, Ordering};

use super::rows::RowReader;
use super::{SqlDriver, Store, StoreError};
use crate::domain::Entity;
use crate::words::fold;

/// Tells whether the set of entity names changed: unique across every store a process
/// opens, so a cache made for one store is never taken for another's.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NamesVersion {
    store: u64,
    changes: u64,
}

static NEXT_STORE: AtomicU64 = AtomicU64::new(1);

/// The counter behind `NamesVersion`, one per open store.
#[derive(Debug)]
pub(super) struct NamesCounter {
    store: u64,
    changes: Cell<u64>,
}

impl NamesCounter {
    pub(super) fn new() -> Self {
        NamesCounter { store: NEXT_STORE.fetch_add(1, Ordering::Relaxed), changes: Cell::new(0) }
    }

    fn bump(&self) {
        self.changes.set(self.changes.get() + 1);
    }
}

impl<D: SqlDriver> Store<D> {
    /// Links `entities` to the memory `memory_key`; returns the ids to list in the memory's row,
    /// in order (`None` when there are none). Must run in a transaction.
    /// The ids of a memory's entities, each name found or added (as its `entity_ids` lists
    /// them; `None` for none); `link_entities` then links them to the memory's row.
    pub(super) fn entity_ids(&self, entities: &[Entity]) -> Result<Option<(Vec<i64>, String)>, StoreError> {
        if entities.is_empty() {
            return Ok(None);
        }
        let ids = entities.iter().map(|entity| self.entity_id(entity)).collect::<Result<Vec<i64>, _>>()?;
        let listed = serde_json::to_string(&ids).unwrap_or_else(|_| "[]".into());
        Ok(Some((ids, listed)))
    }

    /// Links the memory `memory_key` to the entities of `ids` (`entity_ids`), each once.
    pub(super) fn link_entities(&self, memory_key: i64, ids: &[i64]) -> Result<(), StoreError> {
        let mut linked: Vec<i64> = Vec::with_capacity(ids.len());
        for id in ids {
            if linked.contains(id) {
                continue;
            }
            self.change(
                "INSERT INTO memory_entities (entity_id, memory_key) VALUES (?, ?)",
                &[(*id).into(), memory_key.into()],
            )?;
            self.change("UPDATE entities SET uses = uses + 1 WHERE id = ?", &[(*id).into()])?;
            linked.push(*id);
        }
        self.names.bump();
        Ok(())
    }

    /// Unlinks the memory's entities (`entity_ids` as its row lists them); a name no memory
    /// mentions any more goes.
    pub(super) fn unlink_entities(&self, memory_key: i64, entity_ids: Option<&str>) -> Result<(), StoreError> {
        let Some(listed) = entity_ids else { return Ok(()) };
        let mut ids: Vec<i64> = serde_json::from_str(listed)
            .map_err(|error| StoreError::InvalidData(format!("entity ids of memory {memory_key}: {error}")))?;
        ids.sort_unstable();
        ids.dedup();
        for id in ids {
            let unlinked = self.change(
                "DELETE FROM memory_entities WHERE entity_id = ? AND memory_key = ?",
                &[id.into(), memory_key.into()],
            )?;
            if unlinked > 0 {
                self.change("UPDATE entities SET uses = uses - 1 WHERE id = ?", &[id.into()])?;
                self.change("DELETE FROM entities WHERE id = ? AND uses <= 0", &[id.into()])?;
            }
        }
        self.names.bump();
        Ok(())
    }

    /// Every entity name the memories mention, once per spelling, most used first.
    pub fn entity_names(&self) -> Result<Vec<String>, StoreError> {
        let rows =
            self.query("SELECT name FROM entities WHERE uses > 0 GROUP BY name ORDER BY sum(uses) DESC, name", &[])?;
        rows.into_iter().map(|row| RowReader::new(row).text()).collect()
    }

    /// Changes whenever `entity_names` may answer differently.
    pub fn names_version(&self) -> NamesVersion {
        NamesVersion { store: self.names.store, changes: self.names.changes.get() }
    }

    /// The id of the entity (any spelling that folds the same), recorded now if it is new.
    fn entity_id(&self, entity: &Entity) -> Result<i64, StoreError> {
        let folded = fold(entity.name.trim());
        let rows = self.query(
            "SELECT id FROM entities WHERE folded = ? AND kind = ?",
            &[folded.as_str().into(), entity.kind.as_str().into()],
        )?;
        if let Some(row) = rows.into_iter().next() {
            return RowReader::new(row).i64();
        }
        self.insert_returning_key(
            "INSERT INTO entities (name, kind, folded, uses) VALUES (?, ?, ?, 0) RETURNING id",
            &[entity.name.as_str().into(), entity.kind.as_str().into(), folded.into()],
        )
    }
}
