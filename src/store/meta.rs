//! Small named values the engine keeps between runs (e.g. the last consolidation time).

use super::rows::single;
use super::{SqlDriver, Store, StoreError};

impl<D: SqlDriver> Store<D> {
    pub fn get_meta(&self, key: &str) -> Result<Option<String>, StoreError> {
        let rows = self.query("SELECT value FROM meta WHERE key = ?", &[key.into()])?;
        if rows.is_empty() {
            return Ok(None);
        }
        single(rows)?.text().map(Some)
    }

    pub fn delete_meta(&self, key: &str) -> Result<(), StoreError> {
        self.change("DELETE FROM meta WHERE key = ?", &[key.into()])?;
        Ok(())
    }

    pub fn set_meta(&self, key: &str, value: &str) -> Result<(), StoreError> {
        self.change(
            "INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
            &[key.into(), value.into()],
        )?;
        Ok(())
    }
}
