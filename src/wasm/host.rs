//! The plugin's host object, seen from Rust: HTTP through Obsidian's `requestUrl`, the
//! clock (`Date.now()` and `setTimeout`), the vault's files, the time zone, progress.
//!
//! The plugin passes one JS object with these methods (built in `plugin/worker/core-service.ts`, `CoreService.host`); every
//! promise is awaited here through `wasm-bindgen-futures`.

use js_sys::{Object, Promise, Reflect, Uint8Array};
use serde::{Deserialize, Serialize};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;

use crate::device::{Listing, VaultFiles};
use crate::domain::Millis;
use crate::engine::{Host, Progress, VaultFile};
use crate::images::{ImageError, ImageRender, ImageRenderer, RenderedImage};
use crate::llm::{Clock, HttpRequest, HttpResponse, HttpTransport, TransportError};
use crate::notes::pdf::{PdfContent, PdfExtractOptions, PdfScan};

#[wasm_bindgen]
extern "C" {
    /// `{ send, sleep, now, readFile, extractPdf, renderImage, utcOffsetMinutes, progress }` from the plugin.
    #[wasm_bindgen(typescript_type = "CoreHost")]
    pub type JsHost;
    #[wasm_bindgen(method, catch)]
    fn send(this: &JsHost, request: &JsValue) -> Result<Promise, JsValue>;
    #[wasm_bindgen(method, catch)]
    fn sleep(this: &JsHost, millis: f64) -> Result<Promise, JsValue>;
    #[wasm_bindgen(method, catch)]
    fn now(this: &JsHost) -> Result<f64, JsValue>;
    #[wasm_bindgen(method, catch, js_name = readFile)]
    fn read_file(this: &JsHost, path: &str, max_bytes: f64) -> Result<Promise, JsValue>;
    #[wasm_bindgen(method, catch, js_name = extractPdf)]
    fn extract_pdf(this: &JsHost, bytes: &Uint8Array, options: &JsValue) -> Result<Promise, JsValue>;
    #[wasm_bindgen(method, catch, js_name = renderImage)]
    fn render_image(this: &JsHost, bytes: &Uint8Array, request: &JsValue) -> Result<Promise, JsValue>;
    #[wasm_bindgen(method, catch, js_name = utcOffsetMinutes)]
    fn utc_offset_minutes(this: &JsHost) -> Result<f64, JsValue>;
    #[wasm_bindgen(method, catch)]
    fn progress(this: &JsHost, progress: &JsValue) -> Result<(), JsValue>;
    // The device runtime's file operations (`device::VaultFiles`), carried out by the main
    // thread's vault adapter.
    #[wasm_bindgen(method, catch, js_name = listFolder)]
    fn list_folder(this: &JsHost, path: &str) -> Result<Promise, JsValue>;
    #[wasm_bindgen(method, catch, js_name = readFrom)]
    fn read_from(this: &JsHost, path: &str, offset: f64) -> Result<Promise, JsValue>;
    #[wasm_bindgen(method, catch, js_name = appendText)]
    fn append_text(this: &JsHost, path: &str, text: &str) -> Result<Promise, JsValue>;
    #[wasm_bindgen(method, catch, js_name = createFile)]
    fn create_file(this: &JsHost, path: &str, text: &str) -> Result<Promise, JsValue>;
    #[wasm_bindgen(method, catch, js_name = removeFile)]
    fn remove_file(this: &JsHost, path: &str) -> Result<Promise, JsValue>;
}

/// A request without its body, which travels as bytes (`body_bytes`): a byte array moves
/// between the worker and the main thread without a copy and is no string for the main
/// thread's collector to sweep.
#[derive(Serialize)]
struct RequestDto<'a> {
    method: &'a str,
    url: &'a str,
    headers: std::collections::BTreeMap<&'a str, &'a str>,
}

#[derive(Deserialize)]
struct ResponseDto {
    status: u16,
    #[serde(default)]
    headers: std::collections::BTreeMap<String, String>,
}

/// The `body` of the host's reply: bytes (UTF-8), or text from a host that sends text.
fn body_of(reply: &JsValue) -> Result<String, TransportError> {
    let body = Reflect::get(reply, &JsValue::from_str("body")).unwrap_or(JsValue::UNDEFINED);
    if let Some(bytes) = body.dyn_ref::<Uint8Array>() {
        return String::from_utf8(bytes.to_vec())
            .map_err(|_| TransportError::Network("the response body is not UTF-8 text".into()));
    }
    Ok(body.as_string().unwrap_or_default())
}

/// `Host` over the plugin's object.
pub struct JsHostAdapter {
    host: JsHost,
}

impl JsHostAdapter {
    pub fn new(host: JsHost) -> Self {
        JsHostAdapter { host }
    }
}

impl HttpTransport for JsHostAdapter {
    async fn send(&self, request: HttpRequest) -> Result<HttpResponse, TransportError> {
        let dto = RequestDto {
            method: &request.method,
            url: &request.url,
            headers: request.headers.iter().map(|(name, value)| (name.as_str(), value.as_str())).collect(),
        };
        let value = super::to_js(&dto).map_err(|_| TransportError::Network("could not build the request".into()))?;
        let body = Uint8Array::from(request.body.as_bytes());
        Reflect::set(&value, &JsValue::from_str("body"), &body)
            .map_err(|_| TransportError::Network("could not build the request".into()))?;
        let promise = self.host.send(&value).map_err(transport_error)?;
        let reply = JsFuture::from(promise).await.map_err(transport_error)?;
        let body = body_of(&reply)?;
        let reply: ResponseDto = serde_wasm_bindgen::from_value(reply)
            .map_err(|error| TransportError::Network(format!("the host sent an unreadable response: {error}")))?;
        Ok(HttpResponse { status: reply.status, headers: reply.headers.into_iter().collect(), body })
    }
}

/// A rejected `send`: an Error whose `code` is `offline` means no connection at all.
fn transport_error(error: JsValue) -> TransportError {
    let code = Reflect::get(&error, &JsValue::from_str("code")).ok().and_then(|code| code.as_string());
    let message = error
        .dyn_ref::<js_sys::Error>()
        .map(|error| String::from(error.message()))
        .or_else(|| error.as_string())
        .unwrap_or_else(|| "the request failed".into());
    match code.as_deref() {
        Some("offline") => TransportError::Offline(message),
        Some("stopped") => TransportError::Stopped,
        _ => TransportError::Network(message),
    }
}

// A callback that throws must not unwind through Rust (it would leave the engine's state
// half-updated): the clock falls back to `Date.now()`, a failed sleep to the global
// `setTimeout` (a sleep that ended at once would time every call out), a failed progress
// report is dropped.
impl Clock for JsHostAdapter {
    fn now(&self) -> Millis {
        self.host.now().unwrap_or_else(|_| js_sys::Date::now()) as Millis
    }

    async fn sleep(&self, millis: u64) {
        let promise = self.host.sleep(millis as f64).or_else(|_| global_timeout(millis));
        if let Ok(promise) = promise {
            let mut pending = CancelOnDrop(Some(promise.clone()));
            let _ = JsFuture::from(promise).await;
            pending.0 = None;
        }
    }
}

/// A sleep given up before it ended (the request it timed answered first) is cancelled in
/// the host: every model call races a 60-second timeout, and thousands of abandoned timers
/// would otherwise stay pending in the worker (and keep a test process alive a minute).
struct CancelOnDrop(Option<Promise>);

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        let Some(promise) = self.0.take() else { return };
        if let Ok(cancel) = Reflect::get(&promise, &JsValue::from_str("cancel")) {
            if let Some(cancel) = cancel.dyn_ref::<js_sys::Function>() {
                let _ = cancel.call0(&promise);
            }
        }
    }
}

/// A promise resolved on the next turn of the realm's event loop, by a message the realm posts
/// to itself (`MessageChannel`). Not `setTimeout(0)`: a timer set from a timer's callback is
/// held at least 4 ms once five are nested (the HTML standard's clamp, in Chromium's workers
/// too), and a replay's pauses are nested so: 730 of them, about 3 s, at 50,000 memories.
fn next_turn() -> Result<Promise, JsValue> {
    let global = js_sys::global();
    let channel_type: js_sys::Function = Reflect::get(&global, &JsValue::from_str("MessageChannel"))?.dyn_into()?;
    let channel = Reflect::construct(&channel_type, &js_sys::Array::new())?;
    let port1 = Reflect::get(&channel, &JsValue::from_str("port1"))?;
    let port2 = Reflect::get(&channel, &JsValue::from_str("port2"))?;
    let post: js_sys::Function = Reflect::get(&port2, &JsValue::from_str("postMessage"))?.dyn_into()?;
    let ports = [port1.clone(), port2.clone()];
    let mut listening = Ok(());
    let receiving = port1.clone();
    let promise = Promise::new(&mut |resolve, _reject| {
        let ports = ports.clone();
        // Both ports closed once the message arrives: an open port would keep Node's event
        // loop (a test, the command's host) alive.
        let arrived = Closure::once_into_js(move |_message: JsValue| {
            for port in &ports {
                if let Ok(close) = Reflect::get(port, &JsValue::from_str("close")) {
                    if let Some(close) = close.dyn_ref::<js_sys::Function>() {
                        let _ = close.call0(port);
                    }
                }
            }
            let _ = resolve.call0(&JsValue::UNDEFINED);
        });
        listening = Reflect::set(&receiving, &JsValue::from_str("onmessage"), &arrived).map(|_| ());
    });
    listening?;
    post.call1(&port2, &JsValue::UNDEFINED)?;
    Ok(promise)
}

/// A promise resolved after `millis` by the realm's own `setTimeout`.
fn global_timeout(millis: u64) -> Result<Promise, JsValue> {
    let global = js_sys::global();
    let set_timeout: js_sys::Function = Reflect::get(&global, &JsValue::from_str("setTimeout"))?.dyn_into()?;
    let mut failure = None;
    let mut handle = JsValue::UNDEFINED;
    let promise = Promise::new(&mut |resolve, _reject| match set_timeout.call2(
        &global,
        &resolve,
        &JsValue::from_f64(millis as f64),
    ) {
        Ok(timer) => handle = timer,
        Err(error) => failure = Some(error),
    });
    if let Some(error) = failure {
        return Err(error);
    }
    // Cancellable like the host's own sleeps.
    if let Ok(clear) = Reflect::get(&global, &JsValue::from_str("clearTimeout"))?.dyn_into::<js_sys::Function>() {
        let cancel = clear.bind1(&global, &handle);
        Reflect::set(&promise, &JsValue::from_str("cancel"), &cancel)?;
    }
    Ok(promise)
}

impl Host for JsHostAdapter {
    async fn read_file(&self, path: &str, max_bytes: u64) -> Result<Option<VaultFile>, String> {
        let promise = self.host.read_file(path, max_bytes as f64).map_err(|error| format!("{error:?}"))?;
        let value = JsFuture::from(promise).await.map_err(|error| {
            error.dyn_ref::<js_sys::Error>().map(|error| String::from(error.message())).unwrap_or_default()
        })?;
        if value.is_null() || value.is_undefined() {
            return Ok(None);
        }
        let object: &Object = value.unchecked_ref();
        let field = |name: &str| Reflect::get(object, &JsValue::from_str(name)).unwrap_or(JsValue::UNDEFINED);
        let bytes = field("bytes").dyn_into::<Uint8Array>().map_err(|_| "readFile gave no bytes".to_owned())?;
        Ok(Some(VaultFile {
            bytes: bytes.to_vec(),
            mtime: field("mtime").as_f64().unwrap_or(0.0) as Millis,
            size: field("size").as_f64().unwrap_or(bytes.length() as f64) as u64,
        }))
    }

    async fn extract_pdf(&self, bytes: &[u8], options: &PdfExtractOptions) -> Result<PdfContent, String> {
        let options = super::to_js(options).map_err(|_| "could not pass the PDF's options".to_owned())?;
        let promise = self.host.extract_pdf(&Uint8Array::from(bytes), &options).map_err(|error| message_of(&error))?;
        let value = JsFuture::from(promise).await.map_err(|error| message_of(&error))?;
        pdf_content_of(&value)
    }

    fn utc_offset_minutes(&self) -> i32 {
        self.host.utc_offset_minutes().unwrap_or(0.0) as i32
    }

    fn progress(&self, progress: &Progress) {
        if let Ok(value) = super::to_js(progress) {
            let _ = self.host.progress(&value);
        }
    }
}

/// Pictures decoded by the platform (`renderImage`: `createImageBitmap` and a canvas, in the
/// worker where it has them, else on the main thread). A rejection whose `code` is
/// `image.unreadable` is the file's fault; any other is the device's (tried again later).
impl ImageRenderer for JsHostAdapter {
    async fn render_image(&self, bytes: &[u8], request: &ImageRender) -> Result<RenderedImage, ImageError> {
        let failed = |error: &JsValue| {
            let unreadable = Reflect::get(error, &JsValue::from_str("code")).ok().and_then(|code| code.as_string())
                == Some("image.unreadable".to_owned());
            if unreadable {
                ImageError::Unreadable(message_of(error))
            } else {
                ImageError::HostFailed(message_of(error))
            }
        };
        let request = super::to_js(request).map_err(|_| ImageError::HostFailed("could not pass the request".into()))?;
        let promise = self.host.render_image(&Uint8Array::from(bytes), &request).map_err(|error| failed(&error))?;
        let value = JsFuture::from(promise).await.map_err(|error| failed(&error))?;
        let field = |name: &str| Reflect::get(&value, &JsValue::from_str(name)).unwrap_or(JsValue::UNDEFINED);
        let bytes = field("bytes")
            .dyn_into::<Uint8Array>()
            .map_err(|_| ImageError::HostFailed("renderImage gave no bytes".into()))?;
        let side = |name: &str| field(name).as_f64().filter(|side| *side >= 0.0 && *side <= f64::from(u32::MAX));
        match (side("width"), side("height")) {
            (Some(width), Some(height)) => {
                Ok(RenderedImage { width: width as u32, height: height as u32, bytes: bytes.to_vec() })
            }
            _ => Err(ImageError::HostFailed("renderImage gave no size".into())),
        }
    }
}

/// A rejected host call's words.
fn message_of(error: &JsValue) -> String {
    error
        .dyn_ref::<js_sys::Error>()
        .map(|error| String::from(error.message()))
        .or_else(|| error.as_string())
        .unwrap_or_else(|| "the host failed".into())
}

/// The host's `PdfContentData`: everything but the scans' bytes through serde (a `Uint8Array`
/// is no sequence to serde), each page's `scan.bytes` read by hand.
fn pdf_content_of(value: &JsValue) -> Result<PdfContent, String> {
    let unreadable = |what: &str| format!("extractPdf gave an unreadable answer ({what})");
    let field =
        |object: &JsValue, name: &str| Reflect::get(object, &JsValue::from_str(name)).unwrap_or(JsValue::UNDEFINED);
    let pages = field(value, "pages");
    let pages: Vec<JsValue> = if pages.is_undefined() || pages.is_null() {
        Vec::new()
    } else {
        pages.dyn_into::<js_sys::Array>().map_err(|_| unreadable("pages"))?.iter().collect()
    };
    // The pages without their scans go through serde; the scans are put back after.
    let mut scans = Vec::with_capacity(pages.len());
    for page in &pages {
        let scan = field(page, "scan");
        scans.push(if scan.is_undefined() || scan.is_null() { None } else { Some(scan_of(&scan, &field)?) });
        let _ = Reflect::set(page, &JsValue::from_str("scan"), &JsValue::NULL);
    }
    let mut content: PdfContent =
        serde_wasm_bindgen::from_value(value.clone()).map_err(|error| unreadable(&error.to_string()))?;
    for (page, scan) in content.pages.iter_mut().zip(scans) {
        page.scan = scan;
    }
    Ok(content)
}

fn scan_of(scan: &JsValue, field: &dyn Fn(&JsValue, &str) -> JsValue) -> Result<PdfScan, String> {
    let bytes =
        field(scan, "bytes").dyn_into::<Uint8Array>().map_err(|_| "extractPdf gave a scan without bytes".to_owned())?;
    Ok(PdfScan {
        bytes: bytes.to_vec(),
        format: field(scan, "format").as_string().unwrap_or_default(),
        width: field(scan, "width").as_f64().unwrap_or(0.0) as u32,
        height: field(scan, "height").as_f64().unwrap_or(0.0) as u32,
    })
}

/// A file operation's promise, awaited; a throw or a rejection is the operation's error.
async fn file_op(promise: Result<Promise, JsValue>) -> Result<JsValue, String> {
    let promise = promise.map_err(|error| message_of(&error))?;
    JsFuture::from(promise).await.map_err(|error| message_of(&error))
}

impl VaultFiles for JsHostAdapter {
    async fn list(&self, folder: &str) -> Result<Listing, String> {
        let value = file_op(self.host.list_folder(folder)).await?;
        serde_wasm_bindgen::from_value(value).map_err(|error| format!("listFolder gave an unreadable listing: {error}"))
    }

    async fn read(&self, path: &str, offset: u64) -> Result<Option<Vec<u8>>, String> {
        let value = file_op(self.host.read_from(path, offset as f64)).await?;
        if value.is_null() || value.is_undefined() {
            return Ok(None);
        }
        let bytes = value.dyn_into::<Uint8Array>().map_err(|_| "readFrom gave no bytes".to_owned())?;
        Ok(Some(bytes.to_vec()))
    }

    async fn append(&self, path: &str, text: &str) -> Result<u64, String> {
        let size = file_op(self.host.append_text(path, text)).await?;
        size.as_f64().map(|size| size as u64).ok_or_else(|| "appendText gave no size".to_owned())
    }

    async fn create(&self, path: &str, text: &str) -> Result<(), String> {
        file_op(self.host.create_file(path, text)).await.map(|_| ())
    }

    async fn remove(&self, path: &str) -> Result<(), String> {
        file_op(self.host.remove_file(path)).await.map(|_| ())
    }

    async fn pause(&self) {
        // A turn of the worker's event loop: a question or a vault event waiting is taken.
        match next_turn() {
            Ok(turn) => {
                let _ = JsFuture::from(turn).await;
            }
            Err(_) => Clock::sleep(self, 0).await,
        }
    }
}
