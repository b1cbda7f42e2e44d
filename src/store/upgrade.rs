//! The part of the version 5 upgrade that SQL alone cannot do: entity names folded the way
//! questions are, a note's keywords picked from its old raw text, hashes turned into bytes.
//!
//! The SQL step (`schema::V5`) renames the old tables to `legacy_*` and creates the new
//! ones; this reads the legacy rows through the store's own insert code, then drops them,
//! all in one transaction, and rewrites the file once to hand the freed space back. A crash
//! in between leaves the legacy tables in place, and the next open finishes the job. No
//! model call is made: every memory and insight is carried over as it was.

use super::rows::RowReader;
use super::{schema, SqlDriver, Store, StoreError};
use crate::domain::{Consolidation, ConsolidationId, Memory, MemoryId, Position, Source, SourceKind};

impl<D: SqlDriver> Store<D> {
    /// Moves the rows of a version 1–4 store into the version 5 tables, if any are left.
    pub(super) fn finish_upgrade(&self) -> Result<(), StoreError> {
        let present = self.query(
            "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name IN (SELECT value FROM json_each(?1))",
            &[super::rows::to_json(&schema::LEGACY_TABLES)],
        )?;
        if super::rows::single(present)?.u64()? == 0 {
            return Ok(());
        }
        self.transaction(|store| {
            store.copy_legacy_sources()?;
            store.copy_legacy_memories()?;
            store.copy_legacy_insights()?;
            for table in schema::LEGACY_TABLES {
                store.driver.execute_batch(&format!("DROP TABLE IF EXISTS {table}"))?;
            }
            store.dirty.set(true);
            Ok(())
        })?;
        self.vacuum()
    }

    fn copy_legacy_sources(&self) -> Result<(), StoreError> {
        let rows = self.query("SELECT path, mtime, size, sha256, updated_at, skipped FROM legacy_sources", &[])?;
        for row in rows {
            let mut row = RowReader::new(row);
            let source = Source {
                path: row.text()?,
                mtime: row.i64()?,
                size: row.u64()?,
                sha256: row.text()?,
                updated_at: row.i64()?,
                skipped: row.opt_text()?,
            };
            // A hand-edited record that is not a hash is dropped: the note is read again.
            match self.upsert_source(&source) {
                Err(StoreError::InvalidInput(_)) => continue,
                other => other?,
            }
        }
        Ok(())
    }

    fn copy_legacy_memories(&self) -> Result<(), StoreError> {
        let rows = self.query(
            "SELECT id, source_path, source_kind, heading, line_start, line_end, raw_text, summary, entities, topics,
                    importance, happened_on, created_at, updated_at, consolidated, content_hash
             FROM legacy_memories ORDER BY rowid",
            &[],
        )?;
        for row in rows {
            let mut row = RowReader::new(row);
            let id = MemoryId(row.text()?);
            let source_path = row.text()?;
            let kind = row.text()?;
            let memory = Memory {
                id,
                source_path,
                source_kind: SourceKind::parse(&kind)
                    .ok_or_else(|| StoreError::InvalidData(format!("unknown source kind `{kind}`")))?,
                position: Position { heading: row.opt_text()?, line_start: row.opt_u32()?, line_end: row.opt_u32()? },
                raw_text: row.text()?,
                summary: row.text()?,
                entities: row.json()?,
                topics: row.json()?,
                importance: row.f64()?.clamp(0.0, 1.0),
                happened_on: row.opt_text()?,
                also_on: Vec::new(),
                date_source: Default::default(),
                facts: Vec::new(),
                created_at: row.i64()?,
                updated_at: row.i64()?,
                consolidated: row.bool()?,
                // Only a hash the engine made can tell unchanged text; anything else is dropped.
                content_hash: row
                    .opt_text()?
                    .filter(|hash| crate::hash::unhex(hash).is_some_and(|bytes| bytes.len() >= 16)),
            };
            self.insert_memory(&memory)?;
        }
        Ok(())
    }

    fn copy_legacy_insights(&self) -> Result<(), StoreError> {
        let rows = self.query(
            "SELECT id, memory_ids, insight, connections, created_at FROM legacy_consolidations ORDER BY rowid",
            &[],
        )?;
        for row in rows {
            let mut row = RowReader::new(row);
            let insight = Consolidation {
                id: ConsolidationId(row.text()?),
                memory_ids: row.json()?,
                insight: row.text()?,
                connections: row.json()?,
                created_at: row.i64()?,
            };
            // An insight citing a memory that no longer exists is dropped, as the orphan fix would.
            self.save_consolidation_batch(&[], std::slice::from_ref(&insight))?;
        }
        Ok(())
    }
}
