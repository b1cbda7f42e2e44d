//! The memory folder's layout: one folder per device, numbered log files in it.
//!
//! `<memory folder>/<device>/000001.jsonl`, … Appends go to the newest file while it is under
//! `SEAL_AT`; then it is sealed and never rewritten, except by a purge or a compaction, each of
//! which writes new files (new numbers) before it removes old ones. A file over `SEAL_AT` is a
//! compaction's output (or an older version's log file) and is never appended to.

/// The extension of a log file.
pub const LOG_EXTENSION: &str = "jsonl";

/// A log file is sealed before it would pass this: one edit makes a sync tool that copies a
/// changed file whole upload at most this much (Obsidian Sync, iCloud, Git all do).
pub const SEAL_AT: u64 = 64 * 1024;

/// No file a compaction writes is larger than this: far under the 5 MB a file may have on
/// Obsidian Sync's Standard plan, and what a forget or a deleted note rewrites at most (the
/// file holding it). One line larger than it alone gets a file of its own.
pub const COMPACTED_FILE_LIMIT: u64 = 1024 * 1024;

/// The largest log file number: names are six or more digits, and a number past this is no
/// file of ours (a name like `4294967295.jsonl` must not make the next one wrap).
pub const MAX_FILE_NUMBER: u32 = 99_999_999;

/// The folder (under the memory folder) of a device's log files.
pub fn device_log_folder(memory_folder: &str, device: &str) -> String {
    debug_assert!(is_device_id(device), "not a device id: {device}");
    format!("{}/{device}", memory_folder.trim_end_matches('/'))
}

/// Whether `name` can be a device id: what `new_device_id` makes (lower-case hex), or any
/// short name of letters, digits and dashes (tests and the command name theirs).
pub fn is_device_id(name: &str) -> bool {
    !name.is_empty() && name.len() <= 64 && name.bytes().all(|byte| byte.is_ascii_alphanumeric() || byte == b'-')
}

/// The name of a device's `number`th log file: `000001.jsonl`.
pub fn log_file_name(number: u32) -> String {
    debug_assert!((1..=MAX_FILE_NUMBER).contains(&number), "log file number {number}");
    format!("{number:06}.{LOG_EXTENSION}")
}

/// The number of a log file's name; `None` for any other file (a sync tool's conflict copy,
/// `000003 2.jsonl`, is no log file of ours: the device that owns the folder never wrote it).
pub fn log_file_number(name: &str) -> Option<u32> {
    let stem = name.strip_suffix(LOG_EXTENSION)?.strip_suffix('.')?;
    if stem.len() < 6 || stem.len() > 8 || !stem.bytes().all(|byte| byte.is_ascii_digit()) {
        return None;
    }
    stem.parse().ok().filter(|number| (1..=MAX_FILE_NUMBER).contains(number))
}

/// Whether `name` is a `.jsonl` file in a device folder (not a hidden one): one of
/// `LogFileName`'s kinds.
pub fn is_log_like(name: &str) -> bool {
    name.ends_with(&format!(".{LOG_EXTENSION}")) && !name.starts_with('.')
}

/// What a `.jsonl` file in a device folder is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LogFileName {
    /// One of the device's own numbered files.
    Numbered(u32),
    /// A sync tool's conflict copy of one (`000003 2.jsonl`): that device's entries (replaying
    /// is idempotent), read like its files.
    ConflictCopy,
    /// A name neither writes (`4294967295.jsonl`, `notes.jsonl`): someone else put it there;
    /// never read, never removed, reported.
    Foreign,
}

/// The kind of the `.jsonl` file `name` (see `is_log_like`).
pub fn log_file_kind(name: &str) -> LogFileName {
    debug_assert!(is_log_like(name), "not a log-like name: {name}");
    if let Some(number) = log_file_number(name) {
        return LogFileName::Numbered(number);
    }
    // A copy's name is its original's, with what the sync tool adds before the extension.
    let digits = name.bytes().take_while(u8::is_ascii_digit).count();
    let original = format!("{}.{LOG_EXTENSION}", &name[..digits]);
    if log_file_number(&original).is_some() && crate::store::is_conflict_copy(&original, name) {
        LogFileName::ConflictCopy
    } else {
        LogFileName::Foreign
    }
}

/// The next free number after `files` (names), from 1.
pub fn next_file_number(files: &[(String, u64)]) -> u32 {
    files.iter().filter_map(|(name, _)| log_file_number(name)).max().map_or(1, |last| last + 1)
}

/// Which file `adding` bytes go to, given the device's files (name, size): the newest one
/// while it stays within `seal_at` (`SEAL_AT`), else the next number. One append larger than
/// that on its own still goes to one new file, whole.
pub fn log_file_for(files: &[(String, u64)], adding: u64, seal_at: u64) -> String {
    let last = files.iter().filter_map(|(name, size)| Some((log_file_number(name)?, *size))).max();
    match last {
        None => log_file_name(1),
        Some((number, size)) if size == 0 || size.saturating_add(adding) <= seal_at => log_file_name(number),
        Some((number, _)) => log_file_name(number + 1),
    }
}

/// `text` (whole lines) in pieces of whole lines of at most `limit` bytes (a line longer than
/// that alone is a piece of its own).
pub fn line_pieces(text: &str, limit: u64) -> Vec<&str> {
    let limit = usize::try_from(limit).unwrap_or(usize::MAX);
    let mut pieces = Vec::new();
    let (mut start, mut end) = (0, 0);
    for line in text.split_inclusive('\n') {
        if end > start && end - start + line.len() > limit {
            pieces.push(&text[start..end]);
            start = end;
        }
        end += line.len();
    }
    if end > start {
        pieces.push(&text[start..end]);
    }
    pieces
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_outside_the_format_are_no_log_files() {
        assert_eq!(log_file_number("000001.jsonl"), Some(1));
        assert_eq!(log_file_number("12345678.jsonl"), Some(12_345_678));
        assert_eq!(log_file_number("4294967295.jsonl"), None, "past the format's numbers");
        assert_eq!(log_file_number("000000.jsonl"), None);
        assert_eq!(log_file_number("000003 2.jsonl"), None, "a conflict copy");
        assert_eq!(log_file_number("01.jsonl"), None);
        assert!(is_log_like("000003 2.jsonl") && !is_log_like("indexing.json"));
        assert_eq!(log_file_kind("000003.jsonl"), LogFileName::Numbered(3));
        for copy in [
            "000003 2.jsonl",
            "000003 (1).jsonl",
            "000003.sync-conflict-20261201-192231-ABCDEF7.jsonl",
            "000003 (Alice's conflicted copy 2026-12-01).jsonl",
        ] {
            assert_eq!(log_file_kind(copy), LogFileName::ConflictCopy, "{copy}");
        }
        for foreign in
            ["4294967295.jsonl", "notes.jsonl", "000000 2.jsonl", "0000003 x.jsonl", "123.jsonl", "000003x.jsonl"]
        {
            assert_eq!(log_file_kind(foreign), LogFileName::Foreign, "{foreign}");
        }
    }

    #[test]
    fn appends_go_to_the_newest_file_until_it_is_sealed() {
        assert_eq!(log_file_for(&[], 10, SEAL_AT), "000001.jsonl");
        assert_eq!(log_file_for(&[("000001.jsonl".into(), SEAL_AT - 10)], 10, SEAL_AT), "000001.jsonl");
        assert_eq!(log_file_for(&[("000001.jsonl".into(), SEAL_AT - 5)], 10, SEAL_AT), "000002.jsonl");
        assert_eq!(log_file_for(&[("000001.jsonl".into(), 0)], SEAL_AT * 2, SEAL_AT), "000001.jsonl");
        // A compaction's large output is never appended to.
        assert_eq!(
            log_file_for(&[("000007.jsonl".into(), 3_000_000), ("000002.jsonl".into(), 5)], 1, SEAL_AT),
            "000008.jsonl"
        );
    }

    #[test]
    fn pieces_keep_lines_whole_and_within_the_limit_unless_a_line_alone_is_longer() {
        let text = "aaaa\nbb\ncccccccc\nd\n";
        assert_eq!(line_pieces(text, 8), ["aaaa\nbb\n", "cccccccc\n", "d\n"]);
        assert_eq!(line_pieces(text, 100), [text]);
        assert!(line_pieces("", 8).is_empty());
        assert_eq!(line_pieces(text, 3).concat(), text, "nothing lost or added");
    }
}
