//! Entities: each name (with its kind) is stored once and linked to the memories that
//! mention it, so "memories about Alice" is an index lookup and a name costs its bytes once.
//!
//! `folded` is the name lower-cased without diacritics (`words::fold`), what a question's
//! names are compared with; `uses` counts the links, so the names the query plan matches
//! come most-mentioned first without a pass over every memory.

use std::cell::Cell;
use std::sync::atomic::{AtomicU64, Ordering};

use super::rows::{single, RowReader};
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
    /// Links `entities` to the memory `memory_key`, in order; must run in a transaction.
    pub(super) fn link_entities(&self, memory_key: i64, entities: &[Entity]) -> Result<(), StoreError> {
        for (position, entity) in entities.iter().enumerate() {
            let id = self.entity_id(entity)?;
            self.change(
                "INSERT INTO memory_entities (memory_key, position, entity_id) VALUES (?, ?, ?)",
                &[memory_key.into(), (position as i64).into(), id.into()],
            )?;
            self.change("UPDATE entities SET uses = uses + 1 WHERE id = ?", &[id.into()])?;
        }
        if !entities.is_empty() {
            self.names.bump();
        }
        Ok(())
    }

    /// Unlinks the memory's entities; a name no memory mentions any more goes.
    pub(super) fn unlink_entities(&self, memory_key: i64) -> Result<(), StoreError> {
        let rows = self.query("SELECT entity_id FROM memory_entities WHERE memory_key = ?", &[memory_key.into()])?;
        if rows.is_empty() {
            return Ok(());
        }
        for row in rows {
            let id = RowReader::new(row).i64()?;
            self.change("UPDATE entities SET uses = uses - 1 WHERE id = ?", &[id.into()])?;
            self.change("DELETE FROM entities WHERE id = ? AND uses <= 0", &[id.into()])?;
        }
        self.change("DELETE FROM memory_entities WHERE memory_key = ?", &[memory_key.into()])?;
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

    /// The id of the entity, recorded now if it is new.
    fn entity_id(&self, entity: &Entity) -> Result<i64, StoreError> {
        let rows = self.query(
            "SELECT id FROM entities WHERE name = ? AND kind = ?",
            &[entity.name.as_str().into(), entity.kind.as_str().into()],
        )?;
        if let Some(row) = rows.into_iter().next() {
            return RowReader::new(row).i64();
        }
        self.change(
            "INSERT INTO entities (name, kind, folded, uses) VALUES (?, ?, ?, 0)",
            &[entity.name.as_str().into(), entity.kind.as_str().into(), fold(entity.name.trim()).into()],
        )?;
        single(self.query("SELECT last_insert_rowid()", &[])?)?.i64()
    }
}
