//! A PDF as the host's pdf.js reads it (text per page, with each line's font height; a page
//! without a text layer rendered to an image when asked) and as the IngestAgent reads it:
//! chunks by page ranges and headings, and the PDF's own date.
//!
//! Total on any input the host hands over: no pages, empty or huge lines, heights that are
//! NaN, zero or negative, page numbers out of order — chunks or nothing, never a panic.

use serde::{Deserialize, Serialize};

use super::chunks::{content_hash, Chunk};
use super::date::path_date;
use crate::calendar::CalendarDate;
use crate::domain::DateSource;
use crate::tokens::estimate_tokens;

/// A page with fewer non-space characters than this has no text layer worth reading (a scan,
/// maybe with a page number): rendered for the model when images are remembered.
pub const SCAN_BELOW_CHARS: u32 = 16;
/// A heading's font is at least this much taller than the body text's (the median line).
const HEADING_HEIGHT_RATIO: f64 = 1.2;
/// A heading is short: at most this many words.
const HEADING_MAX_WORDS: usize = 12;
/// A heading kept as a chunk's `heading_path` is cut to this many characters.
const HEADING_MAX_CHARS: usize = 200;

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
    /// A PDF with more characters of text is not read on (`tooMuchText`): the host stops at
    /// the page that passes it, without holding that page's text whole.
    pub max_chars: u64,
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
    /// More text than `max_chars`.
    TooMuchText,
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

impl PdfExtractOptions {
    /// What the engine asks for a PDF in scope: pages up to `MAX_PDF_PAGES`, text up to
    /// `max_chars` (a note's size limit: a PDF costs no more to remember than the largest note),
    /// scans rendered within `MAX_SENT_PIXELS` only when images are remembered.
    pub fn for_ingest(render_scans: bool, max_chars: u64) -> Self {
        PdfExtractOptions {
            max_pages: super::kind::MAX_PDF_PAGES,
            render_scans,
            scan_pixels: crate::images::MAX_SENT_PIXELS,
            scan_below_chars: SCAN_BELOW_CHARS,
            max_chars,
        }
    }
}

impl PdfContent {
    /// The answer of a host that cannot read PDFs (the command line).
    pub fn unavailable(message: &str) -> Self {
        PdfContent {
            problem: Some(PdfProblem { kind: PdfProblemKind::Unavailable, message: message.to_owned() }),
            ..PdfContent::default()
        }
    }
}

/// A piece of a PDF the IngestAgent reads: text of a page range, or a page without text.
#[derive(Debug, Clone, PartialEq)]
pub enum PdfChunk {
    /// `line_start`/`line_end` are its first and last page, 1-based; `heading_path` the heading
    /// detected above it.
    Text(Chunk),
    /// A page without a text layer, rendered by the host.
    Scan { page: u32, scan: PdfScan, content_hash: String },
}

impl PdfChunk {
    pub fn content_hash(&self) -> &str {
        match self {
            PdfChunk::Text(chunk) => &chunk.content_hash,
            PdfChunk::Scan { content_hash, .. } => content_hash,
        }
    }

    /// Its first page, 1-based.
    pub fn first_page(&self) -> u32 {
        match self {
            PdfChunk::Text(chunk) => chunk.line_start,
            PdfChunk::Scan { page, .. } => *page,
        }
    }
}

/// The content hash of the scan of `page` of the PDF whose SHA-256 is `pdf_sha256`: the same
/// page of the same file is the same picture, wherever the file moves.
pub fn scan_hash(pdf_sha256: &str, page: u32) -> String {
    content_hash(None, &format!("scan:{pdf_sha256}:{page}"))
}

/// The PDF's chunks, in page order: its text by sections (a heading — a short line whose font
/// is at least 1.2 × the body's median height — starts one), each within `max_chunk_tokens`
/// and joining the consecutive pages of its section; and each page without text that the host
/// rendered. `pdf_sha256` names the file in the scans' content hashes. A page with neither
/// gives nothing.
pub fn chunk_pdf(content: &PdfContent, pdf_sha256: &str, max_chunk_tokens: usize) -> Vec<PdfChunk> {
    let max_chunk_tokens = max_chunk_tokens.max(1);
    let body_height = median_height(content);
    let mut builder = ChunkBuilder { max_tokens: max_chunk_tokens, chunks: Vec::new(), open: None, heading: None };
    for (index, page) in content.pages.iter().enumerate() {
        // A host's number 0 (or none) is its place in the list.
        let number = if page.number == 0 { u32::try_from(index + 1).unwrap_or(u32::MAX) } else { page.number };
        // The host renders only a page with next to no text (a page number on a scan): the
        // picture is the page, its few characters go with it.
        if let Some(scan) = &page.scan {
            builder.close();
            let content_hash = scan_hash(pdf_sha256, number);
            builder.chunks.push(PdfChunk::Scan { page: number, scan: scan.clone(), content_hash });
            continue;
        }
        for line in page.lines.iter().filter(|line| !line.text.trim().is_empty()) {
            let text = line.text.trim();
            if is_heading(text, line.height, body_height) {
                builder.close();
                builder.heading = Some(text.chars().take(HEADING_MAX_CHARS).collect());
            }
            for piece in pieces(text, max_chunk_tokens) {
                builder.push(piece, number);
            }
        }
    }
    builder.close();
    debug_assert!(builder.chunks.iter().all(|chunk| match chunk {
        PdfChunk::Text(chunk) => chunk.line_start <= chunk.line_end && !chunk.text.is_empty(),
        PdfChunk::Scan { .. } => true,
    }));
    builder.chunks
}

/// The body text's height: the median of the document's line heights (finite and positive
/// only) weighted by each line's characters, so that short headings, however many, do not
/// pull it up. `None` when no line has a usable height.
fn median_height(content: &PdfContent) -> Option<f64> {
    let mut heights: Vec<(f64, usize)> = content
        .pages
        .iter()
        .flat_map(|page| &page.lines)
        .filter(|line| line.height.is_finite() && line.height > 0.0)
        .map(|line| (line.height, line.text.chars().filter(|c| !c.is_whitespace()).count()))
        .filter(|(_, characters)| *characters > 0)
        .collect();
    heights.sort_by(|a, b| a.0.total_cmp(&b.0));
    let half = heights.iter().map(|(_, characters)| characters).sum::<usize>().div_ceil(2);
    let mut seen = 0;
    heights.into_iter().find_map(|(height, characters)| {
        seen += characters;
        (seen >= half).then_some(height)
    })
}

fn is_heading(text: &str, height: f64, body_height: Option<f64>) -> bool {
    let Some(body) = body_height else { return false };
    height.is_finite() && height >= HEADING_HEIGHT_RATIO * body && text.split_whitespace().count() <= HEADING_MAX_WORDS
}

/// `text` cut, at character boundaries, into pieces of at most `max_tokens` each (a line
/// longer than a chunk: a PDF whose text layer has no line breaks).
fn pieces(text: &str, max_tokens: usize) -> Vec<&str> {
    if estimate_tokens(text) <= max_tokens {
        return vec![text];
    }
    // Counted in quarter tokens (a CJK character is four, another character one), with a
    // token to spare for the estimate's rounding up.
    let budget = max_tokens.saturating_mul(4).saturating_sub(4).max(4);
    let mut pieces = Vec::new();
    let (mut start, mut quarters) = (0, 0);
    for (at, character) in text.char_indices() {
        let mut buffer = [0u8; 16];
        let four: &str = {
            let width = character.len_utf8();
            for copy in 0..4 {
                character.encode_utf8(&mut buffer[copy * width..]);
            }
            std::str::from_utf8(&buffer[..4 * width]).unwrap_or("    ")
        };
        let cost = estimate_tokens(four);
        if quarters + cost > budget && at > start {
            pieces.push(&text[start..at]);
            (start, quarters) = (at, 0);
        }
        quarters += cost;
    }
    pieces.push(&text[start..]);
    pieces
}

/// The text chunk being filled, page by page.
struct OpenChunk {
    first_page: u32,
    last_page: u32,
    lines: Vec<String>,
    tokens: usize,
}

struct ChunkBuilder {
    max_tokens: usize,
    chunks: Vec<PdfChunk>,
    open: Option<OpenChunk>,
    /// The heading of the section being read.
    heading: Option<String>,
}

impl ChunkBuilder {
    fn push(&mut self, line: &str, page: u32) {
        // Each line costs its own tokens and its newline.
        let tokens = estimate_tokens(line) + 1;
        if self.open.as_ref().is_some_and(|open| open.tokens + tokens > self.max_tokens) {
            self.close();
        }
        let open =
            self.open.get_or_insert(OpenChunk { first_page: page, last_page: page, lines: Vec::new(), tokens: 0 });
        open.first_page = open.first_page.min(page);
        open.last_page = open.last_page.max(page);
        open.lines.push(line.to_owned());
        open.tokens += tokens;
    }

    fn close(&mut self) {
        let Some(open) = self.open.take() else { return };
        let text = open.lines.join("\n");
        let heading_path = self.heading.clone();
        let content_hash = content_hash(heading_path.as_deref(), &text);
        self.chunks.push(PdfChunk::Text(Chunk {
            heading_path,
            line_start: open.first_page,
            line_end: open.last_page,
            text,
            content_hash,
        }));
    }
}

/// The PDF's own date, what a memory whose text names no day is filed under: the day it was
/// made by its information dictionary (`CreationDate`, else `ModDate`; "the file's date"),
/// else a date its title names, else one its file name names.
pub fn pdf_date(info: &PdfInfo, path: &str) -> Option<(CalendarDate, DateSource)> {
    let metadata = [&info.creation_date, &info.mod_date].into_iter().flatten().find_map(|raw| pdf_info_date(raw));
    metadata
        .or_else(|| info.title.as_deref().and_then(path_date))
        .map(|date| (date, DateSource::FileMetadata))
        .or_else(|| path_date(path).map(|date| (date, DateSource::NoteName)))
}

/// The day of a PDF date string (`D:YYYYMMDDHHmmSSOHH'mm'`, ISO 32000-1 §7.9.4) as written,
/// in the writer's local time. Only a full day counts: the standard lets month and day default
/// to 01, and a memory filed under 1 January of a year only would mislead.
pub fn pdf_info_date(raw: &str) -> Option<CalendarDate> {
    let raw = raw.trim();
    let digits = raw.strip_prefix("D:").unwrap_or(raw).as_bytes();
    let digits = digits.get(..8).filter(|digits| digits.iter().all(u8::is_ascii_digit))?;
    let number = |range: std::ops::Range<usize>| std::str::from_utf8(&digits[range]).ok()?.parse::<u32>().ok();
    let year = i32::try_from(number(0..4)?).ok()?;
    CalendarDate::new(year, number(4..6)?, number(6..8)?)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(text: &str, height: f64) -> PdfLine {
        PdfLine { text: text.into(), height }
    }

    fn page(number: u32, lines: Vec<PdfLine>) -> PdfPage {
        PdfPage { number, lines, scan: None }
    }

    fn texts(chunks: &[PdfChunk]) -> Vec<(u32, u32, Option<String>, String)> {
        chunks
            .iter()
            .filter_map(|chunk| match chunk {
                PdfChunk::Text(chunk) => {
                    Some((chunk.line_start, chunk.line_end, chunk.heading_path.clone(), chunk.text.clone()))
                }
                PdfChunk::Scan { .. } => None,
            })
            .collect()
    }

    #[test]
    fn sections_start_at_tall_short_lines_and_join_the_pages_they_run_over() {
        let content = PdfContent {
            page_count: 3,
            pages: vec![
                page(
                    1,
                    vec![line("Budget 2026", 18.0), line("We plan to spend less.", 10.0), line("Much less.", 10.0)],
                ),
                page(2, vec![line("The rest of the plan.", 10.0), line("Travel", 16.0), line("Lisbon in May.", 10.0)]),
                page(3, vec![line("Porto in June.", 10.0)]),
            ],
            ..PdfContent::default()
        };
        let chunks = chunk_pdf(&content, "abc", 1_500);
        assert_eq!(
            texts(&chunks),
            vec![
                (
                    1,
                    2,
                    Some("Budget 2026".into()),
                    "Budget 2026\nWe plan to spend less.\nMuch less.\nThe rest of the plan.".into()
                ),
                (2, 3, Some("Travel".into()), "Travel\nLisbon in May.\nPorto in June.".into()),
            ]
        );
        match &chunks[0] {
            PdfChunk::Text(chunk) => assert_eq!(chunk.content_hash, content_hash(Some("Budget 2026"), &chunk.text)),
            PdfChunk::Scan { .. } => panic!("a text chunk"),
        }
    }

    #[test]
    fn a_long_tall_line_is_no_heading_and_chunks_keep_within_the_bound() {
        let long_title = "This tall line has far more than twelve words so it is a pull quote and not a heading at all";
        let mut lines = vec![line(long_title, 20.0)];
        lines.extend((0..200).map(|n| line(&format!("Body line number {n} of the report."), 10.0)));
        let chunks = chunk_pdf(&PdfContent { pages: vec![page(1, lines)], ..PdfContent::default() }, "d", 100);
        assert!(chunks.len() > 5);
        for (first, last, heading, text) in texts(&chunks) {
            assert_eq!((first, last, heading), (1, 1, None));
            assert!(estimate_tokens(&text) <= 100, "{}", estimate_tokens(&text));
        }
    }

    #[test]
    fn adversarial_pages_give_chunks_or_nothing() {
        assert!(chunk_pdf(&PdfContent::default(), "d", 1_500).is_empty(), "no pages");
        let blank = PdfContent {
            page_count: 2,
            pages: vec![page(1, vec![]), page(2, vec![line("   ", 10.0)])],
            ..PdfContent::default()
        };
        assert!(chunk_pdf(&blank, "d", 1_500).is_empty(), "pages without text or scan");
        let odd_heights = PdfContent {
            pages: vec![page(
                1,
                vec![line("Title", f64::NAN), line("Body", f64::INFINITY), line("More", -3.0), line("Rest", 0.0)],
            )],
            ..PdfContent::default()
        };
        assert_eq!(texts(&chunk_pdf(&odd_heights, "d", 1_500)), vec![(1, 1, None, "Title\nBody\nMore\nRest".into())]);
        let huge = "word ".repeat(200_000);
        let chunks = chunk_pdf(
            &PdfContent { pages: vec![page(1, vec![line(&huge, 10.0)])], ..PdfContent::default() },
            "d",
            1_500,
        );
        assert!(chunks.len() >= 150);
        assert!(texts(&chunks).iter().all(|(_, _, _, text)| estimate_tokens(text) <= 1_500));
        let cjk = "漢".repeat(10_000);
        let chunks = chunk_pdf(
            &PdfContent { pages: vec![page(1, vec![line(&cjk, 10.0)])], ..PdfContent::default() },
            "d",
            1_500,
        );
        assert!(texts(&chunks).iter().all(|(_, _, _, text)| estimate_tokens(text) <= 1_500));
        let many = PdfContent {
            page_count: 200,
            pages: (1..=200).map(|n| page(n, vec![line(&format!("Page {n} says something."), 10.0)])).collect(),
            ..PdfContent::default()
        };
        let chunks = texts(&chunk_pdf(&many, "d", 1_500));
        assert_eq!((chunks.first().unwrap().0, chunks.last().unwrap().1), (1, 200));
        assert!(chunks.windows(2).all(|pair| pair[0].1 <= pair[1].0));
        let unnumbered =
            PdfContent { pages: vec![page(0, vec![]), page(0, vec![line("x", 1.0)])], ..PdfContent::default() };
        assert_eq!(texts(&chunk_pdf(&unnumbered, "d", 1_500))[0].0, 2, "numbered by place");
    }

    #[test]
    fn a_page_without_text_is_a_scan_named_by_the_file_and_page() {
        let scan = PdfScan { bytes: vec![1, 2, 3], format: "jpeg".into(), width: 10, height: 10 };
        let content = PdfContent {
            pages: vec![
                page(1, vec![line("Intro", 10.0)]),
                PdfPage { number: 2, lines: vec![line("7", 10.0)], scan: Some(scan.clone()) },
                page(3, vec![line("Outro", 10.0)]),
            ],
            ..PdfContent::default()
        };
        let chunks = chunk_pdf(&content, "f00d", 1_500);
        assert!(matches!(&chunks[..], [PdfChunk::Text(_), PdfChunk::Scan { page: 2, .. }, PdfChunk::Text(_)]));
        let only_scan = PdfContent {
            pages: vec![PdfPage { number: 2, lines: vec![], scan: Some(scan.clone()) }],
            ..PdfContent::default()
        };
        assert_eq!(
            chunk_pdf(&only_scan, "f00d", 1_500),
            vec![PdfChunk::Scan { page: 2, scan, content_hash: scan_hash("f00d", 2) }]
        );
        assert_ne!(scan_hash("f00d", 2), scan_hash("f00e", 2));
    }

    #[test]
    fn the_pdfs_date_is_its_creation_then_its_title_then_its_name() {
        let info = |creation: Option<&str>, modified: Option<&str>, title: Option<&str>| PdfInfo {
            title: title.map(Into::into),
            creation_date: creation.map(Into::into),
            mod_date: modified.map(Into::into),
            author: None,
        };
        let date = |text: &str| CalendarDate::parse(text).unwrap();
        let metadata = DateSource::FileMetadata;
        assert_eq!(
            pdf_date(&info(Some("D:20260102093000+01'00'"), None, None), "a.pdf"),
            Some((date("2026-01-02"), metadata))
        );
        assert_eq!(
            pdf_date(&info(Some("garbage"), Some("20251231"), None), "a.pdf"),
            Some((date("2025-12-31"), metadata))
        );
        assert_eq!(
            pdf_date(&info(Some("D:2026"), None, Some("Minutes 2026-03-04")), "a.pdf"),
            Some((date("2026-03-04"), metadata))
        );
        assert_eq!(
            pdf_date(&info(Some("D:20261399"), None, None), "Scans/2026-05-06 receipt.pdf"),
            Some((date("2026-05-06"), DateSource::NoteName))
        );
        assert_eq!(pdf_date(&PdfInfo::default(), "report.pdf"), None);
        assert_eq!(pdf_info_date("D:2026０1０2"), None, "only ASCII digits");
        assert_eq!(pdf_info_date(""), None);
    }
}
