//! The seeded simulation (after FoundationDB's and TigerBeetle's): three devices sharing one
//! vault through a sync tool, each an engine with its own database (its index) and a model of
//! the runtime around it, on one virtual clock.
//!
//! The devices: two Obsidian installs (`laptop`, `phone`: the plugin, loaded and unloaded, with
//! the user editing while it runs) and the `memory-agent` command (`command`: loaded for a
//! moment to `remember` typed text or `index` the vault, then it exits). Each has its own copy
//! of the vault: the notes and the log files `Memory Agent/<device>/NNNNNN.jsonl`, as bytes. As
//! the runtimes do, a device appends its outgoing entries to its own current log file after work
//! (`outgoing_log` → `log_file_for` → append → `log_appended`), replays another device's log file
//! from its cursor when the sync tool delivers it (from 0 when the file is shorter than the
//! cursor), and replays every log file at load. Its database "file" is the export at save points;
//! a load opens those bytes, so a crash (an unload without the save) loses what was not saved,
//! and the replay of the device's own log must bring it back.
//!
//! The sync tool delivers every changed file (a note, a deleted note, a log file) to each other
//! device late (up to `MAX_SYNC_DELAY`), in any order across files and devices, sometimes
//! partially (a log file copied before its last append, or cut mid-line: the whole copy follows)
//! and sometimes with a conflict copy (`000001 2.jsonl`, holding the version the receiver had).
//! A rename travels as a delete and a create. A delivered note reaches a loaded plugin as
//! "changed by another device": `enqueue_note_paying_after` with the other-device wait.
//!
//! Each step does one thing on one device (seeded): create, edit, rename, delete, a note gaining
//! an excluded tag, remember typed text, forget, pause or resume, unload (a crash, sometimes,
//! without the last save) or load, a save, the command's `remember` or `index`; the model's
//! faults are those of the one-device simulation (throttling, 500 and 503, connection resets,
//! failed vault reads, bad JSON, invalid tool input, wrong batches, slow calls). A stranger
//! with write access to the vault appends forged lines to a log folder of its own (`forge_line`:
//! a memory out of range or without a summary, a note version dated 2100, usage of another
//! device or beyond a plausible day, an insight citing 1,000 memories, a damaged line): every
//! replay skips and names each one, and replays everything else.
//!
//! After every step: no job failed for a transient reason, no request after an unload or while
//! paused, no excluded text sent; only a log folder's device ever wrote in it (a sync copy is
//! no write); every database exports and opens; a forgotten memory does not come back on any
//! device that replayed the entry of its forget (its own device included); the records of each
//! device match its vault, except for what is still on its way there. At the end, once the
//! sync tool settles (everything delivered whole, every device loaded and run to quiet, every
//! log replayed): no device kept anything of a stranger's lines; every device holds the same memories (ids, paths, summaries) and insights,
//! each note in scope is remembered once in its current version; no chunk was paid for by two
//! devices (a chunk counts for a device once a good answer about it reached one of its running
//! engines and, if that engine stopped since, it kept what the answer said: a failed or wrong
//! answer is a fault the device retries, and an answer whose work was handed back at an unload,
//! or that arrived after its engine stopped, is lost with it); usage summed over the devices counts every billed answer
//! (a 200 with usage, used or rejected) that reached a running engine.
//!
//! What the scenario avoids, because it cannot hold by design:
//! - Two devices editing one note at once (a sync conflict on the note): a note is edited,
//!   renamed or deleted only while no version of it is on its way anywhere.
//! - The other-device wait overtaken. A delivered note is paid for no sooner than
//!   `OTHER_DEVICE_WAIT` (3 h) after it arrives. The steps take at most about 70 minutes of
//!   virtual time (`STEPS` × at most 3 s, and at most two command runs, each at most
//!   `COMMAND_RUN` plus two waits for the sync tool of at most `MAX_SYNC_DELAY` and a tick); at
//!   the settle every device resumes at once, a job waits out at most an hour of backoff, and a
//!   delivery takes at most `MAX_SYNC_DELAY` (10 min): under 2 h 30 in all, so the device that
//!   changed a note has remembered it, and its entry has arrived everywhere, before the wait of
//!   any other device ends.
//! - Two versions at once in another form: a device that changed a note and has not remembered
//!   it yet (it is paused or closed) still holds a claim on that text. Edited on another device
//!   meanwhile, the first may remember its older text after the second remembered the newer,
//!   and the note remembered last wins with the older text (then both pay for the newer one);
//!   renamed on another device, the note reaches the first as a delete and a create, its claim
//!   goes with the delete, and each device waits for the other. So a note is edited, renamed,
//!   deleted or excluded only once the device doing it holds a record of its current text.
//! - The command paying for what a plugin remembers: `index` refuses while a plugin runs (the
//!   heartbeat), and runs here only on a vault the sync tool has finished delivering to (its
//!   copy holds every plugin's log). A run lasts at most `COMMAND_RUN`; what it did not finish
//!   stays queued in its index for its next run (the settle runs it to the end).
//! - Answers lost with an engine: an answer that arrives after its engine was shut down (an
//!   unload, a crash) is metered in a store no one saves; the usage check counts the answers
//!   that reached a running engine.
//! - A plugin restarting cannot tell its own unsaved edits from the sync tool's; the model of
//!   its start-up reconciliation can: it pays at once for a note this device changed last, and
//!   waits for the other devices for a note another device changed (paying at once for every
//!   change found at start would pay twice for a note whose memory is on its way).
//!
//! A failing seed prints itself; replay it with
//! `SIMULATION_SEED=<seed> cargo test --test simulation -- --nocapture`
//! (`SIMULATION_DUMP=1` writes each device's database and vault to the temporary folder).
//! `SIMULATION_SEEDS=<n>` runs more seeds (the soak: `npm run soak`); `SIMULATION_SURVEY=1` runs
//! every seed and lists the failures at the end.

mod support;

use std::cell::{Cell, RefCell};
use std::collections::{BTreeMap, BTreeSet};
use std::rc::Rc;

use futures::executor::LocalPool;
use futures::task::LocalSpawnExt;
use memory_agent::calendar::CalendarDate;
use memory_agent::device::layout::log_file_number;
use memory_agent::device::{DeviceLog, Limits, Listing, VaultFiles};
use memory_agent::domain::{JobState, JobWork, Millis, NoteJob, SourceKind};
use memory_agent::engine::{Engine, EngineSettings, Host, Progress, TextToRemember, VaultFile};
use memory_agent::hash::file_digest_hex;
use memory_agent::llm::TransportError;
use memory_agent::llm::{BedrockConfig, Clock, HttpRequest, HttpResponse, HttpTransport, RetryPolicy};
use memory_agent::notes::ScopeRules;
use memory_agent::store::rusqlite_driver::RusqliteDriver;
use memory_agent::store::{open_from_bytes, MemoryFilter};
use serde_json::{json, Value};
use support::fake_model;
use support::scripted_transport::{Scripted, ScriptedTransport};
use support::test_host::TestHost;
use support::virtual_time::VirtualClock;

/// 2026-11-30T08:00:00Z
const NOW: Millis = 1_796_025_600_000;
const SEEDS: u64 = 200;
const STEPS: usize = 36;
const MINUTE: Millis = 60_000;
/// How long a device waits before paying for a note another device changed.
const OTHER_DEVICE_WAIT: Millis = 180 * MINUTE;
/// The longest a sync tool takes to deliver a file.
const MAX_SYNC_DELAY: Millis = 10 * MINUTE;
/// The longest one run of the command.
const COMMAND_RUN: Millis = 2 * MINUTE;
const MEMORY_FOLDER: &str = "Memory Agent";
const DEVICES: [&str; 3] = ["laptop", "phone", "command"];
const COMMAND: usize = 2;
/// `Sim::pass`'s tick that follows the work: short while an engine works, long while all wait.
const IDLE_TICK: Millis = 0;

type SimEngine = Engine<RusqliteDriver>;

/// What a device remembers: its memories (id, path, summary) and its insights.
type Remembered = (BTreeSet<(String, String, String)>, BTreeSet<String>);

/// xorshift64*: small, seeded, the same on every machine.
struct Rng(u64);

impl Rng {
    fn new(seed: u64) -> Self {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, bound: u64) -> u64 {
        self.next() % bound.max(1)
    }
}

/// A device's host as the core sees it: vault reads take a while (they cross to the main
/// thread), so vault events can land between a job's claim and its read. One per engine: it
/// counts the answers that reached that engine while it ran.
#[derive(Clone)]
struct SimHost {
    inner: TestHost,
    rng: Rc<RefCell<Rng>>,
    /// While on, a few vault reads fail (a file busy or locked), as Bedrock calls do.
    faults: Rc<Cell<bool>>,
    /// Off once this engine is shut down.
    live: Rc<Cell<bool>>,
    /// Answers carrying usage that reached a live engine (each is metered), per device.
    answered: Rc<Cell<u64>>,
    /// The request bodies the model answered well (of this device's transport).
    answered_well: Rc<RefCell<BTreeSet<String>>>,
    /// The chunks of good answers that reached this engine while it ran: what this device paid
    /// for and may keep (see `Sim::unload`).
    paid: Rc<RefCell<BTreeSet<String>>>,
}

impl HttpTransport for SimHost {
    async fn send(&self, request: HttpRequest) -> Result<HttpResponse, TransportError> {
        let request_body = request.body.clone();
        let response = self.inner.send(request).await;
        if let Ok(response) = &response {
            let metered = response.status == 200
                && serde_json::from_str::<Value>(&response.body).is_ok_and(|body| body.get("usage").is_some());
            if metered && self.live.get() {
                self.answered.set(self.answered.get() + 1);
                if self.answered_well.borrow().contains(&request_body) {
                    self.paid.borrow_mut().extend(chunks_of(&request_body));
                }
            }
        }
        response
    }
}

impl Clock for SimHost {
    fn now(&self) -> Millis {
        self.inner.now()
    }
    async fn sleep(&self, millis: u64) {
        self.inner.sleep(millis).await;
    }
}

impl memory_agent::images::ImageRenderer for SimHost {
    async fn render_image(
        &self,
        bytes: &[u8],
        request: &memory_agent::images::ImageRender,
    ) -> Result<memory_agent::images::RenderedImage, memory_agent::images::ImageError> {
        self.inner.render_image(bytes, request).await
    }
}

impl Host for SimHost {
    async fn read_file(&self, path: &str, max_bytes: u64) -> Result<Option<VaultFile>, String> {
        let (delay, fails) = {
            let mut rng = self.rng.borrow_mut();
            (rng.below(400), self.faults.get() && rng.below(100) < 4)
        };
        self.inner.clock.sleep(delay).await;
        if fails {
            return Err("EBUSY: resource busy or locked".into());
        }
        self.inner.read_file(path, max_bytes).await
    }
    async fn extract_pdf(
        &self,
        bytes: &[u8],
        options: &memory_agent::notes::pdf::PdfExtractOptions,
    ) -> Result<memory_agent::notes::pdf::PdfContent, String> {
        self.inner.extract_pdf(bytes, options).await
    }
    fn utc_offset_minutes(&self) -> i32 {
        0
    }
    fn progress(&self, _: &Progress) {}
}

/// The model: the deterministic fake, with seeded faults and latency while `faults` is on.
fn model(
    rng: Rc<RefCell<Rng>>,
    faults: Rc<Cell<bool>>,
    answered_well: Rc<RefCell<BTreeSet<String>>>,
) -> impl Fn(&HttpRequest) -> Scripted {
    move |request| {
        let reply = answer(&rng, &faults, request);
        if reply.1 {
            answered_well.borrow_mut().insert(request.body.clone());
        }
        reply.0
    }
}

/// The model's reply, and whether it is the good one.
fn answer(rng: &RefCell<Rng>, faults: &Cell<bool>, request: &HttpRequest) -> (Scripted, bool) {
    {
        if batched(request) {
            BATCHED_CALLS.with(|calls| calls.set(calls.get() + 1));
        }
        let mut rng = rng.borrow_mut();
        let latency = rng.below(6_000);
        if !faults.get() {
            return (fake_model::answer(request).slow(latency / 10), true);
        }
        let roll = rng.below(100);
        let reply = match roll {
            0..=9 => Scripted::throttled(),
            10..=16 => Scripted::aws_error(500, "InternalServerException", "Internal error"),
            17..=21 => Scripted::Reply { status: 200, headers: vec![], body: "{\"output\": tru".into(), latency_ms: 0 },
            22..=26 => Scripted::tool("record_memory", json!({ "summary": "", "importance": "high" })),
            27..=31 => {
                Scripted::aws_error(503, "ServiceUnavailableException", "Bedrock is unable to process your request.")
            }
            32..=34 => Scripted::Fail(TransportError::Network("connection reset by peer".into())),
            35..=49 if batched(request) => wrong_batch(request, rng.below(4)),
            _ => fake_model::answer(request),
        };
        let wrong = (0..=34).contains(&roll) || (35..=49).contains(&roll) && batched(request);
        let good = !wrong;
        (reply.slow(latency), good)
    }
}

thread_local! {
    /// Batched ingest calls made, over every seed: the simulation must exercise them.
    static BATCHED_CALLS: Cell<u64> = const { Cell::new(0) };
    /// Log entries replayed from another device, over every seed.
    static REPLAYED_ENTRIES: Cell<u64> = const { Cell::new(0) };
}

fn batched(request: &HttpRequest) -> bool {
    request.body.contains("\"name\":\"record_memories\"")
}

/// A batched answer gone wrong the ways a model's can: a piece left out, an id no piece has,
/// one piece named twice, or two memories under each other's ids. None may land on the wrong
/// chunk (the drain checks every note's memory is its own).
fn wrong_batch(request: &HttpRequest, how: u64) -> Scripted {
    let body: Value = serde_json::from_str(&request.body).unwrap();
    let mut memories = fake_model::batch_memories(&fake_model::user_text(&body));
    match how {
        0 => drop(memories.pop()),
        1 => memories[0]["chunk"] = json!("c99"),
        2 => {
            let first = memories[0].clone();
            memories.push(first);
        }
        _ => {
            // Swapped ids between the first two pieces that have something to remember: a
            // swapped "nothing to remember" has no words to tell it by.
            let remembered: Vec<usize> =
                (0..memories.len()).filter(|at| memories[*at]["nothing_to_remember"] == json!(false)).collect();
            if let [a, b, ..] = remembered[..] {
                let chunk_a = memories[a]["chunk"].clone();
                memories[a]["chunk"] = memories[b]["chunk"].clone();
                memories[b]["chunk"] = chunk_a;
            }
        }
    }
    Scripted::tool("record_memories", json!({ "memories": memories }))
}

/// The chunks (their text) of an ingest request's body.
fn chunks_of(body: &str) -> Vec<String> {
    let body: Value = serde_json::from_str(body).unwrap();
    let text = fake_model::user_text(&body);
    match body["toolConfig"]["toolChoice"]["tool"]["name"].as_str() {
        Some("record_memory") => vec![last_line(fake_model::between(&text, "note"))],
        Some("record_memories") => fake_model::pieces(&text).iter().map(|(_, _, piece)| last_line(piece)).collect(),
        _ => Vec::new(),
    }
}

/// A fenced piece's text without the file name and section before it (a renamed note's chunk
/// is the same chunk).
fn last_line(fenced: &str) -> String {
    fenced.lines().rev().find(|line| !line.trim().is_empty()).unwrap_or_default().to_owned()
}

fn connection() -> BedrockConfig {
    support::connection::test_connection(RetryPolicy { max_attempts: 2, base_delay_ms: 200, max_delay_ms: 2_000 })
}

fn is_note(path: &str) -> bool {
    path.starts_with("Notes/")
}

/// The device folder and file name of a log file's path (conflict copies included).
fn log_path(path: &str) -> Option<(&str, &str)> {
    let rest = path.strip_prefix(MEMORY_FOLDER)?.strip_prefix('/')?;
    let (device, name) = rest.split_once('/')?;
    name.ends_with(".jsonl").then_some((device, name))
}

/// The sizes of the device runtime in the simulation: small, so that a few dozen steps seal
/// files, slice replays, compact and purge.
const SIM_LIMITS: Limits = Limits {
    seal_at: 2_048,
    compacted_file_limit: 8_192,
    compact_small_files: 3,
    compact_large_files: 2,
    replay_slice_bytes: 1_024,
};

/// The device runtime of `device`, as every host builds it, with the simulation's sizes.
fn device_log(device: &str) -> DeviceLog {
    DeviceLog::new(MEMORY_FOLDER, device).unwrap().with_limits(SIM_LIMITS)
}

/// A device's vault as the device runtime's file operations see it; what they change is noted
/// for the sync tool.
struct SimFiles {
    vault: std::rc::Rc<RefCell<BTreeMap<String, VaultFile>>>,
    changed: RefCell<BTreeSet<String>>,
}

impl SimFiles {
    fn of(device: &Device) -> Self {
        SimFiles { vault: device.host.vault.clone(), changed: RefCell::default() }
    }

    fn put(&self, path: &str, bytes: Vec<u8>) {
        let size = bytes.len() as u64;
        self.vault.borrow_mut().insert(path.to_owned(), VaultFile { bytes, mtime: NOW, size });
        self.changed.borrow_mut().insert(path.to_owned());
    }
}

impl VaultFiles for SimFiles {
    async fn list(&self, folder: &str) -> Result<Listing, String> {
        let vault = self.vault.borrow();
        Ok(Listing::of_folder(folder, vault.iter().map(|(path, file)| (path.as_str(), file.bytes.len() as u64))))
    }
    async fn read(&self, path: &str, offset: u64) -> Result<Option<Vec<u8>>, String> {
        Ok(self.vault.borrow().get(path).map(|file| file.bytes[(offset as usize).min(file.bytes.len())..].to_vec()))
    }
    async fn append(&self, path: &str, text: &str) -> Result<u64, String> {
        let mut bytes = self.vault.borrow().get(path).map(|file| file.bytes.clone()).unwrap_or_default();
        bytes.extend_from_slice(text.as_bytes());
        let size = bytes.len() as u64;
        self.put(path, bytes);
        Ok(size)
    }
    async fn create(&self, path: &str, text: &str) -> Result<(), String> {
        if self.vault.borrow().contains_key(path) {
            return Err(format!("{path} exists"));
        }
        self.put(path, text.as_bytes().to_vec());
        Ok(())
    }
    async fn remove(&self, path: &str) -> Result<(), String> {
        if self.vault.borrow_mut().remove(path).is_some() {
            self.changed.borrow_mut().insert(path.to_owned());
        }
        Ok(())
    }
    async fn pause(&self) {}
}

/// Runs a device-runtime step over a simulated vault (whose operations finish at once).
fn at_once<T>(step: impl std::future::Future<Output = T>) -> T {
    futures::FutureExt::now_or_never(step).expect("a step over the simulated vault waits for nothing")
}

/// A plugin or command runtime: loaded with an engine, or unloaded.
struct Loaded {
    engine: Rc<SimEngine>,
    /// The device runtime (it lives as long as the plugin or the command's run).
    log: Rc<DeviceLog>,
    host: SimHost,
    running: Rc<Cell<bool>>,
}

struct Device {
    name: &'static str,
    /// The device's vault: notes and log files; its clock and transport are the device's.
    host: TestHost,
    loaded: Option<Loaded>,
    /// The database file: the export at the last save.
    disk: Vec<u8>,
    paused: bool,
    /// Requests sent when work last had to stop (unload, pause): none may follow.
    sent_when_stopped: Option<usize>,
    /// Notes deleted while unloaded: the plugin never heard of it, so a job queued for one
    /// before may wait (it reads nothing and ends at no cost, checked at the end).
    deleted_unseen: BTreeSet<String>,
    /// Metered answers that reached a live engine of this device.
    answered: Rc<Cell<u64>>,
    answered_well: Rc<RefCell<BTreeSet<String>>>,
    /// What good answers to this device's calls were about and its engines kept (see
    /// `SimHost::paid`).
    paid: Rc<RefCell<BTreeSet<String>>>,
}

impl Device {
    fn engine(&self) -> Option<Rc<SimEngine>> {
        self.loaded.as_ref().map(|loaded| loaded.engine.clone())
    }

    fn sent(&self) -> usize {
        self.host.bedrock.requests().len()
    }

    fn notes(&self) -> Vec<String> {
        self.host.vault.borrow().keys().filter(|path| is_note(path)).cloned().collect()
    }
}

/// Who wrote a file.
#[derive(Clone, Copy)]
enum Writer {
    Device,
    SyncTool,
    /// Someone else with write access to the vault (`forge_line`).
    Stranger,
}

/// The folder a stranger drops forged log lines into, as if it were a device's.
const STRANGER_LOG: &str = "Memory Agent/stranger/000001.jsonl";
/// A name no device gives a log file, which a stranger drops into a device's folder.
const FOREIGN_LOG_NAME: &str = "4294967295.jsonl";

/// A file on its way from one device's vault to another's.
struct Delivery {
    at: Millis,
    to: usize,
    path: String,
    /// The bytes as they were when copied; `None` for a delete.
    bytes: Option<Vec<u8>>,
    /// The version of the file at its source (later ones win at the receiver).
    version: u64,
}

/// A forget, and where its entry was written.
struct Forget {
    memory: String,
    device: usize,
    /// The log file and the offset its entry ends before: a device whose cursor of that file
    /// is past it replayed the forget.
    written: Option<(String, u64)>,
}

struct Sim {
    seed: u64,
    rng: Rc<RefCell<Rng>>,
    clock: VirtualClock,
    pool: LocalPool,
    faults: Rc<Cell<bool>>,
    devices: Vec<Device>,
    in_flight: Vec<Delivery>,
    /// Per path, the version last written, and per (device, path) the version it holds.
    versions: BTreeMap<String, u64>,
    held: BTreeMap<(usize, String), u64>,
    /// Per (device, note), who changed the note last as that device saw it.
    last_writer: BTreeMap<(usize, String), usize>,
    /// Per log file path, the one device that writes it.
    writers: BTreeMap<String, usize>,
    /// Notes whose current text carries an excluded tag, and the text never to be sent.
    excluded: BTreeSet<String>,
    secrets: Vec<String>,
    forgets: Vec<Forget>,
    /// Summaries of memories the user forgot.
    forgotten: BTreeSet<String>,
    notes: u32,
    version: u32,
    typed: u32,
    /// Lines a stranger forged (`forge_line`).
    forged: u32,
    command_runs: u32,
    /// The device the step acted on; `None` at the end (see `check_device`).
    acted: Option<usize>,
    errors: Rc<RefCell<Vec<String>>>,
    log: Vec<String>,
}

impl Sim {
    fn new(seed: u64) -> Self {
        let rng = Rc::new(RefCell::new(Rng::new(seed)));
        let faults = Rc::new(Cell::new(true));
        let clock = VirtualClock::starting_at(NOW);
        let devices = DEVICES
            .iter()
            .map(|name| {
                let mut host = TestHost::new(NOW);
                host.clock = clock.clone();
                host.bedrock = ScriptedTransport::new(&clock);
                let answered_well: Rc<RefCell<BTreeSet<String>>> = Rc::default();
                host.bedrock.respond_with(model(rng.clone(), faults.clone(), answered_well.clone()));
                Device {
                    name,
                    host,
                    loaded: None,
                    disk: Vec::new(),
                    paused: false,
                    sent_when_stopped: None,
                    deleted_unseen: BTreeSet::new(),
                    answered: Rc::default(),
                    answered_well,
                    paid: Rc::default(),
                }
            })
            .collect();
        let mut sim = Sim {
            seed,
            rng,
            clock,
            pool: LocalPool::new(),
            faults,
            devices,
            in_flight: Vec::new(),
            versions: BTreeMap::new(),
            held: BTreeMap::new(),
            last_writer: BTreeMap::new(),
            writers: BTreeMap::new(),
            excluded: BTreeSet::new(),
            secrets: Vec::new(),
            forgets: Vec::new(),
            forgotten: BTreeSet::new(),
            notes: 0,
            version: 0,
            typed: 0,
            forged: 0,
            command_runs: 0,
            acted: None,
            errors: Rc::default(),
            log: Vec::new(),
        };
        sim.load_plugin(0);
        sim.load_plugin(1);
        sim
    }

    fn fail(&self, what: &str) -> ! {
        // `SIMULATION_DUMP=1`: each device's database and vault go to the temporary folder.
        if std::env::var("SIMULATION_DUMP").is_ok() {
            for device in &self.devices {
                if let Some(engine) = device.engine() {
                    let path = std::env::temp_dir().join(format!("sim-{}-{}.db", self.seed, device.name));
                    std::fs::write(&path, engine.store().export().unwrap()).unwrap();
                }
                for (path, file) in device.host.vault.borrow().iter() {
                    let dump = std::env::temp_dir().join(format!("sim-{}-{}", self.seed, device.name)).join(path);
                    std::fs::create_dir_all(dump.parent().unwrap()).unwrap();
                    std::fs::write(dump, &file.bytes).unwrap();
                }
            }
        }
        panic!(
            "simulation seed {} failed: {what}\nreplay: SIMULATION_SEED={} cargo test --test simulation -- --nocapture\nsteps:\n  {}",
            self.seed,
            self.seed,
            self.log.join("\n  ")
        );
    }

    fn roll(&self, bound: u64) -> u64 {
        self.rng.borrow_mut().below(bound)
    }

    fn now(&self) -> Millis {
        self.clock.now()
    }

    fn pick<T: Clone>(&self, items: &[T]) -> Option<T> {
        (!items.is_empty()).then(|| items[self.roll(items.len() as u64) as usize].clone())
    }

    /// A note's text: one line (one chunk, one memory), unique per version.
    fn note_text(&mut self, id: &str) -> String {
        self.version += 1;
        if self.roll(8) == 0 {
            format!("NOTHING TO REMEMBER in {id} v{}\n", self.version)
        } else {
            format!("Note {id} version {}: Alice planned topic {id}.\n", self.version)
        }
    }

    // The runtimes.

    /// A plugin loads: it opens its index, replays the logs and reconciles the vault.
    fn load_plugin(&mut self, at: usize) {
        self.load(at);
        self.reconcile(at, true);
    }

    /// Load: open the database file, take the settings, replay every log file (the device's
    /// own first: what a crash lost).
    fn load(&mut self, at: usize) {
        let device = &self.devices[at];
        let store = open_from_bytes(&device.disk, RusqliteDriver::from_bytes)
            .unwrap_or_else(|error| self.fail(&format!("{}'s database file does not open: {error}", device.name)));
        store.set_device(device.name);
        let engine = Rc::new(SimEngine::new(store, self.seed * 10 + at as u64, self.now()).unwrap());
        engine.set_settings(EngineSettings {
            parallel_jobs: 2,
            job_retry_base_ms: 5_000,
            consolidation_threshold: 4,
            other_device_wait_ms: OTHER_DEVICE_WAIT as u64,
            scope: ScopeRules { excluded_tags: vec!["private".into()], ..ScopeRules::default() },
            ..EngineSettings::default()
        });
        engine.configure_connection(Some(connection()), self.seed * 10 + at as u64).unwrap();
        let paused_in_file = engine.paused().is_some_and(|pause| pause.by_user());
        if paused_in_file != device.paused {
            self.fail(&format!(
                "{}'s pause did not survive the restart: paused {paused_in_file} in the file",
                device.name
            ));
        }
        let host = SimHost {
            inner: device.host.clone(),
            rng: self.rng.clone(),
            faults: self.faults.clone(),
            live: Rc::new(Cell::new(true)),
            answered: device.answered.clone(),
            answered_well: device.answered_well.clone(),
            paid: Rc::default(),
        };
        let log = Rc::new(device_log(DEVICES[at]));
        self.devices[at].loaded =
            Some(Loaded { engine: engine.clone(), log: log.clone(), host, running: Rc::new(Cell::new(false)) });
        let files = SimFiles::of(&self.devices[at]);
        let report = at_once(log.replay_all(&engine, &files, self.now()))
            .unwrap_or_else(|error| self.fail(&format!("{} could not replay the logs: {error}", DEVICES[at])));
        self.check_replay(at, &report);
        if !self.devices[at].paused {
            self.devices[at].sent_when_stopped = None;
        }
    }

    /// The reconciliation: what changed while unloaded is queued, what is gone is removed. A
    /// plugin (`wait`) pays at once for a note this device changed last, after the other-device
    /// wait for one another device changed; the command's `index` pays at once.
    fn reconcile(&mut self, at: usize, wait: bool) {
        let engine = self.devices[at].engine().unwrap();
        let now = self.now();
        let vault = self.devices[at].host.vault.borrow().clone();
        for path in vault.keys().filter(|path| is_note(path)) {
            let digest = file_digest_hex(&vault[path].bytes);
            if engine.store().get_source(path).unwrap().is_some_and(|source| source.sha256 == digest) {
                continue;
            }
            let own = self.last_writer.get(&(at, path.clone())).is_none_or(|writer| *writer == at);
            let pay_after = (wait && !own).then_some(now + OTHER_DEVICE_WAIT);
            engine.enqueue_note_paying_after(path, now, pay_after).unwrap();
        }
        let gone: Vec<String> = engine
            .store()
            .list_sources()
            .unwrap()
            .into_iter()
            .map(|source| source.path)
            .filter(|path| !vault.contains_key(path))
            .collect();
        engine.remove_notes(&gone).unwrap();
    }

    /// Unload: the engine stops at once; the last save writes what it has, unless it crashed.
    fn unload(&mut self, at: usize, crash: bool) {
        if !crash {
            self.flush_log(at);
        }
        let Some(loaded) = self.devices[at].loaded.take() else { return };
        loaded.host.live.set(false);
        loaded.engine.shut_down(self.now()).unwrap();
        // An answer whose work was still running is handed back untried with it: that chunk is
        // paid for again by whichever device remembers it (this one too, after a restart).
        let kept: Vec<String> =
            loaded.host.paid.borrow().iter().filter(|chunk| kept(&loaded.engine, chunk)).cloned().collect();
        self.devices[at].paid.borrow_mut().extend(kept);
        if crash {
            // A note deleted or renamed since the last save, before its job ended, is forgotten
            // with the rest: the job comes back with the file, reads nothing and ends at no cost,
            // as for a note deleted while unloaded.
            let store = open_from_bytes(&self.devices[at].disk, RusqliteDriver::from_bytes).unwrap();
            let vault = self.devices[at].host.vault.borrow().clone();
            for job in store.list_jobs(None).unwrap() {
                if let Some(path) = job.key.strip_prefix("note:").filter(|path| !vault.contains_key(*path)) {
                    self.devices[at].deleted_unseen.insert(path.to_owned());
                }
            }
            // A pause not saved yet is lost with the rest (it is this device's, not logged).
            let store = open_from_bytes(&self.devices[at].disk, RusqliteDriver::from_bytes).unwrap();
            self.devices[at].paused = store.get_meta("paused_by_user").unwrap().is_some();
        } else {
            self.devices[at].disk = loaded.engine.store().export().unwrap();
        }
        self.devices[at].sent_when_stopped = Some(self.devices[at].sent());
    }

    fn save(&mut self, at: usize) {
        if let Some(engine) = self.devices[at].engine() {
            self.devices[at].disk = engine.store().export().unwrap();
        }
    }

    /// What the runtime does after work: the device runtime appends, purges and compacts its
    /// own files, and the sync tool picks up every file it changed.
    fn flush_log(&mut self, at: usize) {
        let Some(loaded) = &self.devices[at].loaded else { return };
        let (engine, log) = (loaded.engine.clone(), loaded.log.clone());
        let files = SimFiles::of(&self.devices[at]);
        at_once(log.sync(&engine, &files, self.now()))
            .unwrap_or_else(|error| self.fail(&format!("{} could not write its log: {error}", DEVICES[at])));
        let changed: Vec<String> = files.changed.take().into_iter().collect();
        if std::env::var("SIM_TRACE").is_ok() && !changed.is_empty() {
            let sizes: Vec<(String, Option<usize>)> = changed
                .iter()
                .map(|path| (path.clone(), self.devices[at].host.vault.borrow().get(path).map(|file| file.bytes.len())))
                .collect();
            eprintln!("[{}] {} flush: {sizes:?}", self.now() - NOW, DEVICES[at]);
            for path in &changed {
                if let Some(file) = self.devices[at].host.vault.borrow().get(path) {
                    for line in String::from_utf8_lossy(&file.bytes).lines() {
                        eprintln!("    {}", &line[..line.len().min(160)]);
                    }
                }
            }
        }
        for path in changed {
            let bytes = self.devices[at].host.vault.borrow().get(&path).map(|file| file.bytes.clone());
            if bytes.as_ref().is_some_and(|bytes| bytes.len() as u64 > SIM_LIMITS.compacted_file_limit) {
                let lines = bytes.as_ref().unwrap().iter().filter(|byte| **byte == b'\n').count();
                if lines > 1 {
                    self.fail(&format!("{} wrote {path}, over the largest file a log may have", DEVICES[at]));
                }
            }
            self.write(at, &path, bytes);
        }
        self.note_written_forgets(at);
    }

    /// Where each forget of this device's is in its log now (the file and the end of its line).
    fn note_written_forgets(&mut self, at: usize) {
        let own: Vec<(String, Vec<u8>)> = self.devices[at]
            .host
            .vault
            .borrow()
            .iter()
            .filter(|(path, _)| log_path(path).is_some_and(|(device, _)| device == DEVICES[at]))
            .map(|(path, file)| (path.clone(), file.bytes.clone()))
            .collect();
        for forget in self.forgets.iter_mut().filter(|forget| forget.device == at && forget.written.is_none()) {
            let removal = format!("\"tombstone\":\"{}\"", forget.memory);
            for (path, bytes) in &own {
                if let Some(start) = find(bytes, removal.as_bytes()) {
                    let end =
                        bytes[start..].iter().position(|byte| *byte == b'\n').map_or(bytes.len(), |at| start + at + 1);
                    forget.written = Some((path.clone(), end as u64));
                }
            }
        }
    }

    /// Replays one log file in `at`'s vault from the device's cursor.
    fn replay(&mut self, at: usize, path: &str) {
        let Some(loaded) = &self.devices[at].loaded else { return };
        let (engine, log) = (loaded.engine.clone(), loaded.log.clone());
        let files = SimFiles::of(&self.devices[at]);
        let report = at_once(log.replay_paths(&engine, &files, &[path.to_owned()], self.now()))
            .unwrap_or_else(|error| self.fail(&format!("{} could not replay {path}: {error}", DEVICES[at])));
        self.check_replay(at, &report);
    }

    /// A replay met no damaged line, no newer format and no error: every line the simulation's
    /// devices write is whole when read (a cut copy's last line waits for its end).
    fn check_replay(&self, at: usize, report: &memory_agent::device::LogReplay) {
        let engine = self.devices[at].engine().unwrap();
        if let Ok(watch) = std::env::var("SIM_WATCH") {
            let state: Vec<(String, String)> = engine
                .list_memories(&MemoryFilter::default())
                .unwrap()
                .into_iter()
                .filter(|memory| memory.summary.contains(&watch))
                .map(|memory| (memory.id.0, memory.source_path))
                .collect();
            eprintln!(
                "[{}] {} replayed {} files, {} entries; {state:?}",
                self.now() - NOW,
                DEVICES[at],
                report.files,
                report.entries
            );
        }
        // A stranger's lines are each skipped and named; nothing else may be.
        let forged = |problem: &&memory_agent::device::ReplayProblem| {
            // Its file, or a conflict copy the sync tool made of it.
            let forged_lines = problem.path.starts_with("Memory Agent/stranger/")
                && problem.error.is_none()
                && !problem.newer
                && problem.first_skipped.is_some();
            // Its file, or the sync tool's copy of it (`4294967295 2.jsonl`).
            let foreign_file = problem.path.contains(&format!("/{}", FOREIGN_LOG_NAME.trim_end_matches(".jsonl")))
                && problem.error.as_deref().is_some_and(|error| error.contains("it was not read"));
            forged_lines || foreign_file
        };
        if let Some(problem) = report.problems.iter().find(|problem| !forged(problem)) {
            self.fail(&format!("{} could not replay all of {}: {problem:?}", DEVICES[at], problem.path));
        }
        REPLAYED_ENTRIES.with(|count| count.set(count.get() + report.from_others as u64));
    }

    /// A device writes a file in its vault (a note, a deletion, its log): the sync tool copies
    /// it to the others, each late.
    fn write(&mut self, at: usize, path: &str, bytes: Option<Vec<u8>>) {
        self.write_as(at, path, bytes, Writer::Device);
    }

    /// A write in `at`'s vault by the device itself, or by the sync tool (a conflict copy):
    /// only a log folder's device ever writes in it.
    fn write_as(&mut self, at: usize, path: &str, bytes: Option<Vec<u8>>, writer: Writer) {
        if let (Some((device, _)), Writer::Device) = (log_path(path), writer) {
            if device != DEVICES[at] || *self.writers.entry(path.to_owned()).or_insert(at) != at {
                self.fail(&format!("{} wrote {path}, another device's log file", DEVICES[at]));
            }
        }
        let version = {
            let version = self.versions.entry(path.to_owned()).or_insert(0);
            *version += 1;
            *version
        };
        self.store_file(at, path, bytes.clone(), version);
        if is_note(path) {
            for other in 0..DEVICES.len() {
                self.last_writer.insert((other, path.to_owned()), at);
            }
        }
        for to in (0..DEVICES.len()).filter(|to| *to != at) {
            let delay = self.roll(MAX_SYNC_DELAY as u64) as Millis;
            self.in_flight.push(Delivery {
                at: self.now() + delay,
                to,
                path: path.to_owned(),
                bytes: bytes.clone(),
                version,
            });
        }
    }

    fn store_file(&mut self, at: usize, path: &str, bytes: Option<Vec<u8>>, version: u64) {
        self.held.insert((at, path.to_owned()), version);
        let host = &self.devices[at].host;
        match bytes {
            Some(bytes) => host.write_bytes(path, bytes),
            None => host.delete(path),
        }
    }

    /// The sync tool hands over what is due (`all`: everything, whole).
    fn deliver_due(&mut self, all: bool) {
        let now = self.now();
        let mut due: Vec<Delivery> = Vec::new();
        let mut index = 0;
        while index < self.in_flight.len() {
            if all || self.in_flight[index].at <= now {
                due.push(self.in_flight.swap_remove(index));
            } else {
                index += 1;
            }
        }
        due.sort_by_key(|delivery| delivery.at);
        for delivery in due {
            self.deliver(delivery, all);
        }
    }

    fn deliver(&mut self, delivery: Delivery, whole: bool) {
        let Delivery { to, path, bytes, version, .. } = delivery;
        let held = self.held.get(&(to, path.clone())).copied().unwrap_or(0);
        if version <= held {
            return; // a sync tool keeps the newer version it already has
        }
        if let (Some((device, name)), Some(full)) = (log_path(&path), &bytes) {
            let (device, name) = (device.to_owned(), name.to_owned());
            let old = self.devices[to].host.vault.borrow().get(&path).map(|file| file.bytes.clone());
            let roll = self.roll(100);
            if !whole && roll < 5 && log_file_number(&name).is_some() {
                if let Some(old) = old {
                    // A conflict copy holding the version this device had, which the sync tool
                    // carries to every device like any file (its owner, too, removes it).
                    let stem = name.trim_end_matches(".jsonl");
                    let copy = format!("{MEMORY_FOLDER}/{device}/{stem} 2.jsonl");
                    self.write_as(to, &copy, Some(old), Writer::SyncTool);
                    self.note_log(to, &copy);
                }
            }
            if !whole && (5..20).contains(&roll) && !full.is_empty() {
                // Copied while it was being appended to: a part now, the whole a little later.
                let cut = self.roll(full.len() as u64) as usize;
                self.devices[to].host.write_bytes(&path, full[..cut].to_vec());
                self.note_log(to, &path);
                let later = self.now() + 1 + self.roll(MINUTE as u64) as Millis;
                self.in_flight.push(Delivery { at: later, to, path, bytes, version });
                return;
            }
            self.store_file(to, &path, bytes, version);
            self.note_log(to, &path);
            return;
        }
        let now = self.now();
        let arrives = bytes.is_some();
        self.store_file(to, &path, bytes, version);
        if !is_note(&path) {
            return;
        }
        let Some(engine) = self.devices[to].engine() else {
            if !arrives {
                self.devices[to].deleted_unseen.insert(path);
            }
            return;
        };
        if arrives {
            engine.enqueue_note_paying_after(&path, now, Some(now + OTHER_DEVICE_WAIT)).unwrap();
        } else {
            engine.remove_note(&path).unwrap();
        }
    }

    /// A log file changed in `at`'s vault: a loaded device replays it.
    fn note_log(&mut self, at: usize, path: &str) {
        if self.devices[at].loaded.is_some() {
            self.replay(at, path);
        }
    }

    /// What the work runner does: one run at a time whenever the engine may work.
    fn kick(&mut self) {
        for device in &self.devices {
            let Some(loaded) = &device.loaded else { continue };
            if device.paused || loaded.running.get() {
                continue;
            }
            loaded.running.set(true);
            let (engine, running, host, errors) =
                (loaded.engine.clone(), loaded.running.clone(), loaded.host.clone(), self.errors.clone());
            self.pool
                .spawner()
                .spawn_local(async move {
                    if let Err(error) = engine.run_due_work(&host).await {
                        errors.borrow_mut().push(error.to_string());
                    }
                    running.set(false);
                })
                .unwrap();
        }
    }

    /// Lets the engines and the sync tool work for `millis` of virtual time, `tick` at a time
    /// (`IDLE_TICK`: a second while any engine works, five minutes while all wait).
    fn pass(&mut self, millis: Millis, tick: Millis) {
        let end = self.now() + millis;
        loop {
            self.pool.run_until_stalled();
            self.kick();
            self.pool.run_until_stalled();
            self.deliver_due(false);
            for at in 0..DEVICES.len() {
                self.flush_log(at);
            }
            let tick = if tick != IDLE_TICK {
                tick
            } else if self
                .devices
                .iter()
                .any(|device| device.loaded.as_ref().is_some_and(|loaded| loaded.running.get()))
            {
                1_000
            } else {
                5 * MINUTE
            };
            let step = (end - self.now()).min(tick);
            if step <= 0 {
                break;
            }
            self.clock.advance_by(step);
        }
    }

    // One random step.

    /// A note no version of which is on its way anywhere, and whose text is remembered (this
    /// device holds a record of it): changing it cannot make two versions at once.
    fn settled_note(&self, at: usize) -> Option<String> {
        let notes: Vec<String> = self.devices[at]
            .notes()
            .into_iter()
            .filter(|path| !self.in_flight.iter().any(|delivery| &delivery.path == path))
            .filter(|path| {
                (0..DEVICES.len()).all(|other| self.held.get(&(other, path.clone())) == self.versions.get(path))
            })
            .filter(|path| self.remembered_here(at, path))
            .collect();
        self.pick(&notes)
    }

    /// Whether `at` holds a record of the note's current text (some device remembered it).
    fn remembered_here(&self, at: usize, path: &str) -> bool {
        let engine = self.devices[at].engine().unwrap();
        let digest = file_digest_hex(&self.devices[at].host.vault.borrow()[path].bytes);
        engine.store().get_source(path).unwrap().is_some_and(|source| source.sha256 == digest)
    }

    fn step(&mut self, index: usize) {
        let at = self.roll(2) as usize;
        self.acted = Some(at);
        let action = self.roll(100);
        let description = match action {
            0..=2 if self.command_runs < 2 => {
                self.command_runs += 1;
                let index = self.roll(2) == 0;
                self.run_command_when_quiet(index);
                format!("the plugins close; command: {}", if index { "index" } else { "remember typed text" })
            }
            0..=74 if self.devices[at].loaded.is_none() => {
                self.load_plugin(at);
                format!("{}: load", DEVICES[at])
            }
            0..=15 => {
                // One note, or a few at once (pasted in): they share batched calls.
                let mut created = Vec::new();
                for _ in 0..1 + self.roll(3) {
                    self.notes += 1;
                    let id = format!("n{}", self.notes);
                    let path = format!("Notes/{id}.md");
                    let text = self.note_text(&id);
                    self.edit(at, &path, text);
                    created.push(path);
                }
                format!("{}: create {}", DEVICES[at], created.join(", "))
            }
            16..=29 => {
                let Some(path) = self.settled_note(at) else { return };
                if self.excluded.contains(&path) {
                    return;
                }
                let id = path.trim_start_matches("Notes/").trim_end_matches(".md").to_owned();
                let text = self.note_text(&id);
                self.edit(at, &path, text);
                format!("{}: modify {path}", DEVICES[at])
            }
            30..=36 => {
                let Some(from) = self.settled_note(at) else { return };
                self.notes += 1;
                let to = format!("Notes/n{}.md", self.notes);
                let bytes = self.devices[at].host.vault.borrow()[&from].bytes.clone();
                self.write(at, &from, None);
                self.write(at, &to, Some(bytes));
                if self.excluded.remove(&from) {
                    self.excluded.insert(to.clone());
                }
                self.devices[at].engine().unwrap().rename_note(&from, &to, self.now()).unwrap();
                format!("{}: rename {from} -> {to}", DEVICES[at])
            }
            37..=42 => {
                let Some(path) = self.settled_note(at) else { return };
                self.write(at, &path, None);
                self.excluded.remove(&path);
                self.devices[at].engine().unwrap().remove_note(&path).unwrap();
                format!("{}: delete {path}", DEVICES[at])
            }
            43..=46 => {
                // The note gains an excluded tag with new, private text: it leaves the scope.
                let Some(path) = self.settled_note(at) else { return };
                let secret = format!("PRIVATE-{}-{}", self.seed, self.secrets.len());
                self.write(at, &path, Some(format!("{secret} #private\n").into_bytes()));
                self.secrets.push(secret);
                self.excluded.insert(path.clone());
                self.devices[at].engine().unwrap().remove_note(&path).unwrap();
                format!("{}: exclude {path}", DEVICES[at])
            }
            47..=50 => {
                let engine = self.devices[at].engine().unwrap();
                engine.enqueue_text(&self.typed_text(at), self.now()).unwrap();
                format!("{}: remember typed text", DEVICES[at])
            }
            51..=56 => {
                let engine = self.devices[at].engine().unwrap();
                let memories = engine.list_memories(&MemoryFilter::default()).unwrap();
                let Some(memory) = self.pick(&memories) else { return };
                engine.forget_memory(&memory.id).unwrap();
                self.forgotten.insert(memory.summary.clone());
                self.forgets.push(Forget { memory: memory.id.0.clone(), device: at, written: None });
                format!("{}: forget {} ({})", DEVICES[at], memory.id.0, memory.source_path)
            }
            57..=60 => {
                let engine = self.devices[at].engine().unwrap();
                let device = &mut self.devices[at];
                if device.paused {
                    engine.resume().unwrap();
                    device.paused = false;
                    device.sent_when_stopped = None;
                    format!("{}: resume", DEVICES[at])
                } else {
                    engine.pause().unwrap();
                    device.paused = true;
                    device.sent_when_stopped = Some(device.sent());
                    format!("{}: pause", DEVICES[at])
                }
            }
            61..=66 => {
                let crash = self.roll(3) == 0;
                self.unload(at, crash);
                format!("{}: {}", DEVICES[at], if crash { "crash (unload without the last save)" } else { "unload" })
            }
            67..=74 => {
                self.save(at);
                self.check_file(at);
                format!("{}: save", DEVICES[at])
            }
            75..=77 => self.forge_line(at),
            _ => "time passes".into(),
        };
        self.log.push(format!("{index}: {description}"));
        let wait = self.roll(3_000) as Millis;
        self.pass(wait, 500);
        self.check();
    }

    /// A stranger with write access to the vault appends a forged line to a log file of its
    /// own, in `at`'s copy (the sync tool carries it everywhere): every kind the store must
    /// refuse. No device may keep anything of it, and no other line or file may go unreplayed.
    fn forge_line(&mut self, at: usize) -> String {
        self.forged += 1;
        let id = format!("forged-{}", self.forged);
        let memory = |summary: &str, importance: f64| {
            json!({ "id": id, "sourcePath": "", "sourceKind": "text", "position": {}, "rawText": "Forged.",
                    "summary": summary, "entities": [], "topics": [], "importance": importance,
                    "createdAt": NOW, "updatedAt": NOW, "consolidated": false })
        };
        let year_2100: Millis = 4_102_444_800_000;
        let note = self.devices[at].notes().into_iter().next().unwrap_or_else(|| "Notes/n1.md".into());
        let kinds = [
            json!({ "op": "memory", "memory": memory("Out of range", 1.5) }),
            json!({ "op": "memory", "memory": memory("  ", 0.5) }),
            json!({ "op": "note", "source": { "path": note, "mtime": year_2100, "size": 1, "sha256": "f".repeat(32),
                    "updatedAt": year_2100 }, "memories": [] }),
            json!({ "op": "usage", "device": DEVICES[0], "usage": { "day": "2026-12-01", "agent": "ingest", "calls": 1,
                    "inputTokens": 1, "outputTokens": 1, "cacheReadTokens": 0, "cacheWriteTokens": 0 } }),
            json!({ "op": "usage", "device": "stranger", "usage": { "day": "2026-12-01", "agent": "ingest",
                    "calls": u64::MAX / 4, "inputTokens": 1, "outputTokens": 1, "cacheReadTokens": 0, "cacheWriteTokens": 0 } }),
            json!({ "op": "insight", "insight": { "id": id, "memoryIds": (0..1_000).map(|n| format!("m{n}")).collect::<Vec<_>>(),
                    "insight": "Everything.", "connections": [], "createdAt": NOW } }),
        ];
        let kind = self.roll(kinds.len() as u64 + 2) as usize;
        if kind == kinds.len() + 1 {
            return self.drop_foreign_file(at, memory("A stranger's well-formed memory", 0.5));
        }
        let line = match kinds.get(kind) {
            Some(entry) => {
                let mut entry = entry.clone();
                entry["v"] = json!(1);
                entry["at"] = json!(self.now());
                format!("{entry}\n")
            }
            None => "{\"v\":1,\"at\":1,\"op\":\"memory\",\"memory\":{}}\n".into(),
        };
        let mut bytes =
            self.devices[at].host.vault.borrow().get(STRANGER_LOG).map(|file| file.bytes.clone()).unwrap_or_default();
        bytes.extend_from_slice(line.as_bytes());
        self.write_as(at, STRANGER_LOG, Some(bytes), Writer::Stranger);
        self.note_log(at, STRANGER_LOG);
        format!("a stranger forges a line ({kind}) in {}'s copy of {STRANGER_LOG}", DEVICES[at])
    }

    /// A stranger drops a well-formed line into a device's folder under a name no device
    /// writes (`4294967295.jsonl`): never read (nor removed) by anyone, only reported.
    fn drop_foreign_file(&mut self, at: usize, memory: Value) -> String {
        let device = DEVICES[self.roll(DEVICES.len() as u64) as usize];
        let path = format!("{MEMORY_FOLDER}/{device}/{FOREIGN_LOG_NAME}");
        let line = format!("{}\n", json!({ "v": 1, "at": self.now(), "op": "memory", "memory": memory }));
        let mut bytes =
            self.devices[at].host.vault.borrow().get(&path).map(|file| file.bytes.clone()).unwrap_or_default();
        bytes.extend_from_slice(line.as_bytes());
        self.write_as(at, &path, Some(bytes), Writer::Stranger);
        self.note_log(at, &path);
        format!("a stranger drops a line in {}'s copy of {path}", DEVICES[at])
    }

    /// The user changes a note in `at`'s editor: the plugin queues it (its own change).
    fn edit(&mut self, at: usize, path: &str, text: String) {
        self.write(at, path, Some(text.into_bytes()));
        self.devices[at].engine().unwrap().enqueue_note(path, self.now()).unwrap();
    }

    fn typed_text(&mut self, at: usize) -> TextToRemember {
        self.typed += 1;
        TextToRemember {
            text: format!("Typed {} on {}: Bob approved the plan.", self.typed, DEVICES[at]),
            source_path: String::new(),
            kind: SourceKind::Text,
            heading: None,
            line_start: None,
            note_date: None,
        }
    }

    /// `index` refuses while a plugin runs, and the command must see every plugin's log (see
    /// the header): the plugins close, and the command runs once the sync tool caught up; they
    /// open again once its log reached them.
    fn run_command_when_quiet(&mut self, index: bool) {
        for at in 0..COMMAND {
            self.unload(at, false);
        }
        while self.in_flight.iter().any(|delivery| delivery.to == COMMAND) {
            self.pass(MINUTE, IDLE_TICK);
        }
        self.run_command(index);
        self.check_file(COMMAND);
        while self.in_flight.iter().any(|delivery| delivery.path.contains("/command/")) {
            self.pass(MINUTE, IDLE_TICK);
        }
    }

    /// One run of the command: it opens its index (replaying every log), remembers typed text
    /// or reconciles the vault, works for a while, writes its log, saves and exits.
    fn run_command(&mut self, index: bool) {
        self.load(COMMAND);
        let engine = self.devices[COMMAND].engine().unwrap();
        if index {
            self.reconcile(COMMAND, false);
        } else {
            engine.enqueue_text(&self.typed_text(COMMAND), self.now()).unwrap();
        }
        let budget = if self.faults.get() { COMMAND_RUN } else { 3 * 60 * MINUTE };
        let end = self.now() + budget;
        while self.now() < end {
            self.pass(5_000, 250);
            let status = engine.store().status().unwrap();
            if status.queued + status.running == 0 && !self.devices[COMMAND].loaded.as_ref().unwrap().running.get() {
                break;
            }
        }
        self.unload(COMMAND, false);
    }

    // The invariants.

    fn check(&self) {
        if let Some(error) = self.errors.borrow().first() {
            self.fail(&format!("a run failed: {error}"));
        }
        let mut chunks: BTreeMap<String, usize> = BTreeMap::new();
        for (at, device) in self.devices.iter().enumerate() {
            if let Some(count) = device.sent_when_stopped {
                let sent = device.sent();
                if sent > count {
                    let last = &device.host.bedrock.requests()[sent - 1];
                    self.fail(&format!(
                        "{} sent {} request(s) after unload or while paused: {}",
                        device.name,
                        sent - count,
                        last.body
                    ));
                }
            }
            for request in device.host.bedrock.requests() {
                if let Some(secret) = self.secrets.iter().find(|secret| request.body.contains(secret.as_str())) {
                    self.fail(&format!("{} sent the excluded text {secret}", device.name));
                }
            }
            let running = device.loaded.as_ref().map(|loaded| loaded.host.paid.borrow().clone()).unwrap_or_default();
            for chunk in device.paid.borrow().union(&running) {
                if let Some(other) = chunks.insert(chunk.clone(), at) {
                    self.fail(&format!("{} and {} both sent the chunk {chunk:?}", DEVICES[other], device.name));
                }
            }
            self.check_device(at);
        }
        self.check_forgets();
        self.check_memories_logged();
    }

    /// After every step: every memory a running device's database holds is in some device's
    /// log (in some vault: the sync tool may not have brought it here yet), unless the user
    /// forgot it (its owner purged it from the log; the others drop it when they read that).
    /// The database is only a cache of the logs.
    fn check_memories_logged(&self) {
        let logs: Vec<Vec<u8>> = self
            .devices
            .iter()
            .flat_map(|device| {
                device
                    .host
                    .vault
                    .borrow()
                    .iter()
                    .filter(|(path, _)| log_path(path).is_some())
                    .map(|(_, file)| file.bytes.clone())
                    .collect::<Vec<_>>()
            })
            .collect();
        let forgotten: BTreeSet<&str> = self.forgets.iter().map(|forget| forget.memory.as_str()).collect();
        // What some device removed (its purge took it out of its log; the others drop it once
        // they read the removal): a memory's id, or its note's path.
        let mut removed: BTreeSet<String> = BTreeSet::new();
        for device in &self.devices {
            let tombstones = match device.engine() {
                Some(engine) => engine.store().tombstones().unwrap(),
                None if device.disk.is_empty() => continue,
                None => open_from_bytes(&device.disk, RusqliteDriver::from_bytes).unwrap().tombstones().unwrap(),
            };
            for tombstone in tombstones {
                match tombstone {
                    memory_agent::store::Tombstone::SourceRecord { path, .. } => removed.insert(path),
                    other => removed.insert(other.removed_id().unwrap_or_default().to_owned()),
                };
            }
        }
        for (at, device) in self.devices.iter().enumerate() {
            let Some(engine) = device.engine() else { continue };
            // A memory made since the last append is in the outbox, written at the next one.
            let unwritten = engine.outgoing_log(self.now()).unwrap().text;
            for memory in engine.list_memories(&MemoryFilter::default()).unwrap() {
                let id = format!("\"id\":\"{}\"", memory.id.0);
                if forgotten.contains(memory.id.0.as_str())
                    || removed.contains(&memory.id.0)
                    || removed.contains(&memory.source_path)
                    || unwritten.contains(&id)
                {
                    continue;
                }
                if !logs.iter().any(|bytes| contains(bytes, id.as_bytes())) {
                    self.fail(&format!(
                        "{}'s memory {} ({}) is in no device's log",
                        DEVICES[at], memory.id.0, memory.source_path
                    ));
                }
            }
        }
    }

    /// One device's records against its vault; what is on its way to it may disagree. The
    /// database of the device the step acted on (every device's, at the end) exports and
    /// opens.
    fn check_device(&self, at: usize) {
        let device = &self.devices[at];
        let Some(engine) = device.engine() else { return };
        let arriving = self.in_flight.iter().any(|delivery| delivery.to == at);
        let vault = device.host.vault.borrow();
        let jobs = engine.store().list_jobs(None).unwrap();
        let queued = |path: &str| jobs.iter().any(|job| job.key == format!("note:{path}"));
        // Work waiting for another device reads its note when the wait ends: a note not here
        // then is removed (its file may be on its way until then).
        let waiting = |path: &str| {
            jobs.iter().any(|job| {
                job.key == format!("note:{path}")
                    && matches!(&job.work, JobWork::IngestSource(NoteJob { pay_after: Some(_), .. }))
            })
        };
        let excluded = |path: &str| vault.get(path).is_some_and(|file| contains(&file.bytes, b"#private"));
        for source in engine.store().list_sources().unwrap() {
            let path = source.path.as_str();
            if (!vault.contains_key(path) && !arriving && !waiting(path)) || (excluded(path) && !queued(path)) {
                self.fail(&format!("{} has a source record for {path}, which is deleted or excluded", device.name));
            }
        }
        for memory in engine.list_memories(&MemoryFilter::default()).unwrap() {
            let path = memory.source_path.as_str();
            let note = memory.source_kind == SourceKind::Note;
            if note && ((!vault.contains_key(path) && !arriving && !waiting(path)) || (excluded(path) && !queued(path)))
            {
                self.fail(&format!(
                    "{} has memory {} of {path}, which is deleted or excluded",
                    device.name, memory.id.0
                ));
            }
        }
        // Only wrong answers end a job as failed, after the bound; the world's faults never do.
        let bound = engine.settings().max_job_attempts;
        for job in jobs.iter().filter(|job| job.state == JobState::Failed) {
            let reason = job.last_error.as_deref().unwrap_or_default();
            if job.attempts < bound || !reason.starts_with(&format!("Failed after {bound} tries: ")) {
                self.fail(&format!(
                    "{}: a job failed for a transient reason, or before its bound: {job:?}",
                    device.name
                ));
            }
        }
        for job in jobs.iter().filter(|job| job.state != JobState::Running) {
            let Some(path) = job.key.strip_prefix("note:") else { continue };
            // A job for a note leaving the scope is allowed while queued: the core reads it,
            // finds the tag, and ends the job without a call.
            let unseen = device.deleted_unseen.contains(path);
            if !vault.contains_key(path) && !arriving && !waiting(path) && !unseen
                || (excluded(path) && job.state != JobState::Queued)
            {
                self.fail(&format!(
                    "{}: a {:?} job for {path}, which is deleted or excluded: {job:?}",
                    device.name, job.state
                ));
            }
        }
        if self.acted.is_some_and(|acted| acted != at) {
            return;
        }
        let bytes = engine.store().export().unwrap();
        if let Err(error) = open_from_bytes(&bytes, RusqliteDriver::from_bytes) {
            self.fail(&format!("{}'s database does not open from its export: {error}", device.name));
        }
    }

    /// A forget, once its entry was written, holds on every device that replayed it.
    fn check_forgets(&self) {
        for forget in &self.forgets {
            for (at, device) in self.devices.iter().enumerate() {
                let Some(engine) = device.engine() else { continue };
                let replayed = at == forget.device
                    || forget.written.as_ref().is_some_and(|(path, end)| {
                        let (owner, name) = log_path(path).unwrap();
                        engine
                            .log_cursors()
                            .unwrap()
                            .iter()
                            .any(|c| c.device == owner && c.file == name && c.offset >= *end)
                    });
                let id = memory_agent::domain::MemoryId(forget.memory.clone());
                if replayed && engine.store().get_memory(&id).unwrap().is_some() {
                    self.fail(&format!(
                        "memory {} forgotten on {} is back on {}",
                        forget.memory, DEVICES[forget.device], device.name
                    ));
                }
            }
        }
    }

    /// Once every device ran and the sync tool settled: no byte of a forgotten memory's text is
    /// left in any log file of this device's vault, and every memory its database holds is in
    /// some device's log (the logs are the truth; the database only a cache of them).
    fn check_logs(&self, at: usize) {
        let live: BTreeSet<String> = (0..DEVICES.len())
            .filter_map(|device| self.devices[device].engine())
            .flat_map(|engine| engine.list_memories(&MemoryFilter::default()).unwrap())
            .map(|memory| memory.summary)
            .collect();
        let vault = self.devices[at].host.vault.borrow();
        let logs: Vec<(&String, &Vec<u8>)> =
            vault.iter().filter(|(path, _)| log_path(path).is_some()).map(|(path, file)| (path, &file.bytes)).collect();
        for summary in self.forgotten.iter().filter(|summary| !live.contains(*summary)) {
            if let Some((path, _)) = logs.iter().find(|(_, bytes)| contains(bytes, summary.as_bytes())) {
                self.fail(&format!("the forgotten summary \"{summary}\" is still in {path} on {}", DEVICES[at]));
            }
        }
        let engine = self.devices[at].engine().unwrap();
        for memory in engine.list_memories(&MemoryFilter::default()).unwrap() {
            let id = format!("\"id\":\"{}\"", memory.id.0);
            if !logs.iter().any(|(_, bytes)| contains(bytes, id.as_bytes())) {
                self.fail(&format!("{}'s memory {} is in no device's log", DEVICES[at], memory.id.0));
            }
        }
    }

    /// The saved file opens, and nothing forgotten is in its bytes.
    fn check_file(&self, at: usize) {
        let disk = &self.devices[at].disk;
        let store = open_from_bytes(disk, RusqliteDriver::from_bytes)
            .unwrap_or_else(|error| self.fail(&format!("{}'s saved file does not open: {error}", DEVICES[at])));
        let live: BTreeSet<String> =
            store.list_memories(&MemoryFilter::default()).unwrap().into_iter().map(|memory| memory.summary).collect();
        for summary in self.forgotten.iter().filter(|summary| !live.contains(*summary)) {
            if contains(disk, summary.as_bytes()) {
                self.fail(&format!("the forgotten summary \"{summary}\" is still in {}'s file's bytes", DEVICES[at]));
            }
        }
    }

    // The end.

    /// The sync tool settles: faults stop, every plugin is loaded and resumed and works past
    /// every wait; then, until nothing changes, everything is delivered whole, the plugins
    /// close, the command indexes to the end of its queue, and every device opens and replays.
    fn settle(&mut self) {
        self.faults.set(false);
        for at in 0..COMMAND {
            if self.devices[at].loaded.is_none() {
                self.load_plugin(at);
            }
            let engine = self.devices[at].engine().unwrap();
            engine.resume().unwrap();
            self.devices[at].paused = false;
            self.devices[at].sent_when_stopped = None;
            engine.retry_failed(self.now(), true).unwrap();
        }
        // Past every wait for another device and the longest backoff.
        self.pass(OTHER_DEVICE_WAIT + 70 * MINUTE, IDLE_TICK);
        for _ in 0..2 {
            self.deliver_due(true);
            for at in 0..COMMAND {
                self.unload(at, false);
            }
            self.deliver_due(true);
            self.run_command(true);
            self.deliver_due(true);
            for at in 0..COMMAND {
                self.load_plugin(at);
            }
            self.pass(OTHER_DEVICE_WAIT + 10 * MINUTE, IDLE_TICK);
        }
        self.deliver_due(true);
        self.load(COMMAND);
        self.pass(10 * MINUTE, IDLE_TICK);
        self.deliver_due(true);
        self.pass(MINUTE, IDLE_TICK);
        self.acted = None;
        self.check();
    }

    /// The end: after the sync tool settles, every device drained its work, remembers the same,
    /// and holds every note in scope once; the usage counts every answer.
    fn drain(&mut self) {
        self.settle();
        let mut first: Option<(usize, Remembered)> = None;
        for (at, name) in DEVICES.iter().enumerate() {
            let status = self.devices[at].engine().unwrap().store().status().unwrap();
            if status.queued + status.running + status.failed > 0 {
                self.fail(&format!("{name}'s work did not drain: {status:?}"));
            }
            let remembered = self.remembered(at);
            let forged = |id: &String| id.starts_with("forged-");
            if remembered.0.iter().any(|(id, ..)| forged(id)) || remembered.1.iter().any(forged) {
                self.fail(&format!("{name} kept something of a stranger's forged lines"));
            }
            match &first {
                None => first = Some((at, remembered)),
                Some((other, theirs)) => self.compare(at, &remembered, *other, theirs),
            }
            self.check_notes(at);
            self.check_insights_once(at);
            // The full-text index agrees with the memories (a merge enters them at its end).
            let integrity = self.devices[at].engine().unwrap().store().check_integrity().unwrap();
            if integrity.repaired_index || integrity.unfinished.is_some() {
                self.fail(&format!("{name}'s full-text index disagreed with its memories: {integrity:?}"));
            }
            self.check_logs(at);
        }
        let answered: u64 = self.devices.iter().map(|device| device.answered.get()).sum();
        let engine = self.devices[0].engine().unwrap();
        let (from, to) = (CalendarDate::at(NOW - 86_400_000, 0), CalendarDate::at(self.now() + 86_400_000, 0));
        let calls: u64 = engine.store().usage_between(from, to).unwrap().iter().map(|usage| usage.calls).sum();
        if calls != answered {
            self.fail(&format!("usage counts {calls} calls over the devices, {answered} answers reached an engine"));
        }
    }

    fn remembered(&self, at: usize) -> Remembered {
        let engine = self.devices[at].engine().unwrap();
        let memories = engine
            .list_memories(&MemoryFilter::default())
            .unwrap()
            .into_iter()
            .map(|memory| (memory.id.0, memory.source_path, memory.summary))
            .collect();
        let insights = engine
            .store()
            .list_consolidations(0, 0)
            .unwrap()
            .into_iter()
            .map(|insight| {
                let ids: Vec<String> = insight.memory_ids.into_iter().map(|id| id.0).collect();
                format!("{} {ids:?}", insight.id.0)
            })
            .collect();
        (memories, insights)
    }

    fn compare(&self, at: usize, (memories, insights): &Remembered, other: usize, theirs: &Remembered) {
        let (here, there) = (DEVICES[at], DEVICES[other]);
        if memories != &theirs.0 {
            let only_here: Vec<_> = memories.difference(&theirs.0).collect();
            let only_there: Vec<_> = theirs.0.difference(memories).collect();
            self.fail(&format!(
                "{here} and {there} remember differently: only on {here}: {only_here:?}; only on {there}: {only_there:?}"
            ));
        }
        if insights != &theirs.1 {
            let only_here: Vec<_> = insights.difference(&theirs.1).collect();
            let only_there: Vec<_> = theirs.1.difference(insights).collect();
            self.fail(&format!(
                "{here} and {there} hold different insights: only on {here}: {only_here:?}; only on {there}: {only_there:?}"
            ));
        }
    }

    /// No insight was paid for twice: a memory is cited by one insight at most (the fake model
    /// makes one insight of each batch, citing all of it), whichever device made it, and a
    /// database rebuilt from the logs takes the insights and the consolidated marks the logs
    /// hold instead of consolidating again.
    fn check_insights_once(&self, at: usize) {
        let engine = self.devices[at].engine().unwrap();
        let mut cited: BTreeMap<String, String> = BTreeMap::new();
        for insight in engine.store().list_consolidations(0, 0).unwrap() {
            for memory in &insight.memory_ids {
                if let Some(other) = cited.insert(memory.0.clone(), insight.id.0.clone()) {
                    self.fail(&format!(
                        "{} holds two insights citing {}: {other} (in {:?}) and {} (in {:?}) (consolidated twice)",
                        DEVICES[at],
                        memory.0,
                        self.logs_holding(&other),
                        insight.id.0,
                        self.logs_holding(&insight.id.0)
                    ));
                }
            }
        }
    }

    /// The log files (of any vault) that hold `text`.
    fn logs_holding(&self, text: &str) -> BTreeSet<String> {
        let mut holding = BTreeSet::new();
        for device in &self.devices {
            for (path, file) in device.host.vault.borrow().iter() {
                if log_path(path).is_some() && contains(&file.bytes, text.as_bytes()) {
                    holding.insert(path.clone());
                }
            }
        }
        holding
    }

    /// Every note in the vault and in scope is remembered once in its current version.
    fn check_notes(&self, at: usize) {
        let device = &self.devices[at];
        let engine = device.engine().unwrap();
        let vault = device.host.vault.borrow().clone();
        let mut by_path: BTreeMap<String, Vec<String>> = BTreeMap::new();
        for memory in engine.list_memories(&MemoryFilter::default()).unwrap() {
            if memory.source_kind == SourceKind::Note {
                by_path.entry(memory.source_path.clone()).or_default().push(memory.summary);
            }
        }
        for (path, file) in vault.iter().filter(|(path, _)| is_note(path)) {
            let text = String::from_utf8(file.bytes.clone()).unwrap();
            if text.contains("#private") {
                continue;
            }
            let memories = by_path.remove(path).unwrap_or_default();
            let expected = format!("Remembered: {}.", text.trim());
            let source = engine.store().get_source(path).unwrap();
            if source.is_none_or(|source| source.sha256 != file_digest_hex(&file.bytes)) {
                self.fail(&format!("{}: {path} is not recorded as remembered in its current version", device.name));
            }
            let ok = if text.starts_with("NOTHING TO REMEMBER") || self.forgotten.contains(&expected) {
                memories.is_empty()
            } else {
                memories == [expected.clone()]
            };
            if !ok {
                self.fail(&format!(
                    "{}: {path} should be remembered once as \"{expected}\", has {memories:?}",
                    device.name
                ));
            }
        }
        if let Some((path, memories)) = by_path.into_iter().next() {
            self.fail(&format!(
                "{}: memories {memories:?} of {path}, which is not in the vault or not in scope",
                device.name
            ));
        }
    }
}

/// Whether the engine kept what it was told of `chunk` (the text of a one-line note, or typed
/// text): a memory of it, or a note of that text recorded (with nothing to remember).
fn kept(engine: &SimEngine, chunk: &str) -> bool {
    let summary = format!("Remembered: {chunk}.");
    let digest = file_digest_hex(format!("{chunk}\n").as_bytes());
    engine.list_memories(&MemoryFilter::default()).unwrap().iter().any(|memory| memory.summary == summary)
        || engine.store().list_sources().unwrap().iter().any(|source| source.sha256 == digest)
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|window| window == needle)
}

fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    haystack.windows(needle.len()).any(|window| window == needle)
}

fn simulate(seed: u64) {
    let mut sim = Sim::new(seed);
    for index in 0..STEPS {
        sim.step(index);
    }
    sim.drain();
}

#[test]
fn devices_sharing_a_vault_through_a_sync_tool_end_alike_for_many_seeds() {
    if let Some(seed) = std::env::var("SIMULATION_SEED").ok().and_then(|seed| seed.parse().ok()) {
        simulate(seed);
        return;
    }
    let seeds = std::env::var("SIMULATION_SEEDS").ok().and_then(|count| count.parse().ok()).unwrap_or(SEEDS);
    // `SIMULATION_SURVEY=1`: every seed runs, and the failures are listed at the end.
    if std::env::var("SIMULATION_SURVEY").is_ok() {
        std::panic::set_hook(Box::new(|_| {}));
        let failed: Vec<String> = (1..=seeds)
            .filter_map(|seed| {
                let outcome = std::panic::catch_unwind(|| simulate(seed));
                let message = outcome.err()?;
                let text = message.downcast_ref::<String>().cloned().unwrap_or_default();
                let first: String = text.lines().next().unwrap_or_default().chars().take(300).collect();
                Some(format!("seed {seed}: {first}"))
            })
            .collect();
        let _ = std::panic::take_hook();
        assert!(failed.is_empty(), "{} of {seeds} seeds failed:\n{}", failed.len(), failed.join("\n"));
        return;
    }
    for seed in 1..=seeds {
        simulate(seed);
    }
    let batched = BATCHED_CALLS.with(Cell::get);
    assert!(batched > seeds, "the simulation ingests in batches: {batched} batched calls in {seeds} seeds");
    assert!(REPLAYED_ENTRIES.with(Cell::get) > seeds * 10, "the devices replay each other's logs");
}
