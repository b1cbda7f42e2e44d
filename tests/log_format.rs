//! The log's wire format (`store/log_v1.rs`): lines written by format 1 (the fixture, never
//! edited) replay to the same memories in this version and every later one, and read and
//! write back byte for byte.

use memory_agent::calendar::CalendarDate;
use memory_agent::domain::{
    Connection, Consolidation, ConsolidationId, DateSource, Entity, Memory, MemoryId, Position, Source, SourceKind,
};
use memory_agent::store::rusqlite_driver::RusqliteDriver;
use memory_agent::store::{log_v1_round_trip, MemoryFilter, Store, Tombstone, UsageRecord};

const FIXTURE: &str = include_str!("fixtures/log-v1/all-entries.jsonl");
const FILE: &str = "000001.jsonl";
/// When the fixture is replayed: after every time it holds.
const NOW: i64 = 1_800_000_000_000;
/// The device whose log the fixture is.
const WRITER: &str = "a1b2c3d4e5f60718";

type Db = Store<RusqliteDriver>;

fn fresh() -> Db {
    let store = Store::open(RusqliteDriver::new()).unwrap();
    store.set_device("reader-1");
    store
}

/// A memory as the fixture's lines have it, with the fields every one shares.
fn memory(id: &str, path: &str, kind: SourceKind) -> Memory {
    Memory {
        id: MemoryId(id.into()),
        source_path: path.into(),
        source_kind: kind,
        position: Position::default(),
        raw_text: String::new(),
        summary: String::new(),
        entities: Vec::new(),
        topics: Vec::new(),
        importance: 0.5,
        happened_on: None,
        also_on: Vec::new(),
        date_source: DateSource::Text,
        facts: Vec::new(),
        created_at: 1_764_500_000_000,
        updated_at: 1_764_500_000_000,
        consolidated: false,
        content_hash: None,
    }
}

fn entity(name: &str, kind: &str) -> Entity {
    Entity { name: name.into(), kind: kind.into() }
}

fn strings(items: &[&str]) -> Vec<String> {
    items.iter().map(|item| (*item).to_owned()).collect()
}

/// The memories the fixture leaves, as the store reads them back: a note's memory keeps a
/// few words for search, not its text (a PDF's keeps its text).
fn expected_memories() -> Vec<Memory> {
    let daily = "Daily/2026-11-30.md";
    vec![
        Memory {
            position: Position { heading: Some("Budget > Q3".into()), line_start: Some(2), line_end: Some(6) },
            summary: "Alice Martin approved the Q3 marketing budget of €40,000 for the Lisbon launch.".into(),
            entities: vec![
                entity("Alice Martin", "person"),
                entity("Acme Corp", "organisation"),
                entity("Lisbon", "place"),
            ],
            topics: strings(&["budget", "marketing"]),
            importance: 0.7,
            happened_on: Some("2026-11-30".into()),
            also_on: strings(&["2026-12-02", "2026-12-05"]),
            facts: strings(&[
                "Alice Martin approved a Q3 marketing budget of €40,000.",
                "The Lisbon launch runs from 2 to 5 December 2026.",
            ]),
            updated_at: 1_764_500_001_000,
            consolidated: true,
            content_hash: Some("9f86d081884c7d65".into()),
            ..memory("m-7f3a01", daily, SourceKind::Note)
        },
        Memory {
            position: Position { heading: None, line_start: Some(8), line_end: Some(9) },
            summary: "The board meeting moved to Thursday; Ana said \"fine by me\".".into(),
            entities: vec![entity("Board meeting", "thing"), entity("Ana", "person")],
            topics: strings(&["meetings"]),
            importance: 0.45,
            happened_on: Some("2026-11-30".into()),
            date_source: DateSource::NoteName,
            content_hash: Some("2c26b46b68ffc68f".into()),
            ..memory("m-7f3a02", daily, SourceKind::Note)
        },
        Memory {
            position: Position { heading: Some("Goals".into()), line_start: Some(0), line_end: Some(4) },
            summary: "The plan's main goal is to ship an offline mode.".into(),
            topics: strings(&["plan"]),
            importance: 0.6,
            facts: strings(&["Offline mode is the plan's main goal."]),
            content_hash: Some("fcde2b2edba56bf4".into()),
            ..memory("m-b1", "Projects/Plan.md", SourceKind::Note)
        },
        Memory {
            position: Position { heading: Some("Kick-off".into()), line_start: Some(6), line_end: Some(7) },
            summary: "Tomás leads the kick-off.".into(),
            entities: vec![entity("Tomás", "person")],
            importance: 0.3,
            happened_on: Some("2026-10-01".into()),
            date_source: DateSource::NoteProperty,
            content_hash: Some("ef2d127de37b942b".into()),
            ..memory("m-b2", "Projects/Plan.md", SourceKind::Note)
        },
        Memory {
            position: Position { heading: Some("Page 1".into()), line_start: Some(0), line_end: Some(11) },
            raw_text: "Hardware store receipt: drill, 2 × 6 mm bits, total 89.90 EUR.".into(),
            summary: "A drill and bits were bought for 89.90 EUR.".into(),
            topics: strings(&["receipts", "tools"]),
            importance: 0.25,
            happened_on: Some("2026-09-14".into()),
            date_source: DateSource::FileMetadata,
            facts: strings(&["The drill and bits cost 89.90 EUR."]),
            content_hash: Some("5feceb66ffc86f38".into()),
            ..memory("m-c1", "Scans/receipt 2026.pdf", SourceKind::Note)
        },
        Memory {
            position: Position { heading: Some("Budget > Q3".into()), line_start: Some(3), line_end: None },
            raw_text: "The €40,000 covers ads and the launch event.".into(),
            summary: "The €40,000 budget covers ads and the launch event.".into(),
            entities: vec![entity("Alice Martin", "person")],
            topics: strings(&["budget"]),
            happened_on: Some("2026-11-30".into()),
            created_at: 1_764_500_500_000,
            updated_at: 1_764_500_500_000,
            ..memory("m-s1", daily, SourceKind::Selection)
        },
        Memory {
            raw_text: "Call the plumber about the kitchen tap before Friday.".into(),
            summary: "Call the plumber about the kitchen tap before Friday.".into(),
            topics: strings(&["home"]),
            importance: 0.55,
            happened_on: Some("2026-11-28".into()),
            facts: strings(&["The kitchen tap needs a plumber before Friday."]),
            created_at: 1_764_300_000_000,
            updated_at: 1_764_300_000_000,
            ..memory("m-t1", "", SourceKind::Text)
        },
    ]
}

fn source(path: &str, updated_at: i64, sha256: &str, skipped: Option<&str>) -> Source {
    Source {
        path: path.into(),
        mtime: updated_at - 2_000,
        size: 1_834,
        sha256: sha256.into(),
        updated_at,
        skipped: skipped.map(Into::into),
    }
}

fn all_memories(store: &Db) -> Vec<Memory> {
    let mut ids: Vec<MemoryId> =
        store.list_memories(&MemoryFilter::default()).unwrap().into_iter().map(|memory| memory.id).collect();
    ids.sort();
    ids.iter().map(|id| store.get_memory(id).unwrap().unwrap()).collect()
}

fn day(text: &str) -> CalendarDate {
    CalendarDate::parse(text).unwrap()
}

#[test]
fn the_fixture_replays_to_the_same_memories() {
    let store = fresh();
    let replayed = store.replay_log(WRITER, FILE, 0, FIXTURE.as_bytes(), NOW).unwrap();
    assert_eq!(replayed.entries, FIXTURE.lines().count());
    assert_eq!((replayed.unreadable, replayed.newer), (0, false));
    assert_eq!(replayed.offset, FIXTURE.len() as u64);

    // The forgotten typed memory (`m-t2`), the one removed with its note (`m-d1@…`) and the
    // one of a removed note's version (`source:…`) are not here.
    assert_eq!(all_memories(&store), expected_memories());

    assert_eq!(
        store.list_sources().unwrap(),
        vec![
            source("Attachments/huge.png", 1_764_460_000_000, "e3b0c44298fc1c149afbf4c8996fb924", Some("too large")),
            source("Daily/2026-11-30.md", 1_764_500_001_000, "9f86d081884c7d659a2feaa0c55ad015", None),
            source("Inbox/old@home.md", 1_764_000_000_000, "2e7d2c03a9507ae265ecf5b5356885a5", None),
            source("Projects/Plan.md", 1_764_400_000_000, "a665a45920422f9d417e4867efdc4fb8", None),
            source("Scans/receipt 2026.pdf", 1_764_450_000_000, "b3a8e0e1f9ab1bfe3a36f231f676f78b", None),
        ]
    );
    let quiet = store.quiet_chunks("Daily/2026-11-30.md").unwrap();
    assert!(quiet.contains("0123456789abcdef") && quiet.contains("89abcdef01234567"));
    assert!(!quiet.contains("9f86d081884c7d65"));

    // The forgotten insight (`c-0ld`) is not here.
    let insight = Consolidation {
        id: ConsolidationId("c-51e0".into()),
        memory_ids: ["m-7f3a01", "m-s1", "m-t1"].map(|id| MemoryId(id.into())).to_vec(),
        insight: "The Q3 budget approved on 30 November is the one the selection details.".into(),
        connections: vec![
            Connection {
                from: MemoryId("m-7f3a01".into()),
                to: MemoryId("m-s1".into()),
                relationship: "details".into(),
            },
            Connection {
                from: MemoryId("m-t1".into()),
                to: MemoryId("m-7f3a01".into()),
                relationship: "same week".into(),
            },
        ],
        created_at: 1_764_600_000_000,
    };
    assert_eq!(store.list_consolidations(0, 0).unwrap(), vec![insight]);

    let tombstones: Vec<String> = store.tombstones().unwrap().iter().map(Tombstone::to_string).collect();
    assert_eq!(
        tombstones,
        strings(&["c-0ld", "m-t2", "m-d1@Inbox/old@home.md", "source:1700000000000:Archive/gone: v1.md"])
    );

    assert_eq!(
        store.usage_between(day("2026-11-30"), day("2026-11-30")).unwrap(),
        vec![UsageRecord {
            day: "2026-11-30".into(),
            agent: "ingest".into(),
            calls: 4,
            input_tokens: 5_210,
            output_tokens: 880,
            cache_read_tokens: 3_000,
            cache_write_tokens: 1_200,
        }]
    );

    // Read again (a sync tool may deliver the file twice), it changes nothing.
    let again = store.replay_log(WRITER, FILE, 0, FIXTURE.as_bytes(), NOW).unwrap();
    assert_eq!((again.outcome.merged.memories_added, again.outcome.merged.insights_added), (0, 0));
    assert_eq!(all_memories(&store), expected_memories());
}

#[test]
fn every_line_of_the_fixture_reads_and_writes_back_byte_for_byte() {
    for line in FIXTURE.lines() {
        assert_eq!(log_v1_round_trip(line).as_deref(), Some(line));
    }
}

/// Whether the lines after a newer one are read is `replay_log`'s to say; the line itself is
/// never taken as an entry of this format.
#[test]
fn a_line_of_format_2_is_left_for_a_newer_version() {
    let first = FIXTURE.split_inclusive('\n').next().unwrap();
    let newer = "{\"v\":2,\"at\":1764800000000,\"op\":\"note\",\"note\":{\"path\":\"Projects/Plan.md\"}}\n";
    assert_eq!(log_v1_round_trip(newer), None);

    let store = fresh();
    let replayed = store.replay_log(WRITER, FILE, 0, [first, newer].concat().as_bytes(), NOW).unwrap();
    assert_eq!((replayed.entries, replayed.unreadable, replayed.newer), (1, 0, true));
    let paths: Vec<String> = store.list_sources().unwrap().into_iter().map(|source| source.path).collect();
    assert_eq!(paths, strings(&["Daily/2026-11-30.md"]));
}

/// Mutated copies of the fixture's lines (seeded; `LOG_FUZZ_SEEDS` for more, as the soak does):
/// a byte changed, a number made huge or negative, a field emptied, a list grown, a line cut or
/// doubled. A replay never fails or panics on them: each line is merged or skipped and counted,
/// and the store stays whole.
#[test]
fn the_log_reader_keeps_or_skips_every_mutated_line_and_never_fails() {
    let seeds: u64 = std::env::var("LOG_FUZZ_SEEDS").ok().and_then(|count| count.parse().ok()).unwrap_or(60);
    let lines: Vec<&str> = FIXTURE.lines().collect();
    for seed in 1..=seeds {
        let mut state = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
        let mut roll = |below: usize| {
            // xorshift64*, as the simulation's.
            state ^= state >> 12;
            state ^= state << 25;
            state ^= state >> 27;
            (state.wrapping_mul(0x2545_F491_4F6C_DD1D) % below as u64) as usize
        };
        let mut log = String::new();
        for line in &lines {
            let mutated = mutate(line, &mut roll);
            log.push_str(&mutated);
            log.push('\n');
        }
        let store = fresh();
        let replayed = store
            .replay_log(WRITER, FILE, 0, log.as_bytes(), NOW)
            .unwrap_or_else(|error| panic!("seed {seed}: the replay failed: {error}\n{log}"));
        assert_eq!(replayed.offset, log.len() as u64, "seed {seed}: every line is taken");
        assert!(replayed.entries + replayed.unreadable <= log.lines().count(), "seed {seed}");
        assert!(!store.check_integrity().unwrap().repaired_index, "seed {seed}");
        store.list_memories(&MemoryFilter::default()).unwrap();
    }
}

/// One of the mutations, chosen by `roll`, of a line of the fixture.
fn mutate(line: &str, roll: &mut impl FnMut(usize) -> usize) -> String {
    let mut bytes = line.as_bytes().to_vec();
    match roll(8) {
        0 if !bytes.is_empty() => {
            let at = roll(bytes.len());
            bytes[at] = b" {}[]\":,0-9aZ\\"[roll(14)];
        }
        1 => {
            let huge = ["9223372036854775807", "-1", "1e308", "18446744073709551616", "-9223372036854775808", "1.5"];
            let text = String::from_utf8_lossy(&bytes).into_owned();
            let numbers: Vec<usize> = text.match_indices(|c: char| c.is_ascii_digit()).map(|(at, _)| at).collect();
            if let Some(&at) = numbers.get(roll(numbers.len().max(1))) {
                let end = text[at..].find(|c: char| !c.is_ascii_digit() && c != '.').map_or(text.len(), |end| at + end);
                return format!("{}{}{}", &text[..at], huge[roll(huge.len())], &text[end..]);
            }
        }
        2 => {
            let text = String::from_utf8_lossy(&bytes).into_owned();
            let fields: Vec<usize> = text.match_indices(":\"").map(|(at, _)| at + 2).collect();
            if let Some(&at) = fields.get(roll(fields.len().max(1))) {
                let end = text[at..].find('"').map_or(text.len(), |end| at + end);
                return format!("{}{}", &text[..at], &text[end..]);
            }
        }
        3 => {
            let text = String::from_utf8_lossy(&bytes).into_owned();
            let big: String = (0..300).map(|n| format!("\"x{n}\",")).collect();
            return text.replacen("[\"", &format!("[{big}\""), 1);
        }
        4 => bytes.truncate(roll(bytes.len().max(1))),
        5 => return format!("{line}{line}"),
        6 => return line.replace("\"v\":1", "\"v\":2"),
        _ => {}
    }
    String::from_utf8_lossy(&bytes).replace('\n', " ")
}
