//! The sql.js driver: `SqlDriver` over the `Database` object of the sql.js npm package.
//!
//! sql.js is SQLite compiled to its own WebAssembly module; these `extern` declarations
//! bind its JavaScript API (`new SQL.Database(bytes)`, `prepare`/`bind`/`step`/`get`/`free`,
//! `exec`, `getRowsModified`, `export`, `close`) so the store's Rust SQL runs on it.

use js_sys::{Array, Reflect, Uint8Array};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

use crate::store::{DriverError, Row, SqlDriver, SqlErrorKind, SqlValue};

#[wasm_bindgen]
extern "C" {
    /// The module object that `initSqlJs()` resolves to.
    pub type JsSqlJs;
    #[wasm_bindgen(method, getter, js_name = Database)]
    fn database_class(this: &JsSqlJs) -> JsValue;

    /// A sql.js database (an SQLite connection to an in-memory file).
    pub type JsDatabase;
    #[wasm_bindgen(method, catch)]
    fn exec(this: &JsDatabase, sql: &str) -> Result<JsValue, JsValue>;
    #[wasm_bindgen(method, catch)]
    fn prepare(this: &JsDatabase, sql: &str) -> Result<JsStatement, JsValue>;
    #[wasm_bindgen(method, js_name = getRowsModified)]
    fn rows_modified(this: &JsDatabase) -> f64;
    #[wasm_bindgen(method, catch)]
    fn export(this: &JsDatabase) -> Result<Uint8Array, JsValue>;
    #[wasm_bindgen(method, catch)]
    fn close(this: &JsDatabase) -> Result<(), JsValue>;
    #[wasm_bindgen(method, catch, js_name = create_function)]
    fn create_function(this: &JsDatabase, name: &str, function: &js_sys::Function) -> Result<JsValue, JsValue>;

    /// A prepared statement of a sql.js database.
    #[derive(Clone)]
    pub type JsStatement;
    #[wasm_bindgen(method, catch)]
    fn bind(this: &JsStatement, values: &Array) -> Result<bool, JsValue>;
    #[wasm_bindgen(method, catch)]
    fn step(this: &JsStatement) -> Result<bool, JsValue>;
    #[wasm_bindgen(method, catch)]
    fn get(this: &JsStatement) -> Result<Array, JsValue>;
    #[wasm_bindgen(method)]
    fn free(this: &JsStatement) -> bool;
    #[wasm_bindgen(method)]
    fn reset(this: &JsStatement) -> bool;
}

/// Prepared statements kept at most: the store runs a few dozen statements again and again (a
/// replay of another device's log runs each once per entry), and preparing one through sql.js
/// costs more than running it.
const CACHED_STATEMENTS: usize = 96;

/// The Rust side of the SQL function `memory_terms`, as sql.js calls it.
type TermsFunction = Closure<dyn Fn(JsValue, JsValue, JsValue) -> JsValue>;

/// A store database held by sql.js. Closing it on drop frees sql.js's memory.
pub struct SqlJsDriver {
    database: JsDatabase,
    /// Prepared statements by their SQL, each reset after use (sql.js 1.17's `export` copies
    /// the file through SQLite's backup API and leaves them valid).
    statements: std::cell::RefCell<std::collections::HashMap<String, JsStatement>>,
    /// `memory_terms`, called back by sql.js while it indexes; lives as long as the database.
    _memory_terms: TermsFunction,
}

impl SqlJsDriver {
    /// Loads the bytes of a database file into a new sql.js database (empty = new).
    #[cfg(feature = "self-check")]
    pub fn load(sql_js: &JsSqlJs, bytes: &[u8]) -> Result<Self, DriverError> {
        let bytes = (!bytes.is_empty()).then(|| Uint8Array::from(bytes));
        Self::load_array(sql_js, bytes.as_ref())
    }

    /// Loads a database file's bytes, handed over as a JS array, without copying them into
    /// this module's memory (sql.js copies them once, into its own file system).
    pub fn load_array(sql_js: &JsSqlJs, bytes: Option<&Uint8Array>) -> Result<Self, DriverError> {
        let class = sql_js.database_class();
        if !class.is_function() {
            return Err(DriverError::other("the value given as sql.js has no Database class"));
        }
        let arguments = match bytes {
            Some(bytes) if bytes.length() > 0 => Array::of1(bytes),
            _ => Array::new(),
        };
        let database: JsDatabase = Reflect::construct(class.unchecked_ref::<js_sys::Function>(), &arguments)
            .map_err(sql_error)?
            .unchecked_into();
        // The file lives in sql.js's memory file system, never on disk (what lasts is the
        // exported copy the plugin writes): a rollback journal there only costs every
        // transaction a second copy of its pages through JavaScript. SQLite keeps it in memory
        // instead, and ROLLBACK works the same.
        database.exec("PRAGMA journal_mode = MEMORY; PRAGMA temp_store = MEMORY").map_err(sql_error)?;
        let memory_terms = register_memory_terms(&database)?;
        Ok(SqlJsDriver { database, statements: Default::default(), _memory_terms: memory_terms })
    }

    /// The database as the bytes of a file, as sql.js hands them out: one copy, never through
    /// this module's memory (which would grow by the database's size and never shrink).
    pub fn export_array(&self) -> Result<Uint8Array, DriverError> {
        self.database.export().map_err(sql_error)
    }

    /// Runs `sql` with `params` and hands each step's row to `each`, resetting the statement
    /// whatever happens (a statement left stepping would hold the database's read lock).
    fn run(&self, sql: &str, params: &[SqlValue], mut each: impl FnMut(Row)) -> Result<(), DriverError> {
        let statement = self.prepared(sql)?;
        let result = (|| {
            if !params.is_empty() {
                statement.bind(&params.iter().map(to_js).collect::<Array>()).map_err(sql_error)?;
            }
            while statement.step().map_err(sql_error)? {
                each(statement.get().map_err(sql_error)?.iter().map(from_js).collect());
            }
            Ok(())
        })();
        statement.reset();
        result
    }

    /// The prepared statement of `sql`, from the cache or prepared now (the cache is emptied
    /// when full: the statements in use are far fewer).
    fn prepared(&self, sql: &str) -> Result<JsStatement, DriverError> {
        if let Some(statement) = self.statements.borrow().get(sql) {
            return Ok(statement.clone());
        }
        let statement = self.database.prepare(sql).map_err(sql_error)?;
        let mut statements = self.statements.borrow_mut();
        if statements.len() >= CACHED_STATEMENTS {
            for (_, cached) in statements.drain() {
                cached.free();
            }
        }
        statements.insert(sql.to_owned(), statement.clone());
        Ok(statement)
    }
}

/// Registers the schema's `memory_terms(kind, text, names)` (the full-text index's view calls it).
/// sql.js takes a function's `length` as its number of arguments, and a Rust closure's JavaScript
/// function reports none, so it is set to three.
fn register_memory_terms(database: &JsDatabase) -> Result<TermsFunction, DriverError> {
    let closure =
        Closure::<dyn Fn(JsValue, JsValue, JsValue) -> JsValue>::new(|kind: JsValue, text: JsValue, names: JsValue| {
            let text_of = |value: &JsValue| value.as_string().unwrap_or_default();
            JsValue::from_str(&crate::store::sql_memory_terms(&text_of(&kind), &text_of(&text), &text_of(&names)))
        });
    let function: &js_sys::Function = closure.as_ref().unchecked_ref();
    let length = js_sys::Object::new();
    Reflect::set(&length, &"value".into(), &JsValue::from(3)).map_err(sql_error)?;
    js_sys::Object::define_property(function, &"length".into(), &length);
    database.create_function("memory_terms", function).map_err(sql_error)?;
    Ok(closure)
}

impl Drop for SqlJsDriver {
    fn drop(&mut self) {
        for (_, statement) in self.statements.borrow_mut().drain() {
            statement.free();
        }
        let _ = self.database.close();
    }
}

impl SqlDriver for SqlJsDriver {
    fn execute(&self, sql: &str, params: &[SqlValue]) -> Result<usize, DriverError> {
        self.run(sql, params, |_| {})?;
        Ok(self.database.rows_modified() as usize)
    }

    fn query(&self, sql: &str, params: &[SqlValue]) -> Result<Vec<Row>, DriverError> {
        let mut rows = Vec::new();
        self.run(sql, params, |row| rows.push(row))?;
        Ok(rows)
    }

    fn execute_batch(&self, sql: &str) -> Result<(), DriverError> {
        self.database.exec(sql).map(|_| ()).map_err(sql_error)
    }

    fn export(&self) -> Result<Vec<u8>, DriverError> {
        Ok(self.database.export().map_err(sql_error)?.to_vec())
    }
}

fn to_js(value: &SqlValue) -> JsValue {
    match value {
        SqlValue::Null => JsValue::NULL,
        // Timestamps and counts are far below 2^53, where a JS number is exact.
        SqlValue::Integer(number) => JsValue::from_f64(*number as f64),
        SqlValue::Real(number) => JsValue::from_f64(*number),
        SqlValue::Text(text) => JsValue::from_str(text),
        SqlValue::Blob(bytes) => Uint8Array::from(bytes.as_slice()).into(),
    }
}

fn from_js(value: JsValue) -> SqlValue {
    if value.is_null() || value.is_undefined() {
        SqlValue::Null
    } else if let Some(number) = value.as_f64() {
        // sql.js gives every number as a double; whole ones came from INTEGER columns.
        if number.fract() == 0.0 && number.abs() < 9_007_199_254_740_992.0 {
            SqlValue::Integer(number as i64)
        } else {
            SqlValue::Real(number)
        }
    } else if let Some(text) = value.as_string() {
        SqlValue::Text(text)
    } else if let Some(bytes) = value.dyn_ref::<Uint8Array>() {
        SqlValue::Blob(bytes.to_vec())
    } else {
        SqlValue::Text(message(&value))
    }
}

/// A thrown sql.js error, classified by SQLite's result code: since 1.17 sql.js's
/// `Database.handleError` (dist/sql-wasm.js) sets `errcode` on every `Error` it throws to
/// `sqlite3_extended_errcode` (and `code` to its name, e.g. `"SQLITE_CORRUPT"`). A value thrown
/// without one did not come from SQLite (a JS failure in a callback): `Other`.
fn sql_error(error: JsValue) -> DriverError {
    let code = Reflect::get(&error, &"errcode".into()).ok().and_then(|code| code.as_f64());
    let kind = code.map_or(SqlErrorKind::Other, |code| SqlErrorKind::of_result_code(code as i32));
    DriverError::new(kind, message(&error))
}

/// The message of a thrown JS value (sql.js throws `Error`s with SQLite's words).
fn message(error: &JsValue) -> String {
    // An error made in another realm is no `Error` here: its `message` is read as a property.
    error
        .dyn_ref::<js_sys::Error>()
        .map(|error| String::from(error.message()))
        .or_else(|| error.as_string())
        .or_else(|| Reflect::get(error, &"message".into()).ok().and_then(|message| message.as_string()))
        .unwrap_or_else(|| "sql.js failed without a message".into())
}
