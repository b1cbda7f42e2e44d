//! The day a note belongs to, which is what "yesterday" and "this morning" in it mean.
//!
//! A daily note's name is the strongest evidence (it is the day the user filed it under),
//! then a date the user wrote in the frontmatter, and only then the file's modification
//! time, which moves whenever the note is touched.

use super::frontmatter::Frontmatter;
use crate::calendar::CalendarDate;
use crate::domain::{DateSource, Millis};

/// JavaScript dates reach ±8.64e15 ms; clamping there keeps the offset arithmetic from
/// overflowing on a nonsense mtime.
const MAX_MILLIS: Millis = 8_640_000_000_000_000;

/// The date of a note: a daily-note date in the file's name (`2026-02-01.md`,
/// `2026-02-01 Monday.md`, `2026_02_01.md`, `20260201.md`), else the frontmatter date, else the
/// one full date its title names (`title_date`, read by the caller: "# Call with Bob, 13 November
/// 2026"), else the local date of `mtime` for a user `utc_offset_minutes` ahead of UTC. A
/// question's passages count their relative dates from the same day, less the modification time.
pub fn note_date(
    path: &str,
    frontmatter: &Frontmatter,
    title_date: Option<CalendarDate>,
    mtime: Millis,
    utc_offset_minutes: i32,
) -> CalendarDate {
    own_date(path, frontmatter)
        .map(|(date, _)| date)
        .or(title_date)
        .unwrap_or_else(|| CalendarDate::at(mtime.clamp(-MAX_MILLIS, MAX_MILLIS), utc_offset_minutes))
}

/// The note's own date, from its file name or else its properties, and which one: the day a
/// memory of it is filed under when its text names none. `None` when neither gives a date —
/// the modification time is no memory's date (it moves whenever the note is touched).
pub fn own_date(path: &str, frontmatter: &Frontmatter) -> Option<(CalendarDate, DateSource)> {
    path_date(path)
        .map(|date| (date, DateSource::NoteName))
        .or_else(|| frontmatter.date().map(|date| (date, DateSource::NoteProperty)))
}

/// The first valid date in a file name written `YYYY-MM-DD`, `YYYY_MM_DD` or `YYYYMMDD`,
/// whose digits are not part of a longer number (`Invoice 120260201` has no date).
/// The date a note's path names (`Daily/2026-02-01.md`), if any.
pub fn path_date(path: &str) -> Option<CalendarDate> {
    name_date(path.rsplit(['/', '\\']).next().unwrap_or(path))
}

fn name_date(name: &str) -> Option<CalendarDate> {
    let bytes = name.as_bytes();
    let run_at = |at: usize| bytes.get(at..).map_or(0, |rest| rest.iter().take_while(|b| b.is_ascii_digit()).count());
    (0..bytes.len()).filter(|&at| bytes[at].is_ascii_digit() && (at == 0 || !bytes[at - 1].is_ascii_digit())).find_map(
        |at| match run_at(at) {
            8 => date_from(&bytes[at..at + 4], &bytes[at + 4..at + 6], &bytes[at + 6..at + 8]),
            4 => {
                let separator = *bytes.get(at + 4).filter(|b| matches!(b, b'-' | b'_'))?;
                let (month, day) = (at + 5, at + 8);
                let separated = run_at(month) == 2 && bytes.get(month + 2) == Some(&separator) && run_at(day) == 2;
                if !separated {
                    return None;
                }
                date_from(&bytes[at..at + 4], &bytes[month..month + 2], &bytes[day..day + 2])
            }
            _ => None,
        },
    )
}

fn date_from(year: &[u8], month: &[u8], day: &[u8]) -> Option<CalendarDate> {
    let number = |digits: &[u8]| digits.iter().fold(0u32, |value, digit| value * 10 + u32::from(digit - b'0'));
    CalendarDate::new(i32::try_from(number(year)).ok()?, number(month), number(day))
}

#[cfg(test)]
mod tests {
    use super::note_date;
    use crate::notes::parse_note;

    // 2026-11-30T20:30:00Z
    const MTIME: i64 = 1_796_070_600_000;

    #[test]
    fn the_file_name_wins_then_the_frontmatter_then_mtime() {
        let dated = parse_note("---\ndate: 2025-12-24\n---\ntext", 100).frontmatter;
        let undated = parse_note("text", 100).frontmatter;
        let cases = [
            ("Daily/2026-02-01.md", &undated, 0, "2026-02-01"),
            ("2026-02-01 Monday.md", &undated, 0, "2026-02-01"),
            ("Journal/2026_02_01.md", &undated, 0, "2026-02-01"),
            ("20260201.md", &undated, 0, "2026-02-01"),
            ("Meeting 2026-02-01 with Lan.md", &undated, 0, "2026-02-01"),
            ("Nhật ký 2026-02-01 🌤.md", &undated, 0, "2026-02-01"),
            ("Journal\\2024-02-29.md", &undated, 0, "2024-02-29"),
            ("2026-02-01.md", &dated, 0, "2026-02-01"),
            ("2026-02-30.md", &dated, 0, "2025-12-24"),
            ("Invoice 120260201.md", &dated, 0, "2025-12-24"),
            ("2026020112.md", &dated, 0, "2025-12-24"),
            ("12026-02-01.md", &dated, 0, "2025-12-24"),
            ("2026-02-011.md", &dated, 0, "2025-12-24"),
            ("2026-02_01.md", &dated, 0, "2025-12-24"),
            ("2026-2-1.md", &dated, 0, "2025-12-24"),
            ("2026-02-01/Notes.md", &dated, 0, "2025-12-24"),
            ("Ideas.md", &dated, 0, "2025-12-24"),
            ("Ideas.md", &undated, 0, "2026-11-30"),
            ("Ideas.md", &undated, 7 * 60, "2026-12-01"),
            ("Ideas.md", &undated, -10 * 60, "2026-11-30"),
            ("", &undated, 0, "2026-11-30"),
        ];
        for (path, frontmatter, offset, expected) in cases {
            assert_eq!(note_date(path, frontmatter, None, MTIME, offset).to_string(), expected, "{path} at {offset}");
        }
        // A title's date comes after the name's and the properties', before the modification time.
        let title = crate::calendar::CalendarDate::parse("2026-11-13");
        assert_eq!(note_date("Calls/Bob.md", &undated, title, MTIME, 0).to_string(), "2026-11-13");
        assert_eq!(note_date("Calls/Bob.md", &dated, title, MTIME, 0).to_string(), "2025-12-24");
        assert_eq!(note_date("2026-02-01.md", &undated, title, MTIME, 0).to_string(), "2026-02-01");
    }

    #[test]
    fn a_notes_own_date_comes_from_its_name_or_properties_never_its_mtime() {
        use super::own_date;
        use crate::domain::DateSource;
        let dated = parse_note("---\ndate: 2025-12-24\n---\ntext", 100).frontmatter;
        let undated = parse_note("text", 100).frontmatter;
        let own = |path, frontmatter| own_date(path, frontmatter).map(|(date, source)| (date.to_string(), source));
        assert_eq!(own("Daily/2026-11-23.md", &dated), Some(("2026-11-23".into(), DateSource::NoteName)));
        assert_eq!(own("Ideas.md", &dated), Some(("2025-12-24".into(), DateSource::NoteProperty)));
        assert_eq!(own("Ideas.md", &undated), None);
    }

    #[test]
    fn nonsense_times_do_not_panic() {
        let undated = parse_note("", 100).frontmatter;
        for mtime in [i64::MIN, -1, 0, i64::MAX] {
            for offset in [i32::MIN, -720, 0, 840, i32::MAX] {
                let _ = note_date("x.md", &undated, None, mtime, offset);
            }
        }
        assert_eq!(note_date("x.md", &undated, None, -1, 0).to_string(), "1969-12-31");
    }
}
