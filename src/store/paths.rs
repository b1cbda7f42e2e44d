//! Paths: every source path is stored once and referred to by its id, so a note's
//! memories, its source record and a rename each touch one row.

use super::rows::RowReader;
use super::{SqlDriver, Store, StoreError};

impl<D: SqlDriver> Store<D> {
    /// The id of `path`, recorded now if it is new.
    pub(super) fn path_id(&self, path: &str) -> Result<i64, StoreError> {
        if let Some(id) = self.find_path_id(path)? {
            return Ok(id);
        }
        self.insert_returning_key("INSERT INTO paths (path) VALUES (?) RETURNING id", &[path.into()])
    }

    /// The id of `path`, if anything refers to it.
    pub(super) fn find_path_id(&self, path: &str) -> Result<Option<i64>, StoreError> {
        let rows = self.query("SELECT id FROM paths WHERE path = ?", &[path.into()])?;
        rows.into_iter().next().map(|row| RowReader::new(row).i64()).transpose()
    }

    /// Forgets a path nothing refers to any more (no memory, no source record).
    pub(super) fn drop_path_if_unused(&self, id: i64) -> Result<(), StoreError> {
        self.change(
            "DELETE FROM paths WHERE id = ?1
               AND NOT EXISTS (SELECT 1 FROM memories WHERE path_id = ?1)
               AND NOT EXISTS (SELECT 1 FROM sources WHERE path_id = ?1)",
            &[id.into()],
        )?;
        Ok(())
    }
}
