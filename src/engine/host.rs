//! What the engine needs from its host beyond HTTP and the clock: the vault's files, the
//! user's time zone, and somewhere to report progress.

use std::future::Future;

use serde::Serialize;

use crate::domain::Millis;
use crate::images::ImageRenderer;
use crate::llm::{Clock, HttpTransport};
use crate::notes::pdf::{PdfContent, PdfExtractOptions};

/// A file as the vault holds it now.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VaultFile {
    /// Empty when the file is over the limit the engine asked with (`is_over`): not read.
    pub bytes: Vec<u8>,
    pub mtime: Millis,
    pub size: u64,
}

impl VaultFile {
    /// A file over the limit, as a host reports it after `stat`: its size and time, no bytes.
    pub fn unread(size: u64, mtime: Millis) -> Self {
        VaultFile { bytes: Vec::new(), mtime, size }
    }

    /// Whether the file is over `max_bytes` (then its bytes were never read).
    pub fn is_over(&self, max_bytes: u64) -> bool {
        self.size > max_bytes || self.bytes.len() as u64 > max_bytes
    }
}

/// Where the engine is, for the status bar and the status view.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Progress {
    /// Jobs finished (done, skipped or failed for good) since the plugin started.
    pub finished: u64,
    pub queued: u64,
    pub running: u64,
    pub failed: u64,
    /// What is being worked on, e.g. a note's path.
    pub current: Option<String>,
    /// Why work is paused, if it is.
    pub paused: Option<String>,
}

/// Everything the engine asks of the plugin (or of a test harness): pictures are decoded by
/// the host too (`ImageRenderer`: the platform's decoders in the plugin).
pub trait Host: HttpTransport + Clock + ImageRenderer {
    /// The file at `path` in the vault, or `None` when it no longer exists. Its size is looked
    /// at first (`stat`): a file over `max_bytes` is not read (`VaultFile::unread`), so a huge
    /// note costs no memory before it is refused.
    fn read_file(&self, path: &str, max_bytes: u64) -> impl Future<Output = Result<Option<VaultFile>, String>>;
    /// The text (and, when asked, the pages without text rendered) of the PDF in `bytes`, read
    /// by the host's pdf.js. A PDF pdf.js cannot read, or will not read here, is an answer with
    /// its `problem`; `Err` means the host could not run pdf.js at all (transient: tried again).
    fn extract_pdf(
        &self,
        bytes: &[u8],
        options: &PdfExtractOptions,
    ) -> impl Future<Output = Result<PdfContent, String>>;
    /// Minutes the user's local time is ahead of UTC at this moment (UTC+7 → 420).
    fn utc_offset_minutes(&self) -> i32;
    /// Called after every job with the new state.
    fn progress(&self, progress: &Progress);
}
