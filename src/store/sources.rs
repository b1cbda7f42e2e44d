//! Sources: what the store knows about each vault file it has remembered.

use super::driver::SqlValue;
use super::memories::Removal;
use super::rows::RowReader;
use super::{SqlDriver, Store, StoreError};
use crate::domain::{Source, SourceKind};

const COLUMNS: &str = "path, mtime, size, sha256, updated_at, skipped";

impl<D: SqlDriver> Store<D> {
    /// Records (or updates) what was last remembered of a file.
    pub fn upsert_source(&self, source: &Source) -> Result<(), StoreError> {
        let size = i64::try_from(source.size)
            .map_err(|_| StoreError::InvalidInput(format!("size {} is too large", source.size)))?;
        self.change(
            &format!(
                "INSERT INTO sources ({COLUMNS}) VALUES (?,?,?,?,?,?)
                 ON CONFLICT (path) DO UPDATE SET mtime = excluded.mtime, size = excluded.size,
                    sha256 = excluded.sha256, updated_at = excluded.updated_at, skipped = excluded.skipped"
            ),
            &[
                source.path.as_str().into(),
                source.mtime.into(),
                size.into(),
                source.sha256.as_str().into(),
                source.updated_at.into(),
                source.skipped.clone().into(),
            ],
        )?;
        Ok(())
    }

    pub fn get_source(&self, path: &str) -> Result<Option<Source>, StoreError> {
        let rows = self.query(&format!("SELECT {COLUMNS} FROM sources WHERE path = ?"), &[path.into()])?;
        rows.into_iter().next().map(read_source).transpose()
    }

    /// Every known source, by path.
    pub fn list_sources(&self) -> Result<Vec<Source>, StoreError> {
        let rows = self.query(&format!("SELECT {COLUMNS} FROM sources ORDER BY path"), &[])?;
        rows.into_iter().map(read_source).collect()
    }

    /// At most `limit` sources with paths after `after` (all from the start when `None`), by
    /// path: lets the host read thousands of sources in pages, yielding between them.
    pub fn list_sources_page(&self, after: Option<&str>, limit: u32) -> Result<Vec<Source>, StoreError> {
        let rows = self.query(
            &format!("SELECT {COLUMNS} FROM sources WHERE (?1 IS NULL OR path > ?1) ORDER BY path LIMIT ?2"),
            &[after.into(), limit.into()],
        )?;
        rows.into_iter().map(read_source).collect()
    }

    /// The file is gone: forget its record and its note memories (with the orphan fix).
    /// Selections and typed text taken from it stay: the user asked for those explicitly.
    pub fn remove_source(&self, path: &str) -> Result<Removal, StoreError> {
        self.transaction(|store| {
            let ids: Vec<_> =
                store.memories_of_source(path, SourceKind::Note)?.into_iter().map(|memory| memory.id).collect();
            let removal = store.remove_memories(&ids)?;
            store.change("DELETE FROM sources WHERE path = ?", &[path.into()])?;
            Ok(removal)
        })
    }

    /// The file was renamed: its record and every memory taken from it move along, with
    /// no model call. Whatever was recorded under the new path is replaced.
    pub fn rename_source(&self, old_path: &str, new_path: &str, now: i64) -> Result<(), StoreError> {
        if old_path == new_path {
            return Ok(());
        }
        self.transaction(|store| {
            if store.get_source(new_path)?.is_some() {
                store.remove_source(new_path)?;
            }
            store.change(
                "UPDATE sources SET path = ?, updated_at = ? WHERE path = ?",
                &[new_path.into(), now.into(), old_path.into()],
            )?;
            store.change(
                "UPDATE memories SET source_path = ?, updated_at = ? WHERE source_path = ?",
                &[new_path.into(), now.into(), old_path.into()],
            )?;
            Ok(())
        })
    }
}

fn read_source(row: Vec<SqlValue>) -> Result<Source, StoreError> {
    let mut row = RowReader::new(row);
    Ok(Source {
        path: row.text()?,
        mtime: row.i64()?,
        size: row.u64()?,
        sha256: row.text()?,
        updated_at: row.i64()?,
        skipped: row.opt_text()?,
    })
}
