//! Preparing an image never takes more memory than `images::MAX_PREPARE_BYTES`, whatever the
//! format and mode (issue 36: a 280 KB progressive JPEG of 7000 × 7000 peaked at 441 MB), and
//! any bytes give a prepared image or an error, never a panic: measured by counting every
//! allocation of this test binary (its own global allocator), on pictures at the limits and
//! on seeded mutations of small ones (`IMAGE_FUZZ_SEEDS`, 300 here, more in `npm run soak`).

use std::alloc::{GlobalAlloc, Layout, System};
use std::io::Cursor;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

use image::{DynamicImage, ImageFormat, Rgb, RgbImage, Rgba, RgbaImage};
use memory_agent::images::{prepare_natively, ImageError, MAX_PREPARE_BYTES};

/// The bytes allocated now, and the most since the last `peak_of`.
static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);
/// One measurement at a time: the counts are the whole process's.
static MEASURING: Mutex<()> = Mutex::new(());

struct Counting;

impl Counting {
    fn grew(by: usize) {
        let live = LIVE.fetch_add(by, Ordering::Relaxed) + by;
        PEAK.fetch_max(live, Ordering::Relaxed);
    }
}

// SAFETY: every call is passed to the system allocator unchanged; only sizes are counted.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        Self::grew(layout.size());
        unsafe { System.alloc(layout) }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        Self::grew(layout.size());
        unsafe { System.alloc_zeroed(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        if new_size > layout.size() {
            Self::grew(new_size - layout.size());
        } else {
            LIVE.fetch_sub(layout.size() - new_size, Ordering::Relaxed);
        }
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// `prepare_natively(bytes)` and the most it held at once beyond what was live before.
fn prepared_with_peak(bytes: &[u8]) -> (Result<usize, ImageError>, u64) {
    let base = LIVE.load(Ordering::Relaxed);
    PEAK.store(base, Ordering::Relaxed);
    let prepared = prepare_natively(bytes).map(|image| image.bytes.len());
    (prepared, (PEAK.load(Ordering::Relaxed) - base) as u64)
}

fn encoded(picture: DynamicImage, format: ImageFormat) -> Vec<u8> {
    let mut bytes = Vec::new();
    picture.write_to(&mut Cursor::new(&mut bytes), format).unwrap();
    bytes
}

/// A busy RGB picture (so that no encoder makes it trivially small).
fn rgb(width: u32, height: u32) -> RgbImage {
    RgbImage::from_fn(width, height, |x, y| Rgb([(x % 251) as u8, (y % 241) as u8, ((x ^ y) % 239) as u8]))
}

fn progressive_jpeg(width: u16, height: u16, sampling: jpeg_encoder::SamplingFactor) -> Vec<u8> {
    let pixels = rgb(u32::from(width), u32::from(height)).into_raw();
    let mut bytes = Vec::new();
    let mut encoder = jpeg_encoder::Encoder::new(&mut bytes, 80);
    encoder.set_progressive(true);
    encoder.set_sampling_factor(sampling);
    encoder.encode(&pixels, width, height, jpeg_encoder::ColorType::Rgb).unwrap();
    bytes
}

const MB: u64 = 1024 * 1024;

#[test]
fn every_format_and_mode_prepares_within_the_memory_limit_or_is_refused_before_decoding() {
    let _one = MEASURING.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    use jpeg_encoder::SamplingFactor::{R_4_2_0, R_4_4_4};
    let rgba = |width: u32, height: u32| {
        DynamicImage::ImageRgba8(RgbaImage::from_fn(width, height, |x, y| {
            Rgba([(x % 251) as u8, (y % 241) as u8, 9, 200])
        }))
    };
    // Within the limit: prepared, the peak under it.
    let within = [
        ("a baseline JPEG of 7000 × 7000", encoded(DynamicImage::ImageRgb8(rgb(7_000, 7_000)), ImageFormat::Jpeg)),
        ("a transparent PNG of 6400 × 6400", encoded(rgba(6_400, 6_400), ImageFormat::Png)),
        ("a progressive 4:2:0 JPEG of 5000 × 5000", progressive_jpeg(5_000, 5_000, R_4_2_0)),
        ("a progressive 4:4:4 JPEG of 4200 × 4200", progressive_jpeg(4_200, 4_200, R_4_4_4)),
    ];
    for (what, bytes) in within {
        let (prepared, peak) = prepared_with_peak(&bytes);
        assert!(prepared.is_ok(), "{what}: {prepared:?}");
        assert!(peak <= MAX_PREPARE_BYTES, "{what}: {} MB at the peak", peak / MB);
    }
    // Over it: refused from the header, before a pixel is decoded.
    let over = [
        (
            "a progressive JPEG of 7000 × 7000 (issue 36)",
            progressive_jpeg(7_000, 7_000, R_4_4_4),
            " (a progressive JPEG)",
        ),
        ("a progressive 4:2:0 JPEG of 7000 × 7000", progressive_jpeg(7_000, 7_000, R_4_2_0), " (a progressive JPEG)"),
        ("a transparent PNG of 7000 × 7000", encoded(rgba(7_000, 7_000), ImageFormat::Png), ""),
    ];
    for (what, bytes, kind) in over {
        let (prepared, peak) = prepared_with_peak(&bytes);
        match prepared {
            Err(ImageError::TooMuchMemory { width: 7_000, height: 7_000, kind: said, megabytes, limit }) => {
                assert_eq!(said, kind, "{what}");
                assert!(
                    megabytes > limit && limit == MAX_PREPARE_BYTES.div_ceil(1_000_000),
                    "{what}: {megabytes} MB of {limit}"
                );
            }
            other => panic!("{what}: {other:?}"),
        }
        // The JPEG decoder keeps its own copy of the file's bytes; nothing more.
        assert!(
            peak < bytes.len() as u64 + 4 * MB,
            "{what}: refused before decoding, yet {} MB at the peak",
            peak / MB
        );
    }
}

/// A small generator of numbers from a seed (xorshift64*), so that a failing seed replays.
struct Seeded(u64);

impl Seeded {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    fn below(&mut self, bound: usize) -> usize {
        (self.next() % bound.max(1) as u64) as usize
    }
}

/// `bytes` mutated as a hostile or damaged file would be: bytes overwritten (header sizes
/// included), runs of 0xFF or 0x00, cut short, a piece repeated.
fn mutated(bytes: &[u8], random: &mut Seeded) -> Vec<u8> {
    let mut out = bytes.to_vec();
    for _ in 0..=random.below(4) {
        let at = random.below(out.len());
        match random.below(5) {
            0 => out[at] = random.next() as u8,
            1 => {
                // Within the first bytes: the header's sizes and counts.
                let at = random.below(out.len().min(64));
                out[at] = if random.below(2) == 0 { 0xff } else { 0x00 };
            }
            2 => out.truncate(at.max(1)),
            3 => {
                let end = (at + random.below(64)).min(out.len());
                let piece = out[at..end].to_vec();
                out.splice(at..at, piece);
            }
            _ => {
                let end = (at + random.below(32)).min(out.len());
                out[at..end].fill(0xff);
            }
        }
    }
    out
}

#[test]
fn damaged_and_hostile_images_are_refused_or_prepared_never_a_panic_never_past_the_limit() {
    let seeds: u64 = std::env::var("IMAGE_FUZZ_SEEDS").ok().and_then(|seeds| seeds.parse().ok()).unwrap_or(300);
    let picture = DynamicImage::ImageRgb8(rgb(96, 64));
    let originals = [
        encoded(picture.clone(), ImageFormat::Png),
        encoded(DynamicImage::ImageRgba8(picture.to_rgba8()), ImageFormat::Png),
        encoded(picture.clone(), ImageFormat::Jpeg),
        progressive_jpeg(96, 64, jpeg_encoder::SamplingFactor::R_4_2_0),
        encoded(picture.clone(), ImageFormat::Gif),
        encoded(picture.clone(), ImageFormat::WebP),
    ];
    for original in &originals {
        assert!(prepare_natively(original).is_ok(), "the unmutated picture prepares");
    }
    let _one = MEASURING.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    for seed in 0..seeds {
        let mut random = Seeded(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1);
        let original = &originals[random.below(originals.len())];
        let bytes = mutated(original, &mut random);
        let (prepared, peak) = std::panic::catch_unwind(|| prepared_with_peak(&bytes))
            .unwrap_or_else(|_| panic!("seed {seed} panicked (IMAGE_FUZZ_SEEDS={}, {} bytes)", seed + 1, bytes.len()));
        assert!(peak <= MAX_PREPARE_BYTES, "seed {seed}: {} MB at the peak ({prepared:?})", peak / MB);
        if let Ok(sent) = prepared {
            assert!(sent <= memory_agent::images::MAX_BLOCK_BYTES, "seed {seed}");
        }
    }
}
