//! Images as the model may see them: the format told by the file's first bytes, the size read
//! from its header, and the picture downscaled to what Bedrock takes and what is worth paying
//! for (`MAX_SENT_PIXELS`), with the day it was taken (EXIF) when the file says.
//!
//! Pure and total: any bytes give a `PreparedImage` or an `ImageError`, never a panic.
//! (Skeleton for issue 25: the parts are filled in by the images work.)

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
    #[error("it is not a PNG, JPEG, GIF or WebP image, the formats Bedrock takes")]
    UnsupportedFormat,
}

/// About what an image of `width` × `height` costs in input tokens: Anthropic's rule of thumb,
/// (width × height) / 750.
pub fn image_tokens(width: u32, height: u32) -> u64 {
    (u64::from(width) * u64::from(height)).div_ceil(750)
}

/// The image in `bytes` prepared for the model: the original when it is within every limit,
/// else decoded and downscaled (never the original bytes when they exceed a limit).
pub fn prepare(bytes: &[u8]) -> Result<PreparedImage, ImageError> {
    let _ = bytes;
    Err(ImageError::Unreadable("images are not prepared yet".into()))
}
