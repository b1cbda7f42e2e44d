//! Images as the model may see them: the format told by the file's first bytes, the size read
//! from its header, and the picture downscaled to what Bedrock takes and what is worth paying
//! for (`MAX_SENT_PIXELS`), with the day it was taken (EXIF) when the file says.
//!
//! Pure and total: any bytes give a `PreparedImage` or an `ImageError`, never a panic.
//! The format comes from `sniff`, the day from `exif`, the downscaled copy from `shrink`;
//! pixels are decoded by the `image` crate (PNG, JPEG via zune-jpeg, GIF, WebP) within
//! `image::Limits`, and only once the header shows that the pixels, a progressive JPEG's
//! coefficients (which zune-jpeg keeps outside those limits) and the downscaling fit in
//! `MAX_PREPARE_BYTES` (`check_memory`; measured in `tests/image_memory.rs`).

mod exif;
mod shrink;
mod sniff;
#[cfg(test)]
mod tests;

use std::io::Cursor;

use image::metadata::Orientation;
use image::{DynamicImage, ImageDecoder, ImageReader, Limits};

use crate::calendar::CalendarDate;

/// What a prepared image may hold, at most: about 1.15 megapixels, where Anthropic's
/// guidance says Claude sees as well as at any size and which costs ≈ 1,600 tokens.
pub const MAX_SENT_PIXELS: u64 = 1_150_000;
/// Bedrock's limits on an `image` block (Converse API reference, ImageBlock): each side at
/// most 8,000 px, the bytes at most 3.75 MB.
pub const MAX_SIDE_PX: u32 = 8_000;
pub const MAX_BLOCK_BYTES: usize = 3_750_000;
/// An image larger than this is not decoded (its pixels alone would take 200 MB).
pub const MAX_DECODED_PIXELS: u64 = 50_000_000;
/// What a decoder may allocate: the largest image allowed at 4 bytes a pixel and some room
/// for the decoder's own buffers (a 16-bit image that large is refused as too large).
const DECODE_ALLOC_LIMIT: u64 = MAX_DECODED_PIXELS * 4 + 32 * 1024 * 1024;
/// What preparing an image may take in all, told from its header before anything is decoded
/// (WebAssembly's memory never shrinks: a peak stays the worker's size until it restarts).
pub const MAX_PREPARE_BYTES: u64 = DECODE_ALLOC_LIMIT;
/// Besides its pixels (and a progressive JPEG's coefficients), what decoding and downscaling
/// take: the decoders' buffers, the reduced copy and the resampling's floating-point rows
/// (measured at up to 60 MB for 40–49 MP pictures in `tests/image_memory.rs`, rounded up).
const PREPARE_WORKING_BYTES: u64 = 64 * 1024 * 1024;

/// The image formats Bedrock's `image` block takes (`ImageFormat` in botocore's
/// `bedrock-runtime` service definition: png, jpeg, gif, webp).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ImageFormat {
    Png,
    Jpeg,
    Gif,
    Webp,
}

impl ImageFormat {
    /// The name Bedrock's `format` field takes.
    pub fn as_str(self) -> &'static str {
        match self {
            ImageFormat::Png => "png",
            ImageFormat::Jpeg => "jpeg",
            ImageFormat::Gif => "gif",
            ImageFormat::Webp => "webp",
        }
    }

    pub fn parse(name: &str) -> Option<Self> {
        match name {
            "png" => Some(ImageFormat::Png),
            "jpeg" | "jpg" => Some(ImageFormat::Jpeg),
            "gif" => Some(ImageFormat::Gif),
            "webp" => Some(ImageFormat::Webp),
            _ => None,
        }
    }
}

/// An image ready for an `image` block: within every limit above.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PreparedImage {
    pub format: ImageFormat,
    pub bytes: Vec<u8>,
    pub width: u32,
    pub height: u32,
    /// The file's own size, before any downscaling.
    pub original_width: u32,
    pub original_height: u32,
    /// The day it was taken, from EXIF (`DateTimeOriginal`, else `DateTime`), when present.
    pub taken: Option<CalendarDate>,
}

/// Why an image cannot be sent, in words for the status view.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ImageError {
    #[error("the image could not be read ({0})")]
    Unreadable(String),
    #[error("the image is {width} × {height} pixels, too large to downscale on this device (at most 50 megapixels)")]
    TooManyPixels { width: u32, height: u32 },
    /// Within the pixel limit, but its kind (4 channels, 16 bits, progressive JPEG) would
    /// take more memory to decode than `MAX_PREPARE_BYTES`.
    #[error("the image is {width} × {height} pixels{kind}: decoding it would take about {megabytes} MB, more than the {limit} MB an image may take on this device")]
    TooMuchMemory { width: u32, height: u32, kind: &'static str, megabytes: u64, limit: u64 },
    #[error("it is not a PNG, JPEG, GIF or WebP image, the formats Bedrock takes")]
    UnsupportedFormat,
}

/// About what an image of `width` × `height` costs in input tokens: Anthropic's rule of thumb,
/// (width × height) / 750.
pub fn image_tokens(width: u32, height: u32) -> u64 {
    (u64::from(width) * u64::from(height)).div_ceil(750)
}

/// The image in `bytes` prepared for the model: the original when it is within every limit,
/// else decoded and downscaled (never the original bytes when they exceed a limit). The
/// original is decoded either way, so a broken file is refused here, not by Bedrock.
pub fn prepare(bytes: &[u8]) -> Result<PreparedImage, ImageError> {
    if bytes.is_empty() {
        return Err(ImageError::Unreadable("the file is empty".into()));
    }
    let format = sniff::format_of(bytes).ok_or(ImageError::UnsupportedFormat)?;
    let mut decoder = header(bytes, format)?;
    let (width, height) = decoder.dimensions();
    if width == 0 || height == 0 {
        return Err(ImageError::Unreadable("it has no pixels".into()));
    }
    if u64::from(width) * u64::from(height) > MAX_DECODED_PIXELS {
        return Err(ImageError::TooManyPixels { width, height });
    }
    check_memory(bytes, format, &decoder, width, height)?;
    // A broken EXIF block is no date and no rotation, not an unreadable picture.
    let exif = decoder.exif_metadata().ok().flatten();
    let taken = exif.as_deref().and_then(exif::taken);
    let orientation = exif.as_deref().and_then(Orientation::from_exif_chunk).unwrap_or(Orientation::NoTransforms);
    let picture = DynamicImage::from_decoder(decoder).map_err(|error| decode_error(error, width, height))?;
    if orientation == Orientation::NoTransforms && within_limits(width, height, bytes.len()) {
        return Ok(PreparedImage {
            format,
            bytes: bytes.to_vec(),
            width,
            height,
            original_width: width,
            original_height: height,
            taken,
        });
    }
    // Bedrock is not said to turn a picture by its EXIF orientation: it is sent upright.
    let (jpeg, sent_width, sent_height) = shrink::to_jpeg(&picture, orientation)?;
    debug_assert!(
        within_limits(sent_width, sent_height, jpeg.len()),
        "{sent_width}×{sent_height}, {} bytes",
        jpeg.len()
    );
    Ok(PreparedImage {
        format: ImageFormat::Jpeg,
        bytes: jpeg,
        width: sent_width,
        height: sent_height,
        original_width: width,
        original_height: height,
        taken,
    })
}

/// The width and height `bytes` declare in their header (nothing decoded), for the token
/// estimate of an image already prepared; `None` when they are not an image Bedrock takes.
pub fn dimensions(bytes: &[u8]) -> Option<(u32, u32)> {
    let format = sniff::format_of(bytes)?;
    header(bytes, format).ok().map(|decoder| decoder.dimensions())
}

/// Refuses, before decoding, a picture whose pixels (at the decoder's bytes per pixel), a
/// progressive JPEG's coefficients and the working buffers would pass `MAX_PREPARE_BYTES`.
fn check_memory(
    bytes: &[u8],
    format: ImageFormat,
    decoder: &impl ImageDecoder,
    width: u32,
    height: u32,
) -> Result<(), ImageError> {
    let pixels = u64::from(width) * u64::from(height) * u64::from(decoder.color_type().bytes_per_pixel());
    let frame = if format == ImageFormat::Jpeg { sniff::jpeg_frame(bytes) } else { None };
    let coefficients = frame.as_ref().map_or(0, |frame| frame.coefficient_bytes(width, height));
    let needed = pixels + coefficients + PREPARE_WORKING_BYTES;
    if needed <= MAX_PREPARE_BYTES {
        return Ok(());
    }
    let kind = if coefficients > 0 { " (a progressive JPEG)" } else { "" };
    let megabytes = |bytes: u64| bytes.div_ceil(1_000_000);
    Err(ImageError::TooMuchMemory {
        width,
        height,
        kind,
        megabytes: megabytes(needed),
        limit: megabytes(MAX_PREPARE_BYTES),
    })
}

/// Whether an image of this size may be sent as it is.
fn within_limits(width: u32, height: u32, byte_count: usize) -> bool {
    u64::from(width) * u64::from(height) <= MAX_SENT_PIXELS
        && width <= MAX_SIDE_PX
        && height <= MAX_SIDE_PX
        && byte_count <= MAX_BLOCK_BYTES
}

/// A decoder for `bytes` that has read the header only, with the allocation limit set.
fn header(bytes: &[u8], format: ImageFormat) -> Result<impl ImageDecoder + '_, ImageError> {
    let mut reader = ImageReader::with_format(Cursor::new(bytes), format.codec());
    let mut limits = Limits::default();
    limits.max_alloc = Some(DECODE_ALLOC_LIMIT);
    reader.limits(limits);
    reader.into_decoder().map_err(|error| decode_error(error, 0, 0))
}

/// A decoder's error in the status view's words; an allocation over the limit is the
/// picture being too large.
fn decode_error(error: image::ImageError, width: u32, height: u32) -> ImageError {
    match error {
        image::ImageError::Limits(_) if width > 0 => ImageError::TooManyPixels { width, height },
        image::ImageError::Limits(_) => ImageError::Unreadable("its header asks for more memory than allowed".into()),
        other => ImageError::Unreadable(other.to_string()),
    }
}

impl ImageFormat {
    fn codec(self) -> image::ImageFormat {
        match self {
            ImageFormat::Png => image::ImageFormat::Png,
            ImageFormat::Jpeg => image::ImageFormat::Jpeg,
            ImageFormat::Gif => image::ImageFormat::Gif,
            ImageFormat::Webp => image::ImageFormat::WebP,
        }
    }
}
