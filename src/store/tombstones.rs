//! What was removed here, kept so that merging another device's copy does not bring it back
//! (schema 8, `tombstones`). One type, one place that writes and reads its text.
//!
//! The text is what older versions and other devices' copies hold, so it never changes:
//! a bare id (forgotten), `id@path` (removed with its note at that path), and
//! `source:<time>:<path>` (a version of a note's record removed). Ids are `m-…`/`c-…` and
//! never hold `@` or start with `source:`; paths may hold anything, so they come last.

use std::collections::BTreeSet;
use std::fmt;

use super::{SqlDriver, SqlValue, Store, StoreError};
use crate::domain::MemoryId;

/// One removal. The order (derived) keeps a memory's `RemovedWithNote`s together, by id.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Tombstone {
    /// A memory or insight forgotten by the user: gone wherever it is (bare id).
    Forgotten { id: String },
    /// A memory removed with its note (an edit, a delete) at `path`: gone only while it is
    /// still at that path, since the other copy may have moved it with a rename (`id@path`).
    RemovedWithNote { id: String, path: String },
    /// The version of a note's record remembered at `updated_at` was removed (a delete or a
    /// rename of the note): `source:<time>:<path>`.
    SourceRecord { updated_at: i64, path: String },
}

/// The prefix of a removed note record's tombstone.
const SOURCE_PREFIX: &str = "source:";

impl Tombstone {
    /// Reads a stored tombstone. Every text reads as one: a `source:` one whose time is not a
    /// number (none is written so) is taken as a bare id, which matches nothing but itself.
    pub fn parse(text: &str) -> Self {
        if let Some((at, path)) = text.strip_prefix(SOURCE_PREFIX).and_then(|record| record.split_once(':')) {
            // Only the time as written (`+5` or `05` is no time of ours), so text reads back as it was.
            if let Some(updated_at) = at.parse::<i64>().ok().filter(|time| time.to_string() == at) {
                return Tombstone::SourceRecord { updated_at, path: path.to_owned() };
            }
        }
        match text.split_once('@') {
            Some((id, path)) => Tombstone::RemovedWithNote { id: id.to_owned(), path: path.to_owned() },
            None => Tombstone::Forgotten { id: text.to_owned() },
        }
    }

    /// The id of the memory or insight it removed; `None` for a note's record.
    pub fn removed_id(&self) -> Option<&str> {
        match self {
            Tombstone::Forgotten { id } | Tombstone::RemovedWithNote { id, .. } => Some(id),
            Tombstone::SourceRecord { .. } => None,
        }
    }
}

impl fmt::Display for Tombstone {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        debug_assert!(self.removed_id().is_none_or(|id| !id.contains('@')), "an id holds `@`: {self:?}");
        match self {
            Tombstone::Forgotten { id } => write!(formatter, "{id}"),
            Tombstone::RemovedWithNote { id, path } => write!(formatter, "{id}@{path}"),
            Tombstone::SourceRecord { updated_at, path } => write!(formatter, "{SOURCE_PREFIX}{updated_at}:{path}"),
        }
    }
}

/// How a memory was removed here (`Store::memory_removal`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RemovedHere {
    Forgotten,
    /// With its note, at the path asked about.
    WithItsNote,
}

/// Every removal of one copy, in order.
pub type Tombstones = BTreeSet<Tombstone>;

/// Whether `tombstones` hold a removal of the memory `id` with its note (at any path).
pub(super) fn removed_with_a_note(tombstones: &Tombstones, id: &str) -> bool {
    let first = Tombstone::RemovedWithNote { id: id.to_owned(), path: String::new() };
    tombstones
        .range(first..)
        .next()
        .is_some_and(|next| matches!(next, Tombstone::RemovedWithNote { id: found, .. } if found == id))
}

impl<D: SqlDriver> Store<D> {
    /// Keeps a removal (once).
    pub(super) fn add_tombstone(&self, tombstone: &Tombstone) -> Result<(), StoreError> {
        self.add_new_tombstone(tombstone).map(|_| ())
    }

    /// Keeps a removal; whether it was new here.
    pub(super) fn add_new_tombstone(&self, tombstone: &Tombstone) -> Result<bool, StoreError> {
        let text = tombstone.to_string();
        if self.has_tombstone(tombstone)? {
            return Ok(false);
        }
        self.change("INSERT INTO tombstones (id) VALUES (?)", &[text.into()])?;
        // Here or replayed: what it removed may be in this device's own log files.
        self.mark_log_purge_due()?;
        Ok(true)
    }

    /// Whether this removal is kept here.
    pub(super) fn has_tombstone(&self, tombstone: &Tombstone) -> Result<bool, StoreError> {
        Ok(!self.query("SELECT 1 FROM tombstones WHERE id = ?", &[tombstone.to_string().into()])?.is_empty())
    }

    /// How the memory `id` was removed here, if it was: forgotten (anywhere), or removed with
    /// its note at `path` (one statement for both kinds).
    pub fn memory_removal(&self, id: &MemoryId, path: &str) -> Result<Option<RemovedHere>, StoreError> {
        let forgotten = Tombstone::Forgotten { id: id.0.clone() }.to_string();
        let removed_with_note = Tombstone::RemovedWithNote { id: id.0.clone(), path: path.to_owned() }.to_string();
        let rows = self.query(
            "SELECT id FROM tombstones WHERE id IN (?1, ?2) ORDER BY id = ?1 DESC LIMIT 1",
            &[forgotten.as_str().into(), removed_with_note.into()],
        )?;
        Ok(rows.into_iter().next().map(|row| {
            if row.first().and_then(SqlValue::as_str) == Some(forgotten.as_str()) {
                RemovedHere::Forgotten
            } else {
                RemovedHere::WithItsNote
            }
        }))
    }

    /// Everything removed here.
    pub fn tombstones(&self) -> Result<Tombstones, StoreError> {
        let rows = self.query("SELECT id FROM tombstones", &[])?;
        Ok(rows
            .into_iter()
            .filter_map(|row| row.into_iter().next().and_then(|value| value.as_str().map(Tombstone::parse)))
            .collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_kind_reads_back_as_written() {
        for tombstone in [
            Tombstone::Forgotten { id: "m-1a2b".into() },
            Tombstone::RemovedWithNote { id: "m-1a2b".into(), path: "Daily/2026-02-01 @home.md".into() },
            Tombstone::SourceRecord { updated_at: 1_767_225_600_000, path: "Notes/a:b@c.md".into() },
            Tombstone::SourceRecord { updated_at: -5, path: String::new() },
        ] {
            assert_eq!(Tombstone::parse(&tombstone.to_string()), tombstone, "{tombstone}");
        }
    }

    #[test]
    fn rows_written_by_older_versions_read_as_before() {
        // The exact text older versions wrote (`memories.rs`'s SQL, `source_tombstone`).
        assert_eq!(Tombstone::parse("c-77"), Tombstone::Forgotten { id: "c-77".into() });
        assert_eq!(
            Tombstone::parse("m-9@Inbox/x@y.md"),
            Tombstone::RemovedWithNote { id: "m-9".into(), path: "Inbox/x@y.md".into() }
        );
        assert_eq!(
            Tombstone::parse("source:1700000000000:Projects/plan: v2.md"),
            Tombstone::SourceRecord { updated_at: 1_700_000_000_000, path: "Projects/plan: v2.md".into() }
        );
        // Not a number: no record's version, kept as text that matches only itself.
        for odd in ["source:soon:x.md", "source:05:x.md", "source:+5:x.md", "source:"] {
            assert_eq!(Tombstone::parse(odd).to_string(), odd);
        }
    }

    #[test]
    fn a_removal_with_a_note_is_found_by_id_alone() {
        let tombstones: Tombstones =
            ["m-1", "m-2@b.md", "m-20@c.md", "m-3"].into_iter().map(Tombstone::parse).collect();
        assert!(removed_with_a_note(&tombstones, "m-2"));
        assert!(!removed_with_a_note(&tombstones, "m-1"));
        assert!(!removed_with_a_note(&tombstones, "m-3"));
        assert!(removed_with_a_note(&tombstones, "m-20"));
    }
}
