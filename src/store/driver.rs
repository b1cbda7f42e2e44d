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

/// What an SQLite engine reported.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum DriverError {
    /// The bytes handed to the engine are not an SQLite database it can open.
    #[error("not an SQLite database: {0}")]
    NotADatabase(String),
    /// A statement failed (syntax, constraint, malformed page, …); the engine's words.
    #[error("{0}")]
    Sql(String),
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
}
