//! What an image's header says, read here without decoding a pixel: its format (by its first
//! bytes), its size, and its EXIF block (the day it was taken, which way up it is). The pixels
//! are the host's to decode (`ImageRenderer`): the platform's decoders in the plugin, the
//! `image` crate natively.
//!
//! Sizes by format: PNG's IHDR (PNG specification, 11.2.2), GIF's logical screen (GIF89a,
//! section 18), a JPEG's frame header SOFn (ITU-T T.81, B.2.2), WebP's VP8X canvas, VP8 frame
//! header or VP8L header (RFC 9649, sections 2.5–2.7 and 3.2). EXIF: a JPEG's APP1 segment
//! starting `Exif\0\0`, PNG's `eXIf` chunk, WebP's `EXIF` chunk. Every read is bounds-checked:
//! any bytes give a header or an error, never a panic.

use super::{exif, sniff, ImageError, ImageFormat};
use crate::calendar::CalendarDate;

/// An image as its header describes it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ImageHeader {
    pub format: ImageFormat,
    /// The stored pixels' size (before any EXIF turn).
    pub width: u32,
    pub height: u32,
    /// EXIF's orientation (1–8; 1 when absent or out of range): how the stored pixels are
    /// turned or mirrored to be seen upright (EXIF 2.32, tag 0x0112).
    pub orientation: u8,
    /// The day it was taken, from EXIF, when present.
    pub taken: Option<CalendarDate>,
}

impl ImageHeader {
    /// The size as seen upright: orientations 5–8 turn the picture a quarter.
    pub fn upright(&self) -> (u32, u32) {
        if self.orientation >= 5 {
            (self.height, self.width)
        } else {
            (self.width, self.height)
        }
    }
}

/// The header of the image in `bytes`.
pub fn inspect(bytes: &[u8]) -> Result<ImageHeader, ImageError> {
    if bytes.is_empty() {
        return Err(ImageError::Unreadable("the file is empty".into()));
    }
    let format = sniff::format_of(bytes).ok_or(ImageError::UnsupportedFormat)?;
    let (width, height, exif) = match format {
        ImageFormat::Png => png(bytes),
        ImageFormat::Gif => gif(bytes),
        ImageFormat::Jpeg => jpeg(bytes),
        ImageFormat::Webp => webp(bytes),
    }
    .ok_or_else(|| ImageError::Unreadable("its header could not be read".into()))?;
    if width == 0 || height == 0 {
        return Err(ImageError::Unreadable("it has no pixels".into()));
    }
    let orientation = exif.and_then(exif::orientation).filter(|turn| (1..=8).contains(turn)).unwrap_or(1);
    let taken = exif.and_then(exif::taken);
    Ok(ImageHeader { format, width, height, orientation, taken })
}

type Found<'a> = Option<(u32, u32, Option<&'a [u8]>)>;

fn be32(bytes: &[u8], at: usize) -> Option<u32> {
    Some(u32::from_be_bytes(bytes.get(at..at.checked_add(4)?)?.try_into().ok()?))
}

fn le16(bytes: &[u8], at: usize) -> Option<u32> {
    Some(u32::from(u16::from_le_bytes(bytes.get(at..at.checked_add(2)?)?.try_into().ok()?)))
}

fn le24(bytes: &[u8], at: usize) -> Option<u32> {
    let three = bytes.get(at..at.checked_add(3)?)?;
    Some(u32::from(three[0]) | u32::from(three[1]) << 8 | u32::from(three[2]) << 16)
}

/// IHDR is the first chunk; `eXIf` may come anywhere before the image data.
fn png(bytes: &[u8]) -> Found<'_> {
    if bytes.get(12..16)? != b"IHDR" {
        return None;
    }
    let (width, height) = (be32(bytes, 16)?, be32(bytes, 20)?);
    let mut at = 8;
    let mut exif = None;
    while let (Some(length), Some(kind)) = (be32(bytes, at), bytes.get(at + 4..at + 8)) {
        let data_at = at + 8;
        let end = data_at.checked_add(usize::try_from(length).ok()?)?;
        match kind {
            b"eXIf" => {
                exif = bytes.get(data_at..end);
                break;
            }
            b"IDAT" | b"IEND" => break,
            _ => at = end.checked_add(4)?,
        }
    }
    Some((width, height, exif))
}

/// The logical screen's size (what a decoder draws on); GIF has no EXIF.
fn gif(bytes: &[u8]) -> Found<'_> {
    Some((le16(bytes, 6)?, le16(bytes, 8)?, None))
}

/// The frame header's size, an APP1 `Exif` segment kept on the way (`jpeg_frame_segment`).
fn jpeg(bytes: &[u8]) -> Found<'_> {
    let (_, segment, exif) = jpeg_frame_segment(bytes)?;
    let height = u32::from(u16::from_be_bytes([*segment.get(1)?, *segment.get(2)?]));
    let width = u32::from(u16::from_be_bytes([*segment.get(3)?, *segment.get(4)?]));
    Some((width, height, exif))
}

/// A frame header's marker, its segment, and the EXIF block met before it.
pub(super) type JpegFrameSegment<'a> = (u8, &'a [u8], Option<&'a [u8]>);

/// A JPEG's markers walked from SOI to its frame header (SOFn, before any scan): the marker,
/// the segment after its length, and the first APP1 `Exif` segment met on the way (without
/// its `Exif\0\0` prefix); `None` when there is no frame header to read.
pub(super) fn jpeg_frame_segment(bytes: &[u8]) -> Option<JpegFrameSegment<'_>> {
    const EXIF_PREFIX: &[u8] = b"Exif\0\0";
    let mut at = 2;
    let mut exif = None;
    loop {
        // Fill bytes (FF) may precede a marker.
        while bytes.get(at) == Some(&0xff) && bytes.get(at + 1) == Some(&0xff) {
            at += 1;
        }
        if *bytes.get(at)? != 0xff {
            return None;
        }
        let marker = *bytes.get(at + 1)?;
        if matches!(marker, 0x01 | 0xd0..=0xd7) {
            at += 2;
            continue;
        }
        let length = usize::from(u16::from_be_bytes([*bytes.get(at + 2)?, *bytes.get(at + 3)?]));
        let segment = bytes.get(at + 4..at + 2 + length.max(2))?;
        match marker {
            0xe1 if exif.is_none() && segment.starts_with(EXIF_PREFIX) => exif = Some(&segment[EXIF_PREFIX.len()..]),
            // SOF0–SOF15, except DHT (C4), JPG (C8) and DAC (CC).
            0xc0..=0xcf if !matches!(marker, 0xc4 | 0xc8 | 0xcc) => return Some((marker, segment, exif)),
            0xda | 0xd9 => return None,
            _ => {}
        }
        at += 2 + length;
    }
}

/// The RIFF chunks after `WEBP`: VP8X (extended: canvas size, then an `EXIF` chunk may
/// follow), or a single VP8 (lossy) or VP8L (lossless) chunk.
fn webp(bytes: &[u8]) -> Found<'_> {
    let mut at = 12;
    let mut size = None;
    let mut exif = None;
    while let (Some(kind), Some(length)) = (bytes.get(at..at + 4), bytes.get(at + 4..at + 8)) {
        let length = usize::try_from(u32::from_le_bytes(length.try_into().ok()?)).ok()?;
        let data_at = at + 8;
        let data = bytes.get(data_at..data_at.checked_add(length)?);
        match kind {
            b"VP8X" => {
                let data = data?;
                size = Some((le24(data, 4)? + 1, le24(data, 7)? + 1));
            }
            b"VP8 " if size.is_none() => {
                // A frame tag (3 bytes), the start code 9D 01 2A, then 14-bit width and height.
                let data = bytes.get(data_at..)?;
                if data.get(3..6)? != [0x9d, 0x01, 0x2a] {
                    return None;
                }
                return Some((le16(data, 6)? & 0x3fff, le16(data, 8)? & 0x3fff, None));
            }
            b"VP8L" if size.is_none() => {
                // The signature 0x2F, then width − 1 and height − 1 in 14 bits each.
                let data = bytes.get(data_at..)?;
                if *data.first()? != 0x2f {
                    return None;
                }
                let bits = u32::from_le_bytes(data.get(1..5)?.try_into().ok()?);
                return Some(((bits & 0x3fff) + 1, ((bits >> 14) & 0x3fff) + 1, None));
            }
            b"EXIF" => exif = data,
            _ => {}
        }
        // Chunks are padded to an even length.
        at = data_at.checked_add(length)?.checked_add(length % 2)?;
    }
    size.map(|(width, height)| (width, height, exif))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_cut_of_every_header_gives_an_answer_not_a_panic() {
        let png = [&b"\x89PNG\r\n\x1a\n\0\0\0\x0dIHDR\0\0\0\x10\0\0\0\x08\x08\x02\0\0\0"[..], &[0; 4]].concat();
        assert_eq!(inspect(&png).map(|header| (header.width, header.height)), Ok((16, 8)));
        let gif = b"GIF89a\x20\0\x10\0\0\0\0;".to_vec();
        assert_eq!(inspect(&gif).map(|header| (header.width, header.height)), Ok((32, 16)));
        for bytes in [png, gif] {
            for cut in 0..bytes.len() {
                let _ = inspect(&bytes[..cut]);
            }
        }
    }

    #[test]
    fn a_webp_s_size_from_each_kind_of_chunk() {
        let riff = |chunk: &[u8]| [&b"RIFF\0\0\0\0WEBP"[..], chunk].concat();
        // VP8L: 0x2F, then (width − 1) | (height − 1) << 14 = 99 | 49 << 14.
        let bits: u32 = 99 | (49 << 14);
        let vp8l = riff(&[&b"VP8L\x05\0\0\0\x2f"[..], &bits.to_le_bytes(), &[0]].concat());
        assert_eq!(inspect(&vp8l).map(|header| header.upright()), Ok((100, 50)));
        let vp8 =
            riff(&[&b"VP8 \x0a\0\0\0\0\0\0\x9d\x01\x2a"[..], &640u16.to_le_bytes(), &480u16.to_le_bytes()].concat());
        assert_eq!(inspect(&vp8).map(|header| header.upright()), Ok((640, 480)));
        let vp8x = riff(b"VP8X\x0a\0\0\0\x08\0\0\0\xff\x0f\0\xff\x0b\0");
        assert_eq!(inspect(&vp8x).map(|header| header.upright()), Ok((4096, 3072)));
    }
}
