//! The memory store: every SQL statement of Memory Agent, written once, over `SqlDriver`.
//!
//! The store never calls the model and never reads the clock: callers pass `now`. Each
//! operation that touches more than one row runs in one transaction, so a failure (or a
//! crash before the file is saved) leaves either the old state or the new one, never half.
//! Operations live in one file per table; this file holds the handle, its errors and the
//! transaction helper.

mod consolidations;
pub mod contract;
mod driver;
mod file_check;
mod jobs;
mod memories;
mod meta;
mod recall;
mod rows;
#[cfg(not(target_arch = "wasm32"))]
pub mod rusqlite_driver;
pub mod schema;
mod sources;
mod usage;

use std::cell::Cell;

use thiserror::Error;

use crate::domain::StoreStatus;
use crate::error::ErrorCode;

pub use driver::{DriverError, Row, SqlDriver, SqlValue};
pub use file_check::check_database_bytes;
pub use jobs::NewJob;
pub use memories::{MemoryFilter, Removal};
pub use recall::{bm25, MemorySizes, ScoredMemory, SearchTerm};
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
    Sql(#[from] DriverError),
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

/// An open memory store.
pub struct Store<D: SqlDriver> {
    driver: D,
    /// Set by every change, cleared by `export`: tells the host whether a save is due.
    dirty: Cell<bool>,
    in_transaction: Cell<bool>,
}

/// Opens the store held in the bytes of a database file (empty = a new store): checks the
/// bytes, lets `load` hand them to an SQLite engine, then opens and migrates. Every way
/// the bytes can be unusable comes back as `StoreError::Corrupt` or `NewerSchema`.
pub fn open_from_bytes<D: SqlDriver>(
    bytes: &[u8],
    load: impl FnOnce(&[u8]) -> Result<D, DriverError>,
) -> Result<Store<D>, StoreError> {
    check_database_bytes(bytes)?;
    let driver = load(bytes).map_err(|error| StoreError::Corrupt(error.to_string()))?;
    Store::open(driver)
}

impl<D: SqlDriver> Store<D> {
    /// Opens a database the driver already holds (fresh or loaded from a file), checks that
    /// it is a readable Memory Agent database, and migrates it to the current schema.
    pub fn open(driver: D) -> Result<Self, StoreError> {
        Self::open_with(driver, schema::MIGRATIONS)
    }

    /// `open` with a given migration list; lets tests exercise upgrades.
    pub fn open_with(driver: D, migrations: &[&str]) -> Result<Self, StoreError> {
        let found = schema::read_version(&driver).map_err(as_corrupt)?;
        if found > migrations.len() as u32 {
            return Err(StoreError::NewerSchema { found, supported: migrations.len() as u32 });
        }
        let repaired = check_integrity(&driver)?;
        check_ours(&driver, found)?;
        let store = Store { driver, dirty: Cell::new(repaired), in_transaction: Cell::new(false) };
        if schema::migrate(&store.driver, migrations)? != found {
            store.dirty.set(true);
        }
        Ok(store)
    }

    /// Whether anything changed since the store was opened or last exported.
    pub fn is_dirty(&self) -> bool {
        self.dirty.get()
    }

    /// The database as the bytes of an SQLite file; clears the dirty flag.
    pub fn export(&self) -> Result<Vec<u8>, StoreError> {
        let bytes = self.driver.export()?;
        self.dirty.set(false);
        Ok(bytes)
    }

    /// Counts for the status bar.
    pub fn status(&self) -> Result<StoreStatus, StoreError> {
        let rows = self.driver.query(
            "SELECT (SELECT count(*) FROM memories),
                    (SELECT count(*) FROM consolidations),
                    (SELECT count(*) FROM jobs WHERE state = 'queued'),
                    (SELECT count(*) FROM jobs WHERE state = 'running'),
                    (SELECT count(*) FROM jobs WHERE state = 'failed')",
            &[],
        )?;
        let mut row = rows::single(rows)?;
        Ok(StoreStatus {
            memories: row.u64()?,
            insights: row.u64()?,
            queued: row.u64()?,
            running: row.u64()?,
            failed: row.u64()?,
            schema_version: schema::read_version(&self.driver)?,
        })
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
            Ok(value) => {
                self.driver.execute_batch("COMMIT")?;
                Ok(value)
            }
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
}

/// At open time any engine error means the bytes are not a database we can use.
fn as_corrupt(error: StoreError) -> StoreError {
    match error {
        StoreError::Sql(inner) => StoreError::Corrupt(inner.to_string()),
        other => other,
    }
}

/// `PRAGMA quick_check` reads every page once: damage shows now, not mid-ingest.
///
/// SQLite's check also compares the full-text index with the memories it was made from.
/// That index is derived data: when it is the only thing that disagrees, it is rebuilt
/// (and the store marked changed, so the repair is saved) instead of losing the database.
/// Returns whether it was rebuilt.
fn check_integrity<D: SqlDriver>(driver: &D) -> Result<bool, StoreError> {
    let problems = integrity_problems(driver)?;
    if problems.is_empty() {
        return Ok(false);
    }
    let only_the_index = problems.iter().all(|problem| problem.contains(schema::FULL_TEXT_INDEX));
    if !only_the_index {
        return Err(StoreError::Corrupt(problems.join("; ")));
    }
    driver
        .execute_batch(&format!("INSERT INTO {index} ({index}) VALUES ('rebuild')", index = schema::FULL_TEXT_INDEX))
        .map_err(|error| StoreError::Corrupt(error.to_string()))?;
    let left = integrity_problems(driver)?;
    if left.is_empty() {
        Ok(true)
    } else {
        Err(StoreError::Corrupt(left.join("; ")))
    }
}

/// What `PRAGMA quick_check` found wrong; empty when it says "ok".
fn integrity_problems<D: SqlDriver>(driver: &D) -> Result<Vec<String>, StoreError> {
    let rows = driver.query("PRAGMA quick_check", &[]).map_err(|error| StoreError::Corrupt(error.to_string()))?;
    let lines: Vec<String> =
        rows.iter().filter_map(|row| row.first().and_then(SqlValue::as_str)).map(str::to_owned).collect();
    match lines.first().map(String::as_str) {
        Some("ok") => Ok(Vec::new()),
        Some(_) => Ok(lines),
        None => Err(StoreError::Corrupt("the integrity check gave no answer".into())),
    }
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
