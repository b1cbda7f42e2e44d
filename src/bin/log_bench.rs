//! `npm run bench -- --only=log`: what the per-device log costs a sync tool and a device, at
//! 1k, 10k and 50k memories (`store/log.rs`), over rusqlite in memory (the plugin's sql.js is
//! the same SQLite compiled to WebAssembly, slower by a small factor).
//!
//! For each size: the log written when that memory was made (its total and its largest file),
//! the bytes one remembered chunk and one edited note add to the synced files, another
//! device's 10k entries replayed into it, and the whole index rebuilt from the logs.
//! Memories are made directly (no model), each like the ingest benchmark's: a summary, three
//! facts, two names, two topics, a day.
//!
//! Usage: `cargo run --release --bin log-bench [-- 1000,10000,50000]`

use std::time::Instant;

use memory_agent::domain::{Entity, Memory, MemoryId, Position, Source, SourceKind};
use memory_agent::store::rusqlite_driver::RusqliteDriver;
use memory_agent::store::{log_file_for, Store};

type Db = Store<RusqliteDriver>;

/// Memories per note, as the ingest benchmark's notes have on average.
const MEMORIES_PER_NOTE: usize = 2;

fn main() {
    let sizes: Vec<usize> = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "1000,10000,50000".into())
        .split(',')
        .filter_map(|size| size.trim().parse().ok())
        .collect();
    println!("\nThe per-device log (rusqlite in memory; release build)\n");
    println!(
        "| memories | log written | largest file | files | per remembered chunk | per edited note | replay 10k entries | rebuild from logs |"
    );
    println!("|---:|---:|---:|---:|---:|---:|---:|---:|");
    for size in sizes {
        let row = measure(size);
        println!(
            "| {size} | {} | {} | {} | {} | {} | {} | {} |",
            bytes(row.log_bytes),
            bytes(row.largest_file),
            row.files,
            bytes(row.per_chunk),
            bytes(row.per_edit),
            seconds(row.replay_10k),
            seconds(row.rebuild),
        );
    }
}

struct Row {
    log_bytes: u64,
    largest_file: u64,
    files: usize,
    per_chunk: u64,
    per_edit: u64,
    replay_10k: f64,
    rebuild: f64,
}

#[allow(clippy::disallowed_methods)] // wall time of a native benchmark, not core logic
fn measure(size: usize) -> Row {
    let laptop = device("laptop");
    let mut log = Log::default();
    let notes = size / MEMORIES_PER_NOTE;
    for note in 0..notes {
        remember(&laptop, note, 0);
        // Appended as the plugin does: after a few notes' jobs, not one by one.
        if note % 8 == 7 {
            log.append(&laptop);
        }
    }
    log.append(&laptop);
    let log_bytes = log.total();

    remember(&laptop, notes, 0);
    let per_chunk = log.append(&laptop) / MEMORIES_PER_NOTE as u64;
    remember(&laptop, notes / 2, 1);
    let per_edit = log.append(&laptop);

    // Another device's 10k entries (5k notes of two memories), replayed into this store.
    let phone = device("phone");
    let mut phone_log = Log::default();
    for note in 0..5_000 {
        remember_at(&phone, &format!("Phone/{note}.md"), note, 0);
    }
    phone_log.append(&phone);
    let started = Instant::now();
    phone_log.replay_into(&laptop, "phone");
    let replay_10k = started.elapsed().as_secs_f64();

    // A new device (or a lost index) rebuilds everything from the logs.
    let fresh = device("tablet");
    let started = Instant::now();
    log.replay_into(&fresh, "laptop");
    let rebuild = started.elapsed().as_secs_f64();
    let memories = fresh.status().unwrap().memories as usize;
    assert_eq!(memories, (notes + 1) * MEMORIES_PER_NOTE, "the rebuilt index holds every memory");

    Row {
        log_bytes,
        largest_file: log.files.iter().map(|(_, text)| text.len() as u64).max().unwrap_or(0),
        files: log.files.len(),
        per_chunk,
        per_edit,
        replay_10k,
        rebuild,
    }
}

/// One device's log files, in memory.
#[derive(Default)]
struct Log {
    files: Vec<(String, Vec<u8>)>,
}

impl Log {
    /// Appends the device's outgoing entries to its current file; the bytes added.
    fn append(&mut self, from: &Db) -> u64 {
        let outgoing = from.outgoing_log(1_800_000_000_000).unwrap();
        if outgoing.entries == 0 {
            return 0;
        }
        let sizes: Vec<(String, u64)> =
            self.files.iter().map(|(name, text)| (name.clone(), text.len() as u64)).collect();
        let name = log_file_for(&sizes, outgoing.text.len() as u64);
        if !self.files.iter().any(|(existing, _)| *existing == name) {
            self.files.push((name.clone(), Vec::new()));
        }
        let file = &mut self.files.iter_mut().find(|(existing, _)| *existing == name).unwrap().1;
        file.extend_from_slice(outgoing.text.as_bytes());
        from.log_appended(&from.device(), outgoing.upto, &name, file.len() as u64).unwrap();
        outgoing.text.len() as u64
    }

    fn total(&self) -> u64 {
        self.files.iter().map(|(_, text)| text.len() as u64).sum()
    }

    fn replay_into(&self, into: &Db, device: &str) {
        for (name, text) in &self.files {
            let replayed = into.replay_log(device, name, 0, text).unwrap();
            assert_eq!(replayed.unreadable, 0);
        }
    }
}

fn device(name: &str) -> Db {
    let store = Store::open(RusqliteDriver::new()).unwrap();
    store.set_device(name);
    store
}

fn remember(store: &Db, note: usize, version: usize) {
    remember_at(store, &format!("Notes/{:03}/{note}.md", note % 500), note, version);
}

/// Remembers (or re-remembers, for `version` > 0) one note of `MEMORIES_PER_NOTE` chunks.
fn remember_at(store: &Db, path: &str, note: usize, version: usize) {
    let at = 1_700_000_000_000 + (note * 10 + version) as i64;
    let memories: Vec<Memory> = (0..MEMORIES_PER_NOTE)
        .map(|chunk| {
            let id = format!("m-{path}-{chunk}-{version}").replace(['/', '.'], "_");
            memory(&id, path, chunk, note * 31 + version * 7 + chunk)
        })
        .collect();
    store
        .transaction(|store| {
            store.replace_note_memories(path, &memories)?;
            store.upsert_source(&Source {
                path: path.into(),
                mtime: at,
                size: 2_000,
                sha256: format!("{:032x}", note * 1_000 + version),
                updated_at: at,
                skipped: None,
            })
        })
        .unwrap();
}

fn memory(id: &str, path: &str, chunk: usize, seed: usize) -> Memory {
    let names = ["Alice Nguyen", "Bob Tran", "Priya Kim", "Omar Haddad", "Grace Okafor", "Minh Pham"];
    let topics = ["budget", "hiring", "roadmap", "travel", "security", "pricing", "launch"];
    let person = names[seed % names.len()];
    let other = names[(seed / 7) % names.len()];
    let topic = topics[seed % topics.len()];
    Memory {
        id: MemoryId(id.into()),
        source_path: path.into(),
        source_kind: SourceKind::Note,
        position: Position {
            heading: Some(format!("Meeting {chunk}")),
            line_start: Some((chunk * 12) as u32),
            line_end: Some((chunk * 12 + 11) as u32),
        },
        raw_text: format!("{person} {other} {topic} quarter review decision follow-up"),
        summary: format!(
            "{person} and {other} reviewed the {topic} plan for the quarter and agreed on the next steps, \
             with {person} owning the follow-up by the end of the month (note {seed})."
        ),
        entities: vec![
            Entity { name: person.into(), kind: "person".into() },
            Entity { name: other.into(), kind: "person".into() },
        ],
        topics: vec![topic.into(), "meetings".into()],
        importance: 0.5,
        happened_on: Some(format!("2026-{:02}-{:02}", seed % 12 + 1, seed % 28 + 1)),
        also_on: Vec::new(),
        date_source: Default::default(),
        facts: vec![
            format!("{person} owns the {topic} follow-up."),
            format!("The {topic} budget is {} thousand dollars.", seed % 90 + 10),
            format!("{other} will send the revised {topic} plan on Friday."),
        ],
        created_at: 1_700_000_000_000,
        updated_at: 1_700_000_000_000,
        consolidated: false,
        content_hash: Some(format!("{seed:032x}")),
    }
}

fn bytes(count: u64) -> String {
    match count {
        0..=9_999 => format!("{count} B"),
        10_000..=9_999_999 => format!("{:.1} KB", count as f64 / 1_000.0),
        _ => format!("{:.1} MB", count as f64 / 1_000_000.0),
    }
}

fn seconds(value: f64) -> String {
    if value < 1.0 {
        format!("{:.0} ms", value * 1_000.0)
    } else {
        format!("{value:.2} s")
    }
}
