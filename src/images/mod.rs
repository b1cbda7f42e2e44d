//! Images as the model may see them: the format told by the file's first bytes, the size and
//! the EXIF block read from its header (`header`), and the picture downscaled to what Bedrock
//! takes and what is worth paying for (`MAX_SENT_PIXELS`), with the day it was taken.
//!
//! The core decides; the host decodes. Decoding and downscaling are the host's
//! (`ImageRenderer`): in the plugin the platform's own decoders (`createImageBitmap` and a
//! canvas, which Obsidian's Chromium and the phones' WebViews carry anyway: the `image` crate's
//! decoders made up 18% of the core's code), natively the `image` crate (`NativeRenderer`,
//! within `MAX_PREPARE_BYTES`, measured in `tests/image_memory.rs`). Pure and total on this
//! side: any bytes give a `PreparedImage` or an `ImageError`, never a panic.

mod exif;
mod header;
#[cfg(not(target_arch = "wasm32"))]
mod native;
#[cfg(not(target_arch = "wasm32"))]
mod shrink;
mod sniff;
#[cfg(test)]
mod tests;

use std::future::Future;

use serde::Serialize;

use crate::calendar::CalendarDate;

pub use header::{inspect, ImageHeader};
#[cfg(not(target_arch = "wasm32"))]
pub use native::{prepare_natively, NativeRenderer};

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
#[cfg_attr(target_arch = "wasm32", allow(dead_code))]
const DECODE_ALLOC_LIMIT: u64 = MAX_DECODED_PIXELS * 4 + 32 * 1024 * 1024;
/// What preparing an image may take in all, told from its header before anything is decoded
/// (WebAssembly's memory never shrinks: a peak stays the worker's size until it restarts).
pub const MAX_PREPARE_BYTES: u64 = DECODE_ALLOC_LIMIT;
/// Besides its pixels (and a progressive JPEG's coefficients), what decoding and downscaling
/// take: the decoders' buffers, the reduced copy and the resampling's floating-point rows
/// (measured at up to 60 MB for 40–49 MP pictures in `tests/image_memory.rs`, rounded up).
#[cfg_attr(target_arch = "wasm32", allow(dead_code))]
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
    /// The host could not decode pictures at all just now (no canvas, out of memory): no
    /// fault of the file's, so the job is tried again rather than the image skipped.
    #[error("this device could not decode pictures just now ({0})")]
    HostFailed(String),
}

impl ImageError {
    /// Whether the file itself is at fault (skipped until it changes), not the host.
    pub fn is_the_file_s(&self) -> bool {
        !matches!(self, ImageError::HostFailed(_))
    }
}

/// About what an image of `width` × `height` costs in input tokens: Anthropic's rule of thumb,
/// (width × height) / 750.
pub fn image_tokens(width: u32, height: u32) -> u64 {
    (u64::from(width) * u64::from(height)).div_ceil(750)
}

/// Qualities a re-encoded picture tries in turn; 85 keeps small print legible at ≈ 1.15 MP in
/// a few hundred KB, the lower ones exist only for the byte limit.
pub const JPEG_QUALITIES: [u8; 5] = [85, 75, 60, 45, 30];

/// What the core asks a host to do with an image's bytes.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ImageRender {
    /// The size to draw the picture at, as seen upright (ignored when only checking).
    pub width: u32,
    pub height: u32,
    /// The stored picture's EXIF orientation (1–8): the host draws it upright.
    pub orientation: u8,
    /// JPEG qualities (1–100) to encode with in turn until the bytes fit `max_bytes`, on white
    /// where the picture is transparent (JPEG has none; black would hide dark text). Empty:
    /// decode every pixel only, to tell that the file can be read.
    pub jpeg_qualities: Vec<u8>,
    pub max_bytes: usize,
}

/// What the host made: the decoded picture's size (upright) and, when asked, its JPEG.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RenderedImage {
    pub width: u32,
    pub height: u32,
    pub bytes: Vec<u8>,
}

/// Decodes pictures: the platform's decoders in the plugin, the `image` crate natively.
pub trait ImageRenderer {
    /// Decodes `bytes` and does what `request` asks; a picture it cannot decode is
    /// `ImageError::Unreadable` with the decoder's words, a host that cannot decode at all
    /// `ImageError::HostFailed`.
    fn render_image(
        &self,
        bytes: &[u8],
        request: &ImageRender,
    ) -> impl Future<Output = Result<RenderedImage, ImageError>>;
}

/// The image in `bytes` prepared for the model: the original when it is within every limit
/// and upright, else drawn upright at `target_size` and encoded as JPEG by `renderer` (never
/// the original bytes when they exceed a limit). The original is decoded either way, so a
/// broken file is refused here, not by Bedrock.
pub async fn prepare<R: ImageRenderer + ?Sized>(renderer: &R, bytes: &[u8]) -> Result<PreparedImage, ImageError> {
    let header = inspect(bytes)?;
    let (width, height) = (header.width, header.height);
    if u64::from(width) * u64::from(height) > MAX_DECODED_PIXELS {
        return Err(ImageError::TooManyPixels { width, height });
    }
    let original = |bytes: Vec<u8>, format, (sent_width, sent_height)| PreparedImage {
        format,
        bytes,
        width: sent_width,
        height: sent_height,
        original_width: width,
        original_height: height,
        taken: header.taken,
    };
    if header.orientation == 1 && within_limits(width, height, bytes.len()) {
        let check = ImageRender { width, height, orientation: 1, jpeg_qualities: Vec::new(), max_bytes: bytes.len() };
        renderer.render_image(bytes, &check).await?;
        return Ok(original(bytes.to_vec(), header.format, (width, height)));
    }
    // Bedrock is not said to turn a picture by its EXIF orientation: it is sent upright.
    let (upright_width, upright_height) = header.upright();
    let target = target_size(upright_width, upright_height);
    let request = ImageRender {
        width: target.0,
        height: target.1,
        orientation: header.orientation,
        jpeg_qualities: JPEG_QUALITIES.to_vec(),
        max_bytes: MAX_BLOCK_BYTES,
    };
    let rendered = renderer.render_image(bytes, &request).await?;
    if (rendered.width, rendered.height) != target {
        return Err(ImageError::Unreadable(format!(
            "it was drawn at {} × {} pixels instead of {} × {}",
            rendered.width, rendered.height, target.0, target.1
        )));
    }
    if rendered.bytes.len() > MAX_BLOCK_BYTES {
        return Err(ImageError::Unreadable("it could not be made small enough for Bedrock".into()));
    }
    if sniff::format_of(&rendered.bytes) != Some(ImageFormat::Jpeg) {
        return Err(ImageError::Unreadable("it could not be re-encoded as JPEG".into()));
    }
    debug_assert!(within_limits(target.0, target.1, rendered.bytes.len()));
    Ok(original(rendered.bytes, ImageFormat::Jpeg, target))
}

/// The width and height `bytes` declare in their header (nothing decoded), for the token
/// estimate of an image already prepared; `None` when they are not an image Bedrock takes.
pub fn dimensions(bytes: &[u8]) -> Option<(u32, u32)> {
    inspect(bytes).ok().map(|header| (header.width, header.height))
}

/// Whether an image of this size may be sent as it is.
fn within_limits(width: u32, height: u32, byte_count: usize) -> bool {
    u64::from(width) * u64::from(height) <= MAX_SENT_PIXELS
        && width <= MAX_SIDE_PX
        && height <= MAX_SIDE_PX
        && byte_count <= MAX_BLOCK_BYTES
}

/// The largest size within the limits with the aspect of `width` × `height` (never larger
/// than the original, never a side of 0).
pub fn target_size(width: u32, height: u32) -> (u32, u32) {
    let (width, height) = (width.max(1), height.max(1));
    let pixels = u64::from(width) * u64::from(height);
    let by_pixels = if pixels > MAX_SENT_PIXELS { (MAX_SENT_PIXELS as f64 / pixels as f64).sqrt() } else { 1.0 };
    let by_side = f64::from(MAX_SIDE_PX) / f64::from(width.max(height));
    let scale = by_pixels.min(by_side).min(1.0);
    let side = |length: u32| ((f64::from(length) * scale).floor() as u32).clamp(1, length);
    let (mut new_width, mut new_height) = (side(width), side(height));
    // Floating point may land a pixel over: take it off the longer side.
    while u64::from(new_width) * u64::from(new_height) > MAX_SENT_PIXELS {
        if new_width >= new_height {
            new_width -= 1;
        } else {
            new_height -= 1;
        }
    }
    debug_assert!(new_width <= MAX_SIDE_PX && new_height <= MAX_SIDE_PX);
    (new_width, new_height)
}
