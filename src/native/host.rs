//! The host on a computer: HTTP with `ureq`, the system clock and time zone, the vault's files
//! from disk. The native counterpart of the plugin's worker host (`src/wasm/host.rs`).

use std::io::Read;
use std::time::Duration;

use crate::domain::Millis;
use crate::engine::{Host, Progress, VaultFile};
use crate::images::{ImageError, ImageRender, ImageRenderer, NativeRenderer, RenderedImage};
use crate::llm::{Clock, HttpRequest, HttpResponse, HttpTransport, TransportError};
use crate::notes::pdf::{PdfContent, PdfExtractOptions};

use super::vault::VaultDir;

/// A response body larger than this is not Bedrock's (its answers are a few KB).
const MAX_RESPONSE_BYTES: u64 = 16 * 1024 * 1024;

pub struct NativeHost {
    agent: ureq::Agent,
    vault: VaultDir,
}

impl NativeHost {
    pub fn new(vault: VaultDir) -> Self {
        let agent = ureq::Agent::config_builder()
            // Bedrock's errors are answers to read, not failures of the request.
            .http_status_as_error(false)
            .timeout_global(Some(Duration::from_secs(120)))
            .user_agent(concat!("memory-agent/", env!("CARGO_PKG_VERSION")))
            .build()
            .new_agent();
        NativeHost { agent, vault }
    }

    fn send_now(&self, request: &HttpRequest) -> Result<HttpResponse, TransportError> {
        let mut builder = ureq::http::Request::builder().method(request.method.as_str()).uri(request.url.as_str());
        for (name, value) in &request.headers {
            // The HTTP stack sets these itself, to the values the request was signed with.
            if !name.eq_ignore_ascii_case("host") && !name.eq_ignore_ascii_case("content-length") {
                builder = builder.header(name.as_str(), value.as_str());
            }
        }
        let built = builder.body(request.body.clone()).map_err(|error| TransportError::Network(error.to_string()))?;
        let mut response = self.agent.run(built).map_err(transport_error)?;
        let status = response.status().as_u16();
        let headers = response
            .headers()
            .iter()
            .map(|(name, value)| (name.as_str().to_owned(), String::from_utf8_lossy(value.as_bytes()).into_owned()))
            .collect();
        let mut body = String::new();
        response
            .body_mut()
            .as_reader()
            .take(MAX_RESPONSE_BYTES)
            .read_to_string(&mut body)
            .map_err(|error| TransportError::Network(format!("reading the response: {error}")))?;
        Ok(HttpResponse { status, headers, body })
    }
}

fn transport_error(error: ureq::Error) -> TransportError {
    match error {
        ureq::Error::HostNotFound | ureq::Error::ConnectionFailed => TransportError::Offline(error.to_string()),
        other => TransportError::Network(other.to_string()),
    }
}

impl HttpTransport for NativeHost {
    async fn send(&self, request: HttpRequest) -> Result<HttpResponse, TransportError> {
        // One question at a time on this thread: blocking here holds no one else up.
        self.send_now(&request)
    }
}

/// The system clock, in ms since the epoch.
#[allow(clippy::disallowed_methods)] // The host is where time comes from.
pub fn system_millis() -> Millis {
    let since = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap_or_default();
    since.as_millis() as Millis
}

impl Clock for NativeHost {
    fn now(&self) -> Millis {
        system_millis()
    }

    async fn sleep(&self, millis: u64) {
        tokio::time::sleep(Duration::from_millis(millis)).await;
    }
}

/// The command decodes pictures with the `image` crate (the plugin with its platform's decoders).
impl ImageRenderer for NativeHost {
    async fn render_image(&self, bytes: &[u8], request: &ImageRender) -> Result<RenderedImage, ImageError> {
        NativeRenderer.render_image(bytes, request).await
    }
}

impl Host for NativeHost {
    /// The command has no pdf.js: it leaves PDFs to Obsidian (and its `index` never queues them).
    async fn extract_pdf(&self, _: &[u8], _: &PdfExtractOptions) -> Result<PdfContent, String> {
        Ok(PdfContent::unavailable("PDFs are read by Obsidian's pdf.js; the command leaves them to Obsidian"))
    }

    async fn read_file(&self, path: &str, max_bytes: u64) -> Result<Option<VaultFile>, String> {
        let file = self.vault.file(path)?;
        let cannot = |error: std::io::Error| format!("Cannot read {path}: {error}");
        let opened = match std::fs::File::open(&file) {
            Ok(opened) => opened,
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(error) => return Err(cannot(error)),
        };
        // The size of the file opened (not of whatever the path names a moment later) first.
        let metadata = opened.metadata().map_err(cannot)?;
        let mtime = metadata
            .modified()
            .ok()
            .and_then(|time| time.duration_since(std::time::UNIX_EPOCH).ok())
            .map_or(0, |since| since.as_millis() as Millis);
        if metadata.len() > max_bytes {
            return Ok(Some(VaultFile::unread(metadata.len(), mtime)));
        }
        // One byte past the limit tells a file that grew since the stat, without reading it all.
        let mut bytes = Vec::with_capacity(metadata.len() as usize);
        opened.take(max_bytes.saturating_add(1)).read_to_end(&mut bytes).map_err(cannot)?;
        if bytes.len() as u64 > max_bytes {
            return Ok(Some(VaultFile::unread(bytes.len() as u64, mtime)));
        }
        Ok(Some(VaultFile { size: bytes.len() as u64, bytes, mtime }))
    }

    fn utc_offset_minutes(&self) -> i32 {
        chrono::Local::now().offset().local_minus_utc() / 60
    }

    fn progress(&self, _progress: &Progress) {}
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_note_over_the_limit_is_measured_not_read() {
        let root = std::env::temp_dir().join(format!("memory-agent-host-read-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        std::fs::create_dir_all(root.join(".obsidian")).unwrap();
        std::fs::write(root.join("small.md"), "# Small\n").unwrap();
        std::fs::write(root.join("large.md"), vec![b'a'; 5_000]).unwrap();
        let host = NativeHost::new(VaultDir::open(&root, ".obsidian").unwrap());
        let read = |path: &str| futures_util::FutureExt::now_or_never(host.read_file(path, 1_024)).unwrap().unwrap();
        let small = read("small.md").unwrap();
        assert_eq!((small.bytes.as_slice(), small.size), (&b"# Small\n"[..], 8));
        let large = read("large.md").unwrap();
        assert!(large.bytes.is_empty() && large.size == 5_000 && large.is_over(1_024), "{large:?}");
        assert_eq!(read("gone.md"), None);
        let _ = std::fs::remove_dir_all(&root);
    }
}
