//! The WebAssembly facade: the only code that knows JavaScript.
//!
//! It is small and coarse on purpose — open, status, export, hash, self-check — and turns
//! every Rust error into a JS `Error` with a `code` (`errors`). The sql.js driver lives in
//! `sql_js`. Compiled only for `wasm32`; native tests never see it.

mod errors;
mod sql_js;

use wasm_bindgen::prelude::*;

use crate::domain::Millis;
use crate::store::contract::{self, DriverFactory};
use crate::store::{open_from_bytes, schema, DriverError, Store};
use errors::{coded_error, to_js_error};
use sql_js::{JsSqlJs, SqlJsDriver};

/// An open memory store, held by the plugin for the whole session.
#[wasm_bindgen]
pub struct MemoryCore {
    store: Store<SqlJsDriver>,
}

#[wasm_bindgen]
impl MemoryCore {
    /// Opens the store from the bytes of the database file (`undefined` or empty = new).
    /// Jobs left running by a previous session that ended mid-flight are queued again.
    /// Throws `store.corrupt` or `store.newer_schema` when the bytes cannot be used.
    pub fn open(sql_js: &JsSqlJs, bytes: Option<Vec<u8>>, now_ms: f64) -> Result<MemoryCore, JsValue> {
        let bytes = bytes.unwrap_or_default();
        let store = open_from_bytes(&bytes, |bytes| SqlJsDriver::load(sql_js, bytes)).map_err(|e| to_js_error(&e))?;
        store.requeue_interrupted_jobs(millis(now_ms)?).map_err(|e| to_js_error(&e))?;
        Ok(MemoryCore { store })
    }

    /// Counts for the status bar: `{memories, insights, queued, running, failed, schemaVersion}`.
    pub fn status(&self) -> Result<JsValue, JsValue> {
        let status = self.store.status().map_err(|e| to_js_error(&e))?;
        to_js(&status)
    }

    /// True when the store changed since it was opened or last exported.
    #[wasm_bindgen(js_name = isDirty)]
    pub fn is_dirty(&self) -> bool {
        self.store.is_dirty()
    }

    /// The whole database as bytes, for writing to the file; clears the dirty flag.
    #[wasm_bindgen(js_name = exportBytes)]
    pub fn export_bytes(&self) -> Result<Vec<u8>, JsValue> {
        self.store.export().map_err(|e| to_js_error(&e))
    }
}

/// Lower-case hex SHA-256 of `bytes`.
#[wasm_bindgen(js_name = sha256Hex)]
pub fn sha256_hex(bytes: &[u8]) -> String {
    crate::hash::sha256_hex(bytes)
}

/// The schema version this build writes.
#[wasm_bindgen(js_name = supportedSchemaVersion)]
pub fn supported_schema_version() -> u32 {
    schema::supported_version()
}

/// Runs the store contract suite on fresh sql.js databases: `[{name, ok, error?}]`.
#[wasm_bindgen(js_name = storeSelfCheck)]
pub fn store_self_check(sql_js: &JsSqlJs) -> Result<JsValue, JsValue> {
    to_js(&contract::run_all(&SqlJsFactory { sql_js }))
}

struct SqlJsFactory<'a> {
    sql_js: &'a JsSqlJs,
}

impl DriverFactory for SqlJsFactory<'_> {
    type Driver = SqlJsDriver;
    fn load(&self, bytes: &[u8]) -> Result<SqlJsDriver, DriverError> {
        SqlJsDriver::load(self.sql_js, bytes)
    }
}

/// A JS `Date.now()` value as `Millis`; anything else is a bug in the caller.
fn millis(now_ms: f64) -> Result<Millis, JsValue> {
    if now_ms.is_finite() && now_ms >= 0.0 {
        Ok(now_ms as Millis)
    } else {
        Err(coded_error(&format!("invalid time {now_ms}: pass Date.now()"), "facade.invalid_argument"))
    }
}

/// Plain JS objects (not `Map`s) for every DTO.
fn to_js<T: serde::Serialize>(value: &T) -> Result<JsValue, JsValue> {
    value
        .serialize(&serde_wasm_bindgen::Serializer::json_compatible())
        .map_err(|error| coded_error(&error.to_string(), "facade.serialize"))
}
