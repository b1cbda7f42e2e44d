//! The per-device log's entries (`store/log.rs`; the files are `device/`'s, `tests/device_runtime.rs`): what one device appends, another replays into its own
//! database, in any order and any number of times, and both end alike.

mod support;

use std::rc::Rc;

use memory_agent::calendar::CalendarDate;
use memory_agent::domain::{Consolidation, ConsolidationId, Memory, MemoryId, Millis, Position, Source, SourceKind};
use memory_agent::engine::Engine;
use memory_agent::llm::{Clock, RetryPolicy};
use memory_agent::store::rusqlite_driver::RusqliteDriver;
use memory_agent::store::Store;
use support::scripted_transport::Scripted;
use support::test_host::TestHost;
use support::virtual_time::run;

type Db = Store<RusqliteDriver>;

fn device(name: &str) -> Db {
    let store = Store::open(RusqliteDriver::new()).unwrap();
    store.set_device(name);
    store
}

fn memory(id: &str, path: &str, hash: &str) -> Memory {
    Memory {
        id: MemoryId(id.into()),
        source_path: path.into(),
        source_kind: if path.is_empty() { SourceKind::Text } else { SourceKind::Note },
        position: Position { heading: Some("Budget".into()), line_start: Some(1), line_end: Some(3) },
        raw_text: "Alice approved the budget".into(),
        summary: format!("Alice approved the Q3 budget ({id})."),
        entities: Vec::new(),
        topics: vec!["budget".into()],
        importance: 0.6,
        happened_on: Some("2026-11-30".into()),
        also_on: Vec::new(),
        date_source: Default::default(),
        facts: vec!["Alice approved the Q3 budget.".into()],
        created_at: 10,
        updated_at: 10,
        consolidated: false,
        content_hash: Some(hash.into()),
    }
}

fn remember_note(store: &Db, path: &str, at: i64, ids: &[(&str, &str)]) {
    store
        .transaction(|store| {
            let memories: Vec<Memory> = ids.iter().map(|(id, hash)| memory(id, path, hash)).collect();
            store.replace_note_memories(path, &memories)?;
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

/// Appends `from`'s outgoing entries to its log (a Vec of bytes) and returns them.
fn append(from: &Db, log: &mut Vec<u8>) -> usize {
    let outgoing = from.outgoing_log(1_000).unwrap();
    log.extend_from_slice(outgoing.text.as_bytes());
    from.log_appended(&from.device(), outgoing.upto, "000001.jsonl", log.len() as u64).unwrap();
    outgoing.entries
}

fn replay(into: &Db, device: &str, log: &[u8]) {
    let replayed = into.replay_log(device, "000001.jsonl", 0, log, NOW).unwrap();
    assert_eq!(replayed.offset, log.len() as u64);
    assert_eq!(replayed.unreadable, 0);
}

fn ids(store: &Db) -> Vec<String> {
    let mut ids: Vec<String> =
        store.list_memories(&Default::default()).unwrap().into_iter().map(|memory| memory.id.0).collect();
    ids.sort();
    ids
}

const HASH_A: &str = "00112233445566778899aabbccddeeff";
const HASH_B: &str = "ffeeddccbbaa99887766554433221100";

#[test]
fn a_note_remembered_on_one_device_arrives_whole_on_another() {
    let (laptop, phone) = (device("laptop"), device("phone"));
    remember_note(&laptop, "Meetings/Alice.md", 100, &[("m-1", HASH_A)]);
    let mut log = Vec::new();
    assert_eq!(append(&laptop, &mut log), 1, "one note, one entry");
    assert_eq!(laptop.outgoing_log(2_000).unwrap().entries, 0, "written once");
    replay(&phone, "laptop", &log);
    assert_eq!(ids(&phone), ["m-1"]);
    let arrived = phone.get_memory(&MemoryId("m-1".into())).unwrap().unwrap();
    assert_eq!(arrived.summary, "Alice approved the Q3 budget (m-1).");
    assert_eq!(arrived.facts, ["Alice approved the Q3 budget."]);
    assert_eq!(phone.outgoing_log(3_000).unwrap().entries, 0, "what the phone replayed is not its own to write");
    // The phone has the memory before the sync tool brought the note: its absence there is no
    // removal (the engine leaves such a note alone) until the phone reads it.
    assert!(!phone.source_here("Meetings/Alice.md").unwrap());
    assert!(laptop.source_here("Meetings/Alice.md").unwrap());
    let record = phone.get_source("Meetings/Alice.md").unwrap().unwrap();
    phone.upsert_source(&Source { mtime: 5, ..record }).unwrap();
    assert!(phone.source_here("Meetings/Alice.md").unwrap());
    assert_eq!(phone.outgoing_log(3_000).unwrap().entries, 0, "the same version read here is nothing new");
    // Replaying again changes nothing.
    replay(&phone, "laptop", &log);
    assert_eq!(ids(&phone), ["m-1"]);
}

#[test]
fn a_forget_travels_and_wins_in_any_order() {
    let (laptop, phone) = (device("laptop"), device("phone"));
    remember_note(&laptop, "a.md", 100, &[("m-1", HASH_A), ("m-2", HASH_B)]);
    let mut laptop_log = Vec::new();
    append(&laptop, &mut laptop_log);
    replay(&phone, "laptop", &laptop_log);
    phone.forget_memory(&MemoryId("m-1".into())).unwrap();
    let mut phone_log = Vec::new();
    append(&phone, &mut phone_log);
    replay(&laptop, "phone", &phone_log);
    assert_eq!(ids(&laptop), ["m-2"]);
    // A third device gets the forget before the memory: it never appears.
    let tablet = device("tablet");
    replay(&tablet, "phone", &phone_log);
    replay(&tablet, "laptop", &laptop_log);
    assert_eq!(ids(&tablet), ["m-2"]);
}

#[test]
fn the_note_remembered_last_wins_whatever_arrives_first() {
    let (laptop, phone) = (device("laptop"), device("phone"));
    remember_note(&laptop, "a.md", 100, &[("m-old", HASH_A)]);
    let mut first = Vec::new();
    append(&laptop, &mut first);
    remember_note(&laptop, "a.md", 200, &[("m-new", HASH_B)]);
    let mut second = Vec::new();
    append(&laptop, &mut second);
    replay(&phone, "laptop", &second);
    let later = phone.replay_log("laptop", "000000.jsonl", 0, &first, NOW).unwrap();
    assert_eq!(later.entries, 1);
    assert_eq!(ids(&phone), ["m-new"]);
}

#[test]
fn a_line_still_being_written_waits_for_its_end() {
    let (laptop, phone) = (device("laptop"), device("phone"));
    remember_note(&laptop, "a.md", 100, &[("m-1", HASH_A)]);
    let mut log = Vec::new();
    append(&laptop, &mut log);
    let half = &log[..log.len() / 2];
    let replayed = phone.replay_log("laptop", "000001.jsonl", 0, half, NOW).unwrap();
    assert_eq!((replayed.offset, replayed.entries), (0, 0));
    assert!(ids(&phone).is_empty());
    let cursor = phone.log_cursors().unwrap();
    assert_eq!(cursor[0].offset, 0);
    replay(&phone, "laptop", &log);
    assert_eq!(ids(&phone), ["m-1"]);
}

#[test]
fn a_rename_moves_the_memory_with_no_copy_left_behind() {
    let (laptop, phone) = (device("laptop"), device("phone"));
    remember_note(&laptop, "a.md", 100, &[("m-1", HASH_A)]);
    let mut log = Vec::new();
    append(&laptop, &mut log);
    replay(&phone, "laptop", &log);
    laptop.rename_source("a.md", "b.md", 150).unwrap();
    let mut more = Vec::new();
    append(&laptop, &mut more);
    replay(&phone, "laptop", &more);
    let moved = phone.get_memory(&MemoryId("m-1".into())).unwrap().unwrap();
    assert_eq!(moved.source_path, "b.md");
    assert!(phone.get_source("a.md").unwrap().is_none());
}

#[test]
fn typed_text_usage_and_damaged_lines() {
    let (laptop, phone) = (device("laptop"), device("phone"));
    laptop.insert_memory(&memory("m-t", "", HASH_A)).unwrap();
    let mut log = Vec::new();
    append(&laptop, &mut log);
    log.extend_from_slice(b"{not json\n");
    let replayed = phone.replay_log("laptop", "000001.jsonl", 0, &log, NOW).unwrap();
    assert_eq!((replayed.entries, replayed.unreadable), (1, 1));
    assert_eq!(ids(&phone), ["m-t"]);
    let newer = b"{\"v\":99,\"at\":1,\"op\":\"teleport\"}\n";
    let skipped = phone.replay_log("laptop", "000002.jsonl", 0, newer, NOW).unwrap();
    assert!(skipped.newer);
    // Kept in the file for a newer Memory Agent (no file is rewritten by a version that cannot
    // read it), skipped here: the lines after it are still read.
    assert_eq!((skipped.offset, skipped.entries), (newer.len() as u64, 0));
}

#[test]
fn a_forgotten_chunk_stays_quiet_here_and_on_the_device_that_replays_the_forget() {
    let (laptop, phone) = (device("laptop"), device("phone"));
    remember_note(&laptop, "a.md", 100, &[("m-1", HASH_A), ("m-2", HASH_B)]);
    let quiet = "0123456789abcdef0123456789abcdef".to_owned();
    laptop.set_quiet_chunks("a.md", std::slice::from_ref(&quiet)).unwrap();
    let mut log = Vec::new();
    append(&laptop, &mut log);
    replay(&phone, "laptop", &log);
    laptop.forget_memory(&MemoryId("m-1".into())).unwrap();
    // Before schema 11 the forget turned the list into text, which read as no quiet chunk.
    let here = laptop.quiet_chunks("a.md").unwrap();
    assert!(here.contains(HASH_A) && here.contains(&quiet), "{here:?}");
    let mut more = Vec::new();
    append(&laptop, &mut more);
    replay(&phone, "laptop", &more);
    let there = phone.quiet_chunks("a.md").unwrap();
    assert!(there.contains(HASH_A) && there.contains(&quiet), "{there:?}");
}

/// 2026-11-30T08:00:00Z
const NOW: Millis = 1_796_025_600_000;
const HOUR: Millis = 3_600_000;

fn insight(id: &str, memories: &[&str]) -> Consolidation {
    Consolidation {
        id: ConsolidationId(id.into()),
        memory_ids: memories.iter().map(|id| MemoryId((*id).into())).collect(),
        insight: "These belong together.".into(),
        connections: Vec::new(),
        created_at: 10,
    }
}

fn insights(store: &Db) -> Vec<String> {
    store.list_consolidations(0, 0).unwrap().into_iter().map(|insight| insight.id.0).collect()
}

/// An engine over `store`, connected (one attempt per call), that waits an hour for other devices.
fn engine_of(store: Db, host: &TestHost) -> Rc<Engine<RusqliteDriver>> {
    let engine = Engine::new(store, 42, host.clock.now()).unwrap();
    let retry = RetryPolicy { max_attempts: 1, base_delay_ms: 100, max_delay_ms: 1_000 };
    engine.configure_connection(Some(support::connection::test_connection(retry)), 7).unwrap();
    let mut settings = engine.settings();
    settings.other_device_wait_ms = HOUR as u64;
    engine.set_settings(settings);
    Rc::new(engine)
}

fn work(host: &TestHost, engine: &Rc<Engine<RusqliteDriver>>) {
    let (host, engine, clock) = (host.clone(), engine.clone(), host.clock.clone());
    run(&clock, async move { engine.run_due_work(&host).await.map(drop).unwrap() });
}

// Found by the simulation (tests/simulation.rs).

#[test]
fn a_note_with_a_forgotten_chunk_still_writes_its_entry() {
    let (laptop, phone) = (device("laptop"), device("phone"));
    remember_note(&laptop, "a.md", 100, &[("m-1", HASH_A), ("m-2", HASH_B)]);
    let mut log = Vec::new();
    append(&laptop, &mut log);
    replay(&phone, "laptop", &log);
    laptop.forget_memory(&MemoryId("m-1".into())).unwrap();
    // The forgotten chunk joined the note's quiet chunks as bytes, and the note's next entry
    // (here a rename's) reads them.
    laptop.rename_source("a.md", "b.md", 150).unwrap();
    append(&laptop, &mut log);
    replay(&phone, "laptop", &log);
    assert_eq!(ids(&phone), ["m-2"]);
    assert!(phone.quiet_chunks("b.md").unwrap().contains(HASH_A), "the forgotten chunk is not asked about again");
    // The phone quieted the chunk as it replayed the forget: its own entries build too.
    phone.log_everything().unwrap();
    assert!(phone.outgoing_log(2_000).unwrap().entries > 0);
}

/// The laptop's log: two notes and an insight over their memories, then the first note
/// renamed: the log up to the rename (`before`), the rename's first line (its removal of the
/// old record) ending at `first_line`, then the note at its new path.
struct RenamedAfterInsight {
    laptop: Db,
    log: Vec<u8>,
    before: usize,
    first_line: usize,
}

fn renamed_after_insight() -> RenamedAfterInsight {
    let laptop = device("laptop");
    remember_note(&laptop, "a.md", 100, &[("m-1", HASH_A)]);
    remember_note(&laptop, "b.md", 100, &[("m-2", HASH_B)]);
    let pair = [MemoryId("m-1".into()), MemoryId("m-2".into())];
    assert_eq!(laptop.save_consolidation_batch(&pair, &[insight("c-1", &["m-1", "m-2"])]).unwrap(), 1);
    let mut log = Vec::new();
    append(&laptop, &mut log);
    laptop.rename_source("a.md", "c.md", 150).unwrap();
    let before = log.len();
    append(&laptop, &mut log);
    // A rename travels as the old record's removal, then the note at its new path.
    let first_line = before + log[before..].iter().position(|byte| *byte == b'\n').unwrap() + 1;
    assert!(String::from_utf8_lossy(&log[before..first_line]).contains("\"op\":\"removed\""));
    RenamedAfterInsight { laptop, log, before, first_line }
}

#[test]
fn an_insight_keeps_a_memory_that_moved_with_a_rename_whatever_the_reads() {
    let RenamedAfterInsight { laptop, mut log, before, first_line } = renamed_after_insight();
    let (in_two_reads, in_one_read) = (device("phone"), device("tablet"));
    replay(&in_two_reads, "laptop", &log[..before]);
    in_two_reads.replay_log("laptop", "000001.jsonl", before as u64, &log[before..first_line], NOW).unwrap();
    in_two_reads.replay_log("laptop", "000001.jsonl", first_line as u64, &log[first_line..], NOW).unwrap();
    replay(&in_one_read, "laptop", &log[..before]);
    in_one_read.replay_log("laptop", "000001.jsonl", before as u64, &log[before..], NOW).unwrap();
    assert_eq!(insights(&laptop), ["c-1"]);
    // Or the removal, then the whole file again (a conflict copy): the insight set aside and the
    // insight read again are one.
    let from_a_copy = device("desktop");
    replay(&from_a_copy, "laptop", &log[..before]);
    from_a_copy.replay_log("laptop", "000001.jsonl", before as u64, &log[before..first_line], NOW).unwrap();
    from_a_copy.replay_log("laptop", "000001 2.jsonl", 0, &log, NOW).unwrap();
    for other in [&in_two_reads, &in_one_read, &from_a_copy] {
        assert_eq!(ids(other), ["m-1", "m-2"]);
        assert_eq!(insights(other), ["c-1"], "the insight waited for its memory's new path");
    }
    // A delete, though, takes the insight everywhere: its device removed it, for good.
    laptop.remove_source("c.md").unwrap();
    let before = log.len();
    append(&laptop, &mut log);
    in_two_reads.replay_log("laptop", "000001.jsonl", before as u64, &log[before..], NOW).unwrap();
    assert_eq!(ids(&in_two_reads), ["m-2"]);
    assert!(insights(&in_two_reads).is_empty());
}

#[test]
fn a_note_whose_memory_came_before_its_file_is_not_removed_while_the_file_is_on_its_way() {
    let laptop = device("laptop");
    remember_note(&laptop, "a.md", 100, &[("m-1", HASH_A)]);
    let mut log = Vec::new();
    append(&laptop, &mut log);
    let host = TestHost::new(NOW);
    let phone = engine_of(device("phone"), &host);
    phone.replay_log("laptop", "000001.jsonl", 0, &log, NOW).unwrap();
    // The phone's reconciliation (or the work the replay queued) finds no a.md in its vault
    // yet: removing it would remove it from every device.
    phone.remove_notes(&["a.md".into()]).unwrap();
    work(&host, &phone);
    assert_eq!(ids(phone.store()), ["m-1"]);
    assert_eq!(phone.outgoing_log(NOW).unwrap().entries, 0, "no removal to write");
    // When the wait for the other device is over and the file still has not come, the note
    // leaves this database only: this device never had it, so its absence here is no removal
    // to write (the laptop keeps it).
    host.clock.advance_by(HOUR + 1);
    work(&host, &phone);
    assert!(ids(phone.store()).is_empty());
    assert_eq!(phone.outgoing_log(NOW + HOUR + 2).unwrap().entries, 0, "still no removal to write");
    assert!(host.bedrock.requests().is_empty());
    // A device that had the note and lost it (deleted while Obsidian was closed) removes it
    // everywhere.
    phone.replay_log("laptop", "000001.jsonl", 0, &log, NOW + HOUR + 2).unwrap();
    let record = phone.store().get_source("a.md").unwrap().unwrap();
    phone.store().upsert_source(&Source { mtime: 9, ..record }).unwrap();
    host.clock.advance_by(2 * HOUR);
    work(&host, &phone);
    phone.remove_notes(&["a.md".into()]).unwrap();
    work(&host, &phone);
    assert!(ids(phone.store()).is_empty());
    assert!(phone.outgoing_log(NOW + 4 * HOUR).unwrap().text.contains("source:"), "its removal travels");
}

#[test]
fn an_answer_billed_then_refused_is_counted_in_the_usage_that_travels() {
    let host = TestHost::new(NOW);
    let laptop = engine_of(device("laptop"), &host);
    host.write("a.md", "Alice approved the budget.\n");
    // The model answers without calling the tool it was asked to: billed all the same.
    host.bedrock.always(Scripted::text("I would rather not."));
    laptop.enqueue_note("a.md", NOW).unwrap();
    work(&host, &laptop);
    let sent = host.bedrock.requests().len() as u64;
    assert!(sent >= 1);
    let today = CalendarDate::at(NOW, 0);
    let calls = |store: &Db| store.usage_between(today, today).unwrap().iter().map(|usage| usage.calls).sum::<u64>();
    assert_eq!(calls(laptop.store()), sent);
    let phone = device("phone");
    let mut log = Vec::new();
    append(laptop.store(), &mut log);
    replay(&phone, "laptop", &log);
    assert_eq!(calls(&phone), sent);
}

#[test]
fn a_newer_memory_arriving_before_its_text_is_not_overwritten_with_the_older_text() {
    let host = TestHost::new(NOW);
    host.bedrock.respond_with(support::fake_model::answer);
    let phone = engine_of(device("phone"), &host);
    host.write("a.md", "Alice approved the budget.\n");
    phone.enqueue_note("a.md", NOW).unwrap();
    work(&host, &phone);
    assert_eq!(phone.list_memories(&Default::default()).unwrap().len(), 1);
    let written = phone.outgoing_log(NOW).unwrap();
    phone.log_appended(written.upto, "000001.jsonl", written.text.len() as u64).unwrap();
    // The laptop remembered a newer text of the note; its entry reaches the phone before the
    // text does.
    let laptop = device("laptop");
    let later = host.clock.now() + 1_000;
    remember_note(&laptop, "a.md", later, &[("m-2", HASH_B)]);
    let mut log = Vec::new();
    append(&laptop, &mut log);
    phone.replay_log("laptop", "000001.jsonl", 0, &log, host.clock.now()).unwrap();
    work(&host, &phone);
    // Waiting for the laptop's text, the phone writes no record of its older one: made now, it
    // would be the newest version and win on every device.
    assert_eq!(phone.store().get_source("a.md").unwrap().unwrap().updated_at, later);
    assert_eq!(ids(phone.store()), ["m-2"]);
    assert_eq!(phone.outgoing_log(NOW).unwrap().entries, 0);
    assert_eq!(host.bedrock.requests().len(), 1, "the phone paid once, for its own text");
}

/// The keys of what `store` has to append to its log, sorted, and the outbox emptied.
fn noted(store: &Db) -> Vec<String> {
    let outgoing = store.outgoing_log(1_000).unwrap();
    let mut keys: Vec<String> = outgoing
        .text
        .lines()
        .map(|line| match memory_agent::store::read_line(line.as_bytes()) {
            memory_agent::store::ReadLine::Entry { entry, .. } => entry.key().replace('\t', " "),
            _ => panic!("an unreadable outgoing line: {line}"),
        })
        .collect();
    keys.sort();
    store.log_appended(&store.device(), outgoing.upto, "000001.jsonl", 1).unwrap();
    keys
}

#[test]
fn every_change_that_travels_is_noted_by_the_store_itself_and_nothing_else() {
    let laptop = device("laptop");
    remember_note(&laptop, "a.md", 100, &[("m-1", HASH_A), ("m-2", HASH_B)]);
    assert_eq!(noted(&laptop), ["note a.md"]);
    // This device's mtime of the same version is no news; a new version is.
    let record = laptop.get_source("a.md").unwrap().unwrap();
    laptop.upsert_source(&Source { mtime: 7, size: 3, ..record.clone() }).unwrap();
    assert!(noted(&laptop).is_empty(), "the same version read again");
    laptop.upsert_source(&Source { updated_at: 200, sha256: format!("{:032x}", 200), ..record }).unwrap();
    assert_eq!(noted(&laptop), ["note a.md"]);
    // A move inside the note, quiet chunks, a rename: each is the note's new state.
    let moved = Position { heading: Some("Plans".into()), line_start: Some(4), line_end: Some(6) };
    laptop.update_memory_position(&MemoryId("m-1".into()), &moved, 300).unwrap();
    assert_eq!(noted(&laptop), ["note a.md"]);
    laptop.update_memory_position(&MemoryId("m-1".into()), &moved, 301).unwrap();
    assert!(noted(&laptop).is_empty(), "a memory already there did not move");
    laptop.set_quiet_chunks("a.md", &["0123456789abcdef0123456789abcdef".into()]).unwrap();
    assert_eq!(noted(&laptop), ["note a.md"]);
    laptop.rename_source("a.md", "b.md", 400).unwrap();
    let renamed = noted(&laptop);
    assert_eq!(renamed.len(), 2, "{renamed:?}");
    assert_eq!(renamed[0], "note b.md");
    assert!(renamed[1].starts_with("removed ") && renamed[1].ends_with("a.md"), "{renamed:?}");
    // A typed text, an insight (which marks its memories consolidated: the note's state),
    // usage counted.
    laptop.insert_memory(&memory("t-1", "", HASH_A)).unwrap();
    assert_eq!(noted(&laptop), ["memory t-1"]);
    let pair = [MemoryId("m-1".into()), MemoryId("t-1".into())];
    assert_eq!(laptop.save_consolidation_batch(&pair, &[insight("c-1", &["m-1", "t-1"])]).unwrap(), 1);
    assert_eq!(noted(&laptop), ["insight c-1", "memory t-1", "note b.md"]);
    let tokens = memory_agent::domain::TokenUsage { input_tokens: 10, output_tokens: 2, ..Default::default() };
    laptop.record_usage(CalendarDate::at(NOW, 0), "ingest", &tokens).unwrap();
    laptop.record_usage(CalendarDate::at(NOW, 0), "ingest", &tokens).unwrap();
    let counted = noted(&laptop);
    assert_eq!(counted.len(), 1, "one row, counted twice: {counted:?}");
    assert!(counted[0].starts_with("usage laptop "), "{counted:?}");
    // A forget: its removal, the note without it, and the typed text the insight cited
    // (consolidated no more); the insight's own removal.
    laptop.forget_memory(&MemoryId("m-1".into())).unwrap();
    let forgotten = noted(&laptop);
    assert!(forgotten.contains(&"note b.md".to_owned()), "{forgotten:?}");
    assert!(forgotten.contains(&"memory t-1".to_owned()), "{forgotten:?}");
    assert!(forgotten.iter().any(|key| key.starts_with("removed ") && key.contains("m-1")), "{forgotten:?}");
    // What a replay of another device's log changes is that device's to write.
    let phone = device("phone");
    let mut log = Vec::new();
    append(laptop_copy(&laptop), &mut log);
    replay(&phone, "laptop", &log);
    assert!(!ids(&phone).is_empty());
    assert!(noted(&phone).is_empty(), "a replay writes nothing to the phone's own log");
    phone.insert_memory(&memory("t-2", "", HASH_B)).unwrap();
    assert_eq!(noted(&phone), ["memory t-2"], "and the phone's own changes are noted again after it");
}

/// A copy of `store`'s log as a device rebuilding its log would write it: everything it holds.
fn laptop_copy(store: &Db) -> &Db {
    store.log_everything().unwrap();
    store
}

#[test]
fn remembering_and_replaying_compile_each_statement_once_not_once_per_entry() {
    let laptop = device("laptop");
    for note in 0..100 {
        let ids = [
            (format!("m-{note}-a"), format!("{:032x}", note * 2)),
            (format!("m-{note}-b"), format!("{:032x}", note * 2 + 1)),
        ];
        remember_note(
            &laptop,
            &format!("Notes/{note}.md"),
            100 + note as i64,
            &[(&ids[0].0, &ids[0].1), (&ids[1].0, &ids[1].1)],
        );
    }
    let mut log = Vec::new();
    assert_eq!(append(&laptop, &mut log), 100);
    let phone = device("phone");
    replay(&phone, "laptop", &log);
    assert_eq!(ids(&phone).len(), 200);
    // SQLite compiles a statement again when a bound value may change its plan (a join on
    // `m.key = ?`): as costly as running it, once per memory it doubled a replay's time.
    assert!(laptop.driver().recompiled() < 20, "{} statements compiled again", laptop.driver().recompiled());
    assert!(phone.driver().recompiled() < 20, "{} statements compiled again", phone.driver().recompiled());
    // Entered in the full-text index at the end of the replay's merge, all of them.
    assert!(!phone.check_integrity().unwrap().repaired_index, "the index agrees with the memories");
    let found = phone.search_memories(&[memory_agent::store::SearchTerm::word("approved", false)], 500).unwrap();
    assert_eq!(found.len(), 200, "every replayed memory is found by its words");
}

#[test]
fn each_device_consolidates_only_the_memories_it_made() {
    let laptop = device("laptop");
    remember_note(&laptop, "a.md", 100, &[("m-1", HASH_A)]);
    remember_note(&laptop, "b.md", 100, &[("m-2", HASH_B)]);
    let mut log = Vec::new();
    append(&laptop, &mut log);
    let phone = device("phone");
    replay(&phone, "laptop", &log);
    phone.insert_memory(&memory("t-1", "", HASH_A)).unwrap();
    // Two devices consolidating the same memories before either saw the other's insight
    // would pay twice: the laptop's memories wait for the laptop.
    assert_eq!(laptop.count_unconsolidated().unwrap(), 2);
    assert_eq!(phone.count_unconsolidated().unwrap(), 1);
    let waiting: Vec<String> =
        phone.unconsolidated_memories(10).unwrap().into_iter().map(|memory| memory.id.0).collect();
    assert_eq!(waiting, ["t-1"]);
    // A database rebuilt from its own log consolidates its own memories still.
    let rebuilt = device("laptop");
    replay(&rebuilt, "laptop", &log);
    assert_eq!(rebuilt.count_unconsolidated().unwrap(), 2);
}

#[test]
fn an_insight_set_aside_until_its_memory_arrives_keeps_its_lines_and_its_other_memories_consolidated() {
    let RenamedAfterInsight { log, before, first_line, .. } = renamed_after_insight();
    let made = insight("c-1", &["m-1", "m-2"]);
    // The phone reads the rename's removal, and the note at its new path only later (the sync
    // tool delivered the file in two pieces).
    let phone = device("phone");
    replay(&phone, "laptop", &log[..before]);
    phone.replay_log("laptop", "000001.jsonl", before as u64, &log[before..first_line], NOW).unwrap();
    assert!(insights(&phone).is_empty(), "set aside while m-1 is on its way");
    assert!(
        !phone.erasures().unwrap().erases(&memory_agent::store::LogEntry::Insight { insight: made.clone() }),
        "a purge meanwhile keeps the insight's lines"
    );
    assert_eq!(phone.count_unconsolidated().unwrap(), 0);
    let m2 = phone.get_memory(&MemoryId("m-2".into())).unwrap().unwrap();
    assert!(m2.consolidated, "m-2 is not paid for again while its insight may come back");
    phone.replay_log("laptop", "000001.jsonl", first_line as u64, &log[first_line..], NOW).unwrap();
    assert_eq!(insights(&phone), ["c-1"]);
}
