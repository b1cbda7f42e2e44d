//! The store contract: one suite of scenarios that every SQL driver must pass.
//!
//! Native `cargo test` runs it on rusqlite; the WebAssembly facade runs the very same code
//! on sql.js (`storeSelfCheck`), so the two engines cannot drift apart unnoticed. It lives
//! in the library, not under `tests/`, because the WebAssembly build must carry it.

use serde::Serialize;

use super::browse::{BrowseFileKind, FileExtensions, MemoryQuery};
use super::driver::SqlValue;
use super::memories::MemoryFilter;
use super::{
    open_from_bytes, schema, DriverError, MemoryScope, MergeReport, NewJob, ObjectKind, SearchTerm, SqlDriver, Store,
    StoreError,
};
use crate::calendar::CalendarDate;
use crate::domain::{
    Connection, ConsolidateJob, Consolidation, ConsolidationId, DateSource, Entity, JobState, JobWork, Memory,
    MemoryId, NoteJob, Position, Source, SourceKind, TextToRemember, TokenUsage,
};
use crate::hash::sha256_hex;

/// How the suite gets databases from a driver.
pub trait DriverFactory {
    type Driver: SqlDriver;
    /// A database loaded from the bytes of a file (empty = new).
    fn load(&self, bytes: &[u8]) -> Result<Self::Driver, DriverError>;
}

/// The outcome of one scenario.
#[derive(Debug, Clone, Serialize)]
pub struct ScenarioReport {
    pub name: &'static str,
    pub ok: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

type Outcome = Result<(), String>;

/// A named scenario of the suite.
type Scenario<F> = (&'static str, fn(&F) -> Outcome);

macro_rules! ensure {
    ($condition:expr, $($message:tt)+) => {
        if !$condition {
            return Err(format!("{} (line {})", format!($($message)+), line!()));
        }
    };
}

macro_rules! ensure_eq {
    ($left:expr, $right:expr) => {{
        let (left, right) = (&$left, &$right);
        if left != right {
            return Err(format!("{} = {:?}, expected {:?} (line {})", stringify!($left), left, right, line!()));
        }
    }};
}

/// Runs every scenario on databases from `factory`.
pub fn run_all<F: DriverFactory>(factory: &F) -> Vec<ScenarioReport> {
    let scenarios: Vec<Scenario<F>> = vec![
        ("a new store has the current schema and nothing in it", new_store::<F>),
        ("a memory reads back exactly as stored", memory_round_trip::<F>),
        ("memories list newest first, by source, with limit and offset", list_memories::<F>),
        ("invalid memories are refused and nothing is stored", invalid_memories::<F>),
        ("forgetting a memory removes its insights and re-opens the others", forget_with_orphan_fix::<F>),
        ("forgetting an unknown memory is not found", forget_unknown::<F>),
        ("replacing a note's memories keeps unchanged ones and re-opens orphans", replace_note_memories::<F>),
        ("a consolidation batch is saved and marked in one transaction", consolidation_batch::<F>),
        (
            "insights citing a memory forgotten meanwhile are dropped, invalid ones store nothing",
            consolidation_missing_memory::<F>,
        ),
        ("sources are recorded, renamed with their memories and removed", sources::<F>),
        ("jobs go queued → running → done, one per key at a time", job_lifecycle::<F>),
        ("job rows written by earlier versions read as they are", job_rows_of_earlier_versions::<F>),
        ("failed jobs wait for their retry time, then stay failed and can be retried", job_failures::<F>),
        ("jobs interrupted by a crash run again without duplicates", job_crash_recovery::<F>),
        ("meta values are kept", meta_values::<F>),
        ("a failing transaction leaves nothing behind", transaction_rollback::<F>),
        ("an export reopens with everything in it", export_round_trip::<F>),
        ("the dirty flag follows changes and exports", dirty_flag::<F>),
        ("garbage, truncated and foreign files are corrupt", corrupt_inputs::<F>),
        ("a newer schema is refused, not downgraded", newer_schema::<F>),
        ("migrations run forward and a failing step changes nothing", migrations::<F>),
        ("text in any script, quotes and SQL-looking text are stored as data", awkward_text::<F>),
        ("token usage adds up per day and agent", usage_totals::<F>),
        ("full-text search follows inserts, edits, renames, replacements and forgets", full_text_follows::<F>),
        ("full-text search ranks by BM25, ignores case and diacritics, matches prefixes", full_text_ranks::<F>),
        ("candidates by day fall back to the local creation day; by name, recent, important", candidates::<F>),
        ("a memory's neighbours are the ones just before and after it in its source", neighbours::<F>),
        ("a scope keeps its notes, folders (not names sharing a prefix) and days", scoped_candidates::<F>),
        ("two copies merged either way agree; nothing removed on either side comes back", merge_copies::<F>),
        ("insights over chosen memories, entity names and memory sizes", insights_names_sizes::<F>),
        ("an older database is indexed on upgrade and a disagreeing index is rebuilt", full_text_upgrade::<F>),
        ("a note's memory keeps no text, a selection keeps its own, lists carry none", texts_kept::<F>),
        ("entity names are stored once and go with the last memory naming them", shared_entities::<F>),
        ("the browser pages by keyset and filters in SQL", browse_pages::<F>),
        ("the browser filters by the kind of a memory's file", browse_by_file_kind::<F>),
        ("a version 4 store is upgraded with its memories, insights, sources and jobs", upgrade_from_version_4::<F>),
        ("freed pages are handed back and the file shrinks", compaction::<F>),
        (
            "a file's own triggers, views and indexes are removed at open and no memory is lost",
            foreign_schema_objects::<F>,
        ),
        ("a trigger that never ends is removed before anything writes", endless_trigger::<F>),
        ("facts are kept and searched; a memory is found by any of its days", facts_and_days::<F>),
        ("a version 9 store gains facts and days and its index is made again", upgrade_from_version_9::<F>),
    ];
    scenarios
        .into_iter()
        .map(|(name, scenario)| match scenario(factory) {
            Ok(()) => ScenarioReport { name, ok: true, error: None },
            Err(error) => ScenarioReport { name, ok: false, error: Some(error) },
        })
        .collect()
}

fn fresh<F: DriverFactory>(factory: &F) -> Result<Store<F::Driver>, String> {
    open_from_bytes(&[], |bytes| factory.load(bytes)).map_err(|error| format!("open a new store: {error}"))
}

fn reopen<F: DriverFactory>(factory: &F, store: &Store<F::Driver>) -> Result<Store<F::Driver>, String> {
    let bytes = store.export().map_err(text)?;
    let reopened = open_from_bytes(&bytes, |bytes| factory.load(bytes)).map_err(|error| format!("reopen: {error}"))?;
    let removed = reopened.foreign_objects_removed();
    ensure!(removed.is_empty(), "the store's own schema was taken for foreign: {removed:?}");
    Ok(reopened)
}

fn text(error: StoreError) -> String {
    format!("{} ({})", error, crate::error::ErrorCode::code(&error))
}

/// A memory with distinct, recognisable fields.
fn memory(id: &str, path: &str, created_at: i64) -> Memory {
    Memory {
        id: MemoryId(id.to_owned()),
        source_path: path.to_owned(),
        source_kind: SourceKind::Note,
        position: Position { heading: Some("Meetings > Q3".into()), line_start: Some(3), line_end: Some(9) },
        raw_text: format!("Raw text of {id} about the lighthouse keeper"),
        summary: format!("Summary of {id}."),
        entities: vec![Entity { name: "Alice".into(), kind: "person".into() }],
        topics: vec!["budget".into()],
        importance: 0.5,
        happened_on: Some("2026-02-01".into()),
        also_on: Vec::new(),
        date_source: Default::default(),
        facts: Vec::new(),
        created_at,
        updated_at: created_at,
        consolidated: false,
        content_hash: Some(content_hash(id)),
    }
}

/// A content hash as the store gives it back (the first bits of a SHA-256).
fn content_hash(text: &str) -> String {
    sha256_hex(text.as_bytes())[..2 * super::memories::CONTENT_HASH_BYTES].to_owned()
}

/// What a memory reads back as: a note's text stays in the vault.
fn as_read(memory: &Memory) -> Memory {
    let mut read = memory.clone();
    if read.source_kind == SourceKind::Note {
        read.raw_text.clear();
    }
    read
}

fn insight(id: &str, ids: &[&str], created_at: i64) -> Consolidation {
    let memory_ids: Vec<MemoryId> = ids.iter().map(|id| MemoryId((*id).to_owned())).collect();
    let connections = match memory_ids.as_slice() {
        [first, second, ..] => {
            vec![Connection { from: first.clone(), to: second.clone(), relationship: "same project".into() }]
        }
        _ => Vec::new(),
    };
    Consolidation {
        id: ConsolidationId(id.to_owned()),
        memory_ids,
        insight: format!("Insight {id}."),
        connections,
        created_at,
    }
}

fn ids(memories: &[Memory]) -> Vec<&str> {
    memories.iter().map(|memory| memory.id.0.as_str()).collect()
}

fn consolidated<D: SqlDriver>(store: &Store<D>, id: &str) -> Result<bool, String> {
    Ok(store.get_memory(&MemoryId(id.into())).map_err(text)?.ok_or(format!("memory {id} missing"))?.consolidated)
}

fn new_store<F: DriverFactory>(factory: &F) -> Outcome {
    let store = fresh(factory)?;
    let status = store.status().map_err(text)?;
    ensure_eq!(status.schema_version, schema::supported_version());
    ensure_eq!((status.memories, status.insights, status.queued, status.running, status.failed), (0, 0, 0, 0, 0));
    let tables = store
        .query("SELECT name FROM sqlite_master WHERE type = 'table'", &[])
        .map_err(text)?
        .into_iter()
        .filter_map(|row| row.first().and_then(|value| value.as_str().map(str::to_owned)))
        .collect::<Vec<_>>();
    for table in schema::TABLES {
        ensure!(tables.iter().any(|name| name == table), "table {table} missing from {tables:?}");
    }
    Ok(())
}

fn memory_round_trip<F: DriverFactory>(factory: &F) -> Outcome {
    let store = fresh(factory)?;
    let mut stored = memory("m1", "Daily/2026-02-01.md", 1_767_225_600_000);
    stored.importance = 0.875;
    stored.entities.push(Entity { name: "Acme Corp".into(), kind: "organisation".into() });
    stored.consolidated = true;
    store.insert_memory(&stored).map_err(text)?;
    let read = store.get_memory(&stored.id).map_err(text)?;
    ensure_eq!(read, Some(as_read(&stored)));
    let mut bare = memory("m2", "typed", 5);
    bare.source_kind = SourceKind::Text;
    bare.position = Position::default();
    bare.happened_on = None;
    bare.entities.clear();
    bare.topics.clear();
    store.insert_memory(&bare).map_err(text)?;
    ensure_eq!(store.get_memory(&bare.id).map_err(text)?, Some(bare));
    ensure_eq!(store.get_memory(&MemoryId("nope".into())).map_err(text)?, None);
    // The full SHA-256 the engine computes finds the memory by its stored 128 bits.
    let by_hash = store.find_memory_by_content("Daily/2026-02-01.md", SourceKind::Note, &sha256_hex(b"m1"));
    ensure_eq!(by_hash.map_err(text)?.map(|memory| memory.id), Some(stored.id.clone()));
    Ok(())
}

fn list_memories<F: DriverFactory>(factory: &F) -> Outcome {
    let store = fresh(factory)?;
    for (index, path) in ["a.md", "b.md", "a.md", "c.md"].iter().enumerate() {
        store.insert_memory(&memory(&format!("m{index}"), path, 100 + index as i64)).map_err(text)?;
    }
    let all = store.list_memories(&MemoryFilter::default()).map_err(text)?;
    ensure_eq!(ids(&all), vec!["m3", "m2", "m1", "m0"]);
    let of_a =
        store.list_memories(&MemoryFilter { source_path: Some("a.md".into()), ..Default::default() }).map_err(text)?;
    ensure_eq!(ids(&of_a), vec!["m2", "m0"]);
    let page = store.list_memories(&MemoryFilter { source_path: None, limit: 2, offset: 1 }).map_err(text)?;
    ensure_eq!(ids(&page), vec!["m2", "m1"]);
    let in_order = store.memories_of_source("a.md", SourceKind::Note).map_err(text)?;
    ensure_eq!(in_order.len(), 2);
    Ok(())
}

fn invalid_memories<F: DriverFactory>(factory: &F) -> Outcome {
    let store = fresh(factory)?;
    let mut too_important = memory("m1", "a.md", 1);
    too_important.importance = 1.5;
    ensure!(matches!(store.insert_memory(&too_important), Err(StoreError::InvalidInput(_))), "importance 1.5 accepted");
    let mut no_summary = memory("m2", "a.md", 1);
    no_summary.summary = "  ".into();
    ensure!(matches!(store.insert_memory(&no_summary), Err(StoreError::InvalidInput(_))), "empty summary accepted");
    store.insert_memory(&memory("m3", "a.md", 1)).map_err(text)?;
    ensure!(matches!(store.insert_memory(&memory("m3", "b.md", 2)), Err(StoreError::Sql(_))), "duplicate id accepted");
    ensure_eq!(store.status().map_err(text)?.memories, 1);
    Ok(())
}

/// Five memories, one insight over all five and one over two of them.
fn five_consolidated<F: DriverFactory>(factory: &F) -> Result<Store<F::Driver>, String> {
    let store = fresh(factory)?;
    for index in 1..=5 {
        store.insert_memory(&memory(&format!("m{index}"), &format!("n{index}.md"), index)).map_err(text)?;
    }
    let batch: Vec<MemoryId> = (1..=5).map(|index| MemoryId(format!("m{index}"))).collect();
    store
        .save_consolidation_batch(
            &batch,
            &[insight("c1", &["m1", "m2", "m3", "m4", "m5"], 10), insight("c2", &["m4", "m5"], 11)],
        )
        .map_err(text)?;
    Ok(store)
}

fn forget_with_orphan_fix<F: DriverFactory>(factory: &F) -> Outcome {
    let store = five_consolidated(factory)?;
    let removal = store.forget_memory(&MemoryId("m1".into())).map_err(text)?;
    ensure_eq!(removal.consolidations, vec![ConsolidationId("c1".into())]);
    let mut reopened: Vec<&str> = removal.reopened.iter().map(|id| id.0.as_str()).collect();
    reopened.sort();
    ensure_eq!(reopened, vec!["m2", "m3", "m4", "m5"]);
    for id in ["m2", "m3", "m4", "m5"] {
        ensure!(!consolidated(&store, id)?, "{id} still marked consolidated");
    }
    ensure!(store.get_consolidation(&ConsolidationId("c2".into())).map_err(text)?.is_some(), "c2 lost");
    ensure_eq!(store.status().map_err(text)?.insights, 1);
    ensure_eq!(store.get_memory(&MemoryId("m1".into())).map_err(text)?, None);
    Ok(())
}

fn forget_unknown<F: DriverFactory>(factory: &F) -> Outcome {
    let store = fresh(factory)?;
    ensure!(matches!(store.forget_memory(&MemoryId("ghost".into())), Err(StoreError::NotFound(_))), "no NotFound");
    Ok(())
}

fn replace_note_memories<F: DriverFactory>(factory: &F) -> Outcome {
    let store = five_consolidated(factory)?;
    let mut selection = memory("s1", "n3.md", 20);
    selection.source_kind = SourceKind::Selection;
    store.insert_memory(&selection).map_err(text)?;
    // n3.md was edited: its memory m3 is replaced by m3b; nothing else changes.
    let removal = store.replace_note_memories("n3.md", &[memory("m3b", "n3.md", 30)]).map_err(text)?;
    ensure_eq!(removal.memories, vec![MemoryId("m3".into())]);
    ensure_eq!(removal.consolidations, vec![ConsolidationId("c1".into())]);
    for id in ["m1", "m2", "m4", "m5"] {
        ensure!(!consolidated(&store, id)?, "{id} not re-opened");
    }
    ensure!(store.get_memory(&MemoryId("s1".into())).map_err(text)?.is_some(), "a selection from the note was removed");
    // Replacing with the same ids again changes nothing and re-opens nothing.
    let again = store.replace_note_memories("n3.md", &[memory("m3b", "n3.md", 30)]).map_err(text)?;
    ensure!(again.memories.is_empty() && again.reopened.is_empty(), "unchanged replace removed {again:?}");
    let wrong = store.replace_note_memories("n3.md", &[memory("x", "other.md", 1)]);
    ensure!(matches!(wrong, Err(StoreError::InvalidInput(_))), "a memory of another note was accepted");
    ensure!(store.get_memory(&MemoryId("m3b".into())).map_err(text)?.is_some(), "failed replace undid m3b");
    Ok(())
}

fn consolidation_batch<F: DriverFactory>(factory: &F) -> Outcome {
    let store = five_consolidated(factory)?;
    for index in 1..=5 {
        ensure!(consolidated(&store, &format!("m{index}"))?, "m{index} not marked");
    }
    ensure_eq!(store.count_unconsolidated().map_err(text)?, 0);
    let listed = store.list_consolidations(0, 0).map_err(text)?;
    ensure_eq!(listed.iter().map(|c| c.id.0.as_str()).collect::<Vec<_>>(), vec!["c2", "c1"]);
    ensure_eq!(
        store.get_consolidation(&ConsolidationId("c1".into())).map_err(text)?,
        Some(insight("c1", &["m1", "m2", "m3", "m4", "m5"], 10))
    );
    let citing = store.consolidations_citing(&MemoryId("m5".into())).map_err(text)?;
    ensure_eq!(citing.len(), 2);
    Ok(())
}

fn consolidation_missing_memory<F: DriverFactory>(factory: &F) -> Outcome {
    let store = fresh(factory)?;
    store.insert_memory(&memory("m1", "a.md", 1)).map_err(text)?;
    store.insert_memory(&memory("m2", "b.md", 2)).map_err(text)?;
    // Invalid insights store nothing at all, and leave the batch waiting.
    let batch = [MemoryId("m1".into()), MemoryId("m2".into()), MemoryId("gone".into())];
    let mut stray = insight("c3", &["m1"], 3);
    stray.connections =
        vec![Connection { from: MemoryId("m1".into()), to: MemoryId("m2".into()), relationship: "x".into() }];
    ensure!(
        store.save_consolidation_batch(&batch, &[insight("c0", &["m1", "m2"], 3), stray]).is_err(),
        "a connection outside the insight was accepted"
    );
    ensure!(
        store.save_consolidation_batch(&batch, &[insight("c4", &[], 3)]).is_err(),
        "an insight citing nothing was accepted"
    );
    ensure_eq!(store.status().map_err(text)?.insights, 0);
    ensure_eq!(store.count_unconsolidated().map_err(text)?, 2);
    // A memory forgotten while the model was thinking: the insight citing it is dropped and
    // its other memories stay open (as the orphan fix would have left them); the rest is stored.
    store.insert_memory(&memory("m3", "c.md", 3)).map_err(text)?;
    let batch = [MemoryId("m1".into()), MemoryId("m2".into()), MemoryId("m3".into()), MemoryId("gone".into())];
    let stored = store
        .save_consolidation_batch(&batch, &[insight("c1", &["m1", "m2"], 3), insight("c2", &["m3", "gone"], 3)])
        .map_err(text)?;
    ensure_eq!(stored, 1);
    ensure!(
        store.get_consolidation(&ConsolidationId("c2".into())).map_err(text)?.is_none(),
        "an orphan insight was kept"
    );
    ensure!(consolidated(&store, "m1")? && consolidated(&store, "m2")?, "the stored insight's batch is done");
    ensure!(!consolidated(&store, "m3")?, "the dropped insight's memory was closed");
    Ok(())
}

fn sources<F: DriverFactory>(factory: &F) -> Outcome {
    let store = five_consolidated(factory)?;
    let source = |path: &str, sha: &str| Source {
        path: path.into(),
        mtime: 7,
        size: 3_000_000_000,
        sha256: sha.into(),
        updated_at: 8,
        skipped: None,
    };
    store.upsert_source(&source("n1.md", "aa")).map_err(text)?;
    store.upsert_source(&source("n1.md", "bb")).map_err(text)?;
    store.upsert_source(&source("n2.md", "cc")).map_err(text)?;
    ensure_eq!(store.get_source("n1.md").map_err(text)?, Some(source("n1.md", "bb")));
    ensure_eq!(store.list_sources().map_err(text)?.len(), 2);
    let first_page = store.list_sources_page(None, 1).map_err(text)?;
    ensure_eq!(first_page.iter().map(|s| s.path.as_str()).collect::<Vec<_>>(), vec!["n1.md"]);
    let second_page = store.list_sources_page(Some("n1.md"), 1).map_err(text)?;
    ensure_eq!(second_page.iter().map(|s| s.path.as_str()).collect::<Vec<_>>(), vec!["n2.md"]);
    ensure!(store.list_sources_page(Some("n2.md"), 1).map_err(text)?.is_empty(), "a page after the last source");
    store.rename_source("n1.md", "Archive/n1.md", 50).map_err(text)?;
    ensure_eq!(store.get_source("n1.md").map_err(text)?, None);
    ensure!(store.get_source("Archive/n1.md").map_err(text)?.is_some(), "renamed source missing");
    let moved = store.get_memory(&MemoryId("m1".into())).map_err(text)?.ok_or("m1 lost in rename")?;
    ensure_eq!(moved.source_path, "Archive/n1.md".to_owned());
    ensure!(moved.consolidated, "a rename re-opened m1");
    ensure_eq!(store.status().map_err(text)?.insights, 2);
    // Renaming onto an existing source replaces what was there.
    store.rename_source("n2.md", "Archive/n1.md", 60).map_err(text)?;
    ensure_eq!(store.get_memory(&MemoryId("m1".into())).map_err(text)?, None);
    ensure_eq!(store.get_source("Archive/n1.md").map_err(text)?.map(|s| s.sha256), Some("cc".to_owned()));
    let removal = store.remove_source("Archive/n1.md").map_err(text)?;
    ensure_eq!(removal.memories, vec![MemoryId("m2".into())]);
    ensure_eq!(store.list_sources().map_err(text)?.len(), 0);
    Ok(())
}

fn ingest(key: &str) -> NewJob {
    NewJob {
        key: key.into(),
        work: JobWork::IngestSource(NoteJob { path: key.into(), pay_after: None, confirmed: false }),
    }
}

fn job_lifecycle<F: DriverFactory>(factory: &F) -> Outcome {
    let store = fresh(factory)?;
    let first = store.enqueue_job(&ingest("a.md"), 100).map_err(text)?;
    let again = store
        .enqueue_job(
            &NewJob {
                work: JobWork::IngestSource(NoteJob { path: "a.md".into(), pay_after: Some(7), confirmed: false }),
                ..ingest("a.md")
            },
            101,
        )
        .map_err(text)?;
    ensure_eq!(again, first);
    store.enqueue_job(&ingest("b.md"), 102).map_err(text)?;
    ensure_eq!(store.status().map_err(text)?.queued, 2);
    let claimed = store.claim_next_job(200).map_err(text)?.ok_or("nothing claimed")?;
    ensure_eq!((claimed.id, claimed.state, claimed.attempts), (first, JobState::Running, 1));
    ensure_eq!(
        claimed.work,
        JobWork::IngestSource(NoteJob { path: "a.md".into(), pay_after: Some(7), confirmed: false })
    );
    // New work for a running key waits; it is not claimed while the key runs.
    let waiting = store.enqueue_job(&ingest("a.md"), 201).map_err(text)?;
    ensure!(waiting != first, "work for a running note merged into the running job");
    let next = store.claim_next_job(202).map_err(text)?.ok_or("b.md not claimed")?;
    ensure_eq!(next.key, "b.md".to_owned());
    ensure_eq!(store.claim_next_job(203).map_err(text)?, None);
    store.complete_job(first, 300).map_err(text)?;
    // A finished job is gone: nothing needs it, and its payload may hold a selection's text.
    ensure_eq!(store.get_job(first).map_err(text)?, None);
    ensure!(store.complete_job(first, 301).is_err(), "a done job completed twice");
    ensure_eq!(store.claim_next_job(302).map_err(text)?.map(|job| job.id), Some(waiting));
    // Many at once: a key already queued keeps its work, a key listed twice is queued once.
    store.enqueue_job(&ingest("c.md"), 400).map_err(text)?;
    let later = |path: &str| NewJob {
        work: JobWork::IngestSource(NoteJob { path: path.into(), pay_after: Some(900), confirmed: false }),
        ..ingest(path)
    };
    let queued = store.enqueue_missing_jobs(&[later("c.md"), later("d.md"), later("d.md")], 401).map_err(text)?;
    ensure_eq!(queued, 1);
    let works: Vec<(String, JobWork)> =
        store.list_jobs(Some(JobState::Queued)).map_err(text)?.into_iter().map(|job| (job.key, job.work)).collect();
    ensure_eq!(works, vec![("c.md".to_owned(), ingest("c.md").work), ("d.md".to_owned(), later("d.md").work)]);
    ensure_eq!(store.enqueue_missing_jobs(&[], 402).map_err(text)?, 0);
    Ok(())
}

fn job_rows_of_earlier_versions<F: DriverFactory>(factory: &F) -> Outcome {
    let store = fresh(factory)?;
    store
        .driver
        .execute_batch(
            r#"INSERT INTO jobs (kind, key, payload, state, attempts, next_run_at, created_at, updated_at) VALUES
             ('ingest_source', 'note:a.md', '{"path":"a.md"}', 'queued', 0, 1, 1, 1),
             ('ingest_source', 'note:b.md', '{"path":"b.md","payAfter":500}', 'queued', 0, 2, 1, 1),
             ('ingest_text', 'text:1', '{"text":"Hi.","sourcePath":"","kind":"text","heading":null,"lineStart":null,"noteDate":null}', 'queued', 0, 3, 1, 1),
             ('ingest_text', 'text:2', '{"text":"Yo.","sourcePath":"n.md","kind":"selection","heading":"H","lineStart":4,"noteDate":"2026-02-01"}', 'queued', 0, 4, 1, 1),
             ('consolidate', 'consolidate', '{"trigger":"daily"}', 'queued', 0, 5, 1, 1),
             ('ingest_source', 'note:broken.md', '{"nopath":1}', 'queued', 0, 6, 1, 1);"#,
        )
        .map_err(|error| error.to_string())?;
    let works: Vec<JobWork> = store.list_jobs(None).map_err(text)?.into_iter().map(|job| job.work).collect();
    let text_job = |text: &str, source_path: &str, kind, heading: Option<&str>, line_start, note_date: Option<&str>| {
        JobWork::IngestText(TextToRemember {
            text: text.into(),
            source_path: source_path.into(),
            kind,
            heading: heading.map(str::to_owned),
            line_start,
            note_date: note_date.map(str::to_owned),
        })
    };
    ensure_eq!(
        works,
        vec![
            JobWork::IngestSource(NoteJob { path: "a.md".into(), pay_after: None, confirmed: false }),
            JobWork::IngestSource(NoteJob { path: "b.md".into(), pay_after: Some(500), confirmed: false }),
            text_job("Hi.", "", SourceKind::Text, None, None, None),
            text_job("Yo.", "n.md", SourceKind::Selection, Some("H"), Some(4), Some("2026-02-01")),
            JobWork::Consolidate(ConsolidateJob { trigger: Some("daily".into()) }),
        ]
    );
    ensure_eq!(
        store.queued_work("note:b.md").map_err(text)?,
        Some(JobWork::IngestSource(NoteJob { path: "b.md".into(), pay_after: Some(500), confirmed: false }))
    );
    // What this version writes reads back the same, in the same columns.
    store.enqueue_job(&NewJob { key: "note:a.md".into(), work: works[1].clone() }, 9).map_err(text)?;
    let rows = store
        .driver
        .query("SELECT payload FROM jobs WHERE key = 'note:a.md'", &[])
        .map_err(|error| error.to_string())?;
    ensure_eq!(rows, vec![vec![SqlValue::Text(r#"{"path":"b.md","payAfter":500}"#.into())]]);
    // A row that cannot be read fails with the reason when it comes due; the queue goes on.
    for _ in 0..5 {
        store.claim_next_job(10).map_err(text)?.ok_or("a readable job was not claimed")?;
    }
    ensure_eq!(store.claim_next_job(10).map_err(text)?, None);
    let status = store.status().map_err(text)?;
    ensure_eq!((status.running, status.failed), (5, 1));
    let reason = store
        .driver
        .query("SELECT last_error FROM jobs WHERE state = 'failed'", &[])
        .map_err(|error| error.to_string())?;
    ensure!(format!("{reason:?}").contains("cannot be read"), "{reason:?}");
    Ok(())
}

fn job_failures<F: DriverFactory>(factory: &F) -> Outcome {
    let store = fresh(factory)?;
    let id = store.enqueue_job(&ingest("a.md"), 0).map_err(text)?;
    store.claim_next_job(1).map_err(text)?.ok_or("not claimed")?;
    store.fail_job(id, "throttled", Some(1_000), 2).map_err(text)?;
    ensure_eq!(store.claim_next_job(999).map_err(text)?, None);
    let retried = store.claim_next_job(1_000).map_err(text)?.ok_or("not claimed at its retry time")?;
    ensure_eq!(retried.attempts, 2);
    ensure_eq!(retried.last_error, Some("throttled".to_owned()));
    store.fail_job(id, "the model kept answering garbage", None, 1_001).map_err(text)?;
    let failed = store.get_job(id).map_err(text)?.ok_or("job vanished")?;
    ensure_eq!(
        (failed.state, failed.last_error.as_deref()),
        (JobState::Failed, Some("the model kept answering garbage"))
    );
    ensure_eq!(store.status().map_err(text)?.failed, 1);
    ensure_eq!(store.claim_next_job(5_000).map_err(text)?, None);
    ensure_eq!(store.retry_failed_jobs(6_000, true).map_err(text)?, 1);
    // A job handed back untried keeps its attempt count.
    let untried = store.claim_next_job(6_000).map_err(text)?.ok_or("retried job not claimed")?;
    ensure_eq!(untried.attempts, 1);
    store.release_job(id, 6_000).map_err(text)?;
    ensure_eq!(store.get_job(id).map_err(text)?.map(|job| (job.state, job.attempts)), Some((JobState::Queued, 0)));
    let again = store.claim_next_job(6_000).map_err(text)?.ok_or("retried job not claimed")?;
    ensure_eq!((again.id, again.attempts), (id, 1));
    // A failure while newer work waits for the same key drops the stale job.
    store.enqueue_job(&ingest("a.md"), 6_001).map_err(text)?;
    store.fail_job(id, "stale", Some(7_000), 6_002).map_err(text)?;
    ensure_eq!(store.get_job(id).map_err(text)?, None);
    ensure_eq!(store.status().map_err(text)?.queued, 1);
    Ok(())
}

fn job_crash_recovery<F: DriverFactory>(factory: &F) -> Outcome {
    let store = fresh(factory)?;
    let id = store.enqueue_job(&ingest("a.md"), 0).map_err(text)?;
    store.claim_next_job(1).map_err(text)?.ok_or("not claimed")?;
    // The process dies here: the saved file holds a running job.
    let restarted = reopen(factory, &store)?;
    ensure_eq!(restarted.status().map_err(text)?.running, 1);
    ensure_eq!(restarted.requeue_interrupted_jobs(10).map_err(text)?, 1);
    let status = restarted.status().map_err(text)?;
    ensure_eq!((status.queued, status.running), (1, 0));
    let resumed = restarted.claim_next_job(10).map_err(text)?.ok_or("not resumed")?;
    ensure_eq!((resumed.id, resumed.attempts), (id, 2));
    ensure_eq!(restarted.list_jobs(None).map_err(text)?.len(), 1);
    Ok(())
}

fn meta_values<F: DriverFactory>(factory: &F) -> Outcome {
    let store = fresh(factory)?;
    ensure_eq!(store.get_meta("last_consolidation_at").map_err(text)?, None);
    store.set_meta("last_consolidation_at", "1767225600000").map_err(text)?;
    store.set_meta("last_consolidation_at", "1767312000000").map_err(text)?;
    ensure_eq!(store.get_meta("last_consolidation_at").map_err(text)?, Some("1767312000000".to_owned()));
    Ok(())
}

fn transaction_rollback<F: DriverFactory>(factory: &F) -> Outcome {
    let store = fresh(factory)?;
    let result: Result<(), StoreError> = store.transaction(|store| {
        store.insert_memory(&memory("m1", "a.md", 1))?;
        store.insert_memory(&memory("m1", "a.md", 1))
    });
    ensure!(result.is_err(), "the duplicate insert succeeded");
    ensure_eq!(store.status().map_err(text)?.memories, 0);
    // The store is usable afterwards.
    store.insert_memory(&memory("m2", "a.md", 1)).map_err(text)?;
    ensure_eq!(store.status().map_err(text)?.memories, 1);
    Ok(())
}

fn export_round_trip<F: DriverFactory>(factory: &F) -> Outcome {
    let store = five_consolidated(factory)?;
    store
        .upsert_source(&Source {
            path: "n1.md".into(),
            mtime: 1,
            size: 2,
            sha256: "ab".into(),
            updated_at: 3,
            skipped: Some("binary".into()),
        })
        .map_err(text)?;
    store.enqueue_job(&ingest("n9.md"), 4).map_err(text)?;
    store.set_meta("k", "v").map_err(text)?;
    let reopened = reopen(factory, &store)?;
    ensure_eq!(reopened.status().map_err(text)?, store.status().map_err(text)?);
    ensure_eq!(
        reopened.list_memories(&MemoryFilter::default()).map_err(text)?,
        store.list_memories(&MemoryFilter::default()).map_err(text)?
    );
    ensure_eq!(reopened.list_consolidations(0, 0).map_err(text)?, store.list_consolidations(0, 0).map_err(text)?);
    ensure_eq!(reopened.list_sources().map_err(text)?, store.list_sources().map_err(text)?);
    ensure_eq!(reopened.list_jobs(None).map_err(text)?, store.list_jobs(None).map_err(text)?);
    ensure_eq!(reopened.get_meta("k").map_err(text)?, Some("v".to_owned()));
    ensure!(!reopened.is_dirty(), "a reopened current store is dirty");
    Ok(())
}

fn dirty_flag<F: DriverFactory>(factory: &F) -> Outcome {
    let store = fresh(factory)?;
    ensure!(store.is_dirty(), "a new store (schema just written) is not dirty");
    store.export().map_err(text)?;
    ensure!(!store.is_dirty(), "export did not clear the dirty flag");
    store.status().map_err(text)?;
    store.list_memories(&MemoryFilter::default()).map_err(text)?;
    ensure!(!store.is_dirty(), "reading made the store dirty");
    store.insert_memory(&memory("m1", "a.md", 1)).map_err(text)?;
    ensure!(store.is_dirty(), "an insert did not make the store dirty");
    store.export().map_err(text)?;
    let _ = store.forget_memory(&MemoryId("missing".into()));
    ensure!(!store.is_dirty(), "a failed forget made the store dirty");
    ensure_eq!(store.requeue_interrupted_jobs(5).map_err(text)?, 0);
    ensure!(!store.is_dirty(), "a transaction that changed nothing made the store dirty");
    Ok(())
}

/// Damage shows when the file is opened (header, schema) or, at the latest, in the full
/// check that the host runs after the start (every page).
fn expect_corrupt<F: DriverFactory>(factory: &F, bytes: &[u8], what: &str) -> Outcome {
    match open_from_bytes(bytes, |bytes| factory.load(bytes)).and_then(|store| store.check_integrity()) {
        Err(StoreError::Corrupt(_)) => Ok(()),
        Err(other) => Err(format!("{what}: expected corrupt, got {other}")),
        Ok(_) => Err(format!("{what}: opened and checked as a sound database")),
    }
}

fn corrupt_inputs<F: DriverFactory>(factory: &F) -> Outcome {
    expect_corrupt(factory, b"# A note, not a database\n", "text")?;
    expect_corrupt(factory, &[0xff; 8192], "random bytes")?;
    let store = five_consolidated(factory)?;
    let bytes = store.export().map_err(text)?;
    ensure!(bytes.len() >= 8192, "export too small to cut: {} bytes", bytes.len());
    expect_corrupt(factory, &bytes[..bytes.len() / 2], "cut in half")?;
    expect_corrupt(factory, &bytes[..bytes.len() - 100], "cut mid-page")?;
    let mut damaged = bytes.clone();
    let page = usize::from(u16::from_be_bytes([bytes[16], bytes[17]]));
    for byte in &mut damaged[page..page * 2] {
        *byte = 0xa5; // overwrite the second page (a b-tree page) with junk
    }
    expect_corrupt(factory, &damaged, "damaged page")?;
    let foreign = factory.load(&[]).map_err(|error| error.to_string())?;
    foreign
        .execute_batch("CREATE TABLE recipes (name TEXT); INSERT INTO recipes VALUES ('soup');")
        .map_err(|e| e.to_string())?;
    let foreign_bytes = foreign.export().map_err(|error| error.to_string())?;
    expect_corrupt(factory, &foreign_bytes, "another program's database")?;
    Ok(())
}

fn newer_schema<F: DriverFactory>(factory: &F) -> Outcome {
    let store = fresh(factory)?;
    let newer = schema::supported_version() + 1;
    store.driver.execute_batch(&format!("PRAGMA user_version = {newer}")).map_err(|e| e.to_string())?;
    let bytes = store.export().map_err(text)?;
    match open_from_bytes(&bytes, |bytes| factory.load(bytes)) {
        Err(StoreError::NewerSchema { found, supported }) => {
            ensure_eq!((found, supported), (newer, schema::supported_version()));
            Ok(())
        }
        Err(other) => Err(format!("expected newer_schema, got {other}")),
        Ok(_) => Err("a newer schema opened".into()),
    }
}

fn migrations<F: DriverFactory>(factory: &F) -> Outcome {
    let load = |bytes: &[u8]| factory.load(bytes).map_err(|error| error.to_string());
    let v1 = Store::open_with(load(&[])?, &schema::MIGRATIONS[..1]).map_err(text)?;
    // The first release's columns, as it wrote them.
    v1.driver
        .execute(
            "INSERT INTO memories (id, source_path, source_kind, raw_text, summary, importance, created_at, updated_at)
             VALUES ('m1', 'a.md', 'note', 'raw', 'Summary.', 0.5, 1, 1)",
            &[],
        )
        .map_err(|error| error.to_string())?;
    let v1_bytes = v1.export().map_err(text)?;
    // A database from the first release opens in this one, upgraded, data kept.
    let current = open_from_bytes(&v1_bytes, |bytes| factory.load(bytes)).map_err(text)?;
    ensure_eq!(current.status().map_err(text)?.schema_version, schema::supported_version());
    ensure!(current.get_memory(&MemoryId("m1".into())).map_err(text)?.is_some(), "data lost in migration");
    ensure!(current.is_dirty(), "a migrated store is not dirty, so it would not be saved");
    // A later step runs after the existing ones.
    let mut steps = schema::MIGRATIONS.to_vec();
    steps.push("ALTER TABLE memories ADD COLUMN language TEXT");
    let next = Store::open_with(load(&v1_bytes)?, &steps).map_err(text)?;
    ensure_eq!(next.status().map_err(text)?.schema_version, steps.len() as u32);
    // A failing step is rolled back whole; the steps before it stay applied.
    let mut broken = schema::MIGRATIONS.to_vec();
    broken.push("CREATE TABLE extra (x); THIS IS NOT SQL");
    let driver = load(&v1_bytes)?;
    match schema::migrate(&driver, &broken) {
        Err(StoreError::Migration { to, .. }) => ensure_eq!(to, broken.len() as u32),
        other => return Err(format!("expected a migration error, got {other:?}")),
    }
    ensure_eq!(schema::read_version(&driver).map_err(text)?, schema::supported_version());
    let extra = driver.query("SELECT 1 FROM sqlite_master WHERE name = 'extra'", &[]).map_err(|e| e.to_string())?;
    ensure!(extra.is_empty(), "the failed step's first statement was kept");
    Ok(())
}

fn usage_totals<F: DriverFactory>(factory: &F) -> Outcome {
    let store = fresh(factory)?;
    let day = |text: &str| CalendarDate::parse(text).ok_or(format!("bad date {text}"));
    let call = TokenUsage { input_tokens: 1_000, output_tokens: 200, cache_read_tokens: 800, cache_write_tokens: 50 };
    store.record_usage(day("2026-11-29")?, "ingest", &call).map_err(text)?;
    store.record_usage(day("2026-11-30")?, "ingest", &call).map_err(text)?;
    store.record_usage(day("2026-11-30")?, "ingest", &call).map_err(text)?;
    store.record_usage(day("2026-11-30")?, "query", &call).map_err(text)?;
    let today = store.usage_between(day("2026-11-30")?, day("2026-11-30")?).map_err(text)?;
    ensure_eq!(today.len(), 2);
    ensure_eq!(
        (today[0].agent.as_str(), today[0].calls, today[0].input_tokens, today[0].cache_read_tokens),
        ("ingest", 2, 2_000, 1_600)
    );
    ensure_eq!(store.usage_between(day("2026-11-01")?, day("2026-11-30")?).map_err(text)?.len(), 3);

    // Two devices each count their own calls; a merge sums them, and again changes nothing.
    store.set_device("laptop");
    let other = reopen(factory, &store)?;
    other.set_device("phone");
    store.record_usage(day("2026-11-30")?, "ingest", &call).map_err(text)?;
    other.record_usage(day("2026-11-30")?, "ingest", &call).map_err(text)?;
    other.record_usage(day("2026-11-30")?, "ingest", &call).map_err(text)?;
    let ingest_today = |of: &Store<F::Driver>| -> Result<u64, String> {
        let today = of.usage_between(day("2026-11-30")?, day("2026-11-30")?).map_err(text)?;
        Ok(today.iter().filter(|record| record.agent == "ingest").map(|record| record.calls).sum())
    };
    // Before the merge: the 2 from before devices were counted and the laptop's 1.
    ensure_eq!(ingest_today(&store)?, 3);
    let merged = store.merge_from(&other).map_err(text)?;
    // After: those, and the phone's 2.
    ensure_eq!(ingest_today(&store)?, 5);
    ensure!(merged.theirs_behind, "the phone lacks the laptop's call");
    other.merge_from(&store).map_err(text)?;
    ensure_eq!(ingest_today(&other)?, 5);
    ensure!(!store.merge_from(&other).map_err(text)?.theirs_behind, "alike now");
    Ok(())
}

fn awkward_text<F: DriverFactory>(factory: &F) -> Outcome {
    let store = fresh(factory)?;
    let mut odd = memory("m'1\"; DROP TABLE memories; --", "Ghi chú/Ngày 1-2-2026 😀.md", 1);
    odd.raw_text = "Tiếng Việt, 日本語, emoji 🧠, NUL-free \\ backslash, 'quotes' and \"doubles\"".into();
    odd.summary = "Robert'); DROP TABLE memories;-- said hello.".into();
    odd.topics = vec!["ngân sách".into(), "".into()];
    store.insert_memory(&odd).map_err(text)?;
    ensure_eq!(store.get_memory(&odd.id).map_err(text)?, Some(as_read(&odd)));
    ensure_eq!(reopen(factory, &store)?.get_memory(&odd.id).map_err(text)?, Some(as_read(&odd)));
    let mut typed = odd.clone();
    typed.id = MemoryId("typed 'one'".into());
    typed.source_kind = SourceKind::Text;
    typed.source_path = String::new();
    store.insert_memory(&typed).map_err(text)?;
    ensure_eq!(reopen(factory, &store)?.get_memory(&typed.id).map_err(text)?, Some(typed));
    Ok(())
}

fn word(text: &str) -> SearchTerm {
    SearchTerm::word(text, false)
}

/// The ids the full-text search finds for `terms`, best first.
fn found<D: SqlDriver>(store: &Store<D>, terms: &[SearchTerm]) -> Result<Vec<String>, String> {
    Ok(store.search_memories(terms, 100).map_err(text)?.into_iter().map(|found| found.memory.id.0).collect())
}

fn said(id: &str, path: &str, created_at: i64, summary: &str) -> Memory {
    let mut memory = memory(id, path, created_at);
    memory.summary = summary.into();
    memory
}

fn full_text_follows<F: DriverFactory>(factory: &F) -> Outcome {
    let store = fresh(factory)?;
    let mut lunch = said("m1", "a.md", 1, "Lunch with Alice about the Q3 budget.");
    lunch.raw_text = "We ate pho near the lake.".into();
    lunch.entities = vec![Entity { name: "Carol Zhang".into(), kind: "person".into() }];
    lunch.topics = vec!["finance".into()];
    store.insert_memory(&lunch).map_err(text)?;
    let mut dentist = said("m2", "b.md", 2, "Dentist appointment.");
    dentist.topics.clear();
    store.insert_memory(&dentist).map_err(text)?;
    ensure_eq!(found(&store, &[word("budget")])?, vec!["m1"]);
    ensure_eq!(found(&store, &[word("pho")])?, vec!["m1"]);
    ensure_eq!(found(&store, &[word("zhang")])?, vec!["m1"]);
    ensure_eq!(found(&store, &[word("finance")])?, vec!["m1"]);
    ensure_eq!(found(&store, &[word("nothing")])?, Vec::<String>::new());
    // Moving a memory in its note and renaming the note leave the index as it is.
    store.update_memory_position(&lunch.id, &Position::default(), 5).map_err(text)?;
    store
        .upsert_source(&Source {
            path: "a.md".into(),
            mtime: 1,
            size: 1,
            sha256: "0f".into(),
            updated_at: 1,
            skipped: None,
        })
        .map_err(text)?;
    store.rename_source("a.md", "Archive/Quarterly review.md", 6).map_err(text)?;
    let moved = store.search_memories(&[word("budget")], 10).map_err(text)?;
    ensure_eq!(
        moved.iter().map(|found| found.memory.source_path.as_str()).collect::<Vec<_>>(),
        vec!["Archive/Quarterly review.md"]
    );
    ensure_eq!(moved[0].memory.raw_text, String::new());
    // The note's title and the heading are searched too, as they are now; folders and the
    // extension are not.
    ensure_eq!(found(&store, &[word("quarterly")])?, vec!["m1"]);
    ensure_eq!(found(&store, &[word("archive")])?, Vec::<String>::new());
    ensure_eq!(found(&store, &[word("md")])?, Vec::<String>::new());
    let heading = Position { heading: Some("Hiring plan".into()), line_start: Some(1), line_end: Some(2) };
    store.update_memory_position(&lunch.id, &heading, 7).map_err(text)?;
    ensure_eq!(found(&store, &[word("hiring")])?, vec!["m1"]);
    store.update_memory_position(&lunch.id, &Position::default(), 8).map_err(text)?;
    ensure_eq!(found(&store, &[word("hiring")])?, Vec::<String>::new());
    store.update_memory_position(&lunch.id, &heading, 9).map_err(text)?;
    // A note's new memories replace the old ones in the index too.
    let archived = "Archive/Quarterly review.md";
    store.replace_note_memories(archived, &[said("m3", archived, 7, "Budget approved.")]).map_err(text)?;
    ensure_eq!(found(&store, &[word("hiring")])?, Vec::<String>::new());
    ensure_eq!(found(&store, &[word("budget")])?, vec!["m3"]);
    store.forget_memory(&MemoryId("m3".into())).map_err(text)?;
    ensure_eq!(found(&store, &[word("budget")])?, Vec::<String>::new());
    let reopened = reopen(factory, &store)?;
    ensure_eq!(found(&reopened, &[word("dentist")])?, vec!["m2"]);
    let check = reopened.driver.query("PRAGMA quick_check", &[]).map_err(|error| error.to_string())?;
    ensure_eq!(check[0][0].as_str(), Some("ok"));
    Ok(())
}

fn full_text_ranks<F: DriverFactory>(factory: &F) -> Outcome {
    let store = fresh(factory)?;
    let filler = "a long note about many other things, the weather, the garden and the commute, ".repeat(6);
    let notes = [
        ("m1", "Budget review: the budget grew and the budget was approved.".to_owned()),
        ("m2", format!("{filler} and once the budget.")),
        ("m3", "Budget meeting.".to_owned()),
        ("m4", "Dentist appointment, and the budget.".to_owned()),
        ("m5", "Hôm qua gặp Linh ở quán cà phê.".to_owned()),
        ("m6", "Weekly meetings moved to Tuesday.".to_owned()),
    ];
    for (index, (id, summary)) in notes.iter().enumerate() {
        let mut memory = said(id, "n.md", index as i64, summary);
        memory.position = Position::default();
        memory.entities.clear();
        memory.topics.clear();
        memory.raw_text = String::new();
        store.insert_memory(&memory).map_err(text)?;
    }
    let budget = found(&store, &[word("budget")])?;
    ensure!(budget.len() == 4 && budget[3] == "m2", "the long note with one hit ranks last: {budget:?}");
    ensure!(
        budget.iter().position(|id| id == "m1") < budget.iter().position(|id| id == "m4"),
        "more hits rank higher: {budget:?}"
    );
    // The rare word counts more than the common one.
    let rare_first = found(&store, &[word("budget"), word("dentist")])?;
    ensure_eq!(rare_first.first().map(String::as_str), Some("m4"));
    ensure_eq!(found(&store, &[word("hom qua")])?, vec!["m5"]);
    ensure_eq!(found(&store, &[word("GẶP")])?, vec!["m5"]);
    ensure_eq!(found(&store, &[word("ca phe")])?, vec!["m5"]);
    ensure_eq!(found(&store, &[SearchTerm::word("meet", true)])?.len(), 2);
    // "meeting" and "meetings" are indexed with their stem too; a mere prefix is not a word.
    ensure_eq!(found(&store, &[word("meet")])?.len(), 2);
    ensure_eq!(found(&store, &[word("mee")])?, Vec::<String>::new());
    // Chinese and Japanese text is searchable by its pairs of characters.
    store.insert_memory(&said("m7", "n.md", 7, "会议记录：预算已批准。")).map_err(text)?;
    ensure_eq!(found(&store, &[word("会议")])?, vec!["m7"]);
    ensure_eq!(found(&store, &[word("预算")])?, vec!["m7"]);
    ensure_eq!(store.search_memories(&[word("budget")], 2).map_err(text)?.len(), 2);
    ensure_eq!(found(&store, &[word("\" OR *")])?, Vec::<String>::new());
    let scores: Vec<f64> =
        store.search_memories(&[word("budget")], 10).map_err(text)?.iter().map(|f| f.score).collect();
    ensure!(scores.windows(2).all(|pair| pair[0] >= pair[1]) && scores[3] > 0.0, "scores {scores:?}");
    Ok(())
}

fn day(text: &str) -> Result<CalendarDate, String> {
    CalendarDate::parse(text).ok_or(format!("bad date {text}"))
}

fn merge_copies<F: DriverFactory>(factory: &F) -> Outcome {
    let source = |path: &str, updated_at: i64, sha: &str| Source {
        path: path.into(),
        mtime: updated_at,
        size: 10,
        sha256: sha.repeat(32),
        updated_at,
        skipped: None,
    };
    let ours = fresh(factory)?;
    ours.insert_memory(&memory("a1", "a.md", 1)).map_err(text)?;
    ours.insert_memory(&memory("a2", "a.md", 2)).map_err(text)?;
    ours.upsert_source(&source("a.md", 2, "a")).map_err(text)?;
    ours.insert_memory(&memory("r1", "r.md", 2)).map_err(text)?;
    ours.upsert_source(&source("r.md", 2, "f")).map_err(text)?;
    // The other device starts from the same copy.
    let theirs = reopen(factory, &ours)?;

    // Here: r.md renamed (the sync tool tells the other side "r.md deleted, r2.md created"), a1
    // forgotten, a new note c.md, an insight over a2 and c1, a note d.md remembered early.
    ours.rename_source("r.md", "r2.md", 9).map_err(text)?;
    theirs.remove_source("r.md").map_err(text)?;
    ours.forget_memory(&MemoryId("a1".into())).map_err(text)?;
    ours.insert_memory(&memory("c1", "c.md", 3)).map_err(text)?;
    ours.upsert_source(&source("c.md", 3, "c")).map_err(text)?;
    ours.save_consolidation_batch(&[], &[insight("i1", &["a2", "c1"], 4)]).map_err(text)?;
    ours.insert_memory(&memory("d-ours", "d.md", 5)).map_err(text)?;
    ours.upsert_source(&source("d.md", 5, "d")).map_err(text)?;
    // There: b.md, typed text, and d.md remembered later from a newer version (with a quiet chunk).
    theirs.insert_memory(&memory("b1", "b.md", 6)).map_err(text)?;
    theirs.upsert_source(&source("b.md", 6, "b")).map_err(text)?;
    let mut typed = memory("t1", "", 7);
    typed.source_kind = SourceKind::Text;
    theirs.insert_memory(&typed).map_err(text)?;
    theirs.insert_memory(&memory("d-theirs", "d.md", 8)).map_err(text)?;
    theirs.upsert_source(&source("d.md", 8, "e")).map_err(text)?;
    theirs.set_quiet_chunks("d.md", &[content_hash("nothing here")]).map_err(text)?;

    let report = ours.merge_from(&theirs).map_err(text)?;
    ensure!(report.memories_added == 3, "b1, t1 and d-theirs are added: {report:?}");
    ensure!(ours.get_source("r.md").map_err(text)?.is_none(), "the deleted record does not come back");
    ensure!(report.memories_removed == 1, "d-ours, older than theirs, goes: {report:?}");
    ensure!(report.theirs_behind, "theirs lacks a2, c1 and the forget of a1: ours must be saved for them");
    let back = theirs.merge_from(&ours).map_err(text)?;
    ensure!(back.memories_removed == 1, "a1, forgotten here, goes there: {back:?}");
    ensure_eq!(back.insights_added, 1);
    let all = |store: &Store<_>| -> Result<Vec<String>, String> {
        let mut ids: Vec<String> =
            store.list_memories(&MemoryFilter::default()).map_err(text)?.into_iter().map(|m| m.id.0).collect();
        ids.sort();
        Ok(ids)
    };
    // The renamed note's memory survives the other side's delete of its old name.
    ensure_eq!(all(&ours)?, vec!["a2", "b1", "c1", "d-theirs", "r1", "t1"]);
    ensure_eq!(all(&theirs)?, all(&ours)?);
    ensure!(theirs.get_consolidation(&ConsolidationId("i1".into())).map_err(text)?.is_some(), "the insight went over");
    ensure_eq!(ours.get_source("d.md").map_err(text)?.map(|s| s.sha256), Some("e".repeat(32)));
    ensure!(
        ours.quiet_chunks("d.md").map_err(text)?.contains(&content_hash("nothing here")),
        "quiet chunks go with the note"
    );
    // The adopted memory is searchable by its note's words here too.
    let found = ours.search_memories(&[SearchTerm::word("lighthouse", false)], 10).map_err(text)?;
    ensure!(
        found.iter().any(|hit| hit.memory.id.0 == "d-theirs"),
        "found {:?}",
        found.iter().map(|hit| &hit.memory.id).collect::<Vec<_>>()
    );
    // Merging again changes nothing, either way, and neither copy is behind (saving would only
    // have the sync tool carry the file back and forth).
    ensure_eq!(ours.merge_from(&theirs).map_err(text)?, MergeReport::default());
    ensure_eq!(theirs.merge_from(&ours).map_err(text)?, MergeReport { notes_adopted: 0, ..MergeReport::default() });

    // They delete b.md, whose record ours adopted from them: the record and its memory go here
    // too, and the copies are alike again (a record left behind would have each side save for
    // the other for ever).
    theirs.remove_source("b.md").map_err(text)?;
    let deleted = ours.merge_from(&theirs).map_err(text)?;
    ensure!(ours.get_source("b.md").map_err(text)?.is_none(), "the deleted note's record goes");
    ensure!(!ours.memory_exists(&MemoryId("b1".into())).map_err(text)?, "and its memory");
    ensure!(!deleted.theirs_behind, "{deleted:?}");
    ensure!(!theirs.merge_from(&ours).map_err(text)?.theirs_behind, "nor is ours behind theirs");
    Ok(())
}

fn scoped_candidates<F: DriverFactory>(factory: &F) -> Outcome {
    let store = fresh(factory)?;
    for (id, path, happened) in [
        ("lisbon", "Trips/Lisbon.md", "2026-03-14"),
        ("porto", "Trips/2025/Porto.md", "2025-05-02"),
        ("tripsy", "Tripsy.md", "2026-03-14"),
        ("budget", "Work/Budget.md", "2026-03-20"),
    ] {
        let mut memory = said(id, path, 1, &format!("The lighthouse in {id}."));
        memory.happened_on = Some(happened.into());
        store.insert_memory(&memory).map_err(text)?;
    }
    let scope =
        |notes: &[&str], folders: &[&str], from: Option<&str>, to: Option<&str>| -> Result<MemoryScope, String> {
            Ok(MemoryScope {
                notes: notes.iter().map(|note| (*note).to_owned()).collect(),
                folders: folders.iter().map(|folder| (*folder).to_owned()).collect(),
                from: from.map(day).transpose()?,
                to: to.map(day).transpose()?,
            })
        };
    let listed = |scope: &MemoryScope| -> Result<Vec<String>, String> {
        let mut ids: Vec<String> =
            store.memories_in_scope(scope, false, 0).map_err(text)?.into_iter().map(|memory| memory.id.0).collect();
        ids.sort();
        ensure_eq!(store.count_in_scope(scope).map_err(text)?, ids.len() as u64);
        let mut found: Vec<String> = store
            .search_memories_within(&[SearchTerm::word("lighthouse", false)], 10, scope)
            .map_err(text)?
            .into_iter()
            .map(|found| found.memory.id.0)
            .collect();
        found.sort();
        ensure_eq!(found, ids);
        Ok(ids)
    };
    ensure_eq!(listed(&scope(&[], &["Trips"], None, None)?)?, vec!["lisbon", "porto"]);
    ensure_eq!(listed(&scope(&[], &["Trips/"], None, None)?)?, vec!["lisbon", "porto"]);
    ensure_eq!(listed(&scope(&["Work/Budget.md"], &["Trips/2025"], None, None)?)?, vec!["budget", "porto"]);
    ensure_eq!(listed(&scope(&[], &[], Some("2026-03-01"), Some("2026-03-31"))?)?, vec!["budget", "lisbon", "tripsy"]);
    ensure_eq!(listed(&scope(&[], &["Trips"], Some("2026-03-01"), None)?)?, vec!["lisbon"]);
    ensure_eq!(listed(&scope(&["Nowhere.md"], &[], None, None)?)?, Vec::<String>::new());
    ensure_eq!(listed(&scope(&[], &["/"], None, None)?)?.len(), 4);
    ensure_eq!(store.memories_in_scope(&scope(&[], &["Trips"], None, None)?, true, 1).map_err(text)?.len(), 1);
    Ok(())
}

fn neighbours<F: DriverFactory>(factory: &F) -> Outcome {
    let store = fresh(factory)?;
    // Made in this order: a conversation's turns, another note's memory between them.
    for (id, path) in [("t1", "chat.md"), ("t2", "chat.md"), ("other", "other.md"), ("t3", "chat.md")] {
        store.insert_memory(&said(id, path, 1, "A turn.")).map_err(text)?;
    }
    let of = |ids: &[&str]| -> Result<Vec<(String, String, bool)>, String> {
        let ids: Vec<MemoryId> = ids.iter().map(|id| MemoryId((*id).to_owned())).collect();
        let mut found: Vec<(String, String, bool)> = store
            .neighbours_of(&ids)
            .map_err(text)?
            .into_iter()
            .map(|neighbour| (neighbour.of.0, neighbour.memory.id.0, neighbour.after))
            .collect();
        found.sort();
        Ok(found)
    };
    let expected = |rows: &[(&str, &str, bool)]| -> Vec<(String, String, bool)> {
        rows.iter().map(|(of, id, after)| ((*of).to_owned(), (*id).to_owned(), *after)).collect()
    };
    ensure_eq!(of(&["t2"])?, expected(&[("t2", "t1", false), ("t2", "t3", true)]));
    ensure_eq!(of(&["t1", "t3"])?, expected(&[("t1", "t2", true), ("t3", "t2", false)]));
    ensure_eq!(of(&["other"])?, Vec::new());
    ensure_eq!(of(&[])?, Vec::new());
    Ok(())
}

fn candidates<F: DriverFactory>(factory: &F) -> Outcome {
    let store = fresh(factory)?;
    // 2026-02-01T20:00:00Z: still 1 February in London, already 2 February in Hanoi.
    let evening = 1_769_976_000_000;
    let mut undated = said("undated", "n.md", evening, "Undated.");
    undated.happened_on = None;
    undated.importance = 0.9;
    undated.entities = vec![Entity { name: "alice".into(), kind: "person".into() }];
    store.insert_memory(&undated).map_err(text)?;
    let mut dated = said("dated", "n.md", 1, "Dated.");
    dated.happened_on = Some("2026-02-02".into());
    dated.importance = 0.2;
    store.insert_memory(&dated).map_err(text)?;
    let mut older = said("older", "n.md", 2, "Older.");
    older.happened_on = Some("2025-06-01".into());
    older.entities = vec![Entity { name: "Bob".into(), kind: "person".into() }];
    older.importance = 1.0;
    store.insert_memory(&older).map_err(text)?;
    let between = |from: &str, to: &str, offset: i32| -> Result<Vec<String>, String> {
        let memories = store.memories_between(day(from)?, day(to)?, offset, 10).map_err(text)?;
        Ok(memories.into_iter().map(|memory| memory.id.0).collect())
    };
    ensure_eq!(between("2026-02-02", "2026-02-02", 7 * 60)?, vec!["undated", "dated"]);
    ensure_eq!(between("2026-02-02", "2026-02-02", 0)?, vec!["dated"]);
    ensure_eq!(between("2026-02-01", "2026-02-01", 0)?, vec!["undated"]);
    ensure_eq!(between("2025-01-01", "2026-12-31", 0)?, vec!["older", "undated", "dated"]);
    let about = |names: &[&str]| -> Result<Vec<String>, String> {
        let names: Vec<String> = names.iter().map(|name| (*name).to_owned()).collect();
        Ok(store.memories_about(&names, 10).map_err(text)?.into_iter().map(|memory| memory.id.0).collect())
    };
    ensure_eq!(about(&["Alice"])?, vec!["dated", "undated"]);
    ensure_eq!(about(&["BOB", "nobody"])?, vec!["older"]);
    // Names compare without diacritics.
    ensure_eq!(about(&["Álice"])?, vec!["dated", "undated"]);
    ensure_eq!(about(&[])?, Vec::<String>::new());
    let recent: Vec<String> = store.recent_memories(2).map_err(text)?.into_iter().map(|memory| memory.id.0).collect();
    ensure_eq!(recent, vec!["dated", "undated"]);
    let important: Vec<String> =
        store.important_memories(2).map_err(text)?.into_iter().map(|memory| memory.id.0).collect();
    ensure_eq!(important, vec!["older", "undated"]);
    ensure!(store.recent_memories(10).map_err(text)?.iter().all(|memory| memory.raw_text.is_empty()), "raw text read");
    Ok(())
}

fn insights_names_sizes<F: DriverFactory>(factory: &F) -> Outcome {
    let store = five_consolidated(factory)?;
    let ids = |items: &[&str]| items.iter().map(|id| MemoryId((*id).to_owned())).collect::<Vec<_>>();
    let citing: Vec<String> = store
        .insights_citing_any(&ids(&["m5", "nope"]))
        .map_err(text)?
        .into_iter()
        .map(|insight| insight.id.0)
        .collect();
    ensure_eq!(citing, vec!["c2", "c1"]);
    ensure_eq!(store.insights_citing_any(&ids(&["m1"])).map_err(text)?.len(), 1);
    ensure_eq!(store.insights_citing_any(&[]).map_err(text)?.len(), 0);
    let mut many = memory("m6", "n6.md", 6);
    many.entities = vec![
        Entity { name: "Bob".into(), kind: "person".into() },
        Entity { name: "Đặng Thùy Linh".into(), kind: "person".into() },
    ];
    store.insert_memory(&many).map_err(text)?;
    ensure_eq!(store.entity_names().map_err(text)?, vec!["Alice", "Bob", "Đặng Thùy Linh"]);
    let sizes = store.memory_sizes().map_err(text)?;
    let memories = store.list_memories(&MemoryFilter::default()).map_err(text)?;
    let chars = |value: &str| value.chars().count() as u64;
    let expected: u64 = memories
        .iter()
        .map(|m| {
            chars(&m.id.0)
                + chars(&m.source_path)
                + m.position.heading.as_deref().map_or(0, |heading| chars(heading) + 1)
                + chars(&m.summary)
                + m.happened_on.as_deref().map_or(7, chars)
        })
        .sum();
    ensure_eq!((sizes.count, sizes.core_chars), (6, expected));
    Ok(())
}

fn full_text_upgrade<F: DriverFactory>(factory: &F) -> Outcome {
    let load = |bytes: &[u8]| factory.load(bytes).map_err(|error| error.to_string());
    let v3 = Store::open_with(load(&[])?, &schema::MIGRATIONS[..3]).map_err(text)?;
    v3.driver
        .execute(
            "INSERT INTO memories (id, source_path, source_kind, raw_text, summary, importance, created_at, updated_at)
             VALUES ('m1', 'a.md', 'note', 'The keeper painted it.', 'Remember the lighthouse.', 0.5, 1, 1)",
            &[],
        )
        .map_err(|error| error.to_string())?;
    let upgraded = open_from_bytes(&v3.export().map_err(text)?, |bytes| factory.load(bytes)).map_err(text)?;
    ensure_eq!(found(&upgraded, &[word("lighthouse")])?, vec!["m1"]);
    // A keyword of the old raw text.
    ensure_eq!(found(&upgraded, &[word("painted")])?, vec!["m1"]);
    // The stems are made for the memories carried over (version 7), once.
    ensure_eq!(found(&upgraded, &[word("paint")])?, vec!["m1"]);
    let stems_version = upgraded.get_meta("stems_version").map_err(text)?;
    ensure_eq!(stems_version, Some(crate::stems::STEMS_VERSION.to_string()));
    // An index that disagrees with the memories (here: a row for a memory that does not
    // exist) is rebuilt by the full check, not taken for a damaged database.
    upgraded
        .driver
        .execute(
            "INSERT INTO memories_fts (docid, summary, words, entities, topics, place) VALUES (999, 'ghost', '', '', '', '')",
            &[],
        )
        .map_err(|error| error.to_string())?;
    let drifted = upgraded.export().map_err(text)?;
    let repaired = open_from_bytes(&drifted, |bytes| factory.load(bytes)).map_err(text)?;
    let checked = repaired.check_integrity().map_err(text)?;
    ensure!(checked.repaired_index, "the drifted index was not rebuilt");
    ensure_eq!(found(&repaired, &[word("ghost")])?, Vec::<String>::new());
    ensure_eq!(found(&repaired, &[word("lighthouse")])?, vec!["m1"]);
    ensure!(repaired.is_dirty(), "the repaired index would not be saved");
    ensure!(!repaired.check_integrity().map_err(text)?.repaired_index, "a sound index was rebuilt");
    Ok(())
}

fn texts_kept<F: DriverFactory>(factory: &F) -> Outcome {
    let store = fresh(factory)?;
    let note = memory("m1", "a.md", 1);
    let mut selection = memory("s1", "a.md", 2);
    selection.source_kind = SourceKind::Selection;
    selection.raw_text = "The exact words I selected.".into();
    store.insert_memory(&note).map_err(text)?;
    store.insert_memory(&selection).map_err(text)?;
    ensure_eq!(store.get_memory(&note.id).map_err(text)?.map(|m| m.raw_text), Some(String::new()));
    ensure_eq!(store.get_memory(&selection.id).map_err(text)?.map(|m| m.raw_text), Some(selection.raw_text.clone()));
    // The note's own words are still searchable through its keywords; the selection's text whole.
    ensure_eq!(found(&store, &[word("keeper")])?, vec!["m1"]);
    ensure_eq!(found(&store, &[word("selected")])?, vec!["s1"]);
    let listed = store.list_memories(&MemoryFilter::default()).map_err(text)?;
    ensure!(listed.iter().all(|memory| memory.raw_text.is_empty()), "a list carried text");
    let page = store.browse_memories(&MemoryQuery::default(), &EXTENSIONS).map_err(text)?;
    ensure!(page.memories.iter().all(|memory| memory.raw_text.is_empty()), "a page carried text");
    let by_id = store.get_memories(&[MemoryId("s1".into()), MemoryId("nope".into()), note.id.clone()]).map_err(text)?;
    ensure_eq!(ids(&by_id), vec!["s1", "m1"]);
    ensure!(by_id.iter().all(|memory| memory.raw_text.is_empty()), "get_memories carried text");
    Ok(())
}

fn shared_entities<F: DriverFactory>(factory: &F) -> Outcome {
    let store = fresh(factory)?;
    for index in 0..3 {
        store.insert_memory(&memory(&format!("m{index}"), "a.md", index)).map_err(text)?;
    }
    let count = |sql: &str| -> Result<i64, String> {
        let rows = store.driver.query(sql, &[]).map_err(|error| error.to_string())?;
        rows.first().and_then(|row| row.first()).and_then(SqlValue::as_i64).ok_or_else(|| "no count".to_owned())
    };
    ensure_eq!(count("SELECT count(*) FROM entities")?, 1);
    ensure_eq!(count("SELECT uses FROM entities")?, 3);
    let before = store.names_version();
    store.forget_memory(&MemoryId("m0".into())).map_err(text)?;
    ensure!(store.names_version() != before, "forgetting a memory with names kept the names version");
    ensure_eq!(count("SELECT uses FROM entities")?, 2);
    store.remove_source("a.md").map_err(text)?;
    ensure_eq!(store.status().map_err(text)?.memories, 0);
    ensure_eq!(count("SELECT count(*) FROM entities")?, 0);
    ensure_eq!(count("SELECT count(*) FROM memory_entities")?, 0);
    ensure_eq!(count("SELECT count(*) FROM paths")?, 0);
    ensure!(store.entity_names().map_err(text)?.is_empty(), "names of forgotten memories");
    Ok(())
}

/// The kinds' extensions as the notes module lists them (the store is handed them).
const EXTENSIONS: FileExtensions = FileExtensions { pdf: &["pdf"], image: &["png", "jpg", "jpeg", "heic"] };

fn browse_by_file_kind<F: DriverFactory>(factory: &F) -> Outcome {
    let store = fresh(factory)?;
    let files = [
        ("n1", "Daily/2026-03-01.md"),
        ("p1", "Papers/Budget Q3.PDF"),
        ("i1", "Photos/IMG_0001.JPG"),
        ("n2", "Papers/notes.pdf.md"),
        ("i2", "Photos/scan.heic"),
        ("p2", "Papers/Report.pdf"),
        ("n3", "Papers/pdf_ideas.txt"),
        ("n4", "Photos.png/readme.md"),
    ];
    for (id, path) in files {
        store.insert_memory(&memory(id, path, 100)).map_err(text)?;
    }
    let mut typed = memory("t1", "", 100);
    typed.source_kind = SourceKind::Text;
    store.insert_memory(&typed).map_err(text)?;
    let of_kind = |kind: BrowseFileKind, limit: u32| -> Result<(Vec<String>, Option<u64>, bool), String> {
        let query = MemoryQuery { file_kind: Some(kind), limit, ..MemoryQuery::default() };
        let page = store.browse_memories(&query, &EXTENSIONS).map_err(text)?;
        Ok((page.memories.into_iter().map(|memory| memory.id.0).collect(), page.matching, page.next.is_some()))
    };
    ensure_eq!(of_kind(BrowseFileKind::Pdf, 0)?, (vec!["p2".into(), "p1".into()], Some(2), false));
    ensure_eq!(of_kind(BrowseFileKind::Image, 0)?, (vec!["i2".into(), "i1".into()], Some(2), false));
    ensure_eq!(
        of_kind(BrowseFileKind::Note, 0)?,
        (vec!["t1".into(), "n4".into(), "n3".into(), "n2".into(), "n1".into()], Some(5), false)
    );
    // Pages of one kind: the cursor goes on within the kind.
    let (first, _, more) = of_kind(BrowseFileKind::Pdf, 1)?;
    ensure_eq!((first, more), (vec!["p2".to_owned()], true));
    // Combined with another filter (AND).
    let query =
        MemoryQuery { file_kind: Some(BrowseFileKind::Note), source: Some("papers/".into()), ..MemoryQuery::default() };
    let page = store.browse_memories(&query, &EXTENSIONS).map_err(text)?;
    ensure_eq!(ids(&page.memories), vec!["n3", "n2"]);
    // A kind with no extensions holds nothing, and its complement everything.
    let none = FileExtensions { pdf: &[], image: &[] };
    let query = MemoryQuery { file_kind: Some(BrowseFileKind::Pdf), ..MemoryQuery::default() };
    ensure_eq!(store.browse_memories(&query, &none).map_err(text)?.memories.len(), 0);
    let query = MemoryQuery { file_kind: Some(BrowseFileKind::Note), ..MemoryQuery::default() };
    ensure_eq!(store.browse_memories(&query, &none).map_err(text)?.memories.len(), files.len() + 1);
    Ok(())
}

fn browse_pages<F: DriverFactory>(factory: &F) -> Outcome {
    let store = fresh(factory)?;
    for index in 0..7 {
        let mut item = memory(&format!("m{index}"), if index % 2 == 0 { "Work/a.md" } else { "Home/b.md" }, 100);
        item.summary = format!("Memory number {index} about {}.", if index < 3 { "the garden" } else { "taxes" });
        item.happened_on = Some(format!("2026-03-0{}", index + 1));
        if index == 4 {
            item.entities = vec![Entity { name: "Đặng Thùy Linh".into(), kind: "person".into() }];
            item.topics = vec!["Ngân sách".into()];
        }
        store.insert_memory(&item).map_err(text)?;
    }
    // All created at the same time: the key breaks the tie, newest first, no row twice.
    let mut seen = Vec::new();
    let mut query = MemoryQuery { limit: 3, ..MemoryQuery::default() };
    loop {
        let page = store.browse_memories(&query, &EXTENSIONS).map_err(text)?;
        ensure_eq!(page.total, 7);
        ensure_eq!(page.matching, None);
        seen.extend(page.memories.iter().map(|memory| memory.id.0.clone()));
        match page.next {
            Some(cursor) => query.before = Some(cursor),
            None => break,
        }
    }
    ensure_eq!(seen, vec!["m6", "m5", "m4", "m3", "m2", "m1", "m0"]);
    let filtered = |query: MemoryQuery| -> Result<(Vec<String>, Option<u64>), String> {
        let page = store.browse_memories(&query, &EXTENSIONS).map_err(text)?;
        Ok((page.memories.into_iter().map(|memory| memory.id.0).collect(), page.matching))
    };
    let by = |text: &str| MemoryQuery { text: Some(text.into()), ..MemoryQuery::default() };
    ensure_eq!(filtered(by("GARD num"))?, (vec!["m2".into(), "m1".into(), "m0".into()], Some(3)));
    ensure_eq!(filtered(by("garden taxes"))?.0.len(), 0);
    ensure_eq!(filtered(by("?!"))?.0.len(), 0);
    ensure_eq!(
        filtered(MemoryQuery { source: Some("home/".into()), ..MemoryQuery::default() })?.0,
        vec!["m5", "m3", "m1"]
    );
    ensure_eq!(filtered(MemoryQuery { entity: Some("thuy".into()), ..MemoryQuery::default() })?.0, vec!["m4"]);
    ensure_eq!(filtered(MemoryQuery { topic: Some("ngân".into()), ..MemoryQuery::default() })?.0, vec!["m4"]);
    ensure_eq!(filtered(MemoryQuery { source: Some("%".into()), ..MemoryQuery::default() })?.0.len(), 0);
    let dates =
        MemoryQuery { from: Some("2026-03-02".into()), to: Some("2026-03-03".into()), ..MemoryQuery::default() };
    ensure_eq!(filtered(dates)?, (vec!["m2".into(), "m1".into()], Some(2)));
    let bad = MemoryQuery { from: Some("March".into()), ..MemoryQuery::default() };
    ensure!(
        matches!(store.browse_memories(&bad, &EXTENSIONS), Err(StoreError::InvalidInput(_))),
        "a bad date was accepted"
    );
    // Insights page the same way.
    let batch: Vec<MemoryId> = (0..3).map(|index| MemoryId(format!("m{index}"))).collect();
    let insights: Vec<Consolidation> = (0..3).map(|index| insight(&format!("c{index}"), &["m0", "m1"], 50)).collect();
    store.save_consolidation_batch(&batch, &insights).map_err(text)?;
    let first = store.browse_insights(None, 2).map_err(text)?;
    ensure_eq!((first.insights.len(), first.total), (2, 3));
    let rest = store.browse_insights(first.next, 2).map_err(text)?;
    ensure_eq!((rest.insights.len(), rest.next), (1, None));
    let mut all: Vec<String> =
        first.insights.iter().chain(&rest.insights).map(|insight| insight.id.0.clone()).collect();
    all.sort();
    ensure_eq!(all, vec!["c0", "c1", "c2"]);
    Ok(())
}

fn upgrade_from_version_4<F: DriverFactory>(factory: &F) -> Outcome {
    let load = |bytes: &[u8]| factory.load(bytes).map_err(|error| error.to_string());
    let v4 = Store::open_with(load(&[])?, &schema::MIGRATIONS[..4]).map_err(text)?;
    let hash = sha256_hex(b"chunk");
    v4.driver
        .execute_batch(&format!(
            "INSERT INTO memories (id, source_path, source_kind, heading, line_start, line_end, raw_text, summary,
                entities, topics, importance, happened_on, created_at, updated_at, consolidated, content_hash) VALUES
             ('m1', 'Daily/2026-02-01.md', 'note', 'Lunch', 2, 5, 'We ate pho by the lake.', 'Lunch with Alice.',
              '[{{\"name\":\"Alice\",\"kind\":\"person\"}}]', '[\"food\"]', 0.7, '2026-02-01', 10, 11, 1, '{hash}'),
             ('m2', 'Daily/2026-02-01.md', 'note', NULL, 6, 9, 'Paid the rent.', 'Rent paid.', '[]', '[]', 0.3, NULL,
              12, 12, 1, NULL),
             ('s1', 'Daily/2026-02-01.md', 'selection', NULL, NULL, NULL, 'Alice says hi.', 'Alice greeted.',
              '[{{\"name\":\"Alice\",\"kind\":\"person\"}}]', '[]', 0.5, NULL, 13, 13, 0, NULL);
             INSERT INTO consolidations (id, memory_ids, insight, connections, created_at) VALUES
             ('c1', '[\"m1\",\"m2\"]', 'A busy first of February.', '[]', 20),
             ('c2', '[\"m1\",\"gone\"]', 'Cites a memory that is gone.', '[]', 21);
             INSERT INTO sources (path, mtime, size, sha256, updated_at, skipped) VALUES
             ('Daily/2026-02-01.md', 5, 40, '{hash}', 6, NULL), ('big.md', 7, 9000000, '{hash}', 8, 'too large');
             INSERT INTO jobs (kind, key, payload, state, attempts, next_run_at, created_at, updated_at) VALUES
             ('ingest_source', 'note:x.md', '{{\"path\":\"x.md\"}}', 'queued', 0, 1, 1, 1),
             ('ingest_source', 'note:y.md', '{{\"path\":\"y.md\"}}', 'done', 1, 1, 1, 1);"
        ))
        .map_err(|error| error.to_string())?;
    let upgraded = open_from_bytes(&v4.export().map_err(text)?, |bytes| factory.load(bytes)).map_err(text)?;
    ensure!(upgraded.is_dirty(), "the upgraded store would not be saved");
    ensure_eq!(upgraded.foreign_objects_removed(), &[][..]);
    let status = upgraded.status().map_err(text)?;
    ensure_eq!((status.memories, status.insights, status.queued), (3, 1, 1));
    let m1 = upgraded.get_memory(&MemoryId("m1".into())).map_err(text)?.ok_or("m1 lost")?;
    ensure_eq!(m1.entities, vec![Entity { name: "Alice".into(), kind: "person".into() }]);
    ensure_eq!((m1.importance, m1.happened_on.as_deref(), m1.consolidated), (0.7, Some("2026-02-01"), true));
    ensure_eq!(m1.position, Position { heading: Some("Lunch".into()), line_start: Some(2), line_end: Some(5) });
    ensure_eq!(m1.content_hash, Some(hash[..2 * super::memories::CONTENT_HASH_BYTES].to_owned()));
    ensure_eq!(m1.raw_text, String::new());
    let s1 = upgraded.get_memory(&MemoryId("s1".into())).map_err(text)?.ok_or("s1 lost")?;
    ensure_eq!(s1.raw_text, "Alice says hi.".to_owned());
    ensure_eq!(found(&upgraded, &[word("pho")])?, vec!["m1"]);
    ensure_eq!(upgraded.memories_about(&["alice".into()], 10).map_err(text)?.len(), 2);
    ensure_eq!(upgraded.insights_citing_any(&[MemoryId("m2".into())]).map_err(text)?.len(), 1);
    ensure_eq!(upgraded.list_sources().map_err(text)?.len(), 2);
    ensure_eq!(
        upgraded.get_source("big.md").map_err(text)?.and_then(|source| source.skipped),
        Some("too large".into())
    );
    ensure_eq!(upgraded.list_jobs(None).map_err(text)?.len(), 1);
    let tables = upgraded
        .driver
        .query("SELECT name FROM sqlite_master WHERE name LIKE 'legacy_%'", &[])
        .map_err(|error| error.to_string())?;
    ensure!(tables.is_empty(), "legacy tables left behind: {tables:?}");
    ensure!(!upgraded.check_integrity().map_err(text)?.repaired_index, "the upgraded index disagreed");
    // The orphan fix works across the upgrade.
    let removal = upgraded.forget_memory(&MemoryId("m2".into())).map_err(text)?;
    ensure_eq!(removal.consolidations, vec![ConsolidationId("c1".into())]);
    ensure_eq!(removal.reopened, vec![MemoryId("m1".into())]);
    Ok(())
}

fn compaction<F: DriverFactory>(factory: &F) -> Outcome {
    let store = fresh(factory)?;
    for index in 0..400 {
        let mut item = memory(&format!("m{index}"), &format!("n{index}.md"), index);
        item.summary = format!("Memory {index}: {}", "a fairly long summary that fills pages. ".repeat(8));
        store.insert_memory(&item).map_err(text)?;
    }
    for index in 0..380 {
        store.remove_source(&format!("n{index}.md")).map_err(text)?;
    }
    let emptied = store.size_report().map_err(text)?;
    store.export().map_err(text)?;
    let compacted = store.compact().map_err(text)?;
    ensure_eq!(compacted.bytes_before, emptied.bytes());
    ensure!(compacted.bytes_after * 2 < compacted.bytes_before, "{compacted:?}");
    ensure!(store.is_dirty(), "a compacted store would not be saved");
    ensure_eq!(store.status().map_err(text)?.memories, 20);
    ensure_eq!(reopen(factory, &store)?.size_report().map_err(text)?.pages, store.size_report().map_err(text)?.pages);
    store.export().map_err(text)?;
    let again = store.compact().map_err(text)?;
    ensure_eq!(again.bytes_after, again.bytes_before);
    ensure!(!store.is_dirty(), "compacting a compact store changed it");
    Ok(())
}

/// A store of twelve memories, exported after `plant` ran on it.
fn twelve_memories_with<F: DriverFactory>(factory: &F, plant: &str) -> Result<Vec<u8>, String> {
    let store = fresh(factory)?;
    for index in 0..12 {
        store.insert_memory(&memory(&format!("m{index}"), &format!("n{index}.md"), 10 + index)).map_err(text)?;
    }
    store.driver.execute_batch(plant).map_err(|error| format!("plant: {error}"))?;
    store.export().map_err(text)
}

fn memory_count<D: SqlDriver>(store: &Store<D>) -> Result<u64, String> {
    Ok(store.status().map_err(text)?.memories)
}

fn foreign_schema_objects<F: DriverFactory>(factory: &F) -> Outcome {
    let bytes = twelve_memories_with(
        factory,
        "CREATE TRIGGER wipe AFTER INSERT ON jobs BEGIN DELETE FROM memories; END;
         CREATE TRIGGER \"odd \"\"name\"\"\" BEFORE UPDATE ON meta BEGIN DELETE FROM paths; END;
         CREATE VIEW peek AS SELECT summary FROM memories;
         CREATE INDEX memories_by_summary ON memories (summary);
         CREATE TABLE extra (x);
         DROP VIEW memory_search;
         CREATE VIEW memory_search AS SELECT key AS rowid, '' AS summary, '' AS words, '' AS entities,
             '' AS topics, '' AS place, '' AS stems, '' AS pairs FROM memories;",
    )?;
    let store = open_from_bytes(&bytes, |bytes| factory.load(bytes)).map_err(text)?;
    let removed: Vec<(ObjectKind, &str)> =
        store.foreign_objects_removed().iter().map(|object| (object.kind, object.name.as_str())).collect();
    ensure_eq!(
        removed,
        vec![
            (ObjectKind::Trigger, "odd \"name\""),
            (ObjectKind::Trigger, "wipe"),
            (ObjectKind::View, "memory_search"),
            (ObjectKind::View, "peek"),
            (ObjectKind::Index, "memories_by_summary"),
            (ObjectKind::Table, "extra"),
        ]
    );
    ensure!(store.is_dirty(), "the cleaned store would not be saved");
    // What the triggers would have done does not happen.
    store.enqueue_job(&ingest("a.md"), 100).map_err(text)?;
    store.set_meta("k", "v").map_err(text)?;
    store.set_meta("k", "w").map_err(text)?;
    ensure_eq!(memory_count(&store)?, 12);
    // The schema's own view is back: the index reads what the memories say.
    store.rebuild_index().map_err(text)?;
    ensure_eq!(found(&store, &[word("summary")])?.len(), 12);
    // Saved and opened again, the file is the schema's own.
    let again = reopen(factory, &store)?;
    ensure_eq!(memory_count(&again)?, 12);
    ensure!(!again.check_integrity().map_err(text)?.repaired_index, "the cleaned index disagreed");
    Ok(())
}

fn endless_trigger<F: DriverFactory>(factory: &F) -> Outcome {
    // Run, this would never end (a recursive query without a bound), at every start.
    let bytes = twelve_memories_with(
        factory,
        "CREATE TRIGGER spin AFTER INSERT ON jobs BEGIN
             SELECT count(*) FROM (WITH RECURSIVE forever(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM forever)
                                   SELECT n FROM forever);
         END;
         CREATE TRIGGER again AFTER INSERT ON meta BEGIN INSERT OR REPLACE INTO meta VALUES (new.key || 'x', ''); END;",
    )?;
    let store = open_from_bytes(&bytes, |bytes| factory.load(bytes)).map_err(text)?;
    ensure_eq!(store.foreign_objects_removed().len(), 2);
    store.enqueue_job(&ingest("a.md"), 100).map_err(text)?;
    store.set_meta("k", "v").map_err(text)?;
    ensure_eq!(store.get_meta("kx").map_err(text)?, None);
    ensure_eq!(memory_count(&store)?, 12);
    Ok(())
}

fn facts_and_days<F: DriverFactory>(factory: &F) -> Outcome {
    let store = fresh(factory)?;
    let mut trip = said("trip", "Trips/Porto.md", 1, "The Porto trip.");
    trip.happened_on = Some("2026-03-09".into());
    // Out of order and repeated: the store files the memory under its earliest day.
    trip.also_on = vec!["2026-03-03".into(), "2026-03-09".into(), "2026-03-05".into()];
    trip.facts = vec!["The ferry to Gaia costs 4 EUR.".into(), "Bob Tran books the cellar visit.".into()];
    store.insert_memory(&trip).map_err(text)?;
    let mut daily = said("daily", "Daily/2026-11-23.md", 2, "Standup.");
    daily.happened_on = Some("2026-11-23".into());
    daily.date_source = DateSource::NoteName;
    store.insert_memory(&daily).map_err(text)?;
    let reopened = reopen(factory, &store)?;
    let read = reopened.get_memory(&trip.id).map_err(text)?.ok_or("the trip is gone")?;
    ensure_eq!(read.happened_on.as_deref(), Some("2026-03-03"));
    ensure_eq!(read.also_on, vec!["2026-03-05".to_owned(), "2026-03-09".to_owned()]);
    ensure_eq!(read.facts, trip.facts);
    ensure_eq!(read.date_source, DateSource::Text);
    let read = reopened.get_memory(&daily.id).map_err(text)?.ok_or("the daily memory is gone")?;
    ensure_eq!(read.date_source, DateSource::NoteName);
    // Facts are searched (a word only a fact holds), with stems.
    ensure_eq!(found(&reopened, &[word("gaia")])?, vec!["trip"]);
    ensure_eq!(found(&reopened, &[word("books")])?, vec!["trip"]);
    // Any of its days finds it, as a candidate and in a scope; candidates carry every day.
    let ninth = day("2026-03-09")?;
    let between = reopened.memories_between(ninth, ninth, 0, 10).map_err(text)?;
    ensure_eq!(ids(&between), vec!["trip"]);
    ensure_eq!(between[0].also_on, read_days(&["2026-03-05", "2026-03-09"]));
    ensure_eq!(between[0].facts.len(), 2);
    let fifth = day("2026-03-05")?;
    let scope = MemoryScope { from: Some(fifth), to: Some(fifth), ..MemoryScope::default() };
    let in_scope = reopened.memories_in_scope(&scope, false, 0).map_err(text)?;
    ensure_eq!(ids(&in_scope), vec!["trip"]);
    ensure_eq!(reopened.count_in_scope(&scope).map_err(text)?, 1);
    let april = MemoryScope { from: Some(day("2026-04-01")?), ..MemoryScope::default() };
    let from_april = reopened.memories_in_scope(&april, false, 0).map_err(text)?;
    ensure_eq!(ids(&from_april), vec!["daily"]);
    // Later days without a first one are refused; forgetting takes every day away.
    let mut dayless = said("dayless", "x.md", 3, "No first day.");
    dayless.happened_on = None;
    dayless.also_on = vec!["2026-01-01".into()];
    ensure!(reopened.insert_memory(&dayless).is_err(), "later days without happened_on were stored");
    reopened.forget_memory(&trip.id).map_err(text)?;
    ensure_eq!(reopened.memories_between(ninth, ninth, 0, 10).map_err(text)?.len(), 0);
    let left = reopened.driver.query("SELECT count(*) FROM memory_days", &[]).map_err(|error| error.to_string())?;
    ensure_eq!(left.first().and_then(|row| row.first()).and_then(SqlValue::as_i64), Some(0));
    Ok(())
}

fn read_days(days: &[&str]) -> Vec<String> {
    days.iter().map(|day| (*day).to_owned()).collect()
}

fn upgrade_from_version_9<F: DriverFactory>(factory: &F) -> Outcome {
    let load = |bytes: &[u8]| factory.load(bytes).map_err(|error| error.to_string());
    let v9 = Store::open_with(load(&[])?, &schema::MIGRATIONS[..9]).map_err(text)?;
    v9.driver
        .execute_batch(
            "INSERT INTO paths (id, path) VALUES (1, 'a.md');
             INSERT INTO memories (key, id, path_id, kind, summary, topics, keywords, importance, day, dated,
                                   created_at, updated_at)
             VALUES (1, 'm1', 1, 0, 'Remember the lighthouse.', '[]', 'keeper', 500, 20500, 1, 1, 1);
             INSERT INTO memories_fts (memories_fts) VALUES ('rebuild');",
        )
        .map_err(|error| error.to_string())?;
    let indexed = v9
        .driver
        .query("SELECT docid FROM memories_fts WHERE memories_fts MATCH 'lighthouse'", &[])
        .map_err(|error| error.to_string())?;
    ensure_eq!(indexed.len(), 1);
    let upgraded = open_from_bytes(&v9.export().map_err(text)?, |bytes| factory.load(bytes)).map_err(text)?;
    ensure_eq!(schema::read_version(&upgraded.driver).map_err(text)?, schema::supported_version());
    let read = upgraded.get_memory(&MemoryId("m1".into())).map_err(text)?.ok_or("m1 is gone")?;
    ensure!(read.facts.is_empty() && read.also_on.is_empty(), "an old memory has no facts or later days");
    ensure_eq!(read.date_source, DateSource::Text);
    // The new index (with its facts column) was filled at open, stems included.
    ensure_eq!(found(&upgraded, &[word("lighthouse")])?, vec!["m1"]);
    ensure_eq!(found(&upgraded, &[word("keeper")])?, vec!["m1"]);
    let stems_version = upgraded.get_meta("stems_version").map_err(text)?;
    ensure_eq!(stems_version, Some(crate::stems::STEMS_VERSION.to_string()));
    Ok(())
}
