//! From the bytes of a vault file to note text, or a reason the file is not a note we read.
//!
//! The checks run cheapest first: the size is known before any byte is looked at, so a huge
//! file is refused without scanning it; only then come the binary sniff and UTF-8 decoding.

use thiserror::Error;

use crate::error::ErrorCode;

/// How many leading bytes the binary sniff looks at (what `git` and `grep` look at, too).
const SNIFF_BYTES: usize = 8 * 1024;

/// A file whose sniffed bytes are more than this share (in tenths) control characters is
/// binary: real notes hold a few stray ones at most.
const CONTROL_TENTHS: usize = 1;

/// Why a vault file was not read as a note. Each is "partial failure as data": the ingest
/// report lists the file with this reason and goes on with the others.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum NoteError {
    /// The file holds nothing but whitespace (after a byte order mark, if any).
    #[error("the note is empty")]
    Empty,
    /// The file is larger than the size limit the user set; nothing of it was read.
    #[error("the note ({}) is larger than the {} limit set in settings", format_size(*size), format_size(*limit))]
    TooLarge { size: u64, limit: u64 },
    /// A NUL byte, or many control characters, near the start: an image, a PDF, a database.
    #[error("the note looks like a binary file")]
    Binary,
    /// Text in another encoding (Latin-1, UTF-16, …): decoding it as UTF-8 would garble it.
    #[error("the note is not UTF-8 text")]
    NotUtf8,
}

impl ErrorCode for NoteError {
    fn code(&self) -> &'static str {
        match self {
            NoteError::Empty => "note.empty",
            NoteError::TooLarge { .. } => "note.too_large",
            NoteError::Binary => "note.binary",
            NoteError::NotUtf8 => "note.not_utf8",
        }
    }
}

/// The text of a note file: checked against `max_bytes`, decoded as UTF-8, without a byte
/// order mark, with every line ending (CRLF, CR) turned into LF so that line numbers match
/// what the editor shows.
pub fn decode_note(bytes: &[u8], max_bytes: u64) -> Result<String, NoteError> {
    let size = bytes.len() as u64;
    if size > max_bytes {
        return Err(NoteError::TooLarge { size, limit: max_bytes });
    }
    // A UTF-16 file is full of NUL bytes; saying "not UTF-8" tells the user what to fix,
    // where "binary" would not.
    if bytes.starts_with(&[0xff, 0xfe]) || bytes.starts_with(&[0xfe, 0xff]) {
        return Err(NoteError::NotUtf8);
    }
    if looks_binary(&bytes[..bytes.len().min(SNIFF_BYTES)]) {
        return Err(NoteError::Binary);
    }
    let text = std::str::from_utf8(bytes).map_err(|_| NoteError::NotUtf8)?;
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    if text.trim().is_empty() {
        return Err(NoteError::Empty);
    }
    Ok(normalise_line_endings(text))
}

fn looks_binary(sample: &[u8]) -> bool {
    if sample.contains(&0) {
        return true;
    }
    let controls = sample.iter().filter(|byte| is_binary_control(**byte)).count();
    controls * 10 > sample.len() * CONTROL_TENTHS
}

/// Control bytes that do not belong in text. Tab, line feed, vertical tab, form feed,
/// carriage return and escape (terminal colours pasted into a note) do.
fn is_binary_control(byte: u8) -> bool {
    matches!(byte, 0x00..=0x08 | 0x0e..=0x1a | 0x1c..=0x1f | 0x7f)
}

/// CRLF and lone CR become LF, as in the editor, which treats each as one line break.
pub(super) fn normalise_line_endings(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\r' {
            chars.next_if_eq(&'\n');
            out.push('\n');
        } else {
            out.push(c);
        }
    }
    out
}

/// A size for people: "512 bytes", "40 KB", "2 MB", "2.5 MB" (1 KB = 1024 bytes, as file
/// managers show them).
fn format_size(bytes: u64) -> String {
    const KB: u64 = 1024;
    const MB: u64 = 1024 * KB;
    let (unit, name) = match bytes {
        0..KB => return format!("{bytes} bytes"),
        KB..MB => (KB, "KB"),
        _ => (MB, "MB"),
    };
    // Tenths, rounded: integer arithmetic keeps "2 MB" exact where floats might print 2.0.
    let tenths = (u128::from(bytes) * 10 + u128::from(unit) / 2) / u128::from(unit);
    if tenths % 10 == 0 {
        format!("{} {name}", tenths / 10)
    } else {
        format!("{}.{} {name}", tenths / 10, tenths % 10)
    }
}

#[cfg(test)]
mod tests {
    use super::{decode_note, format_size, NoteError};
    use crate::error::ErrorCode;

    const LIMIT: u64 = 2 * 1024 * 1024;

    #[test]
    fn decodes_text_and_normalises_it() {
        let cases: &[(&[u8], &str, &str)] = &[
            (b"plain", "plain", "plain"),
            (b"\xef\xbb\xbfwith BOM\n", "with BOM\n", "the BOM is stripped"),
            (b"a\r\nb\r\n", "a\nb\n", "CRLF"),
            (b"a\rb\rc", "a\nb\nc", "old Mac CR"),
            (b"a\r\n\r\nb\r\r\n", "a\n\nb\n\n", "mixed"),
            (b"tab\tand esc \x1b[1m ok", "tab\tand esc \x1b[1m ok", "tab and escape are text"),
            ("Hôm nay trời đẹp 🌤️".as_bytes(), "Hôm nay trời đẹp 🌤️", "Vietnamese and emoji"),
        ];
        for (bytes, expected, why) in cases {
            assert_eq!(decode_note(bytes, LIMIT).as_deref(), Ok(*expected), "{why}");
        }
    }

    #[test]
    fn refuses_what_is_not_a_note() {
        let mut late_nul = vec![b'a'; 9000];
        late_nul[8500] = 0;
        let cases: Vec<(Vec<u8>, u64, NoteError, &str)> = vec![
            (vec![], LIMIT, NoteError::Empty, "no bytes"),
            (b" \n\r\n\t ".to_vec(), LIMIT, NoteError::Empty, "whitespace only"),
            (b"\xef\xbb\xbf\n".to_vec(), LIMIT, NoteError::Empty, "a BOM and a newline"),
            (vec![b'a'; 11], 10, NoteError::TooLarge { size: 11, limit: 10 }, "one byte over"),
            // The size check comes first: a large binary file is "too large", not "binary".
            (vec![0; 100], 10, NoteError::TooLarge { size: 100, limit: 10 }, "size before sniffing"),
            (b"PNG\x00\x01".to_vec(), LIMIT, NoteError::Binary, "a NUL byte"),
            (b"\x01\x02\x03\x04abcdefgh".to_vec(), LIMIT, NoteError::Binary, "many control characters"),
            (b"caf\xe9".to_vec(), LIMIT, NoteError::NotUtf8, "Latin-1"),
            (b"\xff\xfeh\x00i\x00".to_vec(), LIMIT, NoteError::NotUtf8, "UTF-16 with a BOM"),
            (b"ok \xf0\x9f\x98".to_vec(), LIMIT, NoteError::NotUtf8, "a cut-off emoji"),
        ];
        for (bytes, limit, expected, why) in cases {
            assert_eq!(decode_note(&bytes, limit), Err(expected), "{why}");
        }
        // A NUL past the sniffed bytes is not looked for; the text is still valid UTF-8.
        assert!(decode_note(&late_nul, LIMIT).is_ok());
        assert_eq!(decode_note(b"0123456789", 10).as_deref(), Ok("0123456789"), "exactly at the limit");
    }

    #[test]
    fn errors_have_stable_codes_and_plain_messages() {
        let cases = [
            (NoteError::Empty, "note.empty", "the note is empty"),
            (
                NoteError::TooLarge { size: 3 * 1024 * 1024 + 300_000, limit: LIMIT },
                "note.too_large",
                "the note (3.3 MB) is larger than the 2 MB limit set in settings",
            ),
            (NoteError::Binary, "note.binary", "the note looks like a binary file"),
            (NoteError::NotUtf8, "note.not_utf8", "the note is not UTF-8 text"),
        ];
        for (error, code, message) in cases {
            assert_eq!(error.code(), code);
            assert_eq!(error.to_string(), message);
        }
    }

    #[test]
    fn sizes_read_like_a_file_manager() {
        let cases = [
            (0, "0 bytes"),
            (1023, "1023 bytes"),
            (1024, "1 KB"),
            (1536, "1.5 KB"),
            (LIMIT, "2 MB"),
            (u64::MAX, "17592186044416 MB"),
        ];
        for (bytes, expected) in cases {
            assert_eq!(format_size(bytes), expected);
        }
    }
}
