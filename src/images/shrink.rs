//! A picture decoded natively made into what `ImageRender` asks (`NativeRenderer`): downscaled
//! to its size, turned upright, transparency flattened onto white (JPEG has none; black would
//! hide dark text), and encoded as JPEG at the first of its qualities whose bytes fit.

use image::codecs::jpeg::JpegEncoder;
use image::imageops::FilterType;
use image::metadata::Orientation;
use image::{DynamicImage, RgbImage};

use super::{ImageError, ImageRender, RenderedImage};

/// `picture` downscaled, turned upright by `orientation` and encoded as JPEG as `request` asks.
pub(super) fn to_jpeg(
    picture: &DynamicImage,
    orientation: Orientation,
    request: &ImageRender,
) -> Result<RenderedImage, ImageError> {
    // The size asked is upright: a quarter-turned picture is downscaled with its sides swapped.
    let turned = matches!(
        orientation,
        Orientation::Rotate90 | Orientation::Rotate270 | Orientation::Rotate90FlipH | Orientation::Rotate270FlipH
    );
    let (width, height) = if turned { (request.height, request.width) } else { (request.width, request.height) };
    let mut small = downscale(picture, width.clamp(1, picture.width()), height.clamp(1, picture.height()));
    // Turned after downscaling: the same picture, without a second full-size copy.
    small.apply_orientation(orientation);
    let (width, height) = (small.width(), small.height());
    let pixels = flatten_onto_white(&small);
    for &quality in &request.jpeg_qualities {
        let mut bytes = Vec::new();
        JpegEncoder::new_with_quality(&mut bytes, quality)
            .encode_image(&pixels)
            .map_err(|error| ImageError::Unreadable(format!("it could not be re-encoded: {error}")))?;
        if bytes.len() <= request.max_bytes {
            return Ok(RenderedImage { width, height, bytes });
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
    fn transparency_becomes_white() {
        let clear = DynamicImage::ImageRgba8(image::RgbaImage::from_pixel(2, 2, image::Rgba([0, 0, 0, 0])));
        assert_eq!(flatten_onto_white(&clear).get_pixel(0, 0).0, [255, 255, 255]);
        let half = DynamicImage::ImageRgba8(image::RgbaImage::from_pixel(1, 1, image::Rgba([0, 0, 0, 128])));
        assert_eq!(flatten_onto_white(&half).get_pixel(0, 0).0, [127, 127, 127]);
    }
}
