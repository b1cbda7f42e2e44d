//! Paths: every source path is stored once and referred to by its id, so a note's
//! memories, its source record and a rename each touch one row.

use super::rows::RowReader;
use super::{SqlDriver, Store, StoreError};

impl<D: SqlDriver> Store<D> {
    /// The id of `path`, recorded now if it is new.
    pub(super) fn path_id(&self, path: &str) -> Result<i64, StoreError> {
        if let Some((_, id)) =
            self.ids_kept.borrow().as_ref().and_then(|kept| kept.path.as_ref()).filter(|(kept, _)| kept == path)
        {
            return Ok(*id);
        }
        let id = match self.find_path_id(path)? {
            Some(id) => id,
            None => self.insert_returning_key("INSERT INTO paths (path) VALUES (?) RETURNING id", &[path.into()])?,
        };
        if let Some(kept) = self.ids_kept.borrow_mut().as_mut() {
            kept.path = Some((path.to_owned(), id));
        }
        Ok(id)
    }

    /// Runs `work` (a merge, inside its transaction) keeping the ids it finds (`KeptIds`), so
    /// each is looked up once; a row removed or renamed meanwhile is dropped from them, and
    /// they are all forgotten at the end, whatever `work` returns (a failed merge rolls back).
    pub(super) fn with_ids_kept<T>(&self, work: impl FnOnce(&Self) -> Result<T, StoreError>) -> Result<T, StoreError> {
        debug_assert!(self.in_transaction(), "ids kept outside a transaction could outlive a rollback");
        *self.ids_kept.borrow_mut() = Some(super::KeptIds::default());
        let result = work(self);
        *self.ids_kept.borrow_mut() = None;
        result
    }

    /// A path's row was removed or renamed: its kept id no longer stands for the path.
    pub(super) fn forget_kept_path(&self) {
        if let Some(kept) = self.ids_kept.borrow_mut().as_mut() {
            kept.path = None;
        }
    }

    /// The id of `path`, if anything refers to it.
    pub(super) fn find_path_id(&self, path: &str) -> Result<Option<i64>, StoreError> {
        let rows = self.query("SELECT id FROM paths WHERE path = ?", &[path.into()])?;
        rows.into_iter().next().map(|row| RowReader::new(row).i64()).transpose()
    }

    /// Forgets a path nothing refers to any more (no memory, no source record).
    pub(super) fn drop_path_if_unused(&self, id: i64) -> Result<(), StoreError> {
        self.forget_kept_path();
        self.change(
            "DELETE FROM paths WHERE id = ?1
               AND NOT EXISTS (SELECT 1 FROM memories WHERE path_id = ?1)
               AND NOT EXISTS (SELECT 1 FROM sources WHERE path_id = ?1)",
            &[id.into()],
        )?;
        Ok(())
    }
}
