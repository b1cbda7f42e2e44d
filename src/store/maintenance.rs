//! Keeping the file sound and small: the full integrity check (run when nothing waits on
//! it, not at open), reclaiming free pages, and the file's layout for new stores.
//!
//! Page size and vacuum mode were chosen by measurement (`npm run bench`, README): 4 KiB
//! pages and incremental auto-vacuum, so pages freed by deletions (an edited note, a
//! forgotten memory) can be handed back without rewriting the whole file.

use serde::Serialize;

use super::rows::single;
use super::{schema, SqlDriver, SqlValue, Store, StoreError};

/// The page size of new database files.
pub const PAGE_SIZE: u32 = 4_096;

/// SQLite's page cache, in KiB (its default is 2 MiB): a question reads pages of several
/// indexes, and re-reading them from the in-memory file and parsing them again made the
/// first of each kind of question twice as slow as the next (`npm run bench`).
pub const PAGE_CACHE_KIB: u32 = 32 * 1024;

/// Free pages are handed back once they are this share of the file (and at least 16).
const FREE_SHARE_TO_RECLAIM: f64 = 0.10;

/// What the full check found (damage is `StoreError::Corrupt`, not an `Integrity`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Integrity {
    /// The full-text index disagreed with the memories and was rebuilt (the store is dirty).
    pub repaired_index: bool,
    /// Why the check (or the index's rebuild) could not run to its end, when it could not:
    /// the engine failed for another reason than damage (e.g. it ran out of memory). Nothing
    /// is known of what it did not read; the store is kept as it is, to be checked again.
    pub unfinished: Option<String>,
}

impl Integrity {
    fn unfinished(error: StoreError) -> Result<Self, StoreError> {
        match error {
            StoreError::Sql(error) => Ok(Integrity { unfinished: Some(error.to_string()), ..Integrity::default() }),
            other => Err(other),
        }
    }
}

/// The file's size before and after `compact`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Compaction {
    pub bytes_before: u64,
    pub bytes_after: u64,
}

/// Pages of the file, for the status view and the benchmark.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SizeReport {
    pub page_size: u64,
    pub pages: u64,
    pub free_pages: u64,
}

impl SizeReport {
    pub fn bytes(&self) -> u64 {
        self.page_size * self.pages
    }
}

impl<D: SqlDriver> Store<D> {
    /// The layout of a new file; SQLite takes it only before the first table exists.
    pub(super) fn set_up_new_file(&self) -> Result<(), StoreError> {
        self.driver.execute_batch(&format!("PRAGMA page_size = {PAGE_SIZE}; PRAGMA auto_vacuum = INCREMENTAL;"))?;
        Ok(())
    }

    /// `PRAGMA quick_check`: reads every page once. Damage is `StoreError::Corrupt`; a check
    /// the engine could not finish for another reason is reported (`Integrity::unfinished`),
    /// never taken for damage nor dropped.
    ///
    /// SQLite's check also compares the full-text index with the memories it was made from.
    /// That index is derived data: when it is the only thing that disagrees, it is rebuilt
    /// (and the store marked changed, so the repair is saved) instead of losing the database.
    pub fn check_integrity(&self) -> Result<Integrity, StoreError> {
        let problems = match self.integrity_problems() {
            Ok(problems) => problems,
            Err(error) => return Integrity::unfinished(error),
        };
        if problems.is_empty() {
            return Ok(Integrity::default());
        }
        let only_the_index = problems.iter().all(|problem| problem.contains(schema::FULL_TEXT_INDEX));
        if !only_the_index {
            return Err(StoreError::Corrupt(problems.join("; ")));
        }
        if let Err(error) = self.rebuild_index() {
            return Integrity::unfinished(error);
        }
        match self.integrity_problems() {
            Ok(left) if left.is_empty() => Ok(Integrity { repaired_index: true, unfinished: None }),
            Ok(left) => Err(StoreError::Corrupt(left.join("; "))),
            Err(error) => Integrity::unfinished(error),
        }
    }

    /// Pages in the file and how many are free.
    pub fn size_report(&self) -> Result<SizeReport, StoreError> {
        let pragma =
            |name: &str| -> Result<u64, StoreError> { single(self.query(&format!("PRAGMA {name}"), &[])?)?.u64() };
        Ok(SizeReport {
            page_size: pragma("page_size")?,
            pages: pragma("page_count")?,
            free_pages: pragma("freelist_count")?,
        })
    }

    /// Makes the file small again after deletions: merges the full-text index into one
    /// segment (FTS4 deletes by adding segments; merging drops the deleted rows), then hands
    /// free pages back when enough have piled up. A file from before incremental vacuum is
    /// rewritten once. Costs a pass over the index: call it now and then, not per change.
    pub fn compact(&self) -> Result<Compaction, StoreError> {
        let before = self.size_report()?;
        let segments =
            single(self.query(&format!("SELECT count(*) FROM {}_segdir", schema::FULL_TEXT_INDEX), &[])?)?.u64()?;
        if segments > 1 {
            self.driver.execute_batch(&format!(
                "INSERT INTO {index} ({index}) VALUES ('optimize')",
                index = schema::FULL_TEXT_INDEX
            ))?;
            self.dirty.set(true);
        }
        let merged = self.size_report()?;
        let worth_it =
            merged.free_pages >= 16 && merged.free_pages as f64 >= merged.pages as f64 * FREE_SHARE_TO_RECLAIM;
        if worth_it {
            let mode = single(self.query("PRAGMA auto_vacuum", &[])?)?.i64()?;
            if mode == 2 {
                // A query, not a batch: the pragma frees one page per step, and only stepping
                // it to the end frees them all on every driver.
                self.driver.query("PRAGMA incremental_vacuum", &[])?;
            } else {
                self.vacuum()?;
            }
            self.dirty.set(true);
        }
        let after = self.size_report()?;
        Ok(Compaction { bytes_before: before.bytes(), bytes_after: after.bytes() })
    }

    /// Rewrites the whole file: merges the full-text index into one segment, drops free
    /// pages and switches to incremental vacuum. Seconds on a large store; for upgrades.
    pub(super) fn vacuum(&self) -> Result<(), StoreError> {
        self.driver.execute_batch(&format!(
            "INSERT INTO {index} ({index}) VALUES ('optimize'); PRAGMA auto_vacuum = INCREMENTAL; VACUUM;",
            index = schema::FULL_TEXT_INDEX
        ))?;
        self.dirty.set(true);
        Ok(())
    }

    /// What `PRAGMA quick_check` found wrong; empty when it says "ok".
    fn integrity_problems(&self) -> Result<Vec<String>, StoreError> {
        // Damage the engine reports while checking is `Corrupt` (by its result code); any
        // other failure is the check's, not the file's.
        let rows = self.query("PRAGMA quick_check", &[])?;
        let lines: Vec<String> =
            rows.iter().filter_map(|row| row.first().and_then(SqlValue::as_str)).map(str::to_owned).collect();
        match lines.first().map(String::as_str) {
            Some("ok") => Ok(Vec::new()),
            Some(_) => Ok(lines),
            None => Err(StoreError::Corrupt("the integrity check gave no answer".into())),
        }
    }
}

#[cfg(all(test, not(target_arch = "wasm32")))]
mod tests {
    use super::super::test_driver::Failing;
    use super::super::SqlErrorKind;
    use super::*;

    #[test]
    fn a_check_that_cannot_finish_is_reported_not_taken_for_damage() {
        let store = Store::open(Failing::new("PRAGMA quick_check", SqlErrorKind::OutOfMemory)).unwrap();
        assert_eq!(store.check_integrity().unwrap(), Integrity::default());
        store.driver().arm(true);
        let checked = store.check_integrity().unwrap();
        assert!(checked.unfinished.is_some_and(|why| why.contains("OutOfMemory")));
        assert!(!checked.repaired_index);
    }

    #[test]
    fn damage_found_while_checking_is_corrupt() {
        let store = Store::open(Failing::new("PRAGMA quick_check", SqlErrorKind::Corrupt)).unwrap();
        store.driver().arm(true);
        assert!(matches!(store.check_integrity(), Err(StoreError::Corrupt(_))));
    }
}
