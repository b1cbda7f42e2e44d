//! `npm run bench -- --only=log`: what the per-device log costs a sync tool and a device, at
//! 1k, 10k and 50k memories, through the device runtime (`device::DeviceLog`) over an
//! in-memory vault and rusqlite in memory (the plugin's sql.js is the same SQLite compiled to
//! WebAssembly, slower by a small factor).
//!
//! For each size: the log written when that memory was made (its total, its largest file, its
//! files), what a sync tool that copies each changed file whole uploads for the first ingest,
//! for one edited note and for one forget (the purge rewrites the files that held its text),
//! and a new device (or a lost database) rebuilding everything from the logs: its time, and the
//! longest stretch between two pauses of the replay, which is the longest a question waits
//! behind it. Memories are made directly (no model), each like the ingest benchmark's: a
//! summary, three facts, two names, two topics, a day.
//!
//! Usage: `cargo run --release --features bench --bin log-bench [-- 1000,10000,50000 [DIR]]`;
//! with DIR, each size's memory folder is written to `DIR/<size>/` (for the WebAssembly
//! rebuild that `scripts/bench/replay-wasm.ts` measures).

use std::cell::Cell;
use std::future::Future;
use std::time::Instant;

use futures_util::FutureExt;
use memory_agent::device::{DeviceLog, Listing, MemoryFiles, VaultFiles};
use memory_agent::domain::{Entity, Memory, MemoryId, Position, Source, SourceKind};
use memory_agent::engine::Engine;
use memory_agent::store::rusqlite_driver::RusqliteDriver;
use memory_agent::store::Store;

type Db = Store<RusqliteDriver>;
type Device = Engine<RusqliteDriver>;

/// Memories per note, as the ingest benchmark's notes have on average.
const MEMORIES_PER_NOTE: usize = 2;
const FOLDER: &str = "Memory Agent";
/// In the past (the plugin's rebuild replays at the real time, which believes no time more than a
/// day ahead of its clock).
const NOW: i64 = 1_764_000_000_000;

fn main() {
    let sizes: Vec<usize> = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "1000,10000,50000".into())
        .split(',')
        .filter_map(|size| size.trim().parse().ok())
        .collect();
    println!("\nThe per-device log (device runtime over rusqlite in memory; release build)\n");
    println!(
        "| memories | log | largest file | files | uploaded for the first ingest | per edited note | per forget | rebuild from logs | longest wait behind replay |"
    );
    println!("|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
    let dump = std::env::args().nth(2).map(std::path::PathBuf::from);
    for size in sizes {
        let row = measure(size, dump.as_ref().map(|dir| dir.join(size.to_string())).as_deref());
        println!(
            "| {size} | {} | {} | {} | {} | {} | {} | {} | {} |",
            bytes(row.log_bytes),
            bytes(row.largest_file),
            row.files,
            bytes(row.ingest_upload),
            bytes(row.per_edit),
            bytes(row.per_forget),
            seconds(row.rebuild),
            seconds(row.longest_slice),
        );
    }
}

struct Row {
    log_bytes: u64,
    largest_file: u64,
    files: usize,
    ingest_upload: u64,
    per_edit: u64,
    per_forget: u64,
    rebuild: f64,
    longest_slice: f64,
}

/// What a sync tool that copies a changed file whole uploads for the changes since last asked.
fn uploaded(vault: &MemoryFiles) -> u64 {
    vault.take_changed().into_iter().filter_map(|(_, size)| size).sum()
}

fn at_once<T>(step: impl Future<Output = T>) -> T {
    step.now_or_never().expect("in-memory files wait for nothing")
}

#[allow(clippy::disallowed_methods)] // wall time of a native benchmark, not core logic
fn measure(size: usize, dump: Option<&std::path::Path>) -> Row {
    let vault = MemoryFiles::new();
    let laptop = device("laptop");
    let log = DeviceLog::new(FOLDER, "laptop").unwrap();
    let sync = |engine: &Device| at_once(log.sync(engine, &vault, NOW)).unwrap();
    let notes = size / MEMORIES_PER_NOTE;
    let mut ingest_upload = 0;
    for note in 0..notes {
        remember(laptop.store(), note, 0);
        // Appended as the plugin does: after a few notes' jobs, not one by one.
        if note % 8 == 7 {
            sync(&laptop);
            ingest_upload += uploaded(&vault);
        }
    }
    sync(&laptop);
    ingest_upload += uploaded(&vault);
    let files: Vec<u64> = vault.all().values().map(|bytes| bytes.len() as u64).collect();

    remember(laptop.store(), notes / 2, 1);
    sync(&laptop);
    let per_edit = uploaded(&vault);
    let forgotten = laptop.store().memories_of_source(&note_path(notes / 3), SourceKind::Note).unwrap().remove(0);
    laptop.forget_memory(&forgotten.id).unwrap();
    sync(&laptop);
    let per_forget = uploaded(&vault);
    assert!(
        !vault.all().values().any(|bytes| contains(bytes, forgotten.summary.as_bytes())),
        "the forgotten summary left every file"
    );

    if let Some(dir) = dump {
        for (path, bytes) in vault.all() {
            let file = dir.join(&path);
            std::fs::create_dir_all(file.parent().expect("a log file is in a folder")).unwrap();
            std::fs::write(file, bytes).unwrap();
        }
    }
    // A new device (or a lost index) rebuilds everything from the logs.
    let tablet = device("tablet");
    let timed = TimedFiles { vault: &vault, last: Cell::new(Instant::now()), longest: Cell::new(0.0) };
    let started = Instant::now();
    let replay = at_once(DeviceLog::new(FOLDER, "tablet").unwrap().replay_all(&tablet, &timed, NOW)).unwrap();
    let rebuild = started.elapsed().as_secs_f64();
    timed.pause_now();
    assert!(replay.problems.is_empty(), "{replay:?}");
    let memories = tablet.store().status().unwrap().memories as usize;
    assert_eq!(memories, notes * MEMORIES_PER_NOTE - 1, "the rebuilt index holds every memory");

    Row {
        log_bytes: files.iter().sum(),
        largest_file: files.iter().copied().max().unwrap_or(0),
        files: files.len(),
        ingest_upload,
        per_edit,
        per_forget,
        rebuild,
        longest_slice: timed.longest.get(),
    }
}

/// The in-memory vault, measuring the longest stretch between two pauses of a replay.
struct TimedFiles<'a> {
    vault: &'a MemoryFiles,
    last: Cell<Instant>,
    longest: Cell<f64>,
}

impl TimedFiles<'_> {
    #[allow(clippy::disallowed_methods)] // wall time of a native benchmark, not core logic
    fn pause_now(&self) {
        let now = Instant::now();
        self.longest.set(self.longest.get().max(now.duration_since(self.last.get()).as_secs_f64()));
        self.last.set(now);
    }
}

impl VaultFiles for TimedFiles<'_> {
    fn list(&self, folder: &str) -> impl Future<Output = Result<Listing, String>> {
        self.vault.list(folder)
    }
    fn read(&self, path: &str, offset: u64) -> impl Future<Output = Result<Option<Vec<u8>>, String>> {
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
        self.pause_now();
        std::future::ready(())
    }
}

fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    haystack.windows(needle.len()).any(|window| window == needle)
}

fn note_path(note: usize) -> String {
    format!("Notes/{:03}/{note}.md", note % 500)
}

fn device(name: &str) -> Device {
    let store = Store::open(RusqliteDriver::new()).unwrap();
    store.set_device(name);
    Engine::new(store, 7, NOW).unwrap()
}

fn remember(store: &Db, note: usize, version: usize) {
    remember_at(store, &note_path(note), note, version);
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
