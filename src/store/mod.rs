//! The memory store: every SQL statement of Memory Agent, written once, over `SqlDriver`.
//!
//! The store never calls the model and never reads the clock: callers pass `now`. Each
//! operation that touches more than one row runs in one transaction, so a failure (or a
//! crash before the file is saved) leaves either the old state or the new one, never half.
//! Operations live in one file per table; this file holds the handle, its errors and the
//! transaction helper.

mod browse;
mod conflict_copies;
mod consolidations;
mod content_index;
#[cfg(any(not(target_arch = "wasm32"), feature = "self-check"))]
pub mod contract;
mod driver;
mod entities;
mod file_check;
mod jobs;
mod log;
mod log_checks;
mod log_v1;
mod maintenance;
mod memories;
mod merge;
mod meta;
mod paths;
mod recall;
mod rows;
#[cfg(not(target_arch = "wasm32"))]
pub mod rusqlite_driver;
pub mod schema;
mod schema_guard;
mod scope;
mod search_index;
mod sources;
#[cfg(all(test, not(target_arch = "wasm32")))]
mod test_driver;
mod tombstones;
mod upgrade;
mod usage;

use std::cell::{Cell, RefCell};

use thiserror::Error;

use crate::domain::StoreStatus;
use crate::error::ErrorCode;

pub use browse::{BrowseFileKind, FileExtensions, InsightPage, MemoryCursor, MemoryPage, MemoryQuery};
pub use conflict_copies::is_conflict_copy;
pub use driver::{DriverError, Row, SqlDriver, SqlErrorKind, SqlValue};
pub use entities::NamesVersion;
pub use file_check::{check_database_bytes, check_database_header, DATABASE_HEADER_LEN};
pub use jobs::NewJob;
pub use log::{
    log_line, read_line, Erasures, LogCursor, LogEntry, OutgoingLog, ReadLine, Replayed, SkippedLine, LOG_FORMAT,
};
#[doc(hidden)]
pub use log_v1::round_trip as log_v1_round_trip;
pub use maintenance::{Compaction, Integrity, SizeReport};
pub use memories::{MemoryFilter, Removal, CONTENT_HASH_BYTES};
pub use merge::{MergeOutcome, MergeReport};
pub use recall::{bm25, MemorySizes, Neighbour, ScoredMemory, SearchTerm, MAX_TEXT_MATCHES};
pub use schema_guard::{describe_removed, ForeignObject, ObjectKind};
pub use scope::MemoryScope;
pub use search_index::sql_memory_terms;
pub use search_index::{keywords, MAX_KEYWORDS};
pub use sources::QuietChunks;
pub use tombstones::{RemovedHere, Tombstone, Tombstones};
pub use usage::UsageRecord;

/// What can go wrong in the store.
#[derive(Debug, Error)]
pub enum StoreError {
    /// The file is not a Memory Agent database, or it is damaged or cut short. The caller
    /// moves it aside and starts a fresh one; the store never writes over it.
    #[error("the memory database is damaged or is not a Memory Agent database: {0}")]
    Corrupt(String),
    /// The file was written by a newer Memory Agent; opening it would lose data.
    #[error("the memory database was written by a newer version of Memory Agent (schema {found}; this version knows up to {supported}). Update the plugin.")]
    NewerSchema { found: u32, supported: u32 },
    /// A migration step failed; the database stays at the version before it.
    #[error("could not upgrade the memory database to schema {to}: {reason}")]
    Migration { to: u32, reason: String },
    /// A statement failed at run time (e.g. a constraint); the transaction was rolled back.
    #[error("memory database error: {0}")]
    Sql(DriverError),
    /// A row holds something the code cannot read (e.g. broken JSON in `entities`).
    #[error("the memory database holds invalid data: {0}")]
    InvalidData(String),
    /// A value handed in breaks the store's rules (e.g. importance outside 0..1).
    #[error("{0}")]
    InvalidInput(String),
    /// The memory, insight or job asked for does not exist.
    #[error("{0} was not found")]
    NotFound(String),
}

impl ErrorCode for StoreError {
    fn code(&self) -> &'static str {
        match self {
            StoreError::Corrupt(_) => "store.corrupt",
            StoreError::NewerSchema { .. } => "store.newer_schema",
            StoreError::Migration { .. } => "store.migration",
            StoreError::Sql(_) => "store.sql",
            StoreError::InvalidData(_) => "store.invalid_data",
            StoreError::InvalidInput(_) => "store.invalid_input",
            StoreError::NotFound(_) => "store.not_found",
        }
    }
}

impl From<DriverError> for StoreError {
    /// Damage to the file (by SQLite's result code, as the driver classified it) is
    /// `Corrupt`; every other failure belongs to the statement.
    fn from(error: DriverError) -> Self {
        if error.kind.is_damage() {
            StoreError::Corrupt(error.message)
        } else {
            StoreError::Sql(error)
        }
    }
}

/// An open memory store.
pub struct Store<D: SqlDriver> {
    driver: D,
    /// Set by every change, cleared by `export`: tells the host whether a save is due.
    dirty: Cell<bool>,
    in_transaction: Cell<bool>,
    /// Changes with the entity names, for caches of them (`names_version`).
    names: entities::NamesCounter,
    /// The user's offset from UTC, to give an undated memory the local day it was made.
    utc_offset_minutes: Cell<i32>,
    /// Note memories by content hash, built when first asked (`content_index.rs`).
    content_index: RefCell<Option<content_index::ContentIndex>>,
    /// The device whose calls this copy counts (`usage.rs`).
    device: RefCell<String>,
    /// What the file held that the schema does not define, removed at open (`schema_guard`).
    foreign_removed: Vec<ForeignObject>,
    /// Whether changes are noted for this device's log (off while another device's entries
    /// are replayed: those are theirs).
    logging: Cell<bool>,
    /// Whether the entries being merged are another device's (`memories.theirs`).
    merging_theirs: Cell<bool>,
    /// Memories to enter in the full-text index at the end of a merge (`with_index_deferred`).
    deferred_index: RefCell<Option<std::collections::BTreeSet<i64>>>,
    /// Ids found while a merge runs (`with_ids_kept`).
    ids_kept: RefCell<Option<KeptIds>>,
}

/// Ids a merge looks up again and again, kept for its length (`Store::with_ids_kept`): a rebuild
/// names the same people thousands of times, and a note's memories share its path.
#[derive(Debug, Default)]
struct KeptIds {
    /// Entity ids by folded name and kind.
    entities: std::collections::HashMap<(String, String), i64>,
    /// The last path looked up, with its id.
    path: Option<(String, i64)>,
}

/// Opens the store held in the bytes of a database file (empty = a new store): checks the
/// bytes, lets `load` hand them to an SQLite engine, then opens and migrates. Every way
/// the bytes can be unusable comes back as `StoreError::Corrupt` or `NewerSchema`.
pub fn open_from_bytes<D: SqlDriver>(
    bytes: &[u8],
    load: impl FnOnce(&[u8]) -> Result<D, DriverError>,
) -> Result<Store<D>, StoreError> {
    open_checked(&bytes[..bytes.len().min(DATABASE_HEADER_LEN)], bytes.len(), || load(bytes))
}

/// `open_from_bytes` for bytes the caller holds elsewhere (a JS array): checks the file's
/// header and length, then lets `load` hand the bytes to the SQLite engine.
pub fn open_checked<D: SqlDriver>(
    header: &[u8],
    file_len: usize,
    load: impl FnOnce() -> Result<D, DriverError>,
) -> Result<Store<D>, StoreError> {
    check_database_header(header, file_len)?;
    let driver = load().map_err(|error| StoreError::Corrupt(error.to_string()))?;
    Store::open(driver)
}

impl<D: SqlDriver> Store<D> {
    /// Opens a database the driver already holds (fresh or loaded from a file), checks that
    /// it is a readable Memory Agent database, and migrates it to the current schema.
    pub fn open(driver: D) -> Result<Self, StoreError> {
        Self::open_with(driver, schema::MIGRATIONS)
    }

    /// `open` with a given migration list; lets tests exercise upgrades.
    ///
    /// Opening reads only the header and the schema: a full check of every page
    /// (`check_integrity`) would block the start for seconds on a large store, so the
    /// caller runs it later, when nothing waits on it.
    pub fn open_with(driver: D, migrations: &[&str]) -> Result<Self, StoreError> {
        let found = schema::read_version(&driver).map_err(as_corrupt)?;
        if found > migrations.len() as u32 {
            return Err(StoreError::NewerSchema { found, supported: migrations.len() as u32 });
        }
        check_ours(&driver, found)?;
        let foreign_removed = trust_only_own_schema(&driver, migrations, found)?;
        let store = Store {
            driver,
            dirty: Cell::new(false),
            in_transaction: Cell::new(false),
            names: entities::NamesCounter::new(),
            utc_offset_minutes: Cell::new(0),
            content_index: RefCell::new(None),
            device: RefCell::new(String::new()),
            foreign_removed,
            logging: Cell::new(true),
            merging_theirs: Cell::new(false),
            deferred_index: RefCell::new(None),
            ids_kept: RefCell::new(None),
        };
        if !store.foreign_removed.is_empty() {
            store.dirty.set(true);
        }
        if found == 0 {
            store.set_up_new_file()?;
        }
        if schema::migrate(&store.driver, migrations)? != found {
            store.dirty.set(true);
        }
        store.finish_upgrade().map_err(as_corrupt)?;
        if migrations.len() >= schema::STEMS_SINCE {
            store.finish_stems().map_err(as_corrupt)?;
        }
        if migrations.len() >= schema::LOG_SINCE {
            store.install_log_triggers()?;
        }
        // `secure_delete`: a forgotten memory's bytes are overwritten, not left in free pages.
        store.driver.execute_batch(&format!(
            "PRAGMA cache_size = -{}; PRAGMA secure_delete = ON;",
            maintenance::PAGE_CACHE_KIB
        ))?;
        Ok(store)
    }

    /// The triggers, views, indexes and tables the file held that the schema does not define
    /// (or defines otherwise), removed when it was opened: for telling the user.
    pub fn foreign_objects_removed(&self) -> &[ForeignObject] {
        &self.foreign_removed
    }

    /// The user's offset from UTC now: an undated memory inserted from now on belongs to
    /// the local day it was made at this offset.
    pub fn set_utc_offset(&self, minutes: i32) {
        self.utc_offset_minutes.set(minutes);
    }

    /// The driver underneath (tests wrap one to inject failures).
    pub fn driver(&self) -> &D {
        &self.driver
    }

    /// Whether anything changed since the store was opened or last exported.
    pub fn is_dirty(&self) -> bool {
        self.dirty.get()
    }

    /// The database as the bytes of an SQLite file; clears the dirty flag.
    pub fn export(&self) -> Result<Vec<u8>, StoreError> {
        self.export_with(SqlDriver::export)
    }

    /// `export` the driver's own way (the facade hands sql.js's bytes straight to the host,
    /// without copying them through this module); clears the dirty flag when it succeeds.
    pub fn export_with<T>(&self, export: impl FnOnce(&D) -> Result<T, DriverError>) -> Result<T, StoreError> {
        let exported = export(&self.driver)?;
        self.dirty.set(false);
        Ok(exported)
    }

    /// Counts for the status bar.
    pub fn status(&self) -> Result<StoreStatus, StoreError> {
        let rows = self.driver.query(
            "SELECT (SELECT count(*) FROM memories),
                    (SELECT count(*) FROM consolidations),
                    (SELECT count(*) FROM jobs WHERE state = 'queued'),
                    (SELECT count(*) FROM jobs WHERE state = 'running'),
                    (SELECT count(*) FROM jobs WHERE state = 'failed'),
                    (SELECT count(*) FROM meta WHERE key = 'merged_another_copy')",
            &[],
        )?;
        let mut row = rows::single(rows)?;
        Ok(StoreStatus {
            memories: row.u64()?,
            insights: row.u64()?,
            queued: row.u64()?,
            running: row.u64()?,
            failed: row.u64()?,
            shared: row.u64()? > 0,
            schema_version: schema::read_version(&self.driver)?,
        })
    }

    /// Whether a `transaction` is open (the engine asserts a job's results go into one of
    /// their own).
    pub fn in_transaction(&self) -> bool {
        self.in_transaction.get()
    }

    /// Runs `work` in one transaction: all of its changes are kept, or none.
    /// Nested calls join the outer transaction.
    pub fn transaction<T>(&self, work: impl FnOnce(&Self) -> Result<T, StoreError>) -> Result<T, StoreError> {
        if self.in_transaction.get() {
            return work(self);
        }
        self.driver.execute_batch("BEGIN IMMEDIATE")?;
        self.in_transaction.set(true);
        let result = work(self);
        self.in_transaction.set(false);
        match result {
            // `change` marks the store dirty for each statement that changed rows; a
            // transaction that changed nothing leaves nothing to save.
            Ok(value) => match self.driver.execute_batch("COMMIT") {
                Ok(()) => Ok(value),
                Err(error) => {
                    // A failed COMMIT (e.g. out of memory) leaves the transaction open; every
                    // later BEGIN would fail until it is rolled back.
                    let _ = self.driver.execute_batch("ROLLBACK");
                    Err(error.into())
                }
            },
            Err(error) => {
                let _ = self.driver.execute_batch("ROLLBACK");
                Err(error)
            }
        }
    }

    /// Runs one changing statement (inside or outside a transaction) and notes the change.
    fn change(&self, sql: &str, params: &[SqlValue]) -> Result<usize, StoreError> {
        let changed = self.driver.execute(sql, params)?;
        if changed > 0 {
            self.dirty.set(true);
        }
        Ok(changed)
    }

    fn query(&self, sql: &str, params: &[SqlValue]) -> Result<Vec<Row>, StoreError> {
        Ok(self.driver.query(sql, params)?)
    }

    /// Runs one `INSERT … RETURNING <integer key>` and notes the change: the new row's key in
    /// the same statement (a replay inserts tens of thousands of rows; in the plugin each
    /// statement crosses from the core to sql.js and back).
    fn insert_returning_key(&self, sql: &str, params: &[SqlValue]) -> Result<i64, StoreError> {
        debug_assert!(sql.contains("RETURNING"), "not an INSERT … RETURNING: {sql}");
        let key = rows::single(self.driver.query(sql, params)?)?.i64()?;
        self.dirty.set(true);
        Ok(key)
    }
}

/// At open time any engine error means the bytes are not a database we can use.
fn as_corrupt(error: StoreError) -> StoreError {
    match error {
        StoreError::Sql(inner) => StoreError::Corrupt(inner.to_string()),
        other => other,
    }
}

/// Turns `trusted_schema` off and removes what the schema does not define, before anything
/// writes (`schema_guard`). A driver whose functions cannot be marked innocuous (sql.js's
/// `create_function` registers them with `SQLITE_UTF8` only) turns it on again afterwards:
/// the schema's own view calls `memory_terms`, and only the schema's own objects are left.
fn trust_only_own_schema<D: SqlDriver>(
    driver: &D,
    migrations: &[&str],
    version: u32,
) -> Result<Vec<ForeignObject>, StoreError> {
    driver.execute_batch("PRAGMA trusted_schema = OFF").map_err(|error| StoreError::Corrupt(error.to_string()))?;
    let removed = schema_guard::remove_foreign_objects(driver, migrations, version)?;
    if !driver.functions_are_innocuous() {
        driver.execute_batch("PRAGMA trusted_schema = ON")?;
    }
    Ok(removed)
}

/// A database at version 0 must be empty; one at version 1+ must have our tables.
fn check_ours<D: SqlDriver>(driver: &D, version: u32) -> Result<(), StoreError> {
    let rows = driver
        .query("SELECT name FROM sqlite_master WHERE type = 'table'", &[])
        .map_err(|error| StoreError::Corrupt(error.to_string()))?;
    let names: Vec<&str> = rows.iter().filter_map(|row| row.first()?.as_str()).collect();
    let user_tables = names.iter().filter(|name| !name.starts_with("sqlite_")).count();
    if version == 0 && user_tables > 0 {
        return Err(StoreError::Corrupt("the file is an SQLite database of another program".into()));
    }
    if version > 0 {
        if let Some(missing) = schema::TABLES.iter().find(|table| !names.contains(table)) {
            return Err(StoreError::Corrupt(format!("the table `{missing}` is missing")));
        }
    }
    Ok(())
}
