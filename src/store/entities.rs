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
    /// The ids of a memory's entities, each name found or added, as the JSON list its row's
    /// `entity_ids` holds (`None` for none); `link_entities` then links them to the memory's
    /// row. Must run in a transaction.
    pub(super) fn entity_ids(&self, entities: &[Entity]) -> Result<Option<String>, StoreError> {
        if entities.is_empty() {
            return Ok(None);
        }
        let ids = entities.iter().map(|entity| self.entity_id(entity)).collect::<Result<Vec<i64>, _>>()?;
        Ok(Some(serde_json::to_string(&ids).unwrap_or_else(|_| "[]".into())))
    }

    /// Links the memory `memory_key` to the entities `listed` (`entity_ids`'s JSON list), each
    /// once, in two statements whatever their number (a rebuild links every memory's names).
    pub(super) fn link_entities(&self, memory_key: i64, listed: &str) -> Result<(), StoreError> {
        self.change(
            "INSERT INTO memory_entities (entity_id, memory_key) SELECT DISTINCT value, ?2 FROM json_each(?1)",
            &[listed.into(), memory_key.into()],
        )?;
        self.change(
            "UPDATE entities SET uses = uses + 1 WHERE id IN (SELECT value FROM json_each(?))",
            &[listed.into()],
        )?;
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
                if self.change("DELETE FROM entities WHERE id = ? AND uses <= 0", &[id.into()])? > 0 {
                    if let Some(kept) = self.ids_kept.borrow_mut().as_mut() {
                        kept.entities.retain(|_, kept_id| *kept_id != id);
                    }
                }
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
        let named = (fold(entity.name.trim()), entity.kind.clone());
        if let Some(id) = self.ids_kept.borrow().as_ref().and_then(|kept| kept.entities.get(&named)) {
            return Ok(*id);
        }
        let rows = self.query(
            "SELECT id FROM entities WHERE folded = ? AND kind = ?",
            &[named.0.as_str().into(), named.1.as_str().into()],
        )?;
        let id = match rows.into_iter().next() {
            Some(row) => RowReader::new(row).i64()?,
            None => self.insert_returning_key(
                "INSERT INTO entities (name, kind, folded, uses) VALUES (?, ?, ?, 0) RETURNING id",
                &[entity.name.as_str().into(), entity.kind.as_str().into(), named.0.as_str().into()],
            )?,
        };
        if let Some(kept) = self.ids_kept.borrow_mut().as_mut() {
            kept.entities.insert(named, id);
        }
        Ok(id)
    }
}
