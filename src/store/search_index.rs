//! The full-text index of memories (FTS4, external content): what it indexes, and keeping
//! it in step with the rows it reads from.
//!
//! The index reads each memory's text from the view `memory_search` (schema version 5): the
//! summary, the words (a selection's text, or a note chunk's keywords), the entity names,
//! the topics, the place (path and heading) and the facts (schema version 10). Nothing is stored twice. FTS4 removes a row
//! by reading what it indexed from that view, so a memory leaves the index *before* any of
//! those columns change or go, and enters it again after; the store does this explicitly
//! (`index_memory`, `unindex_memory`) in the same transaction as the change.
//!
//! A note's own text stays in the vault. What the index needs of it are the words a
//! question might use that the summary, entities, topics and headings do not already
//! carry: `keywords` keeps the chunk's most frequent such words, a few dozen bytes.

use super::schema::FULL_TEXT_INDEX;
use super::{SqlDriver, Store, StoreError};
use crate::domain::Memory;
use crate::stems::{index_pairs, index_stems, STEMS_VERSION};
use crate::words::content_keywords;

/// Where the store notes which rules (`STEMS_VERSION`) its `stems` were made with.
const STEMS_VERSION_KEY: &str = "stems_version";

/// At most this many terms of each kind are indexed for a memory (a long selection of
/// Chinese text would otherwise index every pair of it).
const MAX_STEM_TERMS: usize = 400;

/// At most this many words of a note chunk are kept for the full-text search.
pub const MAX_KEYWORDS: usize = 10;

impl<D: SqlDriver> Store<D> {
    /// Merges the index into one segment: a removed memory's words stay in older segments
    /// (FTS4 only marks them deleted) until a merge rewrites them. About 0.1 s at 50,000
    /// memories natively; run after the user forgets something.
    pub(super) fn merge_search_index(&self) -> Result<(), StoreError> {
        self.change(&format!("INSERT INTO {FULL_TEXT_INDEX} ({FULL_TEXT_INDEX}) VALUES ('optimize')"), &[])?;
        Ok(())
    }

    /// Enters the memory `key` in the full-text index (after it was inserted or changed); while
    /// `with_index_deferred` runs, at its end.
    pub(super) fn index_memory(&self, key: i64) -> Result<(), StoreError> {
        if let Some(pending) = self.deferred_index.borrow_mut().as_mut() {
            pending.insert(key);
            return Ok(());
        }
        self.change(
            &format!(
                "INSERT INTO {FULL_TEXT_INDEX} (docid, summary, words, entities, topics, place, stems, pairs, facts)
                 SELECT rowid, summary, words, entities, topics, place, stems, pairs, facts FROM memory_search
                 WHERE rowid = +?"
            ),
            &[key.into()],
        )?;
        Ok(())
    }

    /// Takes the memory `key` out of the full-text index (before it changes or goes).
    pub(super) fn unindex_memory(&self, key: i64) -> Result<(), StoreError> {
        // Never entered yet: FTS4 would take out words it does not hold.
        if self.deferred_index.borrow_mut().as_mut().is_some_and(|pending| pending.remove(&key)) {
            return Ok(());
        }
        self.change(&format!("DELETE FROM {FULL_TEXT_INDEX} WHERE docid = ?"), &[key.into()])?;
        Ok(())
    }

    /// Runs `work` (inside a transaction) with the memories it enters in the full-text index
    /// entered at its end, in one statement: FTS4 writes what a statement indexed as a segment
    /// of its own and merges segments as they pile up, so a replay entering memories one by
    /// one spent a fifth of its time there.
    pub(super) fn with_index_deferred<T>(
        &self,
        work: impl FnOnce(&Self) -> Result<T, StoreError>,
    ) -> Result<T, StoreError> {
        debug_assert!(self.in_transaction.get(), "deferred indexing outside a transaction");
        if self.deferred_index.borrow().is_some() {
            return work(self);
        }
        *self.deferred_index.borrow_mut() = Some(std::collections::BTreeSet::new());
        let result = work(self);
        let pending = self.deferred_index.borrow_mut().take().unwrap_or_default();
        let value = result?;
        if !pending.is_empty() {
            let keys = serde_json::to_string(&pending).map_err(|error| StoreError::InvalidData(error.to_string()))?;
            self.change(
                &format!(
                    "INSERT INTO {FULL_TEXT_INDEX} (docid, summary, words, entities, topics, place, stems, pairs, facts)
                     SELECT rowid, summary, words, entities, topics, place, stems, pairs, facts FROM memory_search
                     WHERE rowid IN (SELECT value FROM json_each(?))"
                ),
                &[keys.into()],
            )?;
        }
        Ok(value)
    }

    /// Rebuilds the index when its `stems` and `pairs` were made by other rules (or before
    /// version 7); a no-op once done.
    pub(super) fn finish_stems(&self) -> Result<(), StoreError> {
        if self.get_meta(STEMS_VERSION_KEY)?.as_deref() == Some(STEMS_VERSION.to_string().as_str()) {
            return Ok(());
        }
        self.transaction(|store| {
            store.set_meta(STEMS_VERSION_KEY, &STEMS_VERSION.to_string())?;
            store.rebuild_index()
        })
    }

    /// Rebuilds the whole index from the memories (it is derived data).
    pub(super) fn rebuild_index(&self) -> Result<(), StoreError> {
        self.driver.execute_batch(&format!("INSERT INTO {FULL_TEXT_INDEX} ({FULL_TEXT_INDEX}) VALUES ('rebuild')"))?;
        self.dirty.set(true);
        Ok(())
    }
}

/// The SQL function `memory_terms(kind, text, names)` the index's view calls: the `stems`
/// (kind `'stems'`) or the `pairs` (`'pairs'`) of a memory's text (stemmed) and entity names
/// (split and paired only: names are not stemmed). Every driver registers it.
pub fn sql_memory_terms(kind: &str, text: &str, names: &str) -> String {
    let texts = [(text, true), (names, false)];
    let chosen =
        if kind == "pairs" { index_pairs(&texts, MAX_STEM_TERMS) } else { index_stems(&texts, MAX_STEM_TERMS) };
    chosen.unwrap_or_default()
}

/// The words of a note memory's text worth searching besides what its summary, entities,
/// topics and place already say: content words (no stop words, numbers or one-letter
/// words), most frequent first, then in order of appearance; `None` when there are none.
pub fn keywords(memory: &Memory) -> Option<String> {
    let known = [memory.summary.as_str(), memory.source_path.as_str()]
        .into_iter()
        .chain(memory.position.heading.as_deref())
        .chain(memory.entities.iter().map(|entity| entity.name.as_str()))
        .chain(memory.topics.iter().map(String::as_str))
        .chain(memory.facts.iter().map(String::as_str));
    content_keywords(&memory.raw_text, known, MAX_KEYWORDS)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::{Entity, MemoryId, Position, SourceKind};

    fn note(text: &str, summary: &str) -> Memory {
        Memory {
            id: MemoryId("m".into()),
            source_path: "Projects/Apollo.md".into(),
            source_kind: SourceKind::Note,
            position: Position { heading: Some("Kickoff".into()), line_start: None, line_end: None },
            raw_text: text.into(),
            summary: summary.into(),
            entities: vec![Entity { name: "Alice Nguyen".into(), kind: "person".into() }],
            topics: vec!["launch".into()],
            importance: 0.5,
            happened_on: None,
            also_on: Vec::new(),
            date_source: Default::default(),
            facts: Vec::new(),
            created_at: 0,
            updated_at: 0,
            consolidated: false,
            content_hash: None,
        }
    }

    #[test]
    fn a_memory_entered_and_taken_out_within_a_deferred_merge_leaves_nothing_in_the_index() {
        use crate::store::rusqlite_driver::RusqliteDriver;
        let store = Store::open(RusqliteDriver::new()).unwrap();
        let mut kept = note("telescope mirror", "Alice planned the Apollo launch.");
        kept.id = MemoryId("m-kept".into());
        kept.content_hash = Some("00112233445566778899aabbccddeeff".into());
        let mut gone = note("telescope coating", "Bob cancelled the Zephyr launch.");
        gone.id = MemoryId("m-gone".into());
        gone.content_hash = Some("ffeeddccbbaa99887766554433221100".into());
        let pending = |store: &Store<RusqliteDriver>| store.deferred_index.borrow().as_ref().map(|keys| keys.len());
        store
            .transaction(|store| {
                store.with_index_deferred(|store| {
                    store.insert_memory(&kept)?;
                    store.insert_memory(&gone)?;
                    assert_eq!(pending(store), Some(2), "entered at the end");
                    store.remove_memories(&[gone.id.clone()])?;
                    // Never entered, so not taken out of FTS4 (which would write markers for
                    // words it does not hold).
                    assert_eq!(pending(store), Some(1));
                    Ok(())
                })
            })
            .unwrap();
        assert_eq!(pending(&store), None, "deferring ends with the merge");
        let count = |word: &str| {
            let sql = format!("SELECT count(*) FROM {FULL_TEXT_INDEX} WHERE {FULL_TEXT_INDEX} MATCH ?");
            crate::store::rows::single(store.query(&sql, &[word.into()]).unwrap()).unwrap().u64().unwrap()
        };
        assert_eq!((count("apollo"), count("zephyr")), (1, 0));
        assert!(!store.check_integrity().unwrap().repaired_index);
    }

    #[test]
    fn keywords_are_the_frequent_content_words_nothing_else_carries() {
        let memory = note(
            "# Kickoff\nAlice Nguyen and the telescope: the telescope mirror, the mirror coating, \
             the launch in 2026 on pad 39. Thermal tests!",
            "Alice planned the Apollo launch.",
        );
        let found = keywords(&memory).unwrap_or_default();
        let found: Vec<&str> = found.split(' ').collect();
        assert_eq!(&found[..2], &["telescope", "mirror"], "most frequent first: {found:?}");
        for gone in ["kickoff", "alice", "nguyen", "the", "launch", "2026", "39", "apollo"] {
            assert!(!found.contains(&gone), "{gone} is stop word, number or already indexed: {found:?}");
        }
        assert!(found.contains(&"coating") && found.contains(&"thermal"), "{found:?}");
        assert!(found.len() <= MAX_KEYWORDS);
    }

    #[test]
    fn keywords_are_capped_folded_and_absent_for_empty_text() {
        let long: String = (0..100).map(|n| format!("word{} ", char::from(b'a' + (n % 26) as u8))).collect();
        let long = format!("{long} Đặng Ngân");
        let found = keywords(&note(&long, "S.")).unwrap_or_default();
        assert_eq!(found.split(' ').count(), MAX_KEYWORDS);
        assert!(keywords(&note("", "S.")).is_none());
        assert!(keywords(&note("the and of 12 34", "S.")).is_none());
        assert_eq!(keywords(&note("Đặng Ngân", "S.")).as_deref(), Some("dang ngan"));
    }
}
