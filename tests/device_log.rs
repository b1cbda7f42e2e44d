//! The per-device log (`store/log.rs`): what one device appends, another replays into its own
//! database, in any order and any number of times, and both end alike.

use memory_agent::domain::{Memory, MemoryId, Position, Source, SourceKind};
use memory_agent::store::rusqlite_driver::RusqliteDriver;
use memory_agent::store::{log_file_for, log_file_name, log_file_number, Store, LOG_FILE_LIMIT};

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
    let replayed = into.replay_log(device, "000001.jsonl", 0, log).unwrap();
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
    let later = phone.replay_log("laptop", "000000.jsonl", 0, &first).unwrap();
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
    let replayed = phone.replay_log("laptop", "000001.jsonl", 0, half).unwrap();
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
    let replayed = phone.replay_log("laptop", "000001.jsonl", 0, &log).unwrap();
    assert_eq!((replayed.entries, replayed.unreadable), (1, 1));
    assert_eq!(ids(&phone), ["m-t"]);
    let newer = b"{\"v\":99,\"at\":1,\"op\":\"teleport\"}\n";
    let stopped = phone.replay_log("laptop", "000002.jsonl", 0, newer).unwrap();
    assert!(stopped.newer);
    assert_eq!(stopped.offset, 0, "a newer format's line waits for a newer Memory Agent");
}

#[test]
fn log_files_are_sealed_before_the_limit() {
    assert_eq!(log_file_for(&[], 10), log_file_name(1));
    assert_eq!(log_file_for(&[("000001.jsonl".into(), 10)], 10), "000001.jsonl");
    assert_eq!(log_file_for(&[("000001.jsonl".into(), LOG_FILE_LIMIT - 5)], 10), "000002.jsonl");
    assert_eq!(log_file_for(&[("000001.jsonl".into(), 0)], LOG_FILE_LIMIT * 2), "000001.jsonl");
    assert_eq!(log_file_number("000007.jsonl"), Some(7));
    assert_eq!(log_file_number("000007 2.jsonl"), None, "a conflict copy is no file of ours");
    assert_eq!(log_file_number("notes.md"), None);
}

#[test]
fn a_compacted_log_gives_what_its_history_gave() {
    let laptop = device("laptop");
    let mut history = Vec::new();
    let mut files: Vec<(String, u64)> = Vec::new();
    for edit in 0..60i64 {
        let hash = format!("{:032x}", edit + 1);
        remember_note(&laptop, "Daily/plan.md", 100 + edit, &[(&format!("m-{edit}"), &hash)]);
        remember_note(&laptop, &format!("Notes/{}.md", edit % 3), 100 + edit, &[(&format!("n-{edit}"), &hash)]);
        append(&laptop, &mut history);
    }
    laptop.forget_memory(&MemoryId("n-59".into())).unwrap();
    append(&laptop, &mut history);
    files.push(("000001.jsonl".into(), history.len() as u64));
    assert!(laptop.log_compaction(&files, 5_000).unwrap().is_none(), "small logs are left as they are");

    let compaction = laptop.log_compaction_after(&files, 5_000, 1_000).unwrap().expect("due");
    assert_eq!(compaction.retire, ["000001.jsonl"]);
    assert!(compaction.bytes_after * 4 < compaction.bytes_before, "{compaction:?}");
    assert_eq!(compaction.files[0].0, "000002.jsonl");

    let (from_history, from_snapshot) = (device("phone"), device("tablet"));
    replay(&from_history, "laptop", &history);
    for (name, text) in &compaction.files {
        from_snapshot.replay_log("laptop", name, 0, text.as_bytes()).unwrap();
    }
    assert_eq!(ids(&from_snapshot), ids(&from_history));
    assert_eq!(ids(&from_snapshot), ids(&laptop));
    assert!(!ids(&from_snapshot).contains(&"n-59".to_owned()), "a forget survives compaction");
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

#[test]
fn a_note_not_yet_brought_here_is_not_removed_by_its_absence() {
    use memory_agent::engine::Engine;
    let laptop = device("laptop");
    remember_note(&laptop, "Inbox/new.md", 100, &[("m-1", HASH_A)]);
    remember_note(&laptop, "Inbox/old.md", 100, &[("m-2", HASH_B)]);
    let mut log = Vec::new();
    append(&laptop, &mut log);
    let phone = Engine::new(device("phone"), 7, 1_000).unwrap();
    phone.replay_log("laptop", "000001.jsonl", 0, &log, 1_000).unwrap();
    // The phone's own copy of old.md was read here once; new.md has not arrived.
    let record = phone.store().get_source("Inbox/old.md").unwrap().unwrap();
    phone.store().upsert_source(&Source { mtime: 9, ..record }).unwrap();
    // A reconciliation finds neither file (old.md deleted here, new.md still on its way).
    phone.remove_notes(&["Inbox/new.md".to_owned(), "Inbox/old.md".to_owned()]).unwrap();
    let left: Vec<String> =
        phone.list_memories(&Default::default()).unwrap().into_iter().map(|memory| memory.id.0).collect();
    assert_eq!(left, ["m-1"], "only the note this device had leaves");
    let outgoing = phone.outgoing_log(2_000).unwrap();
    assert!(outgoing.text.contains("Inbox/old.md") && !outgoing.text.contains("Inbox/new.md"), "{}", outgoing.text);
}
