//! The seeded simulation (after FoundationDB's and TigerBeetle's): the engine and a model of
//! the plugin runtime on one virtual clock. A random schedule interleaves vault events
//! (create, modify, rename, delete, a note gaining an excluded tag), remember and forget,
//! pause and resume, unload and load, a sync tool replacing the database file, and faults
//! (throttling, 500 and 503, connection resets, failed vault reads, bad JSON, invalid tool
//! input, slow calls: about a third of the calls). After every step the user's word is
//! checked against what the engine did, and no job may have failed for a transient reason.
//!
//! A failing seed prints itself; replay it with
//! `SIMULATION_SEED=<seed> cargo test --test simulation -- --nocapture`.
//! `SIMULATION_SEEDS=<n>` runs more seeds (the soak: `npm run soak`).

mod support;

use std::cell::{Cell, RefCell};
use std::collections::{BTreeMap, BTreeSet};
use std::rc::Rc;

use futures::executor::LocalPool;
use futures::task::LocalSpawnExt;
use memory_agent::domain::{JobState, Millis, SourceKind};
use memory_agent::engine::{Engine, EngineSettings, Host, Progress, TextToRemember, VaultFile};
use memory_agent::hash::file_digest_hex;
use memory_agent::llm::TransportError;
use memory_agent::llm::{BedrockConfig, Clock, HttpRequest, HttpResponse, HttpTransport, RetryPolicy};
use memory_agent::notes::ScopeRules;
use memory_agent::store::rusqlite_driver::RusqliteDriver;
use memory_agent::store::{open_from_bytes, MemoryFilter};
use serde_json::{json, Value};
use support::fake_model;
use support::scripted_transport::Scripted;
use support::test_host::TestHost;

/// 2026-11-30T08:00:00Z
const NOW: Millis = 1_796_025_600_000;
const SEEDS: u64 = 200;
const STEPS: usize = 70;

type SimEngine = Engine<RusqliteDriver>;

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

/// The plugin's host as the core sees it: vault reads take a while (they cross to the main
/// thread), so vault events can land between a job's claim and its read.
#[derive(Clone)]
struct SimHost {
    inner: TestHost,
    rng: Rc<RefCell<Rng>>,
    /// While on, a few vault reads fail (a file busy or locked), as Bedrock calls do.
    faults: Rc<Cell<bool>>,
}

impl HttpTransport for SimHost {
    async fn send(&self, request: HttpRequest) -> Result<HttpResponse, TransportError> {
        self.inner.send(request).await
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
    fn utc_offset_minutes(&self) -> i32 {
        0
    }
    fn progress(&self, _: &Progress) {}
}

/// The model: the deterministic fake, with seeded faults and latency while `faults` is on.
fn model(rng: Rc<RefCell<Rng>>, faults: Rc<Cell<bool>>) -> impl Fn(&HttpRequest) -> Scripted {
    move |request| {
        if batched(request) {
            BATCHED_CALLS.with(|calls| calls.set(calls.get() + 1));
        }
        let mut rng = rng.borrow_mut();
        let latency = rng.below(6_000);
        if !faults.get() {
            return fake_model::answer(request).slow(latency / 10);
        }
        let reply = match rng.below(100) {
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
        reply.slow(latency)
    }
}

thread_local! {
    /// Batched ingest calls made, over every seed: the simulation must exercise them.
    static BATCHED_CALLS: Cell<u64> = const { Cell::new(0) };
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

fn connection() -> BedrockConfig {
    support::connection::test_connection(RetryPolicy { max_attempts: 2, base_delay_ms: 200, max_delay_ms: 2_000 })
}

/// What the plugin runtime is: loaded with an engine, or unloaded.
struct Loaded {
    engine: Rc<SimEngine>,
    running: Rc<Cell<bool>>,
}

struct Sim {
    seed: u64,
    rng: Rc<RefCell<Rng>>,
    host: SimHost,
    pool: LocalPool,
    loaded: Option<Loaded>,
    /// The database file on disk, and earlier versions of it (what a sync tool may bring back).
    disk: Vec<u8>,
    snapshots: Vec<Vec<u8>>,
    paused: bool,
    faults: Rc<Cell<bool>>,
    /// Notes with an excluded tag (their text must never be sent once it is).
    excluded: BTreeSet<String>,
    secrets: Vec<String>,
    /// Summaries of memories the user forgot.
    forgotten: BTreeSet<String>,
    /// Summaries that may come back: a sync tool brought back a file from before the forget.
    resurrectable: BTreeSet<String>,
    /// Notes deleted while unloaded: the plugin never heard of it, so a job queued for one
    /// before may wait (it reads nothing and ends at no cost, checked at the end).
    deleted_unseen: BTreeSet<String>,
    /// Every path deleted or renamed away (a file from before does not know of it).
    gone: BTreeSet<String>,
    /// Requests sent when work last had to stop (unload, pause): none may follow.
    sent_when_stopped: Option<usize>,
    notes: u32,
    version: u32,
    errors: Rc<RefCell<Vec<String>>>,
    log: Vec<String>,
}

impl Sim {
    fn new(seed: u64) -> Self {
        let rng = Rc::new(RefCell::new(Rng::new(seed)));
        let faults = Rc::new(Cell::new(true));
        let inner = TestHost::new(NOW);
        inner.bedrock.respond_with(model(rng.clone(), faults.clone()));
        let mut sim = Sim {
            seed,
            host: SimHost { inner, rng: rng.clone(), faults: faults.clone() },
            rng,
            pool: LocalPool::new(),
            loaded: None,
            disk: Vec::new(),
            snapshots: Vec::new(),
            paused: false,
            faults,
            excluded: BTreeSet::new(),
            secrets: Vec::new(),
            forgotten: BTreeSet::new(),
            resurrectable: BTreeSet::new(),
            deleted_unseen: BTreeSet::new(),
            gone: BTreeSet::new(),
            sent_when_stopped: None,
            notes: 0,
            version: 0,
            errors: Rc::default(),
            log: Vec::new(),
        };
        sim.load();
        sim
    }

    fn fail(&self, what: &str) -> ! {
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
        self.host.now()
    }

    fn engine(&self) -> Option<Rc<SimEngine>> {
        self.loaded.as_ref().map(|loaded| loaded.engine.clone())
    }

    fn sent(&self) -> usize {
        self.host.inner.bedrock.requests().len()
    }

    fn vault_paths(&self) -> Vec<String> {
        self.host.inner.vault.borrow().keys().cloned().collect()
    }

    fn pick_note(&self) -> Option<String> {
        let paths = self.vault_paths();
        (!paths.is_empty()).then(|| paths[self.roll(paths.len() as u64) as usize].clone())
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

    // The plugin runtime's lifecycle.

    /// Load: open the file on disk, take the settings, reconcile the vault (what changed
    /// while unloaded is queued, what is gone or excluded is removed).
    fn load(&mut self) {
        let store = open_from_bytes(&self.disk, RusqliteDriver::from_bytes)
            .unwrap_or_else(|error| self.fail(&format!("the database file does not open: {error}")));
        let engine = Rc::new(SimEngine::new(store, self.seed, self.now()).unwrap());
        engine.set_settings(EngineSettings {
            parallel_jobs: 2,
            job_retry_base_ms: 5_000,
            consolidation_threshold: 4,
            scope: ScopeRules { excluded_tags: vec!["private".into()], ..ScopeRules::default() },
            ..EngineSettings::default()
        });
        engine.configure_connection(Some(connection()), self.seed).unwrap();
        let paused_in_file = engine.paused().is_some_and(|pause| pause.by_user());
        if paused_in_file != self.paused {
            self.fail(&format!("the pause did not survive the restart: paused {} in the file", paused_in_file));
        }
        let now = self.now();
        for path in self.vault_paths() {
            if self.excluded.contains(&path) {
                engine.remove_note(&path).unwrap();
                continue;
            }
            let digest = file_digest_hex(&self.host.inner.vault.borrow()[&path].bytes);
            if engine.store().get_source(&path).unwrap().is_none_or(|source| source.sha256 != digest) {
                engine.enqueue_note(&path, now).unwrap();
            }
        }
        let gone: Vec<String> = engine
            .store()
            .list_sources()
            .unwrap()
            .into_iter()
            .map(|source| source.path)
            .filter(|path| !self.host.inner.vault.borrow().contains_key(path))
            .collect();
        engine.remove_notes(&gone).unwrap();
        self.loaded = Some(Loaded { engine, running: Rc::new(Cell::new(false)) });
        if !self.paused {
            self.sent_when_stopped = None;
        }
    }

    /// Unload: the engine stops at once, the last save writes what it has.
    fn unload(&mut self) {
        let Some(loaded) = self.loaded.take() else { return };
        loaded.engine.shut_down(self.now()).unwrap();
        self.disk = loaded.engine.store().export().unwrap();
        self.snapshots.push(self.disk.clone());
        self.sent_when_stopped = Some(self.sent());
    }

    fn save(&mut self) {
        if let Some(engine) = self.engine() {
            self.disk = engine.store().export().unwrap();
            self.snapshots.push(self.disk.clone());
            if self.snapshots.len() > 6 {
                self.snapshots.remove(0);
            }
            self.check_file();
        }
    }

    /// A sync tool puts an older version of the file in place; the plugin reloads it.
    fn sync_replaces_file(&mut self) {
        if self.snapshots.is_empty() {
            return;
        }
        let older = self.snapshots[self.roll(self.snapshots.len() as u64) as usize].clone();
        if let Some(loaded) = self.loaded.take() {
            loaded.engine.shut_down(self.now()).unwrap();
        }
        // The other file wins, its pause included; what was forgotten since may come back.
        let store = open_from_bytes(&older, RusqliteDriver::from_bytes).unwrap();
        self.paused = store.get_meta("paused_by_user").unwrap().is_some();
        self.resurrectable.extend(self.forgotten.iter().cloned());
        self.deleted_unseen.extend(self.gone.iter().cloned());
        self.disk = older;
        self.sent_when_stopped = self.paused.then(|| self.sent());
        self.load();
    }

    /// What the work runner does: one run at a time whenever the engine may work.
    fn kick(&mut self) {
        let Some(loaded) = &self.loaded else { return };
        if self.paused || loaded.running.get() {
            return;
        }
        loaded.running.set(true);
        let (engine, running, host, errors) =
            (loaded.engine.clone(), loaded.running.clone(), self.host.clone(), self.errors.clone());
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

    /// Lets the engine work for `millis` of virtual time.
    fn pass(&mut self, millis: Millis) {
        let end = self.now() + millis;
        loop {
            self.pool.run_until_stalled();
            self.kick();
            self.pool.run_until_stalled();
            let step = (end - self.now()).min(250);
            if step <= 0 {
                break;
            }
            self.host.inner.clock.advance_by(step);
        }
    }

    // One random step.

    fn step(&mut self, index: usize) {
        let action = self.roll(100);
        let engine = self.engine();
        let now = self.now();
        let description = match action {
            0..=17 => {
                self.notes += 1;
                let id = format!("n{}", self.notes);
                let path = format!("Notes/{id}.md");
                let text = self.note_text(&id);
                self.host.inner.write(&path, &text);
                if let Some(engine) = &engine {
                    engine.enqueue_note(&path, now).unwrap();
                }
                format!("create {path}")
            }
            18..=31 => {
                let Some(path) = self.pick_note() else { return };
                if self.excluded.contains(&path) {
                    return;
                }
                let id = path.trim_start_matches("Notes/").trim_end_matches(".md").to_owned();
                let text = self.note_text(&id);
                self.host.inner.write(&path, &text);
                if let Some(engine) = &engine {
                    engine.enqueue_note(&path, now).unwrap();
                }
                format!("modify {path}")
            }
            32..=39 => {
                let Some(from) = self.pick_note() else { return };
                self.notes += 1;
                let to = format!("Notes/n{}.md", self.notes);
                self.host.inner.rename(&from, &to);
                self.gone.insert(from.clone());
                if self.excluded.remove(&from) {
                    self.excluded.insert(to.clone());
                }
                match &engine {
                    Some(engine) => engine.rename_note(&from, &to, now).unwrap(),
                    None => {
                        // Unseen, a rename is a delete and a new note: what was forgotten of it
                        // is remembered again (telling renames apart then is issue 15's).
                        self.deleted_unseen.insert(from.clone());
                        self.resurrectable.extend(self.forgotten.iter().cloned());
                    }
                }
                format!("rename {from} -> {to}")
            }
            40..=46 => {
                let Some(path) = self.pick_note() else { return };
                self.host.inner.delete(&path);
                self.gone.insert(path.clone());
                self.excluded.remove(&path);
                match &engine {
                    Some(engine) => engine.remove_note(&path).map(|_| ()).unwrap(),
                    None => drop(self.deleted_unseen.insert(path.clone())),
                }
                format!("delete {path}")
            }
            47..=50 => {
                // The note gains an excluded tag with new, private text: it leaves the scope.
                let Some(path) = self.pick_note() else { return };
                let secret = format!("PRIVATE-{}-{}", self.seed, self.secrets.len());
                self.host.inner.write(&path, &format!("{secret} #private\n"));
                self.secrets.push(secret);
                self.excluded.insert(path.clone());
                if let Some(engine) = &engine {
                    engine.remove_note(&path).unwrap();
                }
                format!("exclude {path}")
            }
            51..=54 => {
                let Some(engine) = &engine else { return };
                let text = format!("Typed {}: Bob approved the plan.", self.roll(1_000_000));
                let typed = TextToRemember {
                    text,
                    source_path: String::new(),
                    kind: SourceKind::Text,
                    heading: None,
                    line_start: None,
                    note_date: None,
                };
                engine.enqueue_text(&typed, now).unwrap();
                "remember typed text".into()
            }
            55..=60 => {
                let Some(engine) = &engine else { return };
                let memories = engine.list_memories(&MemoryFilter::default()).unwrap();
                if memories.is_empty() {
                    return;
                }
                let memory = &memories[self.roll(memories.len() as u64) as usize];
                engine.forget_memory(&memory.id).unwrap();
                self.forgotten.insert(memory.summary.clone());
                format!("forget {} ({})", memory.id.0, memory.source_path)
            }
            61..=64 => {
                let Some(engine) = &engine else { return };
                if self.paused {
                    engine.resume().unwrap();
                    self.paused = false;
                    self.sent_when_stopped = None;
                    "resume".into()
                } else {
                    engine.pause().unwrap();
                    self.paused = true;
                    self.sent_when_stopped = Some(self.sent());
                    "pause".into()
                }
            }
            65..=69 => {
                if self.loaded.is_some() {
                    self.unload();
                    "unload".into()
                } else {
                    self.load();
                    "load".into()
                }
            }
            70..=72 => {
                self.sync_replaces_file();
                "a sync tool replaces the database file".into()
            }
            73..=80 => {
                self.save();
                "checkpoint".into()
            }
            _ => "time passes".into(),
        };
        self.log.push(format!("{index}: {description}"));
        let wait = self.roll(3_000) as Millis;
        self.pass(wait);
        self.check();
    }

    // The invariants.

    fn check(&self) {
        if let Some(error) = self.errors.borrow().first() {
            self.fail(&format!("a run failed: {error}"));
        }
        if let Some(count) = self.sent_when_stopped {
            let sent = self.sent();
            if sent > count {
                let last = &self.host.inner.bedrock.requests()[sent - 1];
                self.fail(&format!("{} request(s) sent after unload or while paused: {}", sent - count, last.body));
            }
        }
        for request in self.host.inner.bedrock.requests() {
            if let Some(secret) = self.secrets.iter().find(|secret| request.body.contains(secret.as_str())) {
                self.fail(&format!("excluded text {secret} was sent"));
            }
        }
        let Some(engine) = self.engine() else { return };
        let vault = self.host.inner.vault.borrow();
        let jobs = engine.store().list_jobs(None).unwrap();
        for source in engine.store().list_sources().unwrap() {
            if !vault.contains_key(&source.path) || self.excluded.contains(&source.path) {
                self.fail(&format!("a source record for {}, which is deleted or excluded", source.path));
            }
        }
        for memory in engine.list_memories(&MemoryFilter::default()).unwrap() {
            let note = memory.source_kind == SourceKind::Note;
            if note && (!vault.contains_key(&memory.source_path) || self.excluded.contains(&memory.source_path)) {
                self.fail(&format!("memory {} of {}, which is deleted or excluded", memory.id.0, memory.source_path));
            }
        }
        // Only wrong answers end a job as failed, after the bound; the world's faults never do.
        let bound = engine.settings().max_job_attempts;
        for job in jobs.iter().filter(|job| job.state == JobState::Failed) {
            let reason = job.last_error.as_deref().unwrap_or_default();
            if job.attempts < bound || !reason.starts_with(&format!("Failed after {bound} tries: ")) {
                self.fail(&format!("a job failed for a transient reason, or before its bound: {job:?}"));
            }
        }
        for job in jobs.iter().filter(|job| job.state != JobState::Running) {
            let Some(path) = job.key.strip_prefix("note:") else { continue };
            // Two waits are allowed, as they cost nothing and send nothing: a note deleted where
            // the plugin could not see it, and a note renamed while its job ran, queued again
            // under its new name before anyone read there that it carries an excluded tag (the
            // core reads it, finds the tag, and ends the job without a call).
            let unseen = self.deleted_unseen.contains(path) && !vault.contains_key(path);
            let tag_unread = job.state == JobState::Queued && self.excluded.contains(path);
            if (!vault.contains_key(path) && !unseen) || (self.excluded.contains(path) && !tag_unread) {
                self.fail(&format!("a {:?} job for {path}, which is deleted or excluded: {job:?}", job.state));
            }
        }
    }

    /// The saved file opens, and nothing forgotten is in its bytes.
    fn check_file(&self) {
        let store = open_from_bytes(&self.disk, RusqliteDriver::from_bytes)
            .unwrap_or_else(|error| self.fail(&format!("the saved file does not open: {error}")));
        let live: BTreeSet<String> =
            store.list_memories(&MemoryFilter::default()).unwrap().into_iter().map(|memory| memory.summary).collect();
        for summary in self.forgotten.iter().filter(|summary| !live.contains(*summary)) {
            if contains(&self.disk, summary.as_bytes()) {
                self.fail(&format!("the forgotten summary \"{summary}\" is still in the file's bytes"));
            }
        }
    }

    /// The end: faults stop, the user resumes; when the work drains every note in the
    /// vault and in scope is remembered exactly once, and nothing else.
    fn drain(&mut self) {
        self.faults.set(false);
        if self.loaded.is_none() {
            self.load();
        }
        let engine = self.engine().unwrap();
        engine.resume().unwrap();
        self.paused = false;
        self.sent_when_stopped = None;
        engine.retry_failed(self.now()).unwrap();
        // Long enough for a job waiting out the longest backoff (an hour).
        for _ in 0..1_500 {
            self.pass(5_000);
            let status = engine.store().status().unwrap();
            if status.queued == 0 && status.running == 0 && !self.loaded.as_ref().unwrap().running.get() {
                break;
            }
        }
        let status = engine.store().status().unwrap();
        if status.queued + status.running + status.failed > 0 {
            self.fail(&format!("work did not drain: {status:?}"));
        }
        self.check();
        self.save();
        let vault = self.host.inner.vault.borrow().clone();
        let mut by_path: BTreeMap<String, Vec<String>> = BTreeMap::new();
        for memory in engine.list_memories(&MemoryFilter::default()).unwrap() {
            if memory.source_kind == SourceKind::Note {
                by_path.entry(memory.source_path.clone()).or_default().push(memory.summary);
            }
        }
        for (path, file) in &vault {
            if self.excluded.contains(path) {
                continue;
            }
            let text = String::from_utf8(file.bytes.clone()).unwrap();
            let memories = by_path.remove(path).unwrap_or_default();
            let expected = format!("Remembered: {}.", text.trim());
            let source = engine.store().get_source(path).unwrap();
            if source.is_none_or(|source| source.sha256 != file_digest_hex(&file.bytes)) {
                self.fail(&format!("{path} is not recorded as remembered in its current version"));
            }
            let ok = if text.starts_with("NOTHING TO REMEMBER") {
                memories.is_empty()
            } else if self.forgotten.contains(&expected) {
                memories.is_empty() || (self.resurrectable.contains(&expected) && memories == [expected.clone()])
            } else {
                memories == [expected.clone()]
            };
            if !ok {
                self.fail(&format!("{path} should be remembered once as \"{expected}\", has {memories:?}"));
            }
        }
        if let Some((path, memories)) = by_path.into_iter().next() {
            self.fail(&format!("memories {memories:?} of {path}, which is not in the vault or not in scope"));
        }
    }
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
fn the_users_word_wins_over_work_in_flight_for_many_seeds() {
    if let Some(seed) = std::env::var("SIMULATION_SEED").ok().and_then(|seed| seed.parse().ok()) {
        simulate(seed);
        return;
    }
    let seeds = std::env::var("SIMULATION_SEEDS").ok().and_then(|count| count.parse().ok()).unwrap_or(SEEDS);
    for seed in 1..=seeds {
        simulate(seed);
    }
    assert!(BATCHED_CALLS.with(Cell::get) > seeds, "the simulation ingests in batches");
}
