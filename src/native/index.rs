//! `memory-agent index`: the command remembers the vault's notes itself, for a computer where
//! no Obsidian runs. Like the plugin's reconciliation at start: the vault's notes are compared
//! with what the index knows (modification time and size), new and changed ones are queued,
//! gone or left-out ones removed, and the queue is run until it is done — the same engine, the
//! same exclusion rules, the same reuse (an unchanged file or a chunk remembered elsewhere costs
//! no call). What it remembers goes to this device's log as it goes, so every device gets it
//! without paying again. It never runs beside the plugin (`coordination`).

use std::cell::Cell;
use std::collections::{HashMap, HashSet};
use std::path::Path;

use super::coordination::{fresh_plugin_heartbeats, IndexingMarker};
use super::credentials::CredentialOptions;
use super::reports::IndexReport;
use super::session::Session;
use crate::device::layout::device_log_folder;
use crate::domain::{Millis, Source};
use crate::engine::{Host, IngestFile, Progress, VaultFile};
use crate::hash::file_digest_hex;
use crate::llm::{Clock, HttpRequest, HttpResponse, HttpTransport, TransportError};

/// More new or changed notes than this are remembered only with `--yes` (the plugin asks
/// before a bulk ingest the same way).
pub const BULK_CONFIRM_NOTES: u64 = 50;
/// Work due within this long is waited for (another device's wait is two minutes by
/// default); work due later is left for the next run.
const LONGEST_WAIT_MS: Millis = 180_000;
/// The log is appended and the index saved after this many jobs (and at the end).
const CHECKPOINT_JOBS: u64 = 25;
/// Progress goes to stderr at most this often.
const PROGRESS_EVERY_MS: Millis = 1_000;

#[derive(Debug, Clone, Copy, Default)]
pub struct IndexOptions {
    /// Run even though a plugin heartbeat is fresh.
    pub force: bool,
    /// Go ahead with more than `BULK_CONFIRM_NOTES` notes to pay for.
    pub yes: bool,
}

/// A note file as the vault holds it now.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NoteFile {
    /// Vault path, `/`-separated.
    pub path: String,
    pub mtime: Millis,
    pub size: u64,
}

/// Every Markdown and plain-text file under `root`, leaving out dot-folders and the folders
/// in `skipped` (vault paths: the config folder, the memory folder). Symbolic links are not
/// followed: a note is a file of the vault.
pub fn note_files(root: &Path, skipped: &[&str]) -> Result<Vec<NoteFile>, String> {
    let mut found = Vec::new();
    let mut folders = vec![String::new()];
    while let Some(folder) = folders.pop() {
        let on_disk = if folder.is_empty() { root.to_path_buf() } else { root.join(&folder) };
        let entries =
            std::fs::read_dir(&on_disk).map_err(|error| format!("Cannot read {}: {error}", on_disk.display()))?;
        for entry in entries.flatten() {
            let Some(name) = entry.file_name().to_str().map(str::to_owned) else { continue };
            let path = if folder.is_empty() { name.clone() } else { format!("{folder}/{name}") };
            let Ok(metadata) = std::fs::symlink_metadata(entry.path()) else { continue };
            if metadata.is_dir() {
                if !name.starts_with('.') && !skipped.iter().any(|skip| skip.trim_matches('/') == path) {
                    folders.push(path);
                }
            } else if metadata.is_file() && crate::notes::FileKind::of(&name) == crate::notes::FileKind::Note {
                // Notes only: the command has no pdf.js, and images wait for Obsidian too.
                let mtime = metadata
                    .modified()
                    .ok()
                    .and_then(|time| time.duration_since(std::time::UNIX_EPOCH).ok())
                    .map_or(0, |since| since.as_millis() as Millis);
                found.push(NoteFile { path, mtime, size: metadata.len() });
            }
        }
    }
    found.sort_by(|a, b| a.path.cmp(&b.path));
    Ok(found)
}

/// What a run will change, before anything is.
#[derive(Debug, Default)]
struct IndexPlan {
    in_scope: u64,
    queue: Vec<String>,
    removals: Vec<String>,
    /// New or changed notes whose bytes differ from what is remembered of them: what may cost.
    costly: Vec<IngestFile>,
}

impl Session {
    /// Remembers the vault's new and changed notes and forgets the gone ones (see the module
    /// comment); refused while Obsidian runs the plugin on the vault unless `force`, and when
    /// more than `BULK_CONFIRM_NOTES` notes would be paid for unless `yes`.
    pub async fn index(&self, credentials: &CredentialOptions, options: IndexOptions) -> Result<IndexReport, String> {
        if !options.force {
            let running = fresh_plugin_heartbeats(&self.vault.plugin_folder_on_disk()?, self.host.now());
            if !running.is_empty() {
                return Err(format!(
                    "Memory Agent is running in Obsidian on this vault (device {}): it remembers the notes itself. \
Close Obsidian first, or pass --force if it is not running.",
                    running.join(", ")
                ));
            }
        }
        let plan = self.plan()?;
        // Always: work may be waiting or come due (a consolidation) even when no note changed.
        self.connect(credentials).await?;
        let costly_notes = plan.costly.len() as u64;
        if costly_notes > 0 {
            let estimate = self.engine.estimate_ingest(&plan.costly);
            eprintln!(
                "memory-agent: {} new or changed notes to read: about {} input and {} output tokens, about ${:.2} with {}.",
                estimate.notes, estimate.input_tokens, estimate.output_tokens, estimate.cost_usd, estimate.model_id
            );
            if costly_notes > BULK_CONFIRM_NOTES && !options.yes {
                return Err(format!(
                    "That is more than {BULK_CONFIRM_NOTES} notes: nothing was sent. Run again with --yes to remember them."
                ));
            }
        }
        self.resume_paused_by_user()?;
        self.engine.remove_notes(&plan.removals).map_err(|error| error.to_string())?;
        self.engine.enqueue_notes(&plan.queue, self.host.now()).map_err(|error| error.to_string())?;
        let device = self.device();
        let folder = self.vault.folder_to_write(&device_log_folder(&self.data.memory_folder, &device))?;
        let _marker = IndexingMarker::start(&folder, &device)?;
        let mut report = IndexReport {
            device,
            notes: plan.in_scope,
            queued: plan.queue.len() as u64,
            removed: plan.removals.len() as u64,
            ..IndexReport::default()
        };
        self.run_until_done(&mut report).await?;
        Ok(report)
    }

    /// The vault compared with the index: what to queue, what to remove, what may cost.
    fn plan(&self) -> Result<IndexPlan, String> {
        let settings = self.engine.settings();
        let skipped = [self.vault.config_dir(), self.data.memory_folder.as_str()];
        let files = note_files(self.vault.root(), &skipped)?;
        let known: HashMap<String, Source> = self
            .engine
            .store()
            .list_sources()
            .map_err(|error| error.to_string())?
            .into_iter()
            .map(|source| (source.path.clone(), source))
            .collect();
        let mut plan = IndexPlan::default();
        let mut kept = HashSet::new();
        for file in files {
            if self.engine.path_exclusion(&file.path).is_some() {
                continue;
            }
            let source = known.get(&file.path);
            if source.is_some_and(|source| source.mtime == file.mtime && source.size == file.size) {
                kept.insert(file.path);
                continue;
            }
            // New or changed: its properties may leave it out, and its bytes may be those
            // already remembered (copied by a sync tool, touched): then it costs nothing.
            if file.size <= settings.max_note_bytes {
                if let Ok(bytes) = std::fs::read(self.vault.root().join(&file.path)) {
                    if settings.scope.text_exclusion(&String::from_utf8_lossy(&bytes)).is_some() {
                        continue;
                    }
                    if source.is_none_or(|source| source.sha256 != file_digest_hex(&bytes)) {
                        plan.costly.push(IngestFile { path: file.path.clone(), size: bytes.len() as u64, pages: None });
                    }
                }
            }
            kept.insert(file.path.clone());
            plan.queue.push(file.path);
        }
        plan.removals = known.into_keys().filter(|path| !kept.contains(path)).collect();
        plan.removals.sort();
        plan.in_scope = kept.len() as u64;
        Ok(plan)
    }

    /// Runs the queue until nothing is due within `LONGEST_WAIT_MS`, appending the log and
    /// saving the index as it goes; a pause (settings, a spending limit) ends it with its reason.
    async fn run_until_done(&self, report: &mut IndexReport) -> Result<(), String> {
        let offset = self.host.utc_offset_minutes();
        let spent = |session: &Session| session.engine.spent(session.host.now(), offset).map(|spent| spent.this_month);
        let host = IndexHost::new(self, spent(self).map_err(|error| error.to_string())?);
        loop {
            let run = self.engine.run_due_work(&host).await.map_err(|error| error.to_string());
            let saved = self.save();
            let run = run?;
            saved?;
            report.done += run.done;
            report.skipped += run.skipped;
            report.failed += run.failed;
            if let Some(reason) = run.paused {
                return Err(format!("Stopped: {reason} What is left stays queued for the next run."));
            }
            match run.next_due_at {
                Some(at) if at - self.host.now() <= LONGEST_WAIT_MS => {
                    self.host.sleep(u64::try_from(at - self.host.now()).unwrap_or(0)).await;
                }
                _ => break,
            }
        }
        let status = self.engine.store().status().map_err(|error| error.to_string())?;
        report.waiting = status.queued + status.running;
        report.calls = host.calls.get();
        report.cost_usd = (spent(self).map_err(|error| error.to_string())? - host.spent_before).max(0.0);
        Ok(())
    }
}

/// The command's host while indexing: the native host, counting the requests it sends, telling
/// progress on stderr and checkpointing the session every `CHECKPOINT_JOBS` jobs.
struct IndexHost<'a> {
    session: &'a Session,
    calls: Cell<u64>,
    spent_before: f64,
    told_at: Cell<Millis>,
    saved_after: Cell<u64>,
}

impl<'a> IndexHost<'a> {
    fn new(session: &'a Session, spent_before: f64) -> Self {
        IndexHost { session, calls: Cell::new(0), spent_before, told_at: Cell::new(0), saved_after: Cell::new(0) }
    }

    fn tell(&self, progress: &Progress) {
        let now = self.now();
        let left = progress.queued + progress.running;
        if left > 0 && now - self.told_at.get() < PROGRESS_EVERY_MS {
            return;
        }
        self.told_at.set(now);
        let offset = self.session.host.utc_offset_minutes();
        let spent = self.session.engine.spent(now, offset).map_or(0.0, |spent| spent.this_month);
        eprintln!(
            "memory-agent: {} of {} notes · {} calls · ${:.4}",
            progress.finished,
            progress.finished + left,
            self.calls.get(),
            (spent - self.spent_before).max(0.0)
        );
    }

    fn checkpoint(&self, progress: &Progress) {
        if progress.finished < self.saved_after.get() + CHECKPOINT_JOBS || self.session.engine.store().in_transaction()
        {
            return;
        }
        self.saved_after.set(progress.finished);
        if let Err(error) = self.session.save() {
            eprintln!("memory-agent: {error} (tried again at the next checkpoint)");
        }
    }
}

impl HttpTransport for IndexHost<'_> {
    async fn send(&self, request: HttpRequest) -> Result<HttpResponse, TransportError> {
        self.calls.set(self.calls.get() + 1);
        self.session.host.send(request).await
    }
}

impl Clock for IndexHost<'_> {
    fn now(&self) -> Millis {
        self.session.host.now()
    }

    async fn sleep(&self, millis: u64) {
        self.session.host.sleep(millis).await;
    }
}

impl crate::images::ImageRenderer for IndexHost<'_> {
    async fn render_image(
        &self,
        bytes: &[u8],
        request: &crate::images::ImageRender,
    ) -> Result<crate::images::RenderedImage, crate::images::ImageError> {
        self.session.host.render_image(bytes, request).await
    }
}

impl Host for IndexHost<'_> {
    async fn read_file(&self, path: &str, max_bytes: u64) -> Result<Option<VaultFile>, String> {
        self.session.host.read_file(path, max_bytes).await
    }

    async fn extract_pdf(
        &self,
        bytes: &[u8],
        options: &crate::notes::pdf::PdfExtractOptions,
    ) -> Result<crate::notes::pdf::PdfContent, String> {
        self.session.host.extract_pdf(bytes, options).await
    }

    fn utc_offset_minutes(&self) -> i32 {
        self.session.host.utc_offset_minutes()
    }

    fn progress(&self, progress: &Progress) {
        self.tell(progress);
        self.checkpoint(progress);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::native::VaultDir;

    #[test]
    fn the_walk_finds_notes_and_leaves_out_dot_config_and_memory_folders() {
        let root = std::env::temp_dir().join(format!("memory-agent-walk-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        for folder in [".obsidian/plugins", ".trash", "Memory Agent/cli-1", "Trips/2026", "Settings"] {
            std::fs::create_dir_all(root.join(folder)).unwrap();
        }
        for file in [
            "Inbox.md",
            "Trips/Lisbon.md",
            "Trips/2026/Porto.md",
            "Trips/ticket.pdf",
            "Trips/boarding.PDF",
            "Trips/photo.png",
            "Trips/scan.heic",
            "notes.txt",
            ".obsidian/plugins/readme.md",
            ".trash/old.md",
            "Memory Agent/cli-1/000001.jsonl",
            "Memory Agent/readme.md",
        ] {
            std::fs::write(root.join(file), "# Note\n").unwrap();
        }
        let files = note_files(&root, &[".obsidian", "Memory Agent/"]).unwrap();
        let paths: Vec<&str> = files.iter().map(|file| file.path.as_str()).collect();
        assert_eq!(paths, ["Inbox.md", "Trips/2026/Porto.md", "Trips/Lisbon.md", "notes.txt"]);
        assert!(files.iter().all(|file| file.size == 7 && file.mtime > 0));
        let _ = std::fs::remove_dir_all(&root);
    }

    #[test]
    fn the_plan_follows_the_exclusions_and_counts_only_what_may_cost() {
        let root = std::env::temp_dir().join(format!("memory-agent-plan-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        std::fs::create_dir_all(root.join(".obsidian/plugins/memory-agent")).unwrap();
        std::fs::write(
            root.join(".obsidian/plugins/memory-agent/data.json"),
            r#"{"excludedFolders":["Private"],"excludedTags":["secret"]}"#,
        )
        .unwrap();
        std::fs::write(root.join(".obsidian/app.json"), r#"{"userIgnoreFilters":["/^Drafts\\//"]}"#).unwrap();
        for (path, text) in [
            ("Trips/Lisbon.md", "# Lisbon\n\nWe fly on 14 March.\n"),
            ("Private/diary.md", "# Diary\n"),
            ("Drafts/idea.md", "# Idea\n"),
            ("Work/plan.md", "---\ntags: secret\n---\n# Plan\n"),
            ("Work/off.md", "---\nmemory: false\n---\n# Off\n"),
            ("Memory conversations/chat.md", "# A saved answer\n"),
        ] {
            std::fs::create_dir_all(root.join(path).parent().unwrap()).unwrap();
            std::fs::write(root.join(path), text).unwrap();
        }
        let session = Session::open_as(VaultDir::open(&root, ".obsidian").unwrap(), "cli").unwrap();
        let plan = session.plan().unwrap();
        assert_eq!(plan.queue, ["Trips/Lisbon.md"]);
        let costly: Vec<(&str, u64)> = plan.costly.iter().map(|file| (file.path.as_str(), file.size)).collect();
        assert_eq!((plan.in_scope, costly), (1, vec![("Trips/Lisbon.md", 30)]));

        // Remembered already, then touched (a sync tool copied it): queued, but nothing to pay.
        let lisbon = root.join("Trips/Lisbon.md");
        let bytes = std::fs::read(&lisbon).unwrap();
        let store = session.engine.store();
        store
            .upsert_source(&Source {
                path: "Trips/Lisbon.md".into(),
                mtime: 1,
                size: bytes.len() as u64,
                sha256: file_digest_hex(&bytes),
                updated_at: 1,
                skipped: None,
            })
            .unwrap();
        store
            .upsert_source(&Source {
                path: "Gone.md".into(),
                mtime: 1,
                size: 1,
                sha256: String::new(),
                updated_at: 1,
                skipped: None,
            })
            .unwrap();
        let plan = session.plan().unwrap();
        assert_eq!((plan.queue.len(), plan.costly.len()), (1, 0));
        assert_eq!(plan.removals, ["Gone.md"]);
        let _ = std::fs::remove_dir_all(&root);
    }
}
