//! What kind of file a vault path names, by its extension: a note, a PDF, an image Bedrock
//! takes, or an image it does not. Every part that sorts files asks here (the scope rules, the
//! engine, the plugin through the generated schema's extension lists).

use crate::images::ImageFormat;

/// A PDF larger than this is not read (pdf.js would hold all of it in memory).
pub const MAX_PDF_BYTES: u64 = 50 * 1024 * 1024;
/// A PDF with more pages is not read: its text would cost more than most users expect to pay
/// for one file, and reading it would keep a phone busy for minutes.
pub const MAX_PDF_PAGES: u32 = 200;
/// An image file larger than this is not read.
pub const MAX_IMAGE_BYTES: u64 = 20 * 1024 * 1024;

/// Extensions (lowercase, without the dot) of each kind. `txt` is a note only when plain
/// text is on.
pub const NOTE_EXTENSIONS: &[&str] = &["md", "txt"];
pub const PDF_EXTENSIONS: &[&str] = &["pdf"];
pub const IMAGE_EXTENSIONS: &[&str] = &["png", "jpg", "jpeg", "gif", "webp"];
/// Images Bedrock does not take, with the name the status view gives them.
pub const UNSUPPORTED_IMAGES: &[(&str, &str)] = &[
    ("bmp", "BMP"),
    ("tif", "TIFF"),
    ("tiff", "TIFF"),
    ("heic", "HEIC"),
    ("heif", "HEIF"),
    ("avif", "AVIF"),
    ("svg", "SVG"),
];

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileKind {
    Note,
    Pdf,
    /// An image Bedrock takes, in the format its extension names (the bytes decide in the end).
    Image(ImageFormat),
    /// An image Bedrock does not take: the format's name.
    UnsupportedImage(&'static str),
    Other,
}

impl FileKind {
    /// The kind `path` names by its extension (any case). `.txt` counts as a note here; whether
    /// plain text is remembered is the scope rules' decision.
    pub fn of(path: &str) -> FileKind {
        let name = path.rsplit('/').next().unwrap_or(path);
        let Some((_, extension)) = name.rsplit_once('.') else { return FileKind::Other };
        let extension = extension.to_ascii_lowercase();
        let extension = extension.as_str();
        if NOTE_EXTENSIONS.contains(&extension) {
            FileKind::Note
        } else if PDF_EXTENSIONS.contains(&extension) {
            FileKind::Pdf
        } else if let Some(format) = ImageFormat::parse(extension) {
            FileKind::Image(format)
        } else if let Some((_, name)) = UNSUPPORTED_IMAGES.iter().find(|(known, _)| *known == extension) {
            FileKind::UnsupportedImage(name)
        } else {
            FileKind::Other
        }
    }

    /// The name the plugin's DTOs give the kind of a memory's file.
    pub fn dto_name(self) -> &'static str {
        match self {
            FileKind::Pdf => "pdf",
            FileKind::Image(_) | FileKind::UnsupportedImage(_) => "image",
            FileKind::Note | FileKind::Other => "note",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_by_extension_in_any_case() {
        assert_eq!(FileKind::of("Daily/2026-01-02.md"), FileKind::Note);
        assert_eq!(FileKind::of("a.TXT"), FileKind::Note);
        assert_eq!(FileKind::of("Papers/Budget Q3.PDF"), FileKind::Pdf);
        assert_eq!(FileKind::of("img/IMG_0001.JPG"), FileKind::Image(ImageFormat::Jpeg));
        assert_eq!(FileKind::of("x.jpeg"), FileKind::Image(ImageFormat::Jpeg));
        assert_eq!(FileKind::of("x.webp"), FileKind::Image(ImageFormat::Webp));
        assert_eq!(FileKind::of("scan.heic"), FileKind::UnsupportedImage("HEIC"));
        assert_eq!(FileKind::of("folder.pdf/readme"), FileKind::Other);
        assert_eq!(FileKind::of("Makefile"), FileKind::Other);
        assert_eq!(FileKind::of("archive.zip"), FileKind::Other);
    }
}
