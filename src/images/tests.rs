//! `prepare` on images made here with the `image` crate's encoders (no binary fixtures).

use image::codecs::gif::GifEncoder;
use image::codecs::jpeg::JpegEncoder;
use image::codecs::png::PngEncoder;
use image::codecs::webp::WebPEncoder;
use image::{ExtendedColorType, ImageEncoder, Rgb, RgbImage, Rgba, RgbaImage};

use super::exif::tests::exif_block;
use super::*;

/// A picture with some detail (so JPEG sizes are realistic, not a flat colour).
fn pattern(width: u32, height: u32) -> RgbImage {
    RgbImage::from_fn(width, height, |x, y| Rgb([(x % 251) as u8, (y % 241) as u8, ((x / 7 + y / 5) % 256) as u8]))
}

fn jpeg(width: u32, height: u32) -> Vec<u8> {
    let mut out = Vec::new();
    JpegEncoder::new_with_quality(&mut out, 90).encode_image(&pattern(width, height)).unwrap();
    out
}

fn png(width: u32, height: u32) -> Vec<u8> {
    let mut out = Vec::new();
    PngEncoder::new(&mut out)
        .write_image(pattern(width, height).as_raw(), width, height, ExtendedColorType::Rgb8)
        .unwrap();
    out
}

fn gif(width: u32, height: u32) -> Vec<u8> {
    let mut out = Vec::new();
    let frame = RgbaImage::from_fn(width, height, |x, y| Rgba([(x * 40) as u8, (y * 40) as u8, 0, 255]));
    GifEncoder::new(&mut out).encode(frame.as_raw(), width, height, ExtendedColorType::Rgba8).unwrap();
    out
}

fn webp(width: u32, height: u32) -> Vec<u8> {
    let mut out = Vec::new();
    WebPEncoder::new_lossless(&mut out)
        .write_image(pattern(width, height).as_raw(), width, height, ExtendedColorType::Rgb8)
        .unwrap();
    out
}

/// `jpeg` with an APP1 EXIF segment right after SOI.
fn with_exif(jpeg: &[u8], exif: &[u8]) -> Vec<u8> {
    let length = u16::try_from(2 + 6 + exif.len()).unwrap();
    [&jpeg[..2], &[0xff, 0xe1], &length.to_be_bytes(), b"Exif\0\0", exif, &jpeg[2..]].concat()
}

#[test]
fn a_large_photo_is_downscaled_to_a_jpeg_within_every_limit_with_its_aspect() {
    let prepared = prepare_natively(&jpeg(4_000, 3_000)).unwrap();
    assert_eq!(prepared.format, ImageFormat::Jpeg);
    assert_eq!((prepared.original_width, prepared.original_height), (4_000, 3_000));
    assert!(u64::from(prepared.width) * u64::from(prepared.height) <= MAX_SENT_PIXELS);
    assert!(prepared.bytes.len() <= MAX_BLOCK_BYTES);
    let aspect = f64::from(prepared.width) / f64::from(prepared.height);
    assert!((aspect - 4.0 / 3.0).abs() < 0.01, "{}×{}", prepared.width, prepared.height);
    assert_eq!(dimensions(&prepared.bytes), Some((prepared.width, prepared.height)), "the bytes say the size");
}

#[test]
fn a_small_image_of_each_format_passes_through_byte_identical() {
    for (format, bytes) in [
        (ImageFormat::Png, png(64, 48)),
        (ImageFormat::Jpeg, jpeg(64, 48)),
        (ImageFormat::Gif, gif(6, 4)),
        (ImageFormat::Webp, webp(64, 48)),
    ] {
        let prepared = prepare_natively(&bytes).unwrap();
        assert_eq!(prepared.format, format);
        assert_eq!(prepared.bytes, bytes, "{format:?} sent as it is");
        assert_eq!((prepared.width, prepared.height), (prepared.original_width, prepared.original_height));
        assert_eq!(prepared.taken, None);
    }
}

#[test]
fn a_png_over_the_pixel_limit_becomes_a_jpeg_and_transparency_turns_white() {
    let (width, height) = (1_600, 1_000);
    let clear = RgbaImage::from_pixel(width, height, Rgba([0, 0, 0, 0]));
    let mut bytes = Vec::new();
    PngEncoder::new(&mut bytes).write_image(clear.as_raw(), width, height, ExtendedColorType::Rgba8).unwrap();
    let prepared = prepare_natively(&bytes).unwrap();
    assert_eq!(prepared.format, ImageFormat::Jpeg);
    let decoded = image::load_from_memory(&prepared.bytes).unwrap().to_rgb8();
    assert!(decoded.get_pixel(10, 10).0.iter().all(|&channel| channel > 245), "{:?}", decoded.get_pixel(10, 10));
}

#[test]
fn the_format_comes_from_the_bytes_not_the_name() {
    // A PNG saved as `photo.jpg`: `prepare` never sees the name, only the bytes.
    assert_eq!(prepare_natively(&png(8, 8)).unwrap().format, ImageFormat::Png);
    assert_eq!(prepare_natively(b"BM\x36\0\0\0\0\0\0\0\x36\0\0\0"), Err(ImageError::UnsupportedFormat));
    assert_eq!(prepare_natively(b"%PDF-1.7\n"), Err(ImageError::UnsupportedFormat));
}

#[test]
fn an_empty_file_and_a_broken_png_are_unreadable() {
    assert_eq!(prepare_natively(&[]), Err(ImageError::Unreadable("the file is empty".into())));
    let mut broken = png(32, 32);
    let idat = broken.windows(4).position(|window| window == b"IDAT").unwrap();
    for byte in &mut broken[idat + 4..idat + 40] {
        *byte ^= 0x5a;
    }
    assert!(matches!(prepare_natively(&broken), Err(ImageError::Unreadable(_))), "{:?}", prepare_natively(&broken));
}

#[test]
fn a_header_claiming_too_many_pixels_is_refused_before_decoding() {
    // A PNG signature and an IHDR of 60000 × 60000 (its CRC right), then nothing: the check
    // reads the header only, so no 14 GB buffer is ever asked for.
    let mut ihdr = b"IHDR".to_vec();
    ihdr.extend(60_000u32.to_be_bytes());
    ihdr.extend(60_000u32.to_be_bytes());
    ihdr.extend([8, 2, 0, 0, 0]);
    let idat = b"IDAT\x78\x9c".to_vec();
    let bytes = [
        &b"\x89PNG\r\n\x1a\n"[..],
        &13u32.to_be_bytes(),
        &ihdr,
        &crc32(&ihdr).to_be_bytes(),
        &2u32.to_be_bytes(),
        &idat,
        &crc32(&idat).to_be_bytes(),
    ]
    .concat();
    assert_eq!(prepare_natively(&bytes), Err(ImageError::TooManyPixels { width: 60_000, height: 60_000 }));
    // A JPEG whose frame header says 60000 × 60000.
    let mut big = jpeg(16, 16);
    let sof = big.windows(2).position(|pair| pair == [0xff, 0xc0]).unwrap();
    big[sof + 5..sof + 7].copy_from_slice(&60_000u16.to_be_bytes());
    big[sof + 7..sof + 9].copy_from_slice(&60_000u16.to_be_bytes());
    assert_eq!(prepare_natively(&big), Err(ImageError::TooManyPixels { width: 60_000, height: 60_000 }));
}

#[test]
fn a_jpeg_says_the_day_it_was_taken() {
    let exif = exif_block(false, "2024:01:02 10:00:00", Some("2023:07:14 18:30:05"));
    let small = prepare_natively(&with_exif(&jpeg(40, 30), &exif)).unwrap();
    assert_eq!(small.taken, CalendarDate::new(2023, 7, 14));
    let large = prepare_natively(&with_exif(&jpeg(1_600, 1_200), &exif)).unwrap();
    assert_eq!((large.taken, large.format), (CalendarDate::new(2023, 7, 14), ImageFormat::Jpeg));
}

#[test]
fn a_png_or_webp_with_exif_says_the_day_too() {
    let exif = exif_block(true, "2021:05:06 07:08:09", None);
    let image = pattern(8, 8);
    let mut png_bytes = Vec::new();
    let mut encoder = PngEncoder::new(&mut png_bytes);
    encoder.set_exif_metadata(exif.clone()).unwrap();
    encoder.write_image(image.as_raw(), 8, 8, ExtendedColorType::Rgb8).unwrap();
    assert_eq!(prepare_natively(&png_bytes).unwrap().taken, CalendarDate::new(2021, 5, 6));
    let mut webp_bytes = Vec::new();
    let mut encoder = WebPEncoder::new_lossless(&mut webp_bytes);
    encoder.set_exif_metadata(exif).unwrap();
    encoder.write_image(image.as_raw(), 8, 8, ExtendedColorType::Rgb8).unwrap();
    assert_eq!(prepare_natively(&webp_bytes).unwrap().taken, CalendarDate::new(2021, 5, 6));
}

/// An EXIF block whose only entry is the orientation (tag 0x0112, SHORT, inline).
fn orientation_block(orientation: u16) -> Vec<u8> {
    let mut out = b"II\x2a\0".to_vec();
    out.extend(8u32.to_le_bytes());
    out.extend(1u16.to_le_bytes());
    out.extend(0x0112u16.to_le_bytes());
    out.extend(3u16.to_le_bytes());
    out.extend(1u32.to_le_bytes());
    out.extend(u32::from(orientation).to_le_bytes());
    out.extend(0u32.to_le_bytes());
    out
}

#[test]
fn a_photo_taken_sideways_is_sent_upright() {
    // Orientation 6: the stored pixels must be turned 90° clockwise to be seen upright.
    let prepared = prepare_natively(&with_exif(&jpeg(40, 20), &orientation_block(6))).unwrap();
    assert_eq!(prepared.format, ImageFormat::Jpeg, "re-encoded, not sent for Bedrock to misread");
    assert_eq!((prepared.width, prepared.height), (20, 40));
    assert_eq!((prepared.original_width, prepared.original_height), (40, 20));
    let upright = prepare_natively(&with_exif(&jpeg(40, 20), &orientation_block(1))).unwrap();
    assert_eq!((upright.format, upright.width, upright.height), (ImageFormat::Jpeg, 40, 20), "as it is");
}

#[test]
fn truncations_and_byte_flips_never_panic() {
    let exif = exif_block(true, "2024:01:02 10:00:00", Some("2023:07:14 18:30:05"));
    for fixture in [png(24, 16), jpeg(24, 16), gif(6, 4), webp(24, 16), with_exif(&jpeg(16, 16), &exif)] {
        let step = (fixture.len() / 97).max(1);
        for cut in (0..fixture.len()).step_by(step) {
            let _ = prepare_natively(&fixture[..cut]);
        }
        let mut state = 0x2545_f491_u32;
        for _ in 0..300 {
            // xorshift: a fixed sequence of positions and values, the same on every run.
            state ^= state << 13;
            state ^= state >> 17;
            state ^= state << 5;
            let mut flipped = fixture.clone();
            let at = state as usize % flipped.len();
            flipped[at] ^= (state >> 24) as u8 | 1;
            let _ = prepare_natively(&flipped);
        }
    }
}

#[test]
fn an_image_costs_its_pixels_over_750_tokens() {
    assert_eq!(image_tokens(1_000, 750), 1_000);
    assert_eq!(image_tokens(1, 1), 1);
    assert!(image_tokens(1_238, 928) <= 1_532 + 1, "≈ 1.15 MP costs about 1,530 tokens");
}

/// PNG's CRC-32 (ISO 3309, as the PNG specification's annex D computes it).
fn crc32(bytes: &[u8]) -> u32 {
    let mut crc = 0xffff_ffff_u32;
    for &byte in bytes {
        crc ^= u32::from(byte);
        for _ in 0..8 {
            crc = if crc & 1 == 1 { (crc >> 1) ^ 0xedb8_8320 } else { crc >> 1 };
        }
    }
    !crc
}

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

/// A renderer that answers as scripted and records what it was asked.
struct ScriptedRenderer {
    answer: Result<RenderedImage, ImageError>,
    asked: std::cell::RefCell<Vec<ImageRender>>,
}

impl ImageRenderer for ScriptedRenderer {
    async fn render_image(&self, _: &[u8], request: &ImageRender) -> Result<RenderedImage, ImageError> {
        self.asked.borrow_mut().push(request.clone());
        self.answer.clone()
    }
}

fn scripted(answer: Result<RenderedImage, ImageError>) -> ScriptedRenderer {
    ScriptedRenderer { answer, asked: Default::default() }
}

fn prepare_with(renderer: &ScriptedRenderer, bytes: &[u8]) -> Result<PreparedImage, ImageError> {
    use futures_util::FutureExt;
    prepare(renderer, bytes).now_or_never().expect("a scripted renderer never waits")
}

#[test]
fn the_host_is_asked_to_decode_a_small_upright_image_and_it_is_sent_as_it_is() {
    let bytes = png(64, 48);
    let renderer = scripted(Ok(RenderedImage { width: 64, height: 48, bytes: Vec::new() }));
    let prepared = prepare_with(&renderer, &bytes).unwrap();
    assert_eq!(prepared.bytes, bytes);
    let asked = renderer.asked.borrow();
    assert_eq!(asked.len(), 1);
    assert!(asked[0].jpeg_qualities.is_empty(), "decode only, to refuse a broken file here");
}

#[test]
fn a_large_or_sideways_picture_is_asked_for_upright_at_the_target_size() {
    let renderer = scripted(Ok(RenderedImage { width: 20, height: 40, bytes: jpeg(20, 40) }));
    let prepared = prepare_with(&renderer, &with_exif(&jpeg(40, 20), &orientation_block(6))).unwrap();
    assert_eq!((prepared.width, prepared.height, prepared.format), (20, 40, ImageFormat::Jpeg));
    let asked = renderer.asked.borrow();
    assert_eq!((asked[0].width, asked[0].height, asked[0].orientation), (20, 40, 6));
    assert_eq!(asked[0].jpeg_qualities, JPEG_QUALITIES.to_vec());
    assert_eq!(asked[0].max_bytes, MAX_BLOCK_BYTES);
    let (width, height) = target_size(4_000, 3_000);
    let renderer = scripted(Ok(RenderedImage { width, height, bytes: jpeg(width, height) }));
    prepare_with(&renderer, &jpeg(4_000, 3_000)).unwrap();
    assert_eq!((renderer.asked.borrow()[0].width, renderer.asked.borrow()[0].height), (width, height));
}

#[test]
fn what_a_host_makes_wrong_is_refused_and_a_host_that_cannot_decode_is_no_fault_of_the_file() {
    let large = jpeg(1_600, 1_200);
    let (width, height) = target_size(1_600, 1_200);
    let wrong_size = scripted(Ok(RenderedImage { width: width + 1, height, bytes: jpeg(width + 1, height) }));
    assert!(matches!(prepare_with(&wrong_size, &large), Err(ImageError::Unreadable(_))));
    let too_many_bytes = scripted(Ok(RenderedImage { width, height, bytes: vec![0xff; MAX_BLOCK_BYTES + 1] }));
    assert!(matches!(prepare_with(&too_many_bytes, &large), Err(ImageError::Unreadable(_))));
    let not_jpeg = scripted(Ok(RenderedImage { width, height, bytes: png(width, height) }));
    assert!(matches!(prepare_with(&not_jpeg, &large), Err(ImageError::Unreadable(_))));
    let unavailable = scripted(Err(ImageError::HostFailed("no canvas".into())));
    let failed = prepare_with(&unavailable, &large).unwrap_err();
    assert!(!failed.is_the_file_s(), "tried again later, not skipped");
    let broken = scripted(Err(ImageError::Unreadable("The source image could not be decoded.".into())));
    assert!(prepare_with(&broken, &png(8, 8)).unwrap_err().is_the_file_s());
}

#[test]
fn the_header_says_what_the_decoder_finds_for_every_format() {
    let exif = orientation_block(8);
    let mut png_with_exif = Vec::new();
    let mut encoder = PngEncoder::new(&mut png_with_exif);
    encoder.set_exif_metadata(exif.clone()).unwrap();
    encoder.write_image(pattern(30, 20).as_raw(), 30, 20, ExtendedColorType::Rgb8).unwrap();
    let mut webp_with_exif = Vec::new();
    let mut encoder = WebPEncoder::new_lossless(&mut webp_with_exif);
    encoder.set_exif_metadata(exif.clone()).unwrap();
    encoder.write_image(pattern(30, 20).as_raw(), 30, 20, ExtendedColorType::Rgb8).unwrap();
    for (bytes, orientation) in [
        (png(37, 21), 1),
        (jpeg(37, 21), 1),
        (gif(7, 5), 1),
        (webp(37, 21), 1),
        (with_exif(&jpeg(30, 20), &exif), 8),
        (png_with_exif, 8),
        (webp_with_exif, 8),
    ] {
        let header = inspect(&bytes).unwrap();
        let decoded = image::load_from_memory(&bytes).unwrap();
        assert_eq!((header.width, header.height), (decoded.width(), decoded.height()), "{:?}", header.format);
        assert_eq!(header.orientation, orientation, "{:?}", header.format);
    }
}
