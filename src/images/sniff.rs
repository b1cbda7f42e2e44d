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

/// What a JPEG's frame header (SOFn) says about decoding it (the native decoder's memory).
#[cfg(not(target_arch = "wasm32"))]
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct JpegFrame {
    /// Progressive (or lossless) coding: the decoder holds every component's coefficients for
    /// the whole picture until the last scan, besides the pixels (ITU-T T.81, Annex G).
    pub(super) progressive: bool,
    /// Each component's horizontal and vertical sampling factors.
    pub(super) sampling: Vec<(u8, u8)>,
}

#[cfg(not(target_arch = "wasm32"))]
impl JpegFrame {
    /// The coefficients a progressive decoder keeps for a `width` × `height` picture, in bytes
    /// (16 bits each, every component at its sampled size); 0 for a sequential one.
    pub(super) fn coefficient_bytes(&self, width: u32, height: u32) -> u64 {
        if !self.progressive {
            return 0;
        }
        let (h_max, v_max) = self
            .sampling
            .iter()
            .fold((1u64, 1u64), |(h, v), (hi, vi)| (h.max(u64::from(*hi).max(1)), v.max(u64::from(*vi).max(1))));
        let pixels = u64::from(width) * u64::from(height);
        self.sampling
            .iter()
            .map(|(h, v)| (pixels * u64::from((*h).max(1)) * u64::from((*v).max(1))).div_ceil(h_max * v_max) * 2)
            .sum()
    }
}

#[cfg(not(target_arch = "wasm32"))]
/// The frame header of the JPEG in `bytes`, or `None` when there is none to read.
pub(super) fn jpeg_frame(bytes: &[u8]) -> Option<JpegFrame> {
    let (marker, segment, _) = super::header::jpeg_frame_segment(bytes)?;
    let count = usize::from(*segment.get(5)?);
    let sampling = (0..count)
        .map(|index| segment.get(6 + 3 * index + 1).map(|factors| (factors >> 4, factors & 0x0f)))
        .collect::<Option<Vec<_>>>()?;
    // Progressive: C2, C6, CA, CE; lossless (C3, C7, CB, CF) keeps whole samples too.
    let progressive = !matches!(marker, 0xc0 | 0xc1 | 0xc5 | 0xc9 | 0xcd);
    Some(JpegFrame { progressive, sampling })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_jpeg_s_frame_header_says_whether_it_is_progressive_and_how_it_is_sampled() {
        // SOI, an APP0 segment, a fill byte, then SOF2 (7000 × 7000, three components, 4:2:0).
        let mut bytes = vec![0xff, 0xd8, 0xff, 0xe0, 0x00, 0x04, 0x4a, 0x46, 0xff];
        bytes.extend([0xff, 0xc2, 0x00, 0x11, 0x08, 0x1b, 0x58, 0x1b, 0x58, 0x03]);
        bytes.extend([0x01, 0x22, 0x00, 0x02, 0x11, 0x01, 0x03, 0x11, 0x01]);
        let frame = jpeg_frame(&bytes).unwrap();
        assert_eq!(frame, JpegFrame { progressive: true, sampling: vec![(2, 2), (1, 1), (1, 1)] });
        assert_eq!(frame.coefficient_bytes(7000, 7000), (49_000_000 + 2 * 12_250_000) * 2);
        bytes[10] = 0xc0;
        assert_eq!(jpeg_frame(&bytes).unwrap().coefficient_bytes(7000, 7000), 0, "sequential");
        for cut in 0..bytes.len() {
            assert!(jpeg_frame(&bytes[..cut]).is_none(), "cut at {cut}");
        }
    }

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
