//! Merging another copy of this memory into this one — another device's, brought by a sync
//! tool — instead of letting one copy replace the other, so no paid work is lost:
//!
//! - what either side removed stays removed (`tombstones`: forgets, edits, deletes, and the
//!   records of deleted and renamed notes);
//! - a note's memories are those of the side that remembered the note last (its source's
//!   `updated_at`, then its digest, so both sides choose alike), with that side's quiet chunks;
//!   the other side's memories of the note go (as tombstones);
//! - memories of selections and typed text (and of notes with no record), and insights, are
//!   the union of both, by id;
//! - usage is counted per device, each row as the copy that counted more calls, so the
//!   totals are every device's;
//! - jobs and settings stay this side's.
//!
//! Both sides running it on each other's copy reach the same memories. It runs in one
//! transaction: a failure leaves this copy as it was.

use std::collections::{BTreeSet, HashMap};

use serde::Serialize;

use super::memories::MemoryFilter;
use super::sources::source_tombstone;
use super::{SqlDriver, SqlValue, Store, StoreError};
use crate::domain::{ConsolidationId, MemoryId, Source, SourceKind};

/// What a merge changed here.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct MergeReport {
    /// Notes whose memories came from the other copy.
    pub notes_adopted: usize,
    pub memories_added: usize,
    pub memories_removed: usize,
    pub insights_added: usize,
    pub insights_removed: usize,
    /// The other copy lacks something this one has (a memory, an insight, a removal, a newer
    /// note), so this one must be saved for the other device to get it. When false the two
    /// are alike and saving would only make the sync tool carry the file back and forth.
    pub theirs_behind: bool,
}

/// What a merge did, with what the engine needs besides the report.
#[derive(Debug)]
pub struct MergeOutcome {
    pub merged: MergeReport,
    /// Paid-for note memories neither copy keeps now (see `Store::merge_from_keeping`).
    pub displaced: Vec<crate::domain::Memory>,
    /// Notes whose record came from the other copy: the note here may not hold that text yet.
    pub adopted: Vec<String>,
}

/// Which of two versions of a note wins: the one remembered later, then by digest, then by
/// its memories' ids (both devices may remember the same text in the same millisecond), so
/// that both sides choose the same.
fn later(theirs: (&Source, &[String]), ours: (&Source, &[String])) -> bool {
    (theirs.0.updated_at, &theirs.0.sha256, theirs.1) > (ours.0.updated_at, &ours.0.sha256, ours.1)
}

/// Whether `memory` was removed here: forgotten (its bare id), or removed with its note at the
/// path it has in the other copy (`id@path`).
fn removed(tombstones: &BTreeSet<String>, memory: &crate::domain::Memory) -> bool {
    tombstones.contains(&memory.id.0) || tombstones.contains(&format!("{}@{}", memory.id.0, memory.source_path))
}

impl<D: SqlDriver> Store<D> {
    /// Where a memory is now (its note's path, "" for typed text); `None` when there is none.
    fn memory_path(&self, id: &MemoryId) -> Result<Option<String>, StoreError> {
        let rows = self.query(
            "SELECT p.path FROM memories AS m JOIN paths AS p ON p.id = m.path_id WHERE m.id = ?",
            &[id.0.as_str().into()],
        )?;
        Ok(rows
            .into_iter()
            .next()
            .and_then(|row| row.into_iter().next())
            .and_then(|value| value.as_str().map(str::to_owned)))
    }

    /// Each note's memory ids, sorted, by the note's path.
    fn note_memory_ids_by_path(&self) -> Result<HashMap<String, Vec<String>>, StoreError> {
        let rows = self.query(
            "SELECT p.path, m.id FROM memories AS m JOIN paths AS p ON p.id = m.path_id WHERE m.kind = ? ORDER BY p.path, m.id",
            &[super::memories::kind_code(SourceKind::Note).into()],
        )?;
        let mut by_path: HashMap<String, Vec<String>> = HashMap::new();
        for row in rows {
            let mut row = row.into_iter();
            if let (Some(SqlValue::Text(path)), Some(SqlValue::Text(id))) = (row.next(), row.next()) {
                by_path.entry(path).or_default().push(id);
            }
        }
        Ok(by_path)
    }

    /// The ids of everything removed here.
    pub fn tombstones(&self) -> Result<BTreeSet<String>, StoreError> {
        let rows = self.query("SELECT id FROM tombstones", &[])?;
        Ok(rows
            .into_iter()
            .filter_map(|row| row.into_iter().next().and_then(|value| value.as_str().map(str::to_owned)))
            .collect())
    }

    /// Merges `theirs` into this store (see the module's comment).
    pub fn merge_from<E: SqlDriver>(&self, theirs: &Store<E>) -> Result<MergeReport, StoreError> {
        Ok(self.merge_from_keeping(theirs)?.merged)
    }

    /// `merge_from`, also handing back the paid-for note memories that neither copy keeps now
    /// (none of them forgotten): removed here because the other side removed them with their
    /// note (a move there arrives as "deleted" here, and its text may come back under the new
    /// name), this side's memories of a note whose other version won, and the other side's of a
    /// note whose version here won (the note's text here may still turn out to be theirs).
    pub fn merge_from_keeping<E: SqlDriver>(&self, theirs: &Store<E>) -> Result<MergeOutcome, StoreError> {
        self.drop_content_index();
        let their_tombstones = theirs.tombstones()?;
        let their_sources = theirs.list_sources()?;
        let mut their_memories = theirs.list_memories(&MemoryFilter::default())?;
        // A note's memory keeps a few words for search, not its text: carried as its text, they
        // make the same words here.
        let keywords: HashMap<String, String> = theirs
            .query("SELECT id, keywords FROM memories WHERE keywords IS NOT NULL", &[])?
            .into_iter()
            .filter_map(|row| match (row.first(), row.get(1)) {
                (Some(SqlValue::Text(id)), Some(SqlValue::Text(words))) => Some((id.clone(), words.clone())),
                _ => None,
            })
            .collect();
        for memory in &mut their_memories {
            if let Some(words) = keywords.get(&memory.id.0) {
                memory.raw_text.clone_from(words);
            }
        }
        let their_insights = theirs.list_consolidations(0, 0)?;
        let their_usage = theirs.usage_rows()?;
        // One query each, not one per note: a merge runs on every copy the sync tool brings.
        let their_quiet: HashMap<String, Vec<u8>> = theirs
            .query("SELECT p.path, s.quiet FROM sources AS s JOIN paths AS p ON p.id = s.path_id WHERE s.quiet IS NOT NULL", &[])?
            .into_iter()
            .filter_map(|row| {
                let mut row = row.into_iter();
                match (row.next(), row.next()) {
                    (Some(SqlValue::Text(path)), Some(SqlValue::Blob(quiet))) => Some((path, quiet)),
                    _ => None,
                }
            })
            .collect();
        let known_tombstones = self.tombstones()?;

        self.transaction(|store| {
            let mut report = MergeReport::default();
            // This memory is shared from now on (and the other device learns it from our copy).
            store.set_meta("merged_another_copy", "1")?;
            // What they removed goes here too.
            let mut gone_memories: Vec<MemoryId> = Vec::new();
            // A removal known here already took effect here (when made, or when merged).
            for tombstone in their_tombstones.difference(&known_tombstones) {
                store.change("INSERT OR IGNORE INTO tombstones (id) VALUES (?)", &[tombstone.as_str().into()])?;
                if let Some(removed_record) = tombstone.strip_prefix("source:") {
                    // `source:<time>:<path>`: they removed the note as it was remembered at
                    // <time>; our record of that very version goes too (with what is left of it).
                    let Some((at, path)) = removed_record.split_once(':') else { continue };
                    let same_version = store.get_source(path)?.is_some_and(|own| own.updated_at.to_string() == at);
                    if same_version {
                        let removal = store.remove_source(path)?;
                        report.memories_removed += removal.memories.len();
                        report.insights_removed += removal.consolidations.len();
                    }
                    continue;
                }
                // `id@path`: removed with its note there; here only if it is still at that path
                // (not moved on with a rename). A bare id: forgotten, wherever it is.
                let (id, at) = match tombstone.split_once('@') {
                    Some((id, path)) => (id, Some(path)),
                    None => (tombstone.as_str(), None),
                };
                let memory = MemoryId(id.to_owned());
                match store.memory_path(&memory)? {
                    Some(path) if at.is_none_or(|at| at == path) && !gone_memories.contains(&memory) => {
                        gone_memories.push(memory)
                    }
                    Some(_) => {}
                    None if at.is_none() && store.get_consolidation(&ConsolidationId(id.to_owned()))?.is_some() => {
                        store.delete_consolidation(&ConsolidationId(id.to_owned()))?;
                        report.insights_removed += 1;
                    }
                    None => {}
                }
            }
            let mut removed_with_notes = Vec::new();
            let mut adopted = Vec::new();
            for (id, tombstone) in gone_memories.iter().map(|id| (id, format!("{}@", id.0))) {
                // A forget leaves the bare id as well: forgotten text is never kept.
                let forgotten = their_tombstones.contains(&id.0);
                let with_note = their_tombstones
                    .range(tombstone.clone()..)
                    .next()
                    .is_some_and(|their| their.starts_with(&tombstone));
                if !forgotten && with_note {
                    removed_with_notes.extend(store.get_memory(id)?);
                }
            }
            let removal = store.remove_memories(&gone_memories)?;
            report.memories_removed += removal.memories.len();
            report.insights_removed += removal.consolidations.len();
            let tombstones = store.tombstones()?;

            // Each note as the side that remembered it last has it.
            let ours: HashMap<String, Source> =
                store.list_sources()?.into_iter().map(|source| (source.path.clone(), source)).collect();
            let own_ids_by_path = store.note_memory_ids_by_path()?;
            let mut by_path: HashMap<&str, Vec<&crate::domain::Memory>> = HashMap::new();
            for memory in their_memories.iter().filter(|memory| memory.source_kind == SourceKind::Note) {
                by_path.entry(memory.source_path.as_str()).or_default().push(memory);
            }
            for source in &their_sources {
                let removed_here = tombstones.contains(&source_tombstone(&source.path, source.updated_at));
                let theirs_here: Vec<&crate::domain::Memory> =
                    by_path.get(source.path.as_str()).cloned().unwrap_or_default();
                let mut their_ids: Vec<String> = theirs_here.iter().map(|memory| memory.id.0.clone()).collect();
                their_ids.sort();
                let newer = match ours.get(&source.path) {
                    None => true,
                    Some(own) => {
                        let own_ids = own_ids_by_path.get(source.path.as_str()).map_or(&[][..], Vec::as_slice);
                        later((source, &their_ids), (own, own_ids))
                    }
                };
                if removed_here || !newer {
                    let own = own_ids_by_path.get(source.path.as_str()).map_or(&[][..], Vec::as_slice);
                    removed_with_notes.extend(
                        theirs_here
                            .iter()
                            .filter(|memory| !removed(&tombstones, memory) && !own.contains(&memory.id.0))
                            .map(|memory| (*memory).clone()),
                    );
                    continue;
                }
                let keep: BTreeSet<&str> = theirs_here.iter().map(|memory| memory.id.0.as_str()).collect();
                let stale: Vec<MemoryId> = own_ids_by_path
                    .get(source.path.as_str())
                    .into_iter()
                    .flatten()
                    .filter(|id| !keep.contains(id.as_str()))
                    .map(|id| MemoryId(id.clone()))
                    .collect();
                for id in &stale {
                    removed_with_notes.extend(store.get_memory(id)?);
                }
                let removal = store.remove_memories(&stale)?;
                report.memories_removed += removal.memories.len();
                report.insights_removed += removal.consolidations.len();
                for memory in theirs_here {
                    if !removed(&tombstones, memory) && !store.memory_exists(&memory.id)? {
                        store.insert_memory(memory)?;
                        report.memories_added += 1;
                    }
                }
                store.upsert_source(source)?;
                let quiet = their_quiet.get(&source.path).cloned();
                store.change(
                    "UPDATE sources SET quiet = ? WHERE path_id = (SELECT id FROM paths WHERE path = ?)",
                    &[quiet.map(SqlValue::Blob).unwrap_or(SqlValue::Null), source.path.as_str().into()],
                )?;
                report.notes_adopted += 1;
                adopted.push(source.path.clone());
            }

            // Selections and typed text have no record of a note (nor has a note memory whose
            // record is gone): both sides' are kept.
            let recorded: BTreeSet<&str> = their_sources.iter().map(|source| source.path.as_str()).collect();
            let unrecorded = |memory: &&crate::domain::Memory| {
                memory.source_kind != SourceKind::Note || !recorded.contains(memory.source_path.as_str())
            };
            for memory in their_memories.iter().filter(unrecorded) {
                if !removed(&tombstones, memory) && !store.memory_exists(&memory.id)? {
                    store.insert_memory(memory)?;
                    report.memories_added += 1;
                }
            }

            // Insights over memories both now have.
            let new_insights: Vec<crate::domain::Consolidation> = their_insights
                .iter()
                .filter(|insight| !tombstones.contains(&insight.id.0))
                .filter(|insight| store.get_consolidation(&insight.id).map(|found| found.is_none()).unwrap_or(false))
                .cloned()
                .collect();
            report.insights_added += store.save_consolidation_batch(&[], &new_insights)?;
            for (device, record) in &their_usage {
                store.merge_usage_row(device, record)?;
            }
            report.theirs_behind =
                store.has_more_than(&their_tombstones, &their_sources, &their_memories, &their_insights)?
                    || store.counted_more_than(&their_usage)?;
            Ok(MergeOutcome { merged: report, displaced: removed_with_notes, adopted })
        })
    }

    /// Whether this store counted calls (of any device) that the other copy's usage lacks.
    fn counted_more_than(&self, theirs: &[(String, super::UsageRecord)]) -> Result<bool, StoreError> {
        let their_calls: HashMap<(&str, &str, &str), u64> = theirs
            .iter()
            .map(|(device, record)| ((device.as_str(), record.day.as_str(), record.agent.as_str()), record.calls))
            .collect();
        Ok(self.usage_rows()?.iter().any(|(device, record)| {
            their_calls
                .get(&(device.as_str(), record.day.as_str(), record.agent.as_str()))
                .is_none_or(|calls| *calls < record.calls)
        }))
    }

    /// Whether this store holds a removal, a note's version, a memory or an insight that the
    /// other copy's lists lack.
    fn has_more_than(
        &self,
        tombstones: &BTreeSet<String>,
        sources: &[Source],
        memories: &[crate::domain::Memory],
        insights: &[crate::domain::Consolidation],
    ) -> Result<bool, StoreError> {
        if !self.tombstones()?.is_subset(tombstones) {
            return Ok(true);
        }
        let their_sources: BTreeSet<(&str, i64, &str)> =
            sources.iter().map(|source| (source.path.as_str(), source.updated_at, source.sha256.as_str())).collect();
        if self
            .list_sources()?
            .iter()
            .any(|source| !their_sources.contains(&(source.path.as_str(), source.updated_at, source.sha256.as_str())))
        {
            return Ok(true);
        }
        let ids = |sql: &str| -> Result<Vec<String>, StoreError> {
            Ok(self
                .query(sql, &[])?
                .into_iter()
                .filter_map(|row| row.into_iter().next().and_then(|value| value.as_str().map(str::to_owned)))
                .collect())
        };
        let their_memories: BTreeSet<&str> = memories.iter().map(|memory| memory.id.0.as_str()).collect();
        if ids("SELECT id FROM memories")?.iter().any(|id| !their_memories.contains(id.as_str())) {
            return Ok(true);
        }
        let their_insights: BTreeSet<&str> = insights.iter().map(|insight| insight.id.0.as_str()).collect();
        Ok(ids("SELECT id FROM consolidations")?.iter().any(|id| !their_insights.contains(id.as_str())))
    }
}
