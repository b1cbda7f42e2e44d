//! The rusqlite driver: the same SQL as the plugin's sql.js, run natively for `cargo test`.

use std::cell::{Cell, RefCell};

use rusqlite::functions::FunctionFlags;
use rusqlite::types::{Value, ValueRef};
use rusqlite::{Connection, MAIN_DB};

use super::driver::{DriverError, Row, SqlDriver, SqlErrorKind, SqlValue};

/// An in-memory SQLite database, like sql.js holds one.
pub struct RusqliteDriver {
    // `serialize` needs `&mut`; the driver trait is `&self` like sql.js's API.
    connection: RefCell<Connection>,
    /// How many times SQLite compiled a cached statement again (`recompiled`).
    recompiled: Cell<u64>,
}

impl RusqliteDriver {
    /// A new, empty database.
    pub fn new() -> Self {
        let connection = Connection::open_in_memory().expect("SQLite can always open an in-memory database");
        register_functions(&connection).expect("SQLite takes a scalar function");
        // Statements are the same few dozen, run again and again (a replay runs each per entry).
        connection.set_prepared_statement_cache_capacity(64);
        RusqliteDriver { connection: RefCell::new(connection), recompiled: Cell::new(0) }
    }

    /// How many times a statement was compiled again since the driver was made. SQLite does
    /// it when a bound value may change the plan — e.g. `m.key = ?` in a join (3.5x) — which
    /// costs as much as the statement's work; a store statement writes such a value `+?` (the
    /// same plan, no recompiling), and a test keeps a replay from recompiling per entry.
    pub fn recompiled(&self) -> u64 {
        self.recompiled.get()
    }

    fn count_recompiled(&self, before: i32, statement: &rusqlite::CachedStatement<'_>) {
        let after = statement.get_status(rusqlite::StatementStatus::RePrepare);
        self.recompiled.set(self.recompiled.get() + u64::try_from(after - before).unwrap_or(0));
    }

    /// A database loaded from the bytes of an SQLite file (empty = new).
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, DriverError> {
        let driver = Self::new();
        if !bytes.is_empty() {
            driver
                .connection
                .borrow_mut()
                .deserialize_read_exact(MAIN_DB, bytes, bytes.len(), false)
                .map_err(sql_error)?;
        }
        Ok(driver)
    }
}

/// The SQL functions the schema uses (`memory_terms`, for the full-text index's view).
/// Innocuous (no side effects, reads nothing but its arguments), so the schema's view may call
/// it while `trusted_schema` is off (`store::schema_guard`).
fn register_functions(connection: &Connection) -> rusqlite::Result<()> {
    let flags = FunctionFlags::SQLITE_UTF8 | FunctionFlags::SQLITE_DETERMINISTIC | FunctionFlags::SQLITE_INNOCUOUS;
    connection.create_scalar_function("memory_terms", 3, flags, |context| {
        let kind: String = context.get(0)?;
        let text: Option<String> = context.get(1)?;
        let names: Option<String> = context.get(2)?;
        Ok(super::search_index::sql_memory_terms(&kind, text.as_deref().unwrap_or(""), names.as_deref().unwrap_or("")))
    })
}

impl Default for RusqliteDriver {
    fn default() -> Self {
        Self::new()
    }
}

impl SqlDriver for RusqliteDriver {
    fn execute(&self, sql: &str, params: &[SqlValue]) -> Result<usize, DriverError> {
        let connection = self.connection.borrow();
        let mut statement = connection.prepare_cached(sql).map_err(sql_error)?;
        let before = statement.get_status(rusqlite::StatementStatus::RePrepare);
        let changed = statement.execute(rusqlite::params_from_iter(params.iter().map(to_rusqlite)));
        self.count_recompiled(before, &statement);
        changed.map_err(sql_error)
    }

    fn query(&self, sql: &str, params: &[SqlValue]) -> Result<Vec<Row>, DriverError> {
        let connection = self.connection.borrow();
        let mut statement = connection.prepare_cached(sql).map_err(sql_error)?;
        let columns = statement.column_count();
        let before = statement.get_status(rusqlite::StatementStatus::RePrepare);
        let mut out = Vec::new();
        let mut rows =
            statement.query(rusqlite::params_from_iter(params.iter().map(to_rusqlite))).map_err(sql_error)?;
        while let Some(row) = rows.next().map_err(sql_error)? {
            let mut values = Vec::with_capacity(columns);
            for index in 0..columns {
                values.push(from_rusqlite(row.get_ref(index).map_err(sql_error)?));
            }
            out.push(values);
        }
        drop(rows);
        self.count_recompiled(before, &statement);
        Ok(out)
    }

    fn execute_batch(&self, sql: &str) -> Result<(), DriverError> {
        self.connection.borrow().execute_batch(sql).map_err(sql_error)
    }

    fn export(&self) -> Result<Vec<u8>, DriverError> {
        let mut connection = self.connection.borrow_mut();
        let data = connection.serialize(MAIN_DB).map_err(sql_error)?;
        Ok(data.to_vec())
    }

    fn functions_are_innocuous(&self) -> bool {
        true
    }
}

/// The engine's error, classified by its extended result code (`SqlErrorKind`).
fn sql_error(error: rusqlite::Error) -> DriverError {
    let kind =
        error.sqlite_error().map_or(SqlErrorKind::Other, |code| SqlErrorKind::of_result_code(code.extended_code));
    DriverError::new(kind, error.to_string())
}

fn to_rusqlite(value: &SqlValue) -> Value {
    match value {
        SqlValue::Null => Value::Null,
        SqlValue::Integer(number) => Value::Integer(*number),
        SqlValue::Real(number) => Value::Real(*number),
        SqlValue::Text(text) => Value::Text(text.clone()),
        SqlValue::Blob(bytes) => Value::Blob(bytes.clone()),
    }
}

fn from_rusqlite(value: ValueRef<'_>) -> SqlValue {
    match value {
        ValueRef::Null => SqlValue::Null,
        ValueRef::Integer(number) => SqlValue::Integer(number),
        ValueRef::Real(number) => SqlValue::Real(number),
        ValueRef::Text(text) => SqlValue::Text(String::from_utf8_lossy(text).into_owned()),
        ValueRef::Blob(bytes) => SqlValue::Blob(bytes.to_vec()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kind(result: Result<impl Sized, DriverError>) -> SqlErrorKind {
        result.err().map_or(SqlErrorKind::Other, |error| error.kind)
    }

    #[test]
    fn errors_are_classified_by_result_code() {
        let driver = RusqliteDriver::new();
        driver.execute_batch("CREATE TABLE t (x INTEGER PRIMARY KEY)").unwrap();
        driver.execute("INSERT INTO t VALUES (1)", &[]).unwrap();
        assert_eq!(kind(driver.execute("INSERT INTO t VALUES (1)", &[])), SqlErrorKind::Constraint);
        assert_eq!(kind(driver.query("SELECT * FROM missing", &[])), SqlErrorKind::Other);
        // A file of the right length whose header is not SQLite's.
        let garbage = RusqliteDriver::from_bytes(&[7u8; 4096]).unwrap();
        assert_eq!(kind(garbage.query("SELECT * FROM sqlite_master", &[])), SqlErrorKind::NotADatabase);
        // A real database whose pages were overwritten.
        let mut bytes = driver.export().unwrap();
        bytes.resize(3 * 4096, 0);
        for byte in &mut bytes[100..] {
            *byte = 0xA5;
        }
        let damaged = RusqliteDriver::from_bytes(&bytes).unwrap();
        assert!(kind(damaged.query("SELECT * FROM t", &[])).is_damage());
    }

    #[test]
    fn corruption_is_told_by_the_code_not_by_words_in_the_message() {
        let driver = RusqliteDriver::new();
        let error = driver.query("SELECT * FROM \"database disk image is malformed\"", &[]).unwrap_err();
        assert!(error.message.contains("malformed"));
        assert!(matches!(super::super::StoreError::from(error), super::super::StoreError::Sql(_)));
    }
}
