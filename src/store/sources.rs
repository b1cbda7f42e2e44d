//! Sources: what the store knows about each vault file it has remembered.

use super::driver::SqlValue;
use super::memories::Removal;
use super::rows::RowReader;
use super::tombstones::Tombstone;
use super::{SqlDriver, Store, StoreError};
use crate::domain::{Source, SourceKind};
use crate::hash::{hex, unhex, FILE_DIGEST_BYTES};

use super::memories::CONTENT_HASH_BYTES;

/// Content hashes of chunks that hold nothing to remember.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct QuietChunks(std::collections::BTreeSet<Vec<u8>>);

impl QuietChunks {
    pub fn contains(&self, content_hash: &str) -> bool {
        super::memories::stored_hash(content_hash).is_ok_and(|hash| self.0.contains(&hash))
    }
}

/// A source's size and digest as stored, or why `upsert_source` refuses it (checked without the
/// database too: a replay skips a line that holds such a source).
pub(super) fn source_columns(source: &Source) -> Result<(i64, Vec<u8>), StoreError> {
    let size = i64::try_from(source.size)
        .map_err(|_| StoreError::InvalidInput(format!("size {} is too large", source.size)))?;
    let mut sha256 = unhex(&source.sha256)
        .ok_or_else(|| StoreError::InvalidInput(format!("sha256 `{}` is not hex", source.sha256)))?;
    // A whole SHA-256 (a version 4 row) is kept as its digest.
    sha256.truncate(FILE_DIGEST_BYTES);
    Ok((size, sha256))
}

/// A source's columns, in the order `read_source` reads them.
const SELECT: &str = "SELECT p.path, s.mtime, s.size, s.sha256, s.updated_at, s.skipped
     FROM sources AS s JOIN paths AS p ON p.id = s.path_id";

impl<D: SqlDriver> Store<D> {
    /// Records (or updates) what was last remembered of a file.
    pub fn upsert_source(&self, source: &Source) -> Result<(), StoreError> {
        let (size, sha256) = source_columns(source)?;
        self.transaction(|store| {
            let path_id = store.path_id(&source.path)?;
            store.change(
                "INSERT INTO sources (path_id, mtime, size, sha256, updated_at, skipped, here) VALUES (?,?,?,?,?,?,1)
                 ON CONFLICT (path_id) DO UPDATE SET mtime = excluded.mtime, size = excluded.size,
                    sha256 = excluded.sha256, updated_at = excluded.updated_at, skipped = excluded.skipped, here = 1",
                &[
                    path_id.into(),
                    source.mtime.into(),
                    size.into(),
                    SqlValue::Blob(sha256),
                    source.updated_at.into(),
                    source.skipped.clone().into(),
                ],
            )?;
            Ok(())
        })
    }

    /// Records the content hashes of `path`'s chunks that hold nothing to remember (replacing
    /// the earlier list); the source record must exist.
    pub fn set_quiet_chunks(&self, path: &str, hashes: &[String]) -> Result<(), StoreError> {
        let mut blob = Vec::with_capacity(hashes.len() * CONTENT_HASH_BYTES);
        for hash in hashes {
            blob.extend(super::memories::stored_hash(hash)?);
        }
        let value = if blob.is_empty() { SqlValue::Null } else { SqlValue::Blob(blob) };
        self.change(
            "UPDATE sources SET quiet = ? WHERE path_id = (SELECT id FROM paths WHERE path = ?) AND quiet IS NOT ?",
            &[value.clone(), path.into(), value],
        )?;
        Ok(())
    }

    /// Whether this device has read the note (or knows nothing of it): a record that came
    /// only from another device's log is not `here` until the sync tool brings the file.
    pub fn source_here(&self, path: &str) -> Result<bool, StoreError> {
        let rows = self.query(
            "SELECT s.here FROM sources AS s JOIN paths AS p ON p.id = s.path_id WHERE p.path = +?",
            &[path.into()],
        )?;
        Ok(rows.into_iter().next().is_none_or(|row| row.first().and_then(SqlValue::as_i64) != Some(0)))
    }

    /// Removes the note's record and memories from this database only: nothing goes to the
    /// log, and no tombstone stays (a note this device never read is another device's: a later
    /// entry of it, or the same one read again, brings it back).
    pub fn remove_source_here_only(&self, path: &str) -> Result<Removal, StoreError> {
        self.transaction(|store| {
            let record = store.get_source(path)?;
            let removal = store.without_logging(|store| store.remove_source(path))?;
            let mut kept: Vec<Tombstone> = removal
                .memories
                .iter()
                .map(|id| Tombstone::RemovedWithNote { id: id.0.clone(), path: path.to_owned() })
                .chain(removal.consolidations.iter().map(|id| Tombstone::Forgotten { id: id.0.clone() }))
                .collect();
            kept.extend(
                record.map(|record| Tombstone::SourceRecord { updated_at: record.updated_at, path: path.to_owned() }),
            );
            for tombstone in kept {
                store.change("DELETE FROM tombstones WHERE id = ?", &[tombstone.to_string().into()])?;
            }
            Ok(removal)
        })
    }

    /// A record from another device's log: not read here yet (see `source_here`), unless it was.
    pub(super) fn mark_source_from_elsewhere(&self, path: &str, was_here: bool) -> Result<(), StoreError> {
        if !was_here {
            self.change(
                "UPDATE sources SET here = 0 WHERE path_id = (SELECT id FROM paths WHERE path = ?)",
                &[path.into()],
            )?;
        }
        Ok(())
    }

    /// The chunks of `path` known to hold nothing to remember.
    pub fn quiet_chunks(&self, path: &str) -> Result<QuietChunks, StoreError> {
        let rows = self.query(
            "SELECT s.quiet FROM sources AS s JOIN paths AS p ON p.id = s.path_id WHERE p.path = +?",
            &[path.into()],
        )?;
        let blob = match rows.into_iter().next().and_then(|row| row.into_iter().next()) {
            Some(SqlValue::Blob(blob)) => blob,
            _ => Vec::new(),
        };
        Ok(QuietChunks(blob.chunks_exact(CONTENT_HASH_BYTES).map(<[u8]>::to_vec).collect()))
    }

    pub fn get_source(&self, path: &str) -> Result<Option<Source>, StoreError> {
        let rows = self.query(&format!("{SELECT} WHERE p.path = +?"), &[path.into()])?;
        rows.into_iter().next().map(read_source).transpose()
    }

    /// Every known source, by path.
    pub fn list_sources(&self) -> Result<Vec<Source>, StoreError> {
        let rows = self.query(&format!("{SELECT} ORDER BY p.path"), &[])?;
        rows.into_iter().map(read_source).collect()
    }

    /// At most `limit` sources with paths after `after` (all from the start when `None`), by
    /// path: lets the host read thousands of sources in pages, yielding between them.
    pub fn list_sources_page(&self, after: Option<&str>, limit: u32) -> Result<Vec<Source>, StoreError> {
        let rows = self.query(
            &format!("{SELECT} WHERE (?1 IS NULL OR p.path > ?1) ORDER BY p.path LIMIT ?2"),
            &[after.into(), limit.into()],
        )?;
        rows.into_iter().map(read_source).collect()
    }

    /// How many notes are remembered (known and not skipped): the status bar's coverage, counted
    /// here so that the main thread never holds every source of a large vault to count them.
    pub fn remembered_notes(&self) -> Result<u64, StoreError> {
        super::rows::single(self.query("SELECT count(*) FROM sources WHERE skipped IS NULL", &[])?)?.u64()
    }

    /// Sources that are not remembered, with the reason (binary, too large…), by path: at
    /// most `limit` of them, and how many there are.
    pub fn skipped_sources(&self, limit: u32) -> Result<(Vec<Source>, u64), StoreError> {
        let rows =
            self.query(&format!("{SELECT} WHERE s.skipped IS NOT NULL ORDER BY p.path LIMIT ?1"), &[limit.into()])?;
        let sources = rows.into_iter().map(read_source).collect::<Result<Vec<_>, _>>()?;
        let total =
            super::rows::single(self.query("SELECT count(*) FROM sources WHERE skipped IS NOT NULL", &[])?)?.u64()?;
        Ok((sources, total))
    }

    /// Keeps that this version of a note's record was removed here (`Tombstone::SourceRecord`), so a
    /// merge with another device's copy does not bring it back.
    fn tombstone_source(&self, path_id: i64, path: &str) -> Result<(), StoreError> {
        let rows = self.query("SELECT updated_at FROM sources WHERE path_id = ?", &[path_id.into()])?;
        if let Some(row) = rows.into_iter().next() {
            let updated_at = RowReader::new(row).i64()?;
            self.add_tombstone(&Tombstone::SourceRecord { updated_at, path: path.to_owned() })?;
        }
        Ok(())
    }

    /// The file is gone: forget its record and its note memories (with the orphan fix).
    /// Selections and typed text taken from it stay: the user asked for those explicitly.
    pub fn remove_source(&self, path: &str) -> Result<Removal, StoreError> {
        self.transaction(|store| {
            let Some(path_id) = store.find_path_id(path)? else { return Ok(Removal::default()) };
            let ids: Vec<_> =
                store.memories_of_source(path, SourceKind::Note)?.into_iter().map(|memory| memory.id).collect();
            let removal = store.remove_memories(&ids)?;
            store.tombstone_source(path_id, path)?;
            store.change("DELETE FROM sources WHERE path_id = ?", &[path_id.into()])?;
            store.drop_path_if_unused(path_id)?;
            Ok(removal)
        })
    }

    /// The file was renamed: its record and every memory taken from it move along, with
    /// no model call. Whatever was recorded under the new path is replaced. The path is
    /// part of what the full-text index reads, so the moved memories are indexed again.
    pub fn rename_source(&self, old_path: &str, new_path: &str, now: i64) -> Result<(), StoreError> {
        if old_path == new_path {
            return Ok(());
        }
        self.transaction(|store| {
            if store.get_source(new_path)?.is_some() {
                store.remove_source(new_path)?;
            }
            let Some(old_id) = store.find_path_id(old_path)? else { return Ok(()) };
            store.tombstone_source(old_id, old_path)?;
            let keys: Vec<i64> = store
                .query("SELECT key FROM memories WHERE path_id = ?", &[old_id.into()])?
                .into_iter()
                .map(|row| RowReader::new(row).i64())
                .collect::<Result<_, _>>()?;
            for key in &keys {
                store.unindex_memory(*key)?;
            }
            match store.find_path_id(new_path)? {
                // Selections of a note once at the new path keep their id; ours join them.
                Some(new_id) => {
                    store.change(
                        "UPDATE sources SET path_id = ?, updated_at = ? WHERE path_id = ?",
                        &[new_id.into(), now.into(), old_id.into()],
                    )?;
                    store.change(
                        "UPDATE memories SET path_id = ?, updated_at = ? WHERE path_id = ?",
                        &[new_id.into(), now.into(), old_id.into()],
                    )?;
                    store.drop_path_if_unused(old_id)?;
                }
                None => {
                    store.forget_kept_path();
                    store.change("UPDATE paths SET path = ? WHERE id = ?", &[new_path.into(), old_id.into()])?;
                    store
                        .change("UPDATE sources SET updated_at = ? WHERE path_id = ?", &[now.into(), old_id.into()])?;
                    store
                        .change("UPDATE memories SET updated_at = ? WHERE path_id = ?", &[now.into(), old_id.into()])?;
                }
            }
            for key in &keys {
                store.index_memory(*key)?;
            }
            Ok(())
        })
    }
}

fn read_source(row: Vec<SqlValue>) -> Result<Source, StoreError> {
    let mut row = RowReader::new(row);
    Ok(Source {
        path: row.text()?,
        mtime: row.i64()?,
        size: row.u64()?,
        sha256: hex(&row.blob()?),
        updated_at: row.i64()?,
        skipped: row.opt_text()?,
    })
}
