//! The copies sync tools make of the database file when two devices changed it at once, each
//! holding work the other lacks, to be merged and then removed. Their names, for a database
//! `memory.db`:
//!
//! - Syncthing: `memory.sync-conflict-20261201-192231-ABCDEF7.db`
//! - Dropbox, Nextcloud, ownCloud: `memory (Alice's conflicted copy 2026-12-01).db`,
//!   `memory (conflicted copy 2026-12-01 192231).db`
//! - iCloud Drive: `memory 2.db`
//! - Google Drive: `memory (1).db`
//!
//! Obsidian Sync and git make none (the newer file wins; git leaves the conflict in place).

/// Whether the file named `candidate` (a name, not a path) is a sync tool's conflict copy of
/// the database named `database`, beside it in the same folder.
pub fn is_conflict_copy(database: &str, candidate: &str) -> bool {
    let (stem, extension) = match database.rfind('.') {
        Some(dot) if dot > 0 => (&database[..dot], &database[dot..]),
        _ => (database, ""),
    };
    let Some(middle) = candidate.strip_prefix(stem).and_then(|rest| rest.strip_suffix(extension)) else {
        return false;
    };
    syncthing(middle) || conflicted_copy(middle) || numbered(middle)
}

/// `.sync-conflict-<8 digits>-<6 digits>-<device id>`.
fn syncthing(middle: &str) -> bool {
    let Some(rest) = middle.strip_prefix(".sync-conflict-") else { return false };
    let parts: Vec<&str> = rest.split('-').collect();
    let digits = |part: &str, count: usize| part.len() == count && part.bytes().all(|byte| byte.is_ascii_digit());
    parts.len() == 3
        && digits(parts[0], 8)
        && digits(parts[1], 6)
        && !parts[2].is_empty()
        && parts[2].bytes().all(|byte| byte.is_ascii_alphanumeric())
}

/// ` (… conflicted copy …)`.
fn conflicted_copy(middle: &str) -> bool {
    middle.starts_with(" (") && middle.ends_with(')') && middle.to_lowercase().contains("conflicted copy")
}

/// ` 2` (iCloud) or ` (1)` (Google Drive).
fn numbered(middle: &str) -> bool {
    let number = middle.strip_prefix(" (").and_then(|rest| rest.strip_suffix(')')).or_else(|| middle.strip_prefix(' '));
    number.is_some_and(|digits| {
        !digits.is_empty() && digits.len() <= 3 && digits.bytes().all(|byte| byte.is_ascii_digit())
    })
}

#[cfg(test)]
mod tests {
    use super::is_conflict_copy;

    #[test]
    fn the_common_sync_tools_conflict_copies_are_recognised_and_nothing_else() {
        for copy in [
            "memory.sync-conflict-20261201-192231-ABCDEF7.db",
            "memory (Alice's conflicted copy 2026-12-01).db",
            "memory (conflicted copy 2026-12-01 192231).db",
            "memory (Conflicted copy 2026-12-01).db",
            "memory 2.db",
            "memory (1).db",
        ] {
            assert!(is_conflict_copy("memory.db", copy), "{copy}");
        }
        for other in [
            "memory.db",
            "memory.db.tmp",
            "memory.db.corrupt-20261201T192231Z",
            "memory.sync-conflict-2026-192231-ABC.db",
            "memory (draft).db",
            "memory 2026-12-01.db",
            "memory 2024.db",
            "memory 2.sqlite",
            "other 2.db",
            "memory.sync-tmp",
        ] {
            assert!(!is_conflict_copy("memory.db", other), "{other}");
        }
        assert!(is_conflict_copy("vault memory.sqlite", "vault memory 3.sqlite"));
    }
}
