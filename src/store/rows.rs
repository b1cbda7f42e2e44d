//! Reading typed values out of result rows, column by column.
//!
//! Every read is checked: a row the code cannot understand is `StoreError::InvalidData`,
//! never a panic, because a database file may have been edited by hand or by a sync tool.

use serde::de::DeserializeOwned;

use super::driver::{Row, SqlValue};
use super::StoreError;

/// Reads the columns of one row in order.
pub struct RowReader {
    values: std::vec::IntoIter<SqlValue>,
    column: usize,
}

impl RowReader {
    pub fn new(row: Row) -> Self {
        RowReader { values: row.into_iter(), column: 0 }
    }

    fn next(&mut self) -> Result<SqlValue, StoreError> {
        self.column += 1;
        self.values.next().ok_or_else(|| StoreError::InvalidData(format!("column {} is missing", self.column)))
    }

    /// What was found is named by its kind: a stored value may be a note's text.
    fn invalid(&self, expected: &str, found: &SqlValue) -> StoreError {
        let found = match found {
            SqlValue::Null => "null",
            SqlValue::Integer(_) => "an integer",
            SqlValue::Real(_) => "a real",
            SqlValue::Text(_) => "text",
            SqlValue::Blob(_) => "a blob",
        };
        StoreError::InvalidData(format!("column {}: expected {expected}, found {found}", self.column))
    }

    pub fn text(&mut self) -> Result<String, StoreError> {
        match self.next()? {
            SqlValue::Text(value) => Ok(value),
            other => Err(self.invalid("text", &other)),
        }
    }

    pub fn opt_text(&mut self) -> Result<Option<String>, StoreError> {
        match self.next()? {
            SqlValue::Null => Ok(None),
            SqlValue::Text(value) => Ok(Some(value)),
            other => Err(self.invalid("text or null", &other)),
        }
    }

    pub fn i64(&mut self) -> Result<i64, StoreError> {
        let value = self.next()?;
        value.as_i64().ok_or_else(|| self.invalid("an integer", &value))
    }

    pub fn u64(&mut self) -> Result<u64, StoreError> {
        let value = self.i64()?;
        u64::try_from(value).map_err(|_| StoreError::InvalidData(format!("column {}: negative {value}", self.column)))
    }

    pub fn u32(&mut self) -> Result<u32, StoreError> {
        let value = self.i64()?;
        u32::try_from(value)
            .map_err(|_| StoreError::InvalidData(format!("column {}: {value} out of range", self.column)))
    }

    pub fn opt_u32(&mut self) -> Result<Option<u32>, StoreError> {
        match self.next()? {
            SqlValue::Null => Ok(None),
            value => value
                .as_i64()
                .and_then(|number| u32::try_from(number).ok())
                .map(Some)
                .ok_or_else(|| self.invalid("a line number", &value)),
        }
    }

    pub fn opt_blob(&mut self) -> Result<Option<Vec<u8>>, StoreError> {
        match self.next()? {
            SqlValue::Null => Ok(None),
            SqlValue::Blob(bytes) => Ok(Some(bytes)),
            other => Err(self.invalid("a blob or null", &other)),
        }
    }

    pub fn blob(&mut self) -> Result<Vec<u8>, StoreError> {
        match self.next()? {
            SqlValue::Blob(bytes) => Ok(bytes),
            other => Err(self.invalid("a blob", &other)),
        }
    }

    pub fn f64(&mut self) -> Result<f64, StoreError> {
        let value = self.next()?;
        value.as_f64().ok_or_else(|| self.invalid("a number", &value))
    }

    pub fn bool(&mut self) -> Result<bool, StoreError> {
        Ok(self.i64()? != 0)
    }

    /// A JSON column decoded into `T`.
    /// A JSON list, or an empty one for NULL.
    pub fn opt_json_list<T: DeserializeOwned>(&mut self) -> Result<Vec<T>, StoreError> {
        match self.opt_text()? {
            None => Ok(Vec::new()),
            Some(text) => serde_json::from_str(&text)
                .map_err(|error| StoreError::InvalidData(format!("column {}: {error}", self.column))),
        }
    }

    pub fn json<T: DeserializeOwned>(&mut self) -> Result<T, StoreError> {
        let text = self.text()?;
        serde_json::from_str(&text).map_err(|error| StoreError::InvalidData(format!("column {}: {error}", self.column)))
    }
}

/// The only row of a result that must have exactly one.
pub fn single(rows: Vec<Row>) -> Result<RowReader, StoreError> {
    rows.into_iter()
        .next()
        .map(RowReader::new)
        .ok_or_else(|| StoreError::InvalidData("expected a row, got none".into()))
}

/// Encodes a value for a JSON column.
pub fn to_json<T: serde::Serialize>(value: &T) -> SqlValue {
    // Serialising our own plain types cannot fail; fall back to null-free JSON just in case.
    SqlValue::Text(serde_json::to_string(value).unwrap_or_else(|_| "[]".to_owned()))
}
