//! Consolidations (insights): saved together with marking their batch consolidated.

use super::driver::SqlValue;
use super::rows::{to_json, RowReader};
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
                let mut complete = true;
                for id in &insight.memory_ids {
                    complete &= store.memory_exists(id)?;
                }
                if !complete {
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
            &format!("SELECT {COLUMNS} FROM consolidations ORDER BY created_at DESC, id LIMIT ? OFFSET ?"),
            &[limit.into(), offset.into()],
        )?;
        rows.into_iter().map(read_consolidation).collect()
    }

    /// The insights that cite `memory`, each with all the memories it cites.
    pub fn consolidations_citing(
        &self,
        memory: &MemoryId,
    ) -> Result<Vec<(ConsolidationId, Vec<MemoryId>)>, StoreError> {
        let rows = self.query(
            "SELECT c.id, c.memory_ids FROM consolidations AS c
             WHERE EXISTS (SELECT 1 FROM json_each(c.memory_ids) AS cited WHERE cited.value = ?)
             ORDER BY c.id",
            &[memory.0.as_str().into()],
        )?;
        rows.into_iter()
            .map(|row| {
                let mut row = RowReader::new(row);
                Ok((ConsolidationId(row.text()?), row.json()?))
            })
            .collect()
    }
}

fn validate(insight: &Consolidation) -> Result<(), StoreError> {
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
