//! The day a picture was taken, from its EXIF block: `DateTimeOriginal` (tag 0x9003, in the
//! Exif sub-IFD) else `DateTime` (0x0132, in IFD0), as "YYYY:MM:DD HH:MM:SS" (EXIF 2.32, 4.6.5);
//! and which way up it is (`Orientation`, 0x0112 in IFD0).
//!
//! The block is a small TIFF file (TIFF 6.0, section 2: the byte order `II`/`MM`, 42, the
//! first IFD's offset; an IFD is a count and 12-byte entries of tag, type, count, value or
//! offset). Every read here is bounds-checked: a broken block gives `None`, never a panic.

use crate::calendar::CalendarDate;

const DATE_TIME: u16 = 0x0132;
const ORIENTATION: u16 = 0x0112;
const EXIF_IFD_POINTER: u16 = 0x8769;
const DATE_TIME_ORIGINAL: u16 = 0x9003;
const ASCII: u16 = 2;
const SHORT: u16 = 3;
const LONG: u16 = 4;
/// Some writers (WebP's `EXIF` chunk, older PNG `eXIf`) keep JPEG's APP1 prefix.
const APP1_PREFIX: &[u8] = b"Exif\0\0";

/// The day `exif` (a TIFF-structured EXIF block, with or without the `Exif\0\0` prefix) says
/// the picture was taken.
pub(super) fn taken(exif: &[u8]) -> Option<CalendarDate> {
    let tiff = Tiff::new(exif.strip_prefix(APP1_PREFIX).unwrap_or(exif))?;
    let ifd0 = tiff.u32_at(4)?;
    let original = tiff
        .entry(ifd0, EXIF_IFD_POINTER)
        .filter(|entry| entry.kind == LONG)
        .and_then(|entry| tiff.u32_at(entry.value_at))
        .and_then(|exif_ifd| tiff.entry(exif_ifd, DATE_TIME_ORIGINAL))
        .and_then(|entry| tiff.date(&entry));
    original.or_else(|| tiff.entry(ifd0, DATE_TIME).and_then(|entry| tiff.date(&entry)))
}

/// EXIF's orientation (tag 0x0112 in IFD0, a SHORT): how the stored pixels are turned.
pub(super) fn orientation(exif: &[u8]) -> Option<u8> {
    let tiff = Tiff::new(exif.strip_prefix(APP1_PREFIX).unwrap_or(exif))?;
    let entry = tiff.entry(tiff.u32_at(4)?, ORIENTATION).filter(|entry| entry.kind == SHORT)?;
    u8::try_from(tiff.u16_at(entry.value_at)?).ok()
}

struct Tiff<'a> {
    bytes: &'a [u8],
    little_endian: bool,
}

/// One IFD entry: its type, count, and where its value (or the offset of it) stands.
struct Entry {
    kind: u16,
    count: u32,
    value_at: usize,
}

impl<'a> Tiff<'a> {
    fn new(bytes: &'a [u8]) -> Option<Self> {
        let little_endian = match bytes.get(..4)? {
            [b'I', b'I', 42, 0] => true,
            [b'M', b'M', 0, 42] => false,
            _ => return None,
        };
        Some(Tiff { bytes, little_endian })
    }

    fn u16_at(&self, at: usize) -> Option<u16> {
        let pair: [u8; 2] = self.bytes.get(at..at.checked_add(2)?)?.try_into().ok()?;
        Some(if self.little_endian { u16::from_le_bytes(pair) } else { u16::from_be_bytes(pair) })
    }

    fn u32_at(&self, at: usize) -> Option<u32> {
        let quad: [u8; 4] = self.bytes.get(at..at.checked_add(4)?)?.try_into().ok()?;
        Some(if self.little_endian { u32::from_le_bytes(quad) } else { u32::from_be_bytes(quad) })
    }

    /// The entry for `tag` in the IFD at `ifd`.
    fn entry(&self, ifd: u32, tag: u16) -> Option<Entry> {
        let ifd = usize::try_from(ifd).ok()?;
        let count = self.u16_at(ifd)?;
        (0..usize::from(count)).find_map(|index| {
            let at = ifd.checked_add(2)?.checked_add(index.checked_mul(12)?)?;
            (self.u16_at(at)? == tag).then_some(())?;
            Some(Entry { kind: self.u16_at(at + 2)?, count: self.u32_at(at + 4)?, value_at: at + 8 })
        })
    }

    /// An ASCII entry's value as a date: inline when it fits in four bytes, else at its offset.
    fn date(&self, entry: &Entry) -> Option<CalendarDate> {
        if entry.kind != ASCII {
            return None;
        }
        let length = usize::try_from(entry.count).ok()?;
        let start = if length <= 4 { entry.value_at } else { usize::try_from(self.u32_at(entry.value_at)?).ok()? };
        exif_date(self.bytes.get(start..start.checked_add(length)?)?)
    }
}

/// "YYYY:MM:DD…" → the date; blank or zeroed dates (cameras write "0000:00:00") are none.
fn exif_date(text: &[u8]) -> Option<CalendarDate> {
    let text = std::str::from_utf8(text.get(..10)?).ok()?;
    let number = |range: std::ops::Range<usize>| text.get(range)?.parse::<u32>().ok();
    if text.as_bytes().get(4) != Some(&b':') || text.as_bytes().get(7) != Some(&b':') {
        return None;
    }
    let year = i32::try_from(number(0..4)?).ok()?;
    CalendarDate::new(year, number(5..7)?, number(8..10)?).filter(|date| date.year >= 1800)
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;

    /// A little- or big-endian EXIF block with `DateTime` in IFD0 and, when given,
    /// `DateTimeOriginal` in an Exif sub-IFD.
    pub(crate) fn exif_block(little_endian: bool, date_time: &str, original: Option<&str>) -> Vec<u8> {
        let u16b = |value: u16| if little_endian { value.to_le_bytes() } else { value.to_be_bytes() };
        let u32b = |value: u32| if little_endian { value.to_le_bytes() } else { value.to_be_bytes() };
        let mut out: Vec<u8> = if little_endian { b"II\x2a\0".to_vec() } else { b"MM\0\x2a".to_vec() };
        out.extend(u32b(8));
        let entries: u16 = if original.is_some() { 2 } else { 1 };
        let ifd0_end = 8 + 2 + 12 * u32::from(entries) + 4;
        let exif_ifd = ifd0_end;
        let exif_ifd_end = exif_ifd + 2 + 12 + 4;
        let date_time_at = exif_ifd_end;
        let original_at = date_time_at + 20;
        out.extend(u16b(entries));
        out.extend(u16b(DATE_TIME));
        out.extend(u16b(ASCII));
        out.extend(u32b(20));
        out.extend(u32b(date_time_at));
        if original.is_some() {
            out.extend(u16b(EXIF_IFD_POINTER));
            out.extend(u16b(LONG));
            out.extend(u32b(1));
            out.extend(u32b(exif_ifd));
        }
        out.extend(u32b(0));
        out.extend(u16b(1));
        out.extend(u16b(DATE_TIME_ORIGINAL));
        out.extend(u16b(ASCII));
        out.extend(u32b(20));
        out.extend(u32b(original_at));
        out.extend(u32b(0));
        out.extend(format!("{date_time:<19}\0").bytes());
        out.extend(format!("{:<19}\0", original.unwrap_or("")).bytes());
        out
    }

    #[test]
    fn the_original_date_wins_over_the_file_date_in_either_byte_order() {
        for little_endian in [true, false] {
            let both = exif_block(little_endian, "2024:01:02 10:00:00", Some("2023:07:14 18:30:05"));
            assert_eq!(taken(&both), CalendarDate::new(2023, 7, 14));
            let only_file = exif_block(little_endian, "2024:01:02 10:00:00", None);
            assert_eq!(taken(&only_file), CalendarDate::new(2024, 1, 2));
        }
        let prefixed = [APP1_PREFIX, &exif_block(true, "2022:12:31 23:59:59", None)].concat();
        assert_eq!(taken(&prefixed), CalendarDate::new(2022, 12, 31));
    }

    #[test]
    fn blank_broken_and_cut_blocks_give_no_date() {
        assert_eq!(taken(&exif_block(true, "0000:00:00 00:00:00", None)), None);
        assert_eq!(taken(&exif_block(true, "    :  :     :  :  ", None)), None);
        assert_eq!(taken(&exif_block(true, "2024-01-02 10:00:00", None)), None);
        assert_eq!(taken(b"II*\0\xff\xff\xff\xff"), None, "IFD0 past the end");
        let block = exif_block(false, "2024:01:02 10:00:00", Some("2023:07:14 18:30:05"));
        for cut in 0..block.len() {
            let _ = taken(&block[..cut]);
        }
        for at in 0..block.len() {
            let mut flipped = block.clone();
            flipped[at] ^= 0xff;
            let _ = taken(&flipped);
        }
    }
}
