//! The `image` crate as the renderer where there is no platform to decode with: the native
//! command and the native tests (PNG, JPEG via zune-jpeg, GIF, WebP within `image::Limits`).
//! A picture is decoded only once its header shows that the pixels, a progressive JPEG's
//! coefficients (which zune-jpeg keeps outside those limits) and the downscaling fit in
//! `MAX_PREPARE_BYTES` (`check_memory`; measured in `tests/image_memory.rs`).

use std::io::Cursor;

use futures_util::FutureExt;
use image::metadata::Orientation;
use image::{DynamicImage, ImageDecoder, ImageReader, Limits};

use super::{
    prepare, shrink, sniff, ImageError, ImageFormat, ImageRender, ImageRenderer, PreparedImage, RenderedImage,
    DECODE_ALLOC_LIMIT, MAX_DECODED_PIXELS, MAX_PREPARE_BYTES, PREPARE_WORKING_BYTES,
};

/// Decodes with the `image` crate, in the calling thread (its future is ready at once).
#[derive(Debug, Clone, Copy, Default)]
pub struct NativeRenderer;

impl ImageRenderer for NativeRenderer {
    async fn render_image(&self, bytes: &[u8], request: &ImageRender) -> Result<RenderedImage, ImageError> {
        render(bytes, request)
    }
}

/// `prepare` with the native renderer, which never waits.
pub fn prepare_natively(bytes: &[u8]) -> Result<PreparedImage, ImageError> {
    prepare(&NativeRenderer, bytes).now_or_never().expect("the native renderer's future is ready at once")
}

fn render(bytes: &[u8], request: &ImageRender) -> Result<RenderedImage, ImageError> {
    let format = sniff::format_of(bytes).ok_or(ImageError::UnsupportedFormat)?;
    let decoder = header(bytes, format)?;
    let (width, height) = decoder.dimensions();
    if u64::from(width) * u64::from(height) > MAX_DECODED_PIXELS {
        return Err(ImageError::TooManyPixels { width, height });
    }
    check_memory(bytes, format, &decoder, width, height)?;
    let picture = DynamicImage::from_decoder(decoder).map_err(|error| decode_error(error, width, height))?;
    if request.jpeg_qualities.is_empty() {
        return Ok(RenderedImage { width, height, bytes: Vec::new() });
    }
    let orientation = Orientation::from_exif(request.orientation).unwrap_or(Orientation::NoTransforms);
    shrink::to_jpeg(&picture, orientation, request)
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
