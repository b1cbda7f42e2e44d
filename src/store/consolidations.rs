//! Consolidations (insights): saved together with marking their batch consolidated.

use super::driver::SqlValue;
use super::rows::{single, to_json, RowReader};
use super::{SqlDriver, Store, StoreError};
use crate::domain::{Consolidation, ConsolidationId, MemoryId};

/// Every column of an insight, in the order `read_consolidation` reads them.
pub(super) const COLUMNS: &str = "id, memory_ids, insight, connections, created_at";

impl<D: SqlDriver> Store<D> {
    /// Stores the insights made from `batch` and marks the batch consolidated, in one
    /// transaction. A memory may have been forgotten or replaced while the model was
    /// thinking: an insight citing it is dropped and its other memories stay unconsolidated,
    /// exactly as the orphan fix would have left them. Returns how many insights were stored.
    pub fn save_consolidation_batch(
        &self,
        batch: &[MemoryId],
        insights: &[Consolidation],
    ) -> Result<usize, StoreError> {
        self.transaction(|store| {
            let mut stored = 0;
            let mut reopened: Vec<&MemoryId> = Vec::new();
            for insight in insights {
                validate(insight)?;
                let mut keys = Vec::with_capacity(insight.memory_ids.len());
                for id in &insight.memory_ids {
                    if let Some(key) = store.memory_key(id)? {
                        keys.push(key);
                    }
                }
                if keys.len() < insight.memory_ids.len() {
                    reopened.extend(&insight.memory_ids);
                    continue;
                }
                store.change(
                    &format!("INSERT INTO consolidations ({COLUMNS}) VALUES (?,?,?,?,?)"),
                    &[
                        insight.id.0.as_str().into(),
                        to_json(&insight.memory_ids),
                        insight.insight.as_str().into(),
                        to_json(&insight.connections),
                        insight.created_at.into(),
                    ],
                )?;
                let insight_key = single(store.query("SELECT last_insert_rowid()", &[])?)?.i64()?;
                for key in keys {
                    store.change(
                        "INSERT OR IGNORE INTO insight_sources (memory_key, insight_key) VALUES (?, ?)",
                        &[key.into(), insight_key.into()],
                    )?;
                }
                stored += 1;
            }
            // A missing memory matches no row here.
            for id in batch.iter().filter(|id| !reopened.contains(id)) {
                store.change("UPDATE memories SET consolidated = 1 WHERE id = ?", &[id.0.as_str().into()])?;
            }
            Ok(stored)
        })
    }

    pub fn get_consolidation(&self, id: &ConsolidationId) -> Result<Option<Consolidation>, StoreError> {
        let rows =
            self.query(&format!("SELECT {COLUMNS} FROM consolidations WHERE id = ?"), &[id.0.as_str().into()])?;
        rows.into_iter().next().map(read_consolidation).transpose()
    }

    /// Insights newest first (`limit` 0 = all).
    pub fn list_consolidations(&self, limit: u32, offset: u32) -> Result<Vec<Consolidation>, StoreError> {
        let limit = if limit == 0 { -1 } else { i64::from(limit) };
        let rows = self.query(
            &format!("SELECT {COLUMNS} FROM consolidations ORDER BY key DESC LIMIT ? OFFSET ?"),
            &[limit.into(), offset.into()],
        )?;
        rows.into_iter().map(read_consolidation).collect()
    }

    /// The insights that cite `memory`, each with all the memories it cites.
    pub fn consolidations_citing(
        &self,
        memory: &MemoryId,
    ) -> Result<Vec<(ConsolidationId, Vec<MemoryId>)>, StoreError> {
        match self.memory_key(memory)? {
            Some(key) => self.insights_of_key(key),
            None => Ok(Vec::new()),
        }
    }

    /// The insights citing the memory `key`, each with all the memories it cites, by id.
    pub(super) fn insights_of_key(&self, key: i64) -> Result<Vec<(ConsolidationId, Vec<MemoryId>)>, StoreError> {
        let rows = self.query(
            "SELECT c.id, c.memory_ids FROM insight_sources AS s JOIN consolidations AS c ON c.key = s.insight_key
             WHERE s.memory_key = ? ORDER BY c.id",
            &[key.into()],
        )?;
        rows.into_iter()
            .map(|row| {
                let mut row = RowReader::new(row);
                Ok((ConsolidationId(row.text()?), row.json()?))
            })
            .collect()
    }

    /// Deletes an insight and its links; must run in a transaction.
    pub(super) fn delete_consolidation(&self, id: &ConsolidationId) -> Result<(), StoreError> {
        if self.unlink_consolidation(id)? {
            self.add_tombstone(&super::tombstones::Tombstone::Forgotten { id: id.0.clone() })?;
        }
        Ok(())
    }

    /// An insight whose memory a merge or replay removed: it leaves the insights with no
    /// tombstone and waits for its memories (`log_waiting_insights`). The memory may be on its
    /// way under another path (a rename travels as a removal of the old record and the note at
    /// its new path, and a replay may read the one before the other); the device that removed
    /// the memory for good wrote the insight's own removal, which ends the wait.
    pub(super) fn set_insight_aside(&self, id: &ConsolidationId) -> Result<(), StoreError> {
        let Some(insight) = self.get_consolidation(id)? else { return Ok(()) };
        self.unlink_consolidation(id)?;
        self.park_insight(&insight)
    }

    /// Deletes an insight's rows; false when there was none.
    fn unlink_consolidation(&self, id: &ConsolidationId) -> Result<bool, StoreError> {
        let rows = self.query("SELECT key, memory_ids FROM consolidations WHERE id = ?", &[id.0.as_str().into()])?;
        let Some(row) = rows.into_iter().next() else { return Ok(false) };
        let mut row = RowReader::new(row);
        let (insight_key, memory_ids): (i64, Vec<MemoryId>) = (row.i64()?, row.json()?);
        for memory in &memory_ids {
            if let Some(memory_key) = self.memory_key(memory)? {
                self.change(
                    "DELETE FROM insight_sources WHERE memory_key = ? AND insight_key = ?",
                    &[memory_key.into(), insight_key.into()],
                )?;
            }
        }
        self.change("DELETE FROM consolidations WHERE key = ?", &[insight_key.into()])?;
        Ok(true)
    }
}

pub(super) fn validate(insight: &Consolidation) -> Result<(), StoreError> {
    if insight.insight.trim().is_empty() {
        return Err(StoreError::InvalidInput("an insight needs text".into()));
    }
    if insight.memory_ids.is_empty() {
        return Err(StoreError::InvalidInput("an insight must cite at least one memory".into()));
    }
    for connection in &insight.connections {
        if !insight.memory_ids.contains(&connection.from) || !insight.memory_ids.contains(&connection.to) {
            return Err(StoreError::InvalidInput(format!(
                "connection {} → {} links a memory the insight does not cite",
                connection.from.0, connection.to.0
            )));
        }
    }
    Ok(())
}

pub(super) fn read_consolidation(row: Vec<SqlValue>) -> Result<Consolidation, StoreError> {
    let mut row = RowReader::new(row);
    Ok(Consolidation {
        id: ConsolidationId(row.text()?),
        memory_ids: row.json()?,
        insight: row.text()?,
        connections: row.json()?,
        created_at: row.i64()?,
    })
}
