//! The one seam between the store and an SQLite engine.
//!
//! Two drivers implement it: sql.js in the plugin (the `wasm` facade) and rusqlite in
//! native tests. The trait is deliberately tiny and synchronous (both engines are), and
//! speaks only `SqlValue`s, so the store's SQL is written once and runs unchanged on both.

use thiserror::Error;

/// A value bound to or read from SQL.
///
/// sql.js returns every number as a JavaScript double, so readers must accept `Real` where
/// they expect an integer (and the other way round); see `SqlValue::as_i64`.
#[derive(Debug, Clone, PartialEq)]
pub enum SqlValue {
    Null,
    Integer(i64),
    Real(f64),
    Text(String),
    Blob(Vec<u8>),
}

impl SqlValue {
    /// The value as an integer, accepting an integral `Real` (what sql.js returns).
    pub fn as_i64(&self) -> Option<i64> {
        match self {
            SqlValue::Integer(value) => Some(*value),
            SqlValue::Real(value) if value.fract() == 0.0 && value.is_finite() => Some(*value as i64),
            _ => None,
        }
    }

    pub fn as_f64(&self) -> Option<f64> {
        match self {
            SqlValue::Integer(value) => Some(*value as f64),
            SqlValue::Real(value) => Some(*value),
            _ => None,
        }
    }

    pub fn as_str(&self) -> Option<&str> {
        match self {
            SqlValue::Text(value) => Some(value),
            _ => None,
        }
    }

    pub fn is_null(&self) -> bool {
        matches!(self, SqlValue::Null)
    }
}

impl From<&str> for SqlValue {
    fn from(value: &str) -> Self {
        SqlValue::Text(value.to_owned())
    }
}

impl From<String> for SqlValue {
    fn from(value: String) -> Self {
        SqlValue::Text(value)
    }
}

impl From<i64> for SqlValue {
    fn from(value: i64) -> Self {
        SqlValue::Integer(value)
    }
}

impl From<u32> for SqlValue {
    fn from(value: u32) -> Self {
        SqlValue::Integer(i64::from(value))
    }
}

impl From<f64> for SqlValue {
    fn from(value: f64) -> Self {
        SqlValue::Real(value)
    }
}

impl From<bool> for SqlValue {
    fn from(value: bool) -> Self {
        SqlValue::Integer(i64::from(value))
    }
}

impl<T: Into<SqlValue>> From<Option<T>> for SqlValue {
    fn from(value: Option<T>) -> Self {
        value.map_or(SqlValue::Null, Into::into)
    }
}

/// One result row, columns in the order of the `SELECT`.
pub type Row = Vec<SqlValue>;

/// Which kind of failure an SQLite engine reported, from its result code (never its words):
/// each driver classifies once, where the engine's error is at hand (`kind_of_result_code`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SqlErrorKind {
    /// `SQLITE_CORRUPT`: a page the engine read is damaged.
    Corrupt,
    /// `SQLITE_NOTADB`: the bytes are not an SQLite database.
    NotADatabase,
    /// `SQLITE_BUSY` / `SQLITE_LOCKED`: another connection holds the database.
    Busy,
    /// `SQLITE_CONSTRAINT`: a row broke a rule of the schema (unique, check, not null).
    Constraint,
    /// `SQLITE_NOMEM` / `SQLITE_FULL` / `SQLITE_TOOBIG`: the engine ran out of room.
    OutOfMemory,
    /// Anything else (syntax, a missing table, a function's own error, …).
    Other,
}

impl SqlErrorKind {
    /// The kind of an SQLite result code (primary or extended: the low byte decides).
    pub fn of_result_code(code: i32) -> Self {
        // The primary result codes of <https://sqlite.org/rescode.html>.
        match code & 0xff {
            11 => SqlErrorKind::Corrupt,
            26 => SqlErrorKind::NotADatabase,
            5 | 6 => SqlErrorKind::Busy,
            19 => SqlErrorKind::Constraint,
            7 | 13 | 18 => SqlErrorKind::OutOfMemory,
            _ => SqlErrorKind::Other,
        }
    }

    /// Whether the failure says the database file itself is unusable (not the statement).
    pub fn is_damage(self) -> bool {
        matches!(self, SqlErrorKind::Corrupt | SqlErrorKind::NotADatabase)
    }
}

/// What an SQLite engine reported: the kind, classified by the driver from the result code,
/// and the engine's words for people.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("{message}")]
pub struct DriverError {
    pub kind: SqlErrorKind,
    pub message: String,
}

impl DriverError {
    pub fn new(kind: SqlErrorKind, message: impl Into<String>) -> Self {
        DriverError { kind, message: message.into() }
    }

    /// A failure that is not the engine's result (e.g. the driver was handed a wrong value).
    pub fn other(message: impl Into<String>) -> Self {
        Self::new(SqlErrorKind::Other, message)
    }
}

/// A synchronous SQLite connection.
pub trait SqlDriver {
    /// Runs one statement that returns no rows; returns the number of rows it changed.
    fn execute(&self, sql: &str, params: &[SqlValue]) -> Result<usize, DriverError>;
    /// Runs one statement and returns all its rows.
    fn query(&self, sql: &str, params: &[SqlValue]) -> Result<Vec<Row>, DriverError>;
    /// Runs several `;`-separated statements without parameters (schema, `BEGIN`, …).
    fn execute_batch(&self, sql: &str) -> Result<(), DriverError>;
    /// The whole database as the bytes of an SQLite file.
    fn export(&self) -> Result<Vec<u8>, DriverError>;
    /// Whether the SQL functions the driver registers (`memory_terms`) are marked innocuous
    /// (`SQLITE_INNOCUOUS`), so the schema's view may call them while `trusted_schema` is off.
    fn functions_are_innocuous(&self) -> bool {
        false
    }
}
