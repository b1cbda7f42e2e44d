//! The format of an image told by its first bytes (its "magic number"), never by the file's
//! extension: a `.png` that holds a JPEG is a JPEG to Bedrock too.

use super::ImageFormat;

/// PNG's eight-byte signature (PNG specification, 5.2).
const PNG: &[u8] = b"\x89PNG\r\n\x1a\n";
/// A JPEG starts with SOI (FF D8) followed by another marker's FF.
const JPEG: &[u8] = b"\xff\xd8\xff";
const GIF87: &[u8] = b"GIF87a";
const GIF89: &[u8] = b"GIF89a";

/// The format of `bytes`, or `None` when they are none of the formats Bedrock takes.
pub(super) fn format_of(bytes: &[u8]) -> Option<ImageFormat> {
    if bytes.starts_with(PNG) {
        Some(ImageFormat::Png)
    } else if bytes.starts_with(JPEG) {
        Some(ImageFormat::Jpeg)
    } else if bytes.starts_with(GIF87) || bytes.starts_with(GIF89) {
        Some(ImageFormat::Gif)
    } else if is_webp(bytes) {
        Some(ImageFormat::Webp)
    } else {
        None
    }
}

/// A RIFF container whose form type is `WEBP` (bytes 8..12; 4..8 are the container's size).
fn is_webp(bytes: &[u8]) -> bool {
    bytes.len() >= 12 && bytes.starts_with(b"RIFF") && &bytes[8..12] == b"WEBP"
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_format_by_its_signature_and_nothing_else() {
        assert_eq!(format_of(b"\x89PNG\r\n\x1a\n\0\0"), Some(ImageFormat::Png));
        assert_eq!(format_of(b"\xff\xd8\xff\xe0"), Some(ImageFormat::Jpeg));
        assert_eq!(format_of(b"GIF89a...."), Some(ImageFormat::Gif));
        assert_eq!(format_of(b"GIF87a"), Some(ImageFormat::Gif));
        assert_eq!(format_of(b"RIFF\x10\0\0\0WEBPVP8 "), Some(ImageFormat::Webp));
        for other in [&b""[..], b"\x89PN", b"RIFF\x10\0\0\0WAVEfmt ", b"BM\x36\0", b"%PDF-1.7", b"II*\0", b"\xff\xd8"] {
            assert_eq!(format_of(other), None, "{other:?}");
        }
    }
}
