//! Rust errors become real JavaScript `Error`s: a readable message and a stable `code`.

use js_sys::Reflect;
use wasm_bindgen::JsValue;

use crate::error::ErrorCode;

/// A JS `Error` whose `message` is the error's sentence and whose `code` is its stable code.
pub fn to_js_error<E: ErrorCode + ?Sized>(error: &E) -> JsValue {
    coded_error(&error.to_string(), error.code())
}

/// A JS `Error` with a message and a code, for failures the facade itself detects.
pub fn coded_error(message: &str, code: &str) -> JsValue {
    let js_error = js_sys::Error::new(message);
    // Setting a property on a fresh Error object cannot fail.
    let _ = Reflect::set(&js_error, &JsValue::from_str("code"), &JsValue::from_str(code));
    js_error.into()
}
