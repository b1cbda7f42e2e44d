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
use super::tombstones::{removed_with_a_note, RemovedHere, Tombstone, Tombstones};
use super::{SqlDriver, SqlValue, Store, StoreError, UsageRecord};
use crate::domain::{Consolidation, ConsolidationId, Memory, MemoryId, Source, SourceKind};

/// Where an insight's memories are.
enum InsightMemories {
    AllHere,
    /// One was forgotten or removed with its note: the insight would be an orphan.
    OneRemoved,
    /// Some have not arrived yet.
    SomeOnTheirWay,
}

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

impl MergeReport {
    /// How many things changed here.
    pub fn total(&self) -> usize {
        self.notes_adopted + self.memories_added + self.memories_removed + self.insights_added + self.insights_removed
    }
}

/// What a merge did, with what the engine needs besides the report.
#[derive(Debug, Default)]
pub struct MergeOutcome {
    pub merged: MergeReport,
    /// Paid-for note memories neither copy keeps now (see `Store::merge_from_keeping`).
    pub displaced: Vec<Memory>,
    /// Notes whose record came from the other copy: the note here may not hold that text yet.
    pub adopted: Vec<String>,
}

impl MergeReport {
    fn count_removal(&mut self, removal: &super::Removal) {
        self.memories_removed += removal.memories.len();
        self.insights_removed += removal.consolidations.len();
    }
}

/// Everything of the other copy a merge reads, read before the merge's transaction starts:
/// a whole copy (`read`), or the entries of a device's log (`store/log.rs`), which are the same
/// kinds of state for the few notes, memories and removals they are about.
#[derive(Default)]
pub(super) struct TheirCopy {
    pub(super) tombstones: Tombstones,
    pub(super) sources: Vec<Source>,
    /// A note's memory carries the few words it keeps for search as its text: inserted here,
    /// they make the same words.
    pub(super) memories: Vec<Memory>,
    pub(super) insights: Vec<Consolidation>,
    pub(super) usage: Vec<(String, UsageRecord)>,
    /// Each note's quiet chunks, by path.
    pub(super) quiet: HashMap<String, Vec<u8>>,
}

impl TheirCopy {
    /// One query each, not one per note: a merge runs on every copy the sync tool brings.
    fn read<E: SqlDriver>(theirs: &Store<E>) -> Result<Self, StoreError> {
        let mut memories = theirs.list_memories(&MemoryFilter::default())?;
        theirs.carry_keywords(&mut memories, None)?;
        let quiet = theirs
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
        Ok(TheirCopy {
            tombstones: theirs.tombstones()?,
            sources: theirs.list_sources()?,
            memories,
            insights: theirs.list_consolidations(0, 0)?,
            usage: theirs.usage_rows()?,
            quiet,
        })
    }

    /// Their note memories, by the note's path.
    fn note_memories_by_path(&self) -> HashMap<&str, Vec<&Memory>> {
        let mut by_path: HashMap<&str, Vec<&Memory>> = HashMap::new();
        for memory in self.memories.iter().filter(|memory| memory.source_kind == SourceKind::Note) {
            by_path.entry(memory.source_path.as_str()).or_default().push(memory);
        }
        by_path
    }
}

/// Which of two versions of a note wins: the one remembered later, then by digest, then by
/// its memories' ids (both devices may remember the same text in the same millisecond), so
/// that both sides choose the same.
fn later(theirs: (&Source, &[String]), ours: (&Source, &[String])) -> bool {
    (theirs.0.updated_at, &theirs.0.sha256, theirs.1) > (ours.0.updated_at, &ours.0.sha256, ours.1)
}

/// Their quiet chunks, and the chunks of their memories forgotten here (`forgotten_here`): a
/// note they renamed before they replayed a forget made here still holds the forgotten memory,
/// and without its chunk marked quiet this device would read the note again and pay to
/// remember it.
fn with_forgotten_chunks(quiet: Option<&Vec<u8>>, forgotten_here: &[&Memory]) -> Option<Vec<u8>> {
    let mut quiet = quiet.cloned();
    for memory in forgotten_here {
        let Some(hash) = memory.content_hash.as_deref().and_then(crate::hash::unhex) else { continue };
        let chunks = quiet.get_or_insert_with(Vec::new);
        if !chunks.chunks(hash.len().max(1)).any(|chunk| chunk == hash.as_slice()) {
            chunks.extend_from_slice(&hash);
        }
    }
    quiet
}

impl<D: SqlDriver> Store<D> {
    /// Whether `memory` was removed here: forgotten, or removed with its note at the path it has
    /// in the other copy.
    fn removed(&self, memory: &Memory) -> Result<bool, StoreError> {
        Ok(self.removal_here(memory)?.is_some())
    }

    /// How `memory` was removed here, if it was.
    fn removal_here(&self, memory: &Memory) -> Result<Option<RemovedHere>, StoreError> {
        self.memory_removal(&memory.id, &memory.source_path)
    }

    /// This note's memory ids, sorted.
    fn note_memory_ids_of(&self, path: &str) -> Result<Vec<String>, StoreError> {
        let rows = self.query(
            "SELECT m.id FROM memories AS m JOIN paths AS p ON p.id = m.path_id WHERE p.path = +? AND m.kind = +? ORDER BY m.id",
            &[path.into(), super::memories::kind_code(SourceKind::Note).into()],
        )?;
        Ok(rows
            .into_iter()
            .filter_map(|row| row.into_iter().next().and_then(|value| value.as_str().map(str::to_owned)))
            .collect())
    }

    /// Where a memory is now (its note's path, "" for typed text); `None` when there is none.
    pub(super) fn memory_path(&self, id: &MemoryId) -> Result<Option<String>, StoreError> {
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

    /// Merges `theirs` into this store (see the module's comment).
    pub fn merge_from<E: SqlDriver>(&self, theirs: &Store<E>) -> Result<MergeReport, StoreError> {
        Ok(self.merge_from_keeping(theirs)?.merged)
    }

    /// `merge_from`, also handing back the paid-for note memories that neither copy keeps now
    /// (none of them forgotten): removed here because the other side removed them with their
    /// note (a move there arrives as "deleted" here, and its text may come back under the new
    /// name), this side's memories of a note whose other version won, and the other side's of a
    /// note whose version here won (the note's text here may still turn out to be theirs).
    ///
    /// Every step runs in one transaction: any failure (a store error included) fails the
    /// merge and leaves this copy as it was.
    pub fn merge_from_keeping<E: SqlDriver>(&self, theirs: &Store<E>) -> Result<MergeOutcome, StoreError> {
        let theirs = TheirCopy::read(theirs)?;
        self.transaction(|store| {
            // This memory is shared from now on (and the other device learns it from our copy).
            store.set_meta("merged_another_copy", "1")?;
            let mut outcome = store.merge_their_state(&theirs)?;
            outcome.merged.theirs_behind = store.has_more_than(&theirs)? || store.counted_more_than(&theirs.usage)?;
            Ok(outcome)
        })
    }

    /// The merge's steps over what was read of the other side (a whole copy, or log entries):
    /// removals first, then each note as the side that remembered it last, then the unions.
    /// Must run in a transaction; nothing of it goes to this device's own log.
    pub(super) fn merge_their_state(&self, theirs: &TheirCopy) -> Result<MergeOutcome, StoreError> {
        self.debug_assert_merging();
        self.drop_content_index();
        self.without_logging(|store| {
            store.with_index_deferred(|store| store.with_ids_kept(|store| store.merge_steps(theirs)))
        })
    }

    fn merge_steps(&self, theirs: &TheirCopy) -> Result<MergeOutcome, StoreError> {
        let mut outcome = MergeOutcome::default();
        self.apply_their_removals(theirs, &mut outcome)?;
        self.take_newer_notes(theirs, &mut outcome)?;
        self.add_unrecorded_memories(theirs, &mut outcome.merged)?;
        self.add_their_insights(theirs, &mut outcome.merged)?;
        for (device, record) in &theirs.usage {
            self.merge_usage_row(device, record)?;
        }
        Ok(outcome)
    }

    /// The merge's steps change the store only inside the merge's one transaction.
    fn debug_assert_merging(&self) {
        debug_assert!(self.in_transaction.get(), "a merge step ran outside the merge's transaction");
    }

    /// What they removed goes here too (a removal known here already took effect here, when
    /// made or when merged), and their tombstones join ours.
    fn apply_their_removals(&self, theirs: &TheirCopy, outcome: &mut MergeOutcome) -> Result<(), StoreError> {
        self.debug_assert_merging();
        let mut gone_memories: Vec<MemoryId> = Vec::new();
        for tombstone in &theirs.tombstones {
            if !self.add_new_tombstone(tombstone)? {
                continue;
            }
            match tombstone {
                Tombstone::SourceRecord { updated_at, path } => {
                    self.remove_same_record(path, *updated_at, &mut outcome.merged)?;
                }
                Tombstone::Forgotten { id } => {
                    let memory = MemoryId(id.clone());
                    if self.memory_path(&memory)?.is_some() {
                        self.quiet_forgotten_chunk(&memory)?;
                        gone_memories.push(memory);
                    } else if self.get_consolidation(&ConsolidationId(id.clone()))?.is_some() {
                        self.delete_consolidation(&ConsolidationId(id.clone()))?;
                        outcome.merged.insights_removed += 1;
                    } else {
                        self.change("DELETE FROM log_waiting_insights WHERE id = ?", &[id.as_str().into()])?;
                    }
                }
                // Removed with its note there; here only if it is still at that path (not moved
                // on with a rename).
                Tombstone::RemovedWithNote { id, path } => {
                    let memory = MemoryId(id.clone());
                    if self.memory_path(&memory)?.as_deref() == Some(path.as_str()) {
                        gone_memories.push(memory);
                    }
                }
            }
        }
        gone_memories.sort();
        gone_memories.dedup();
        for id in &gone_memories {
            // A forget leaves the bare id as well: forgotten text is never kept.
            let forgotten = theirs.tombstones.contains(&Tombstone::Forgotten { id: id.0.clone() });
            if !forgotten && removed_with_a_note(&theirs.tombstones, &id.0) {
                outcome.displaced.extend(self.get_memory(id)?);
            }
        }
        let removal = self.remove_memories(&gone_memories)?;
        outcome.merged.count_removal(&removal);
        Ok(())
    }

    /// They removed the note as it was remembered at `updated_at`: our record of that very
    /// version goes too (with what is left of it).
    fn remove_same_record(&self, path: &str, updated_at: i64, report: &mut MergeReport) -> Result<(), StoreError> {
        if self.get_source(path)?.is_some_and(|own| own.updated_at == updated_at) {
            report.count_removal(&self.remove_source(path)?);
        }
        Ok(())
    }

    /// Each note as the side that remembered it last has it.
    fn take_newer_notes(&self, theirs: &TheirCopy, outcome: &mut MergeOutcome) -> Result<(), StoreError> {
        self.debug_assert_merging();
        let their_by_path = theirs.note_memories_by_path();
        for source in &theirs.sources {
            let removed_here = self
                .has_tombstone(&Tombstone::SourceRecord { updated_at: source.updated_at, path: source.path.clone() })?;
            let theirs_here: Vec<&Memory> = their_by_path.get(source.path.as_str()).cloned().unwrap_or_default();
            let own_ids = self.note_memory_ids_of(&source.path)?;
            let newer = self.get_source(&source.path)?.is_none_or(|own| {
                let mut their_ids: Vec<String> = theirs_here.iter().map(|memory| memory.id.0.clone()).collect();
                their_ids.sort();
                later((source, &their_ids), (&own, &own_ids))
            });
            if removed_here || !newer {
                // Ours stays: theirs of this note are paid work neither copy keeps now.
                for memory in &theirs_here {
                    if self.removed(memory)? {
                        continue;
                    }
                    if own_ids.contains(&memory.id.0) {
                        self.take_consolidated(memory)?;
                    } else {
                        outcome.displaced.push((*memory).clone());
                    }
                }
                continue;
            }
            self.adopt_note(source, &theirs_here, &own_ids, theirs.quiet.get(&source.path), outcome)?;
        }
        Ok(())
    }

    /// Makes their version of a note ours: our memories of it that theirs lack go (handed
    /// back as displaced), theirs come in, with their record and quiet chunks.
    fn adopt_note(
        &self,
        source: &Source,
        theirs_here: &[&Memory],
        own_ids: &[String],
        quiet: Option<&Vec<u8>>,
        outcome: &mut MergeOutcome,
    ) -> Result<(), StoreError> {
        self.debug_assert_merging();
        let keep: BTreeSet<&str> = theirs_here.iter().map(|memory| memory.id.0.as_str()).collect();
        let stale: Vec<MemoryId> =
            own_ids.iter().filter(|id| !keep.contains(id.as_str())).map(|id| MemoryId(id.clone())).collect();
        for id in &stale {
            outcome.displaced.extend(self.get_memory(id)?);
        }
        outcome.merged.count_removal(&self.remove_memories(&stale)?);
        let mut forgotten_here: Vec<&Memory> = Vec::new();
        for memory in theirs_here {
            match self.removal_here(memory)? {
                Some(RemovedHere::Forgotten) => forgotten_here.push(memory),
                Some(RemovedHere::WithItsNote) => {}
                None if self.memory_exists(&memory.id)? => {
                    self.take_consolidated(memory)?;
                    self.move_to_their_note(memory)?;
                }
                None => {
                    self.insert_memory(memory)?;
                    outcome.merged.memories_added += 1;
                }
            }
        }
        let was_here = self.get_source(&source.path)?.is_some() && self.source_here(&source.path)?;
        self.upsert_source(source)?;
        self.mark_source_from_elsewhere(&source.path, was_here)?;
        let quiet = with_forgotten_chunks(quiet, &forgotten_here);
        self.change(
            "UPDATE sources SET quiet = ? WHERE path_id = (SELECT id FROM paths WHERE path = ?)",
            &[quiet.map_or(SqlValue::Null, SqlValue::Blob), source.path.as_str().into()],
        )?;
        outcome.merged.notes_adopted += 1;
        outcome.adopted.push(source.path.clone());
        Ok(())
    }

    /// Inserts their memory unless it was removed here or is here already; whether it did.
    fn insert_unless_known(&self, memory: &Memory) -> Result<bool, StoreError> {
        if self.removed(memory)? {
            return Ok(false);
        }
        if self.memory_exists(&memory.id)? {
            self.take_consolidated(memory)?;
            return Ok(false);
        }
        self.insert_memory(memory)?;
        Ok(true)
    }

    /// A memory consolidated there is consolidated here too: its insights are theirs to bring
    /// (their log holds them), never made and paid for again here.
    fn take_consolidated(&self, memory: &Memory) -> Result<(), StoreError> {
        if memory.consolidated {
            self.change(
                "UPDATE memories SET consolidated = 1 WHERE id = ? AND consolidated = 0",
                &[memory.id.0.as_str().into()],
            )?;
        }
        Ok(())
    }

    /// A memory of their newer note that is here under another note moves there: a rename on
    /// their side, whose removal of the old note may come in a later read (another slice, a
    /// file copied in parts). Dropped, the memory would be lost with the old note.
    fn move_to_their_note(&self, memory: &Memory) -> Result<(), StoreError> {
        self.debug_assert_merging();
        let Some(key) = self.memory_key(&memory.id)? else { return Ok(()) };
        if self.memory_path(&memory.id)?.as_deref() == Some(memory.source_path.as_str()) {
            return Ok(());
        }
        let old_path_id =
            super::rows::single(self.query("SELECT path_id FROM memories WHERE key = ?", &[key.into()])?)?.i64()?;
        let path_id = self.path_id(&memory.source_path)?;
        self.unindex_memory(key)?;
        self.change(
            "UPDATE memories SET path_id = ?, heading = ?, line_start = ?, line_end = ?, updated_at = ? WHERE key = ?",
            &[
                path_id.into(),
                memory.position.heading.clone().into(),
                memory.position.line_start.into(),
                memory.position.line_end.into(),
                memory.updated_at.into(),
                key.into(),
            ],
        )?;
        self.index_memory(key)?;
        self.drop_path_if_unused(old_path_id)
    }

    /// Selections and typed text have no record of a note (nor has a note memory whose record
    /// is gone): both sides' are kept.
    fn add_unrecorded_memories(&self, theirs: &TheirCopy, report: &mut MergeReport) -> Result<(), StoreError> {
        self.debug_assert_merging();
        let recorded: BTreeSet<&str> = theirs.sources.iter().map(|source| source.path.as_str()).collect();
        let unrecorded = |memory: &&Memory| {
            memory.source_kind != SourceKind::Note || !recorded.contains(memory.source_path.as_str())
        };
        for memory in theirs.memories.iter().filter(unrecorded) {
            if self.insert_unless_known(memory)? {
                report.memories_added += 1;
            }
        }
        Ok(())
    }

    /// Their insights that are new here and were not removed here (those over memories
    /// neither copy has are dropped by the batch's own rule).
    fn add_their_insights(&self, theirs: &TheirCopy, report: &mut MergeReport) -> Result<(), StoreError> {
        self.debug_assert_merging();
        let mut new_insights = Vec::new();
        for insight in &theirs.insights {
            if self.has_tombstone(&Tombstone::Forgotten { id: insight.id.0.clone() })? {
                continue;
            }
            // A failed look-up fails the merge (the transaction rolls back): an insight is
            // never skipped in silence.
            if self.get_consolidation(&insight.id)?.is_some() {
                continue;
            }
            match self.insight_memories(insight)? {
                InsightMemories::AllHere => new_insights.push(insight.clone()),
                InsightMemories::OneRemoved => {}
                InsightMemories::SomeOnTheirWay => self.park_insight(insight)?,
            }
        }
        report.insights_added += self.save_consolidation_batch(&[], &new_insights)?;
        report.insights_added += self.retry_waiting_insights()?;
        Ok(())
    }

    /// Whether an insight's memories are here: another device's log may bring an insight
    /// before the memories it cites (from a third device's log), so one that waits for them
    /// is kept aside, not dropped: every device ends with the same insights, in any order.
    fn insight_memories(&self, insight: &Consolidation) -> Result<InsightMemories, StoreError> {
        let mut missing = false;
        for id in &insight.memory_ids {
            if self.memory_exists(id)? {
                continue;
            }
            // Only a forget is for good everywhere: a memory removed with its note here may
            // have moved on with a rename elsewhere, and be on its way at its new path.
            if self.has_tombstone(&Tombstone::Forgotten { id: id.0.clone() })? {
                return Ok(InsightMemories::OneRemoved);
            }
            missing = true;
        }
        Ok(if missing { InsightMemories::SomeOnTheirWay } else { InsightMemories::AllHere })
    }

    pub(super) fn park_insight(&self, insight: &Consolidation) -> Result<(), StoreError> {
        let json = serde_json::to_string(insight).map_err(|error| StoreError::InvalidData(error.to_string()))?;
        self.change(
            "INSERT OR REPLACE INTO log_waiting_insights (id, insight) VALUES (?, ?)",
            &[insight.id.0.as_str().into(), json.into()],
        )?;
        Ok(())
    }

    /// Stores the waiting insights whose memories have all arrived, and drops those one of
    /// whose memories was removed meanwhile; how many were stored.
    fn retry_waiting_insights(&self) -> Result<usize, StoreError> {
        let rows = self.query("SELECT insight FROM log_waiting_insights", &[])?;
        let mut ready = Vec::new();
        for row in rows {
            let text = super::rows::RowReader::new(row).text()?;
            let insight: Consolidation =
                serde_json::from_str(&text).map_err(|error| StoreError::InvalidData(error.to_string()))?;
            // Removed for good, or here already (it came again, whole, in this very merge).
            let settled = self.has_tombstone(&Tombstone::Forgotten { id: insight.id.0.clone() })?
                || self.get_consolidation(&insight.id)?.is_some();
            match self.insight_memories(&insight)? {
                _ if settled && self.get_consolidation(&insight.id)?.is_some() => {}
                // Dropped for good: what it connected waits for a consolidation again (by the
                // device that made each memory), and its lines may leave this device's log (a
                // purge keeps a waiting insight's lines).
                _ if settled => self.drop_waiting_insight(&insight)?,
                InsightMemories::SomeOnTheirWay => continue,
                InsightMemories::OneRemoved => self.drop_waiting_insight(&insight)?,
                InsightMemories::AllHere => ready.push(insight.clone()),
            }
            self.change("DELETE FROM log_waiting_insights WHERE id = ?", &[insight.id.0.as_str().into()])?;
        }
        self.save_consolidation_batch(&[], &ready)
    }

    fn drop_waiting_insight(&self, insight: &Consolidation) -> Result<(), StoreError> {
        self.reopen(insight.memory_ids.iter())?;
        self.mark_log_purge_due()
    }

    /// Whether this store counted calls (of any device) that the other copy's usage lacks.
    fn counted_more_than(&self, theirs: &[(String, UsageRecord)]) -> Result<bool, StoreError> {
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
    /// other copy lacks.
    fn has_more_than(&self, theirs: &TheirCopy) -> Result<bool, StoreError> {
        if !self.tombstones()?.is_subset(&theirs.tombstones) {
            return Ok(true);
        }
        let their_sources: BTreeSet<(&str, i64, &str)> = theirs
            .sources
            .iter()
            .map(|source| (source.path.as_str(), source.updated_at, source.sha256.as_str()))
            .collect();
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
        let their_memories: BTreeSet<&str> = theirs.memories.iter().map(|memory| memory.id.0.as_str()).collect();
        if ids("SELECT id FROM memories")?.iter().any(|id| !their_memories.contains(id.as_str())) {
            return Ok(true);
        }
        let their_insights: BTreeSet<&str> = theirs.insights.iter().map(|insight| insight.id.0.as_str()).collect();
        Ok(ids("SELECT id FROM consolidations")?.iter().any(|id| !their_insights.contains(id.as_str())))
    }
}

#[cfg(all(test, not(target_arch = "wasm32")))]
mod tests {
    use super::super::rows::RowReader;
    use super::super::rusqlite_driver::RusqliteDriver;
    use super::super::test_driver::Failing;
    use super::super::SqlErrorKind;
    use super::*;
    use crate::domain::{Consolidation, Entity, Position};

    fn memory(id: &str, path: &str, kind: SourceKind) -> Memory {
        Memory {
            id: MemoryId(id.into()),
            source_path: path.into(),
            source_kind: kind,
            position: Position::default(),
            raw_text: "Typed by hand.".into(),
            summary: format!("Summary of {id}."),
            entities: Vec::new(),
            topics: Vec::new(),
            importance: 0.5,
            happened_on: None,
            also_on: Vec::new(),
            date_source: Default::default(),
            facts: Vec::new(),
            created_at: 10,
            updated_at: 10,
            consolidated: false,
            content_hash: None,
        }
    }

    #[test]
    fn a_store_error_fails_the_merge_and_leaves_this_copy_as_it_was() {
        let theirs = Store::open(RusqliteDriver::new()).unwrap();
        for id in ["t1", "t2"] {
            theirs.insert_memory(&memory(id, "", SourceKind::Text)).unwrap();
        }
        let insight = Consolidation {
            id: ConsolidationId("c-1".into()),
            memory_ids: vec![MemoryId("t1".into()), MemoryId("t2".into())],
            insight: "Both typed.".into(),
            connections: Vec::new(),
            created_at: 20,
        };
        theirs.save_consolidation_batch(&[], std::slice::from_ref(&insight)).unwrap();

        let ours = Store::open(Failing::new("SELECT id, memory_ids", SqlErrorKind::OutOfMemory)).unwrap();
        ours.insert_memory(&memory("o1", "", SourceKind::Text)).unwrap();
        let before =
            (ours.status().unwrap(), ours.tombstones().unwrap(), ours.get_meta("merged_another_copy").unwrap());

        ours.driver().arm(true);
        let failed = ours.merge_from(&theirs);
        assert!(
            matches!(failed, Err(StoreError::Sql(ref error)) if error.kind == SqlErrorKind::OutOfMemory),
            "{failed:?}"
        );
        ours.driver().arm(false);
        let after = (ours.status().unwrap(), ours.tombstones().unwrap(), ours.get_meta("merged_another_copy").unwrap());
        assert_eq!(after, before, "a failed merge left part of itself behind");

        let merged = ours.merge_from(&theirs).unwrap();
        assert_eq!((merged.memories_added, merged.insights_added), (2, 1));
    }

    #[test]
    fn a_newer_note_whose_names_went_and_came_back_in_one_merge_links_live_entities() {
        let note = |id: &str, names: &[&str], at: i64| Memory {
            entities: names.iter().map(|name| Entity { name: (*name).into(), kind: "person".into() }).collect(),
            content_hash: Some("ab".repeat(16)),
            created_at: at,
            updated_at: at,
            ..memory(id, "n.md", SourceKind::Note)
        };
        let source = |at: i64, sha: &str| Source {
            path: "n.md".into(),
            mtime: at,
            size: 1,
            sha256: sha.repeat(32),
            updated_at: at,
            skipped: None,
        };
        let ours = Store::open(RusqliteDriver::new()).unwrap();
        ours.insert_memory(&note("old", &["Alice"], 1)).unwrap();
        ours.upsert_source(&source(1, "a")).unwrap();
        let theirs = Store::open(RusqliteDriver::new()).unwrap();
        theirs.insert_memory(&note("new-1", &["Bob", "Alice"], 2)).unwrap();
        theirs.insert_memory(&note("new-2", &["Alice", "Bob"], 2)).unwrap();
        theirs.upsert_source(&source(2, "b")).unwrap();

        ours.merge_from(&theirs).unwrap();
        // "Alice" went with `old` (her last memory) and came back with `new-1`: every link and
        // every count names a row that exists.
        let links = ours
            .query(
                "SELECT e.name, e.uses, count(*) FROM memory_entities AS l JOIN entities AS e ON e.id = l.entity_id
                 GROUP BY e.id ORDER BY e.name",
                &[],
            )
            .unwrap();
        let links: Vec<(String, i64, i64)> = links
            .into_iter()
            .map(|row| {
                let mut row = RowReader::new(row);
                (row.text().unwrap(), row.i64().unwrap(), row.i64().unwrap())
            })
            .collect();
        assert_eq!(links, vec![("Alice".into(), 2, 2), ("Bob".into(), 2, 2)]);
        let dangling = ours
            .query("SELECT count(*) FROM memory_entities WHERE entity_id NOT IN (SELECT id FROM entities)", &[])
            .unwrap();
        assert_eq!(RowReader::new(dangling.into_iter().next().unwrap()).i64().unwrap(), 0);
    }
}
