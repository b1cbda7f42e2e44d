//! A cheap look at the bytes of a database file before SQLite opens it.
//!
//! SQLite opens a truncated file without complaint and only fails on the page that is
//! missing, possibly much later. The header says how large the file must be, so a file
//! cut short by a crash or a half-finished sync is caught here, before anything is written.

use super::StoreError;

const MAGIC: &[u8; 16] = b"SQLite format 3\0";
const HEADER_LEN: usize = 100;

/// The bytes of the header `check_database_header` reads.
pub const DATABASE_HEADER_LEN: usize = HEADER_LEN;

/// Checks that `bytes` look like a whole SQLite database file. Empty bytes pass: they mean
/// "no database yet".
pub fn check_database_bytes(bytes: &[u8]) -> Result<(), StoreError> {
    check_database_header(&bytes[..bytes.len().min(HEADER_LEN)], bytes.len())
}

/// `check_database_bytes` from the file's first `DATABASE_HEADER_LEN` bytes and its length,
/// so that a large file need not be copied to be checked.
pub fn check_database_header(header: &[u8], file_len: usize) -> Result<(), StoreError> {
    let bytes = header;
    if file_len == 0 {
        return Ok(());
    }
    if file_len < HEADER_LEN || bytes.len() < HEADER_LEN || &bytes[..16] != MAGIC {
        return Err(StoreError::Corrupt("the file is not an SQLite database".into()));
    }
    let page_size = match u16::from_be_bytes([bytes[16], bytes[17]]) {
        1 => 65_536,
        size if size >= 512 && size.is_power_of_two() => usize::from(size),
        size => return Err(StoreError::Corrupt(format!("invalid page size {size}"))),
    };
    if !file_len.is_multiple_of(page_size) {
        return Err(StoreError::Corrupt(format!(
            "the file is {file_len} bytes, not a whole number of {page_size}-byte pages (cut short?)"
        )));
    }
    let change_counter = read_u32(bytes, 24);
    let valid_for = read_u32(bytes, 92);
    let page_count = read_u32(bytes, 28) as usize;
    // The in-header size is only trustworthy when written by SQLite 3.7.0+ for this change.
    if change_counter == valid_for && page_count > 0 && file_len < page_count * page_size {
        return Err(StoreError::Corrupt(format!(
            "the file is cut short: {file_len} of {} bytes",
            page_count * page_size
        )));
    }
    Ok(())
}

fn read_u32(bytes: &[u8], at: usize) -> u32 {
    u32::from_be_bytes([bytes[at], bytes[at + 1], bytes[at + 2], bytes[at + 3]])
}

#[cfg(test)]
mod tests {
    use super::check_database_bytes;

    #[test]
    fn empty_means_new() {
        assert!(check_database_bytes(&[]).is_ok());
    }

    #[test]
    fn rejects_text_and_short_headers() {
        assert!(check_database_bytes(b"# My note\nhello").is_err());
        assert!(check_database_bytes(b"SQLite format 3\0").is_err());
        assert!(check_database_bytes(&[0u8; 4096]).is_err());
    }

    #[test]
    fn rejects_a_bad_page_size() {
        let mut bytes = vec![0u8; 4096];
        bytes[..16].copy_from_slice(b"SQLite format 3\0");
        bytes[16] = 0x03; // 768: not a power of two
        bytes[17] = 0x00;
        assert!(check_database_bytes(&bytes).is_err());
    }
}
