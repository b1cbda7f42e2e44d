//! A decoded picture made into what is sent when the original is over a limit: downscaled,
//! aspect kept, so that width × height ≤ `MAX_SENT_PIXELS` and each side ≤ `MAX_SIDE_PX`,
//! transparency flattened onto white (JPEG has none; black would hide dark text), and encoded
//! as JPEG at the highest of a few qualities whose bytes fit `MAX_BLOCK_BYTES`.

use image::codecs::jpeg::JpegEncoder;
use image::imageops::FilterType;
use image::metadata::Orientation;
use image::{DynamicImage, RgbImage};

use super::{ImageError, MAX_BLOCK_BYTES, MAX_SENT_PIXELS, MAX_SIDE_PX};

/// Qualities tried in turn; 85 keeps small print legible at ≈ 1.15 MP in a few hundred KB,
/// the lower ones exist only for the limit.
const JPEG_QUALITIES: [u8; 5] = [85, 75, 60, 45, 30];

/// The largest size within the limits with the aspect of `width` × `height` (never larger
/// than the original, never a side of 0).
pub(super) fn target_size(width: u32, height: u32) -> (u32, u32) {
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

/// `picture` downscaled to `target_size`, turned upright by `orientation` and encoded as JPEG
/// within `MAX_BLOCK_BYTES`: the bytes, width and height.
pub(super) fn to_jpeg(picture: &DynamicImage, orientation: Orientation) -> Result<(Vec<u8>, u32, u32), ImageError> {
    let (width, height) = target_size(picture.width(), picture.height());
    let mut small = downscale(picture, width, height);
    // Turned after downscaling: the same picture, without a second full-size copy. The
    // target is the same either way round (`target_size` treats both sides alike).
    small.apply_orientation(orientation);
    let (width, height) = (small.width(), small.height());
    let pixels = flatten_onto_white(&small);
    for quality in JPEG_QUALITIES {
        let mut bytes = Vec::new();
        JpegEncoder::new_with_quality(&mut bytes, quality)
            .encode_image(&pixels)
            .map_err(|error| ImageError::Unreadable(format!("it could not be re-encoded: {error}")))?;
        if bytes.len() <= MAX_BLOCK_BYTES {
            return Ok((bytes, width, height));
        }
    }
    Err(ImageError::Unreadable("it could not be made small enough for Bedrock".into()))
}

/// Resampling with a triangle (bilinear) filter widened to the scale, which averages every
/// source pixel; a picture many times larger is first reduced by area averaging
/// (`thumbnail`), so the filter's floating-point buffers stay the size of the result.
fn downscale(picture: &DynamicImage, width: u32, height: u32) -> DynamicImage {
    if (width, height) == (picture.width(), picture.height()) {
        return picture.clone();
    }
    let far_larger = picture.width() > width.saturating_mul(4) || picture.height() > height.saturating_mul(4);
    let reduced;
    let source = if far_larger {
        reduced = picture.thumbnail_exact(width.saturating_mul(2), height.saturating_mul(2));
        &reduced
    } else {
        picture
    };
    source.resize_exact(width, height, FilterType::Triangle)
}

/// RGB with any transparency composited over white.
fn flatten_onto_white(picture: &DynamicImage) -> RgbImage {
    if !picture.color().has_alpha() {
        return picture.to_rgb8();
    }
    let rgba = picture.to_rgba8();
    RgbImage::from_fn(rgba.width(), rgba.height(), |x, y| {
        let [r, g, b, a] = rgba.get_pixel(x, y).0;
        let over_white = |channel: u8| {
            let alpha = u16::from(a);
            ((u16::from(channel) * alpha + 255 * (255 - alpha) + 127) / 255) as u8
        };
        image::Rgb([over_white(r), over_white(g), over_white(b)])
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_target_keeps_the_aspect_within_every_limit() {
        for (width, height) in
            [(4_000, 3_000), (3_000, 4_000), (1_000, 1_000), (50_000, 10), (10, 50_000), (1, 1), (7_999, 1)]
        {
            let (new_width, new_height) = target_size(width, height);
            assert!(u64::from(new_width) * u64::from(new_height) <= MAX_SENT_PIXELS, "{width}×{height}");
            assert!(new_width <= MAX_SIDE_PX && new_height <= MAX_SIDE_PX);
            assert!(new_width >= 1 && new_height >= 1 && new_width <= width && new_height <= height);
            let (before, after) = (f64::from(width) / f64::from(height), f64::from(new_width) / f64::from(new_height));
            if new_width > 100 && new_height > 100 {
                assert!((before - after).abs() / before < 0.01, "{width}×{height} → {new_width}×{new_height}");
            }
        }
        let (w, h) = target_size(4_000, 3_000);
        assert!(u64::from(w) * u64::from(h) > MAX_SENT_PIXELS * 99 / 100, "as large as allowed: {w}×{h}");
        assert_eq!(target_size(1_000, 1_000), (1_000, 1_000), "within the limits: unchanged");
    }

    #[test]
    fn transparency_becomes_white() {
        let clear = DynamicImage::ImageRgba8(image::RgbaImage::from_pixel(2, 2, image::Rgba([0, 0, 0, 0])));
        assert_eq!(flatten_onto_white(&clear).get_pixel(0, 0).0, [255, 255, 255]);
        let half = DynamicImage::ImageRgba8(image::RgbaImage::from_pixel(1, 1, image::Rgba([0, 0, 0, 128])));
        assert_eq!(flatten_onto_white(&half).get_pixel(0, 0).0, [127, 127, 127]);
    }
}
