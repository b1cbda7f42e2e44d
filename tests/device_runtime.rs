//! The device runtime (`device::DeviceLog`) over a vault in memory: what reaches the vault's
//! files when a device remembers, forgets, deletes, edits and compacts, and what a device whose
//! database was lost, damaged or replaced rebuilds from the logs — with no model call, since no
//! engine here has a connection.

use std::cell::Cell;
use std::future::Future;

use futures::FutureExt;
use memory_agent::device::layout::{log_file_number, SEAL_AT};
use memory_agent::device::{DeviceLog, Limits, Listing, MemoryFiles, VaultFiles};
use memory_agent::domain::{Consolidation, ConsolidationId, Memory, MemoryId, Position, Source, SourceKind};
use memory_agent::engine::Engine;
use memory_agent::store::rusqlite_driver::RusqliteDriver;
use memory_agent::store::{open_from_bytes, MemoryFilter, Store};

type Device = Engine<RusqliteDriver>;

const FOLDER: &str = "Memory Agent";
const NOW: i64 = 1_796_025_600_000;

fn device(name: &str) -> Device {
    let store = Store::open(RusqliteDriver::new()).unwrap();
    store.set_device(name);
    Engine::new(store, 1, NOW).unwrap()
}

fn at_once<T>(step: impl Future<Output = T>) -> T {
    step.now_or_never().expect("in-memory files wait for nothing")
}

fn sync(engine: &Device, log: &DeviceLog, vault: &impl VaultFiles) {
    at_once(log.sync(engine, vault, NOW)).unwrap();
}

fn replay_all(engine: &Device, name: &str, vault: &impl VaultFiles) -> memory_agent::device::LogReplay {
    let replayed = at_once(DeviceLog::new(FOLDER, name).unwrap().replay_all(engine, vault, NOW)).unwrap();
    assert!(replayed.problems.is_empty(), "{replayed:?}");
    replayed
}

fn memory(id: &str, path: &str, summary: &str, hash: u32) -> Memory {
    Memory {
        id: MemoryId(id.into()),
        source_path: path.into(),
        source_kind: if path.is_empty() { SourceKind::Text } else { SourceKind::Note },
        position: Position { heading: None, line_start: Some(1), line_end: Some(2) },
        raw_text: if path.is_empty() { summary.into() } else { "budget alice".into() },
        summary: summary.into(),
        entities: Vec::new(),
        topics: vec!["budget".into()],
        importance: 0.5,
        happened_on: None,
        also_on: Vec::new(),
        date_source: Default::default(),
        facts: Vec::new(),
        created_at: NOW,
        updated_at: NOW,
        consolidated: false,
        content_hash: Some(format!("{hash:032x}")),
    }
}

fn remember_note(engine: &Device, path: &str, at: i64, memories: &[Memory]) {
    engine
        .store()
        .transaction(|store| {
            store.replace_note_memories(path, memories)?;
            store.upsert_source(&Source {
                path: path.into(),
                mtime: at,
                size: 100,
                sha256: format!("{at:032x}"),
                updated_at: at,
                skipped: None,
            })
        })
        .unwrap();
}

fn ids(engine: &Device) -> Vec<String> {
    let mut ids: Vec<String> =
        engine.list_memories(&MemoryFilter::default()).unwrap().into_iter().map(|memory| memory.id.0).collect();
    ids.sort();
    ids
}

fn insights(engine: &Device) -> Vec<String> {
    engine.store().list_consolidations(0, 0).unwrap().into_iter().map(|insight| insight.id.0).collect()
}

fn anywhere(vault: &MemoryFiles, text: &str) -> Vec<String> {
    vault
        .all()
        .into_iter()
        .filter(|(_, bytes)| bytes.windows(text.len()).any(|window| window == text.as_bytes()))
        .map(|(path, _)| path)
        .collect()
}

/// The in-memory vault, counting the replay's pauses and noting the files it reads.
struct Watched<'a> {
    vault: &'a MemoryFiles,
    pauses: Cell<usize>,
    reads: std::cell::RefCell<Vec<String>>,
}

impl<'a> Watched<'a> {
    fn new(vault: &'a MemoryFiles) -> Self {
        Watched { vault, pauses: Cell::new(0), reads: Default::default() }
    }
}

impl VaultFiles for Watched<'_> {
    fn list(&self, folder: &str) -> impl Future<Output = Result<Listing, String>> {
        self.vault.list(folder)
    }
    fn read(&self, path: &str, offset: u64) -> impl Future<Output = Result<Option<Vec<u8>>, String>> {
        self.reads.borrow_mut().push(path.to_owned());
        self.vault.read(path, offset)
    }
    fn append(&self, path: &str, text: &str) -> impl Future<Output = Result<u64, String>> {
        self.vault.append(path, text)
    }
    fn create(&self, path: &str, text: &str) -> impl Future<Output = Result<(), String>> {
        self.vault.create(path, text)
    }
    fn remove(&self, path: &str) -> impl Future<Output = Result<(), String>> {
        self.vault.remove(path)
    }
    fn pause(&self) -> impl Future<Output = ()> {
        self.pauses.set(self.pauses.get() + 1);
        std::future::ready(())
    }
}

/// Small sizes, so that a few entries seal files and make compaction due.
const SMALL: Limits = Limits {
    seal_at: 600,
    compacted_file_limit: 4_000,
    compact_small_files: 3,
    compact_large_files: 2,
    replay_slice_bytes: 700,
};

#[test]
fn a_forgotten_typed_text_leaves_every_file_of_the_vault_on_every_device() {
    let vault = MemoryFiles::new();
    let (laptop, phone) = (device("laptop"), device("phone"));
    let (laptop_log, phone_log) = (DeviceLog::new(FOLDER, "laptop").unwrap(), DeviceLog::new(FOLDER, "phone").unwrap());
    let secret = "The door code is 4711";
    laptop.store().insert_memory(&memory("m-typed", "", secret, 1)).unwrap();
    laptop.store().insert_memory(&memory("m-other", "", "Bob likes tea", 2)).unwrap();
    sync(&laptop, &laptop_log, &vault);
    assert_eq!(anywhere(&vault, secret), ["Memory Agent/laptop/000001.jsonl"]);
    // The phone had it too, and wrote it in its own log (a migrated copy writes everything).
    replay_all(&phone, "phone", &vault);
    phone.store().log_everything().unwrap();
    sync(&phone, &phone_log, &vault);
    assert_eq!(anywhere(&vault, secret).len(), 2);

    laptop.forget_memory(&MemoryId("m-typed".into())).unwrap();
    sync(&laptop, &laptop_log, &vault);
    assert_eq!(anywhere(&vault, secret), ["Memory Agent/phone/000001.jsonl"], "gone from the laptop's files");
    assert!(!anywhere(&vault, "m-typed").is_empty(), "the removal, by id, stays");
    // The phone replays the removal and rewrites its own files.
    at_once(phone_log.replay_all(&phone, &vault, NOW)).unwrap();
    sync(&phone, &phone_log, &vault);
    assert!(anywhere(&vault, secret).is_empty(), "no byte of it in any file");
    assert_eq!(ids(&phone), ["m-other"]);
    // A device that starts now never sees it.
    let tablet = device("tablet");
    replay_all(&tablet, "tablet", &vault);
    assert_eq!(ids(&tablet), ["m-other"]);
}

#[test]
fn a_deleted_note_leaves_the_log_and_its_record_goes_everywhere() {
    let vault = MemoryFiles::new();
    let laptop = device("laptop");
    let log = DeviceLog::new(FOLDER, "laptop").unwrap();
    remember_note(&laptop, "Private/salary.md", 100, &[memory("m-s", "Private/salary.md", "Alice earns 91k", 1)]);
    remember_note(&laptop, "Plans.md", 100, &[memory("m-p", "Plans.md", "Ship in March", 2)]);
    sync(&laptop, &log, &vault);
    laptop.remove_note("Private/salary.md").unwrap();
    sync(&laptop, &log, &vault);
    assert!(anywhere(&vault, "Alice earns 91k").is_empty());
    let phone = device("phone");
    replay_all(&phone, "phone", &vault);
    assert_eq!(ids(&phone), ["m-p"]);
    assert!(phone.store().get_source("Private/salary.md").unwrap().is_none());
}

#[test]
fn one_edit_appends_to_one_small_file() {
    let vault = MemoryFiles::new();
    let laptop = device("laptop");
    let log = DeviceLog::new(FOLDER, "laptop").unwrap();
    for note in 0..600 {
        let path = format!("Notes/{note}.md");
        remember_note(
            &laptop,
            &path,
            100,
            &[memory(&format!("m-{note}"), &path, &format!("Fact number {note} about the budget and the plan"), note)],
        );
        if note % 10 == 9 {
            sync(&laptop, &log, &vault);
        }
    }
    vault.take_changed();
    remember_note(&laptop, "Notes/7.md", 200, &[memory("m-7b", "Notes/7.md", "Fact seven, edited", 9_999)]);
    sync(&laptop, &log, &vault);
    let changed = vault.take_changed();
    assert_eq!(changed.len(), 1, "one file: {changed:?}");
    let uploaded: u64 = changed.iter().filter_map(|(_, size)| *size).sum();
    assert!(uploaded <= SEAL_AT, "{uploaded} bytes uploaded for one edit");
    let sizes: Vec<u64> = vault.all().values().map(|bytes| bytes.len() as u64).collect();
    assert!(sizes.iter().all(|size| *size <= SEAL_AT || sizes.len() < 20), "{sizes:?}");
}

#[test]
fn compaction_merges_sealed_files_and_keeps_every_latest_state() {
    let vault = MemoryFiles::new();
    let laptop = device("laptop");
    let log = DeviceLog::new(FOLDER, "laptop").unwrap().with_limits(SMALL);
    for round in 0..12i64 {
        for note in 0..3 {
            let path = format!("n{note}.md");
            let id = format!("m-{note}-{round}");
            remember_note(
                &laptop,
                &path,
                100 + round,
                &[memory(&id, &path, &format!("Version {round} of {note}"), (round * 10 + note) as u32)],
            );
        }
        sync(&laptop, &log, &vault);
    }
    let files: Vec<String> = vault.all().into_keys().collect();
    assert!(files.len() <= 6, "compacted: {files:?}");
    assert!(vault.all().values().all(|bytes| bytes.len() as u64 <= SMALL.compacted_file_limit));
    assert!(anywhere(&vault, "Version 0 of 1").is_empty(), "older versions compacted away");
    let phone = device("phone");
    replay_all(&phone, "phone", &vault);
    assert_eq!(ids(&phone), ids(&laptop));
    assert_eq!(ids(&phone), ["m-0-11", "m-1-11", "m-2-11"]);
}

#[test]
fn a_rebuilt_database_compacts_from_the_logs_and_loses_nothing() {
    // Issue 35: after the database was lost and rebuilt, compaction wrote what the database held
    // and removed the files holding the memories. Compaction reads the files, never the database.
    let vault = MemoryFiles::new();
    let laptop = device("laptop");
    let log = DeviceLog::new(FOLDER, "laptop").unwrap().with_limits(SMALL);
    for note in 0..40u32 {
        let path = format!("n{note}.md");
        remember_note(&laptop, &path, 100, &[memory(&format!("m-{note}"), &path, &format!("Fact {note}"), note)]);
        sync(&laptop, &log, &vault);
    }
    laptop
        .store()
        .save_consolidation_batch(
            &[MemoryId("m-1".into()), MemoryId("m-2".into())],
            &[Consolidation {
                id: ConsolidationId("c-1".into()),
                memory_ids: vec![MemoryId("m-1".into()), MemoryId("m-2".into())],
                insight: "Facts 1 and 2 go together.".into(),
                connections: Vec::new(),
                created_at: NOW,
            }],
        )
        .unwrap();
    sync(&laptop, &log, &vault);
    let expected = ids(&laptop);
    // The database is lost: a new one (no cursors, no outbox) on the same device.
    let rebuilt = device("laptop");
    let rebuilt_log = DeviceLog::new(FOLDER, "laptop").unwrap().with_limits(SMALL);
    at_once(rebuilt_log.replay_all(&rebuilt, &vault, NOW)).unwrap();
    assert_eq!(ids(&rebuilt), expected, "rebuilt from the logs");
    assert_eq!(insights(&rebuilt), ["c-1"], "insights come back, not made again");
    assert_eq!(
        rebuilt.store().count_unconsolidated().unwrap(),
        laptop.store().count_unconsolidated().unwrap(),
        "what was consolidated is known, and not consolidated (paid for) again"
    );
    assert_eq!(rebuilt.store().count_unconsolidated().unwrap(), 38);
    // More work and compactions on the rebuilt database: every memory stays in the log.
    for note in 40..60u32 {
        let path = format!("n{note}.md");
        remember_note(&rebuilt, &path, 100, &[memory(&format!("m-{note}"), &path, &format!("Fact {note}"), note)]);
        sync(&rebuilt, &rebuilt_log, &vault);
    }
    let third = device("tablet");
    replay_all(&third, "tablet", &vault);
    assert_eq!(ids(&third), ids(&rebuilt));
    assert_eq!(ids(&third).len(), 60);
    assert_eq!(insights(&third), ["c-1"]);
}

/// Files that fail the `fail_at`th operation that changes something, as a crash there would
/// leave them (every operation before it done, none after).
struct CrashingFiles<'a> {
    vault: &'a MemoryFiles,
    changes: Cell<usize>,
    fail_at: usize,
}

impl CrashingFiles<'_> {
    fn change(&self) -> Result<(), String> {
        self.changes.set(self.changes.get() + 1);
        if self.changes.get() == self.fail_at {
            Err("crash".into())
        } else {
            Ok(())
        }
    }
}

impl VaultFiles for CrashingFiles<'_> {
    fn list(&self, folder: &str) -> impl Future<Output = Result<Listing, String>> {
        self.vault.list(folder)
    }
    fn read(&self, path: &str, offset: u64) -> impl Future<Output = Result<Option<Vec<u8>>, String>> {
        self.vault.read(path, offset)
    }
    async fn append(&self, path: &str, text: &str) -> Result<u64, String> {
        self.change()?;
        self.vault.append(path, text).await
    }
    async fn create(&self, path: &str, text: &str) -> Result<(), String> {
        self.change()?;
        self.vault.create(path, text).await
    }
    async fn remove(&self, path: &str) -> Result<(), String> {
        self.change()?;
        self.vault.remove(path).await
    }
    fn pause(&self) -> impl Future<Output = ()> {
        std::future::ready(())
    }
}

#[test]
fn a_crash_at_any_step_of_a_purge_or_a_compaction_loses_nothing() {
    for fail_at in 1..40 {
        let vault = MemoryFiles::new();
        let laptop = device("laptop");
        let log = DeviceLog::new(FOLDER, "laptop").unwrap().with_limits(SMALL);
        for note in 0..14u32 {
            let path = format!("n{note}.md");
            remember_note(&laptop, &path, 100, &[memory(&format!("m-{note}"), &path, &format!("Fact {note}"), note)]);
            sync(&laptop, &log, &vault);
        }
        let saved = laptop.store().export().unwrap();
        laptop.forget_memory(&MemoryId("m-3".into())).unwrap();
        for note in 14..20u32 {
            let path = format!("n{note}.md");
            remember_note(&laptop, &path, 100, &[memory(&format!("m-{note}"), &path, &format!("Fact {note}"), note)]);
        }
        let crashing = CrashingFiles { vault: &vault, changes: Cell::new(0), fail_at };
        let crashed = at_once(log.sync(&laptop, &crashing, NOW)).is_err();
        // The device starts again from its last saved database (the crash lost the rest) and
        // replays its own log, then writes what it still has to.
        let store = open_from_bytes(&saved, RusqliteDriver::from_bytes).unwrap();
        store.set_device("laptop");
        let restarted = Engine::new(store, 1, NOW).unwrap();
        let restarted_log = DeviceLog::new(FOLDER, "laptop").unwrap().with_limits(SMALL);
        at_once(restarted_log.replay_all(&restarted, &vault, NOW)).unwrap();
        at_once(restarted_log.sync(&restarted, &vault, NOW)).unwrap();
        let fresh = device("tablet");
        replay_all(&fresh, "tablet", &vault);
        let kept = ids(&fresh);
        for note in (0..14u32).filter(|note| *note != 3) {
            assert!(
                kept.contains(&format!("m-{note}")),
                "crash at change {fail_at} ({crashed}): m-{note} lost: {kept:?}"
            );
        }
        if !crashed {
            assert!(!kept.contains(&"m-3".to_owned()), "the forget, written whole, holds");
            break;
        }
    }
}

#[test]
fn a_line_written_twice_replays_once_and_a_bad_file_stops_no_other() {
    let vault = MemoryFiles::new();
    let laptop = device("laptop");
    laptop.store().insert_memory(&memory("m-1", "", "One", 1)).unwrap();
    laptop.store().insert_memory(&memory("m-2", "", "Two", 2)).unwrap();
    laptop
        .store()
        .save_consolidation_batch(
            &[],
            &[Consolidation {
                id: ConsolidationId("c-1".into()),
                memory_ids: vec![MemoryId("m-1".into()), MemoryId("m-2".into())],
                insight: "One and two.".into(),
                connections: Vec::new(),
                created_at: NOW,
            }],
        )
        .unwrap();
    sync(&laptop, &DeviceLog::new(FOLDER, "laptop").unwrap(), &vault);
    // A crash before the acknowledgement: the same lines are appended again.
    let written = vault.get("Memory Agent/laptop/000001.jsonl").unwrap();
    vault.put("Memory Agent/laptop/000001.jsonl", [written.clone(), written].concat());
    // Another device's folder holds a file whose replay fails, and one of another format.
    vault.put("Memory Agent/aaa/000001.jsonl", b"{\"v\":1,\"at\":1,\"op\":\"memory\",\"memory\":{}}\n".to_vec());
    vault.put("Memory Agent/zzz/000001.jsonl", b"{\"v\":7,\"at\":1,\"op\":\"hologram\"}\n".to_vec());
    let phone = device("phone");
    let replayed = at_once(DeviceLog::new(FOLDER, "phone").unwrap().replay_all(&phone, &vault, NOW)).unwrap();
    assert_eq!(ids(&phone), ["m-1", "m-2"]);
    assert_eq!(insights(&phone), ["c-1"], "the insight written twice is one");
    let paths: Vec<&str> = replayed.problems.iter().map(|problem| problem.path.as_str()).collect();
    assert_eq!(paths, ["Memory Agent/aaa/000001.jsonl", "Memory Agent/zzz/000001.jsonl"], "{replayed:?}");
    assert!(replayed.problems[1].newer);
}

#[test]
fn replay_pauses_between_slices_of_a_large_log() {
    let vault = MemoryFiles::new();
    let laptop = device("laptop");
    for note in 0..400u32 {
        let path = format!("n{note}.md");
        remember_note(
            &laptop,
            &path,
            100,
            &[memory(&format!("m-{note}"), &path, &format!("Fact {note} of many"), note)],
        );
    }
    sync(&laptop, &DeviceLog::new(FOLDER, "laptop").unwrap(), &vault);
    let bytes: u64 = vault.all().values().map(|bytes| bytes.len() as u64).sum();
    let phone = device("phone");
    let counting = Watched::new(&vault);
    let log = DeviceLog::new(FOLDER, "phone").unwrap();
    assert!(!log.replay_progress().running, "no replay before the first");
    at_once(log.replay_all(&phone, &counting, NOW)).unwrap();
    assert_eq!(ids(&phone).len(), 400);
    let slices = bytes / memory_agent::device::log::REPLAY_SLICE_BYTES;
    assert!(counting.pauses.get() as u64 >= slices, "{} pauses for {bytes} bytes", counting.pauses.get());
    let progress = log.replay_progress();
    assert_eq!((progress.done_bytes, progress.total_bytes, progress.running), (bytes, bytes, false));
}

#[test]
fn names_outside_the_format_are_never_read_removed_or_numbered_past_and_are_reported() {
    let vault = MemoryFiles::new();
    let laptop = device("laptop");
    let forget = memory_agent::store::LogEntry::Removed { tombstone: "m-1".into() };
    let forged = format!("{}\n", memory_agent::store::log_line(NOW, &forget).unwrap());
    vault.put("Memory Agent/laptop/4294967295.jsonl", forged.clone().into_bytes());
    vault.put("Memory Agent/phone/notes.jsonl", forged.into_bytes());
    laptop.store().insert_memory(&memory("m-1", "", "One", 1)).unwrap();
    let log = DeviceLog::new(FOLDER, "laptop").unwrap();
    sync(&laptop, &log, &vault);
    let names: Vec<String> = vault.all().into_keys().collect();
    assert!(names.contains(&"Memory Agent/laptop/000001.jsonl".to_owned()), "{names:?}");
    assert!(
        names.contains(&"Memory Agent/laptop/4294967295.jsonl".to_owned()),
        "not this device's to remove: {names:?}"
    );
    assert_eq!(log_file_number("4294967295.jsonl"), None);

    let replayed = at_once(log.replay_all(&laptop, &vault, NOW)).unwrap();
    assert_eq!(ids(&laptop), ["m-1"], "neither file was read");
    let reported: Vec<(&str, &str)> = replayed
        .problems
        .iter()
        .map(|problem| (problem.path.as_str(), problem.error.as_deref().unwrap_or_default()))
        .collect();
    assert_eq!(reported.len(), 2, "{reported:?}");
    for (path, error) in reported {
        assert!(path.ends_with("/4294967295.jsonl") || path.ends_with("/notes.jsonl"), "{path}");
        assert!(error.contains("its name is not one Memory Agent gives its log files"), "{error}");
    }
    // A sync tool's copy of a numbered file is read like one.
    let copies = MemoryFiles::new();
    copies.put("Memory Agent/laptop/000001 (1).jsonl", vault.get("Memory Agent/laptop/000001.jsonl").unwrap());
    let tablet = device("tablet");
    replay_all(&tablet, "tablet", &copies);
    assert_eq!(ids(&tablet), ["m-1"]);
}

#[test]
fn a_forged_line_is_skipped_counted_and_named_and_everything_else_replays() {
    use memory_agent::store::{log_line, LogEntry, UsageRecord};
    let line = |entry: LogEntry| log_line(NOW, &entry).unwrap() + "\n";
    let usage = |device: &str, tokens: u64| LogEntry::Usage {
        device: device.into(),
        usage: UsageRecord {
            day: "2026-12-04".into(),
            agent: "ingest".into(),
            calls: 1,
            input_tokens: tokens,
            output_tokens: 1,
            cache_read_tokens: 0,
            cache_write_tokens: 0,
        },
    };
    let mut out_of_range = memory("m-bad", "", "Bad", 2);
    out_of_range.importance = 1.5;
    let mut no_summary = memory("m-empty", "", " ", 3);
    no_summary.raw_text = "text".into();
    let mut bad_hash = memory("m-hash", "", "Hash", 4);
    bad_hash.content_hash = Some("not hex".into());
    let everyone = Consolidation {
        id: ConsolidationId("c-huge".into()),
        memory_ids: (0..1_000).map(|n| MemoryId(format!("missing-{n}"))).collect(),
        insight: "Everything.".into(),
        connections: Vec::new(),
        created_at: NOW,
    };
    let forged = [
        line(LogEntry::Memory { memory: memory("m-1", "", "Kept before", 1) }),
        line(LogEntry::Memory { memory: out_of_range }),
        line(LogEntry::Memory { memory: no_summary }),
        line(LogEntry::Memory { memory: bad_hash }),
        line(LogEntry::Insight { insight: everyone }),
        // Another device's usage in this folder, and a day no one spends.
        line(usage("victim", 10)),
        line(usage("aaa", u64::MAX / 2)),
        line(usage("aaa", 500)),
        line(LogEntry::Memory { memory: memory("m-2", "", "Kept after", 5) }),
    ]
    .concat();
    let vault = MemoryFiles::new();
    vault.put("Memory Agent/aaa/000001.jsonl", forged.into_bytes());
    let laptop = device("zzz");
    laptop.store().insert_memory(&memory("m-3", "", "From the last folder", 6)).unwrap();
    sync(&laptop, &DeviceLog::new(FOLDER, "zzz").unwrap(), &vault);

    let phone = device("phone");
    let replayed = at_once(DeviceLog::new(FOLDER, "phone").unwrap().replay_all(&phone, &vault, NOW)).unwrap();
    assert_eq!(ids(&phone), ["m-1", "m-2", "m-3"], "every other line and folder replays: {replayed:?}");
    assert!(insights(&phone).is_empty());
    let [problem] = replayed.problems.as_slice() else { panic!("{replayed:?}") };
    assert_eq!((problem.path.as_str(), problem.unreadable), ("Memory Agent/aaa/000001.jsonl", 6));
    let first = problem.first_skipped.as_ref().expect("the first skipped line is named");
    assert_eq!(first.line, Some(2));
    assert!(first.reason.contains("importance 1.5 is outside 0..1"), "{first:?}");
    // Only the plausible usage of the folder's own device counts.
    let day = memory_agent::calendar::CalendarDate::parse("2026-12-04").unwrap();
    let counted: Vec<(String, u64)> =
        phone.store().usage_between(day, day).unwrap().into_iter().map(|row| (row.agent, row.input_tokens)).collect();
    assert_eq!(counted, [("ingest".to_owned(), 500)]);
    // Read again, nothing is merged twice and the skipped lines stay skipped.
    let again = at_once(DeviceLog::new(FOLDER, "phone").unwrap().replay_all(&phone, &vault, NOW)).unwrap();
    assert_eq!((again.entries, again.problems.len()), (0, 0), "{again:?}");
}

#[test]
fn a_file_larger_than_any_log_is_never_read_and_a_line_longer_than_the_format_is_skipped_undecoded() {
    use memory_agent::device::log::{MAX_LINE_BYTES, MAX_LOG_FILE_BYTES};
    use memory_agent::store::{log_line, LogEntry};
    let line = |id: &str| log_line(NOW, &LogEntry::Memory { memory: memory(id, "", id, 1) }).unwrap() + "\n";
    let vault = MemoryFiles::new();
    // A file of nothing but one endless line, one byte over what any log file can be.
    vault.put("Memory Agent/big/000001.jsonl", vec![b'x'; MAX_LOG_FILE_BYTES as usize + 1]);
    let long = format!("{{\"v\":1,\"summary\":\"{}\"}}\n", "y".repeat(MAX_LINE_BYTES as usize));
    vault.put("Memory Agent/long/000001.jsonl", [line("m-1"), long, line("m-2")].concat().into_bytes());
    let phone = device("phone");
    let reads = Watched::new(&vault);
    let replayed = at_once(DeviceLog::new(FOLDER, "phone").unwrap().replay_all(&phone, &reads, NOW)).unwrap();
    assert_eq!(ids(&phone), ["m-1", "m-2"]);
    assert!(!reads.reads.borrow().iter().any(|path| path.contains("/big/")), "read: {:?}", reads.reads.borrow());
    let [big, long] = replayed.problems.as_slice() else { panic!("{replayed:?}") };
    assert_eq!(big.path, "Memory Agent/big/000001.jsonl");
    assert!(big.error.as_deref().is_some_and(|error| error.contains("it was not read")), "{big:?}");
    assert_eq!((long.path.as_str(), long.unreadable), ("Memory Agent/long/000001.jsonl", 1));
    let skipped = long.first_skipped.as_ref().unwrap();
    assert_eq!(skipped.line, Some(2));
    assert!(skipped.reason.contains("longer than the log's"), "{skipped:?}");
    // The cursor went past it: nothing is read again but what is new.
    let again = at_once(DeviceLog::new(FOLDER, "phone").unwrap().replay_all(&phone, &vault, NOW)).unwrap();
    assert_eq!((again.entries, again.problems.len()), (0, 1), "only the unread file is named again: {again:?}");
}

#[test]
fn a_note_version_dated_far_in_the_future_is_not_believed_and_the_genuine_one_stays() {
    use memory_agent::store::{log_line, LogEntry};
    let vault = MemoryFiles::new();
    let laptop = device("laptop");
    remember_note(&laptop, "n.md", NOW - 1_000, &[memory("m-real", "n.md", "The genuine memory", 1)]);
    sync(&laptop, &DeviceLog::new(FOLDER, "laptop").unwrap(), &vault);
    let year_2100: i64 = 4_102_444_800_000;
    let forged = LogEntry::Note {
        source: Source {
            path: "n.md".into(),
            mtime: year_2100,
            size: 100,
            sha256: "f".repeat(32),
            updated_at: year_2100,
            skipped: None,
        },
        memories: vec![memory("m-fake", "n.md", "A forged memory", 2)],
        quiet: None,
    };
    vault.put("Memory Agent/evil/000001.jsonl", (log_line(NOW, &forged).unwrap() + "\n").into_bytes());
    // A few hours of clock skew is believed.
    let mut skewed = memory("m-skewed", "", "Written by a clock 3 hours ahead", 3);
    skewed.created_at = NOW + 3 * 3_600_000;
    skewed.updated_at = skewed.created_at;
    vault.put(
        "Memory Agent/ahead/000001.jsonl",
        (log_line(skewed.created_at, &LogEntry::Memory { memory: skewed }).unwrap() + "\n").into_bytes(),
    );

    let phone = device("phone");
    let replayed = at_once(DeviceLog::new(FOLDER, "phone").unwrap().replay_all(&phone, &vault, NOW)).unwrap();
    assert_eq!(ids(&phone), ["m-real", "m-skewed"]);
    let [problem] = replayed.problems.as_slice() else { panic!("{replayed:?}") };
    assert_eq!((problem.path.as_str(), problem.unreadable), ("Memory Agent/evil/000001.jsonl", 1));
    let reason = &problem.first_skipped.as_ref().unwrap().reason;
    assert!(reason.contains("ahead of this device's clock"), "{reason}");
}
