//! A PDF as the host's pdf.js reads it (text per page, with each line's font height; a page
//! without a text layer rendered to an image when asked) and as the IngestAgent reads it:
//! chunks by page ranges and headings, and the PDF's own date.
//! (Skeleton for issue 25: the types are the host contract; the reading is filled in.)

use serde::{Deserialize, Serialize};

/// What the core asks the host to extract.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PdfExtractOptions {
    /// A PDF with more pages is not read: only its page count comes back (`tooManyPages`).
    pub max_pages: u32,
    /// Whether pages without a text layer are rendered to images (`scan`).
    pub render_scans: bool,
    /// A rendered page holds at most this many pixels.
    pub scan_pixels: u64,
    /// A page whose text has fewer non-space characters than this counts as a scan.
    pub scan_below_chars: u32,
}

/// What the host read.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct PdfContent {
    pub problem: Option<PdfProblem>,
    pub page_count: u32,
    pub info: PdfInfo,
    /// Empty when `problem` is set.
    pub pages: Vec<PdfPage>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PdfProblem {
    pub kind: PdfProblemKind,
    /// pdf.js's own words, for the status view.
    pub message: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum PdfProblemKind {
    /// Password-protected.
    Encrypted,
    /// Not a PDF pdf.js can read (damaged, truncated, empty).
    Broken,
    /// More pages than `max_pages`.
    TooManyPages,
    /// This host cannot read PDFs (the command line).
    Unavailable,
}

/// The document's information dictionary, as pdf.js gives it; dates raw (`D:20260102093000+01'00'`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct PdfInfo {
    pub title: Option<String>,
    pub author: Option<String>,
    pub creation_date: Option<String>,
    pub mod_date: Option<String>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct PdfPage {
    /// 1-based.
    pub number: u32,
    pub lines: Vec<PdfLine>,
    pub scan: Option<PdfScan>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct PdfLine {
    pub text: String,
    /// The font height of the line's text, in PDF units (headings are taller than body text).
    pub height: f64,
}

/// A page without a text layer, rendered by the host.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PdfScan {
    /// The facade reads these from a `Uint8Array` by hand (a byte array is no sequence to serde).
    pub bytes: Vec<u8>,
    /// "jpeg" or "png".
    pub format: String,
    pub width: u32,
    pub height: u32,
}
