//! Which note memories were made from a given chunk of text, whatever note they are in: a
//! renamed or moved note whose move arrived as "deleted, created" (a sync tool, another
//! program), a note another device remembered under another name, a copy.
//!
//! The map from content hash to row keys lives in memory, not in the file: an index on disk
//! costs about 15 bytes per memory, a quarter more file for a vault of short notes. It is built
//! on first use, topped up with the rows added since (keys above the last one read), and
//! dropped when another copy is merged in. An entry may be stale (its row removed, or its key
//! reused), so every hit is read back and checked.

use std::collections::HashMap;

use super::memories::{kind_code, read_memory, stored_hash, SELECT_FULL};
use super::rows::RowReader;
use super::{SqlDriver, SqlValue, Store, StoreError};
use crate::domain::{Memory, SourceKind};

#[derive(Default)]
pub(super) struct ContentIndex {
    keys_by_hash: HashMap<u64, Vec<i64>>,
    /// The largest row key read so far.
    last_key: i64,
}

fn hash_key(bytes: &[u8]) -> Option<u64> {
    Some(u64::from_be_bytes(bytes.get(..8)?.try_into().ok()?))
}

impl<D: SqlDriver> Store<D> {
    /// Up to `limit` note memories made from text with `content_hash`, in notes other than
    /// `path`, the newest first.
    pub fn note_memories_with_content(
        &self,
        path: &str,
        content_hash: &str,
        limit: usize,
    ) -> Result<Vec<Memory>, StoreError> {
        let hash = stored_hash(content_hash)?;
        let Some(wanted) = hash_key(&hash) else { return Ok(Vec::new()) };
        let keys = {
            let mut slot = self.content_index.borrow_mut();
            let index = slot.get_or_insert_with(ContentIndex::default);
            self.top_up(index)?;
            index.keys_by_hash.get(&wanted).cloned().unwrap_or_default()
        };
        let mut found = Vec::new();
        for key in keys.into_iter().rev() {
            if found.len() >= limit {
                break;
            }
            let rows = self.query(
                &format!("{SELECT_FULL} WHERE m.key = +? AND m.kind = +? AND m.content_hash = +?"),
                &[key.into(), kind_code(SourceKind::Note).into(), SqlValue::Blob(hash.clone())],
            )?;
            for row in rows {
                let memory = read_memory(row)?;
                if memory.source_path != path {
                    found.push(memory);
                }
            }
        }
        Ok(found)
    }

    /// Another copy was merged in: rows were added and removed under keys the map may hold.
    pub(super) fn drop_content_index(&self) {
        self.content_index.borrow_mut().take();
    }

    fn top_up(&self, index: &mut ContentIndex) -> Result<(), StoreError> {
        let rows = self.query(
            "SELECT key, content_hash FROM memories WHERE key > ? AND kind = ? AND content_hash IS NOT NULL ORDER BY key",
            &[index.last_key.into(), kind_code(SourceKind::Note).into()],
        )?;
        for row in rows {
            let mut row = RowReader::new(row);
            let key = row.i64()?;
            if let Some(hash) = row.opt_blob()?.as_deref().and_then(hash_key) {
                index.keys_by_hash.entry(hash).or_default().push(key);
            }
            index.last_key = index.last_key.max(key);
        }
        Ok(())
    }
}
