//! A driver for the store's own tests: rusqlite, with chosen statements made to fail.

use std::cell::Cell;

use super::rusqlite_driver::RusqliteDriver;
use super::{DriverError, Row, SqlDriver, SqlErrorKind, SqlValue};

/// rusqlite, failing every statement that starts with `failing`, with `kind`, while armed.
pub struct Failing {
    inner: RusqliteDriver,
    failing: &'static str,
    kind: SqlErrorKind,
    armed: Cell<bool>,
}

impl Failing {
    pub fn new(failing: &'static str, kind: SqlErrorKind) -> Self {
        Failing { inner: RusqliteDriver::new(), failing, kind, armed: Cell::new(false) }
    }

    pub fn arm(&self, armed: bool) {
        self.armed.set(armed);
    }

    fn check(&self, sql: &str) -> Result<(), DriverError> {
        if self.armed.get() && sql.trim_start().starts_with(self.failing) {
            return Err(DriverError::new(self.kind, format!("{:?} (injected)", self.kind)));
        }
        Ok(())
    }
}

impl SqlDriver for Failing {
    fn execute(&self, sql: &str, params: &[SqlValue]) -> Result<usize, DriverError> {
        self.check(sql)?;
        self.inner.execute(sql, params)
    }
    fn query(&self, sql: &str, params: &[SqlValue]) -> Result<Vec<Row>, DriverError> {
        self.check(sql)?;
        self.inner.query(sql, params)
    }
    fn execute_batch(&self, sql: &str) -> Result<(), DriverError> {
        self.check(sql)?;
        self.inner.execute_batch(sql)
    }
    fn export(&self) -> Result<Vec<u8>, DriverError> {
        self.inner.export()
    }
}
