//! One use of the memory from outside Obsidian, as a device of its own: the command's own
//! index (`memory-<device>.db` in the plugin's folder, which only it writes), brought up to
//! date at open by replaying every device's log in the vault (`device_log`), and saved at the
//! end (`save`) after its own new entries are appended to its log folder. So `recall`, `ask`
//! and `status` see what every device remembered, and what the command remembers reaches every
//! device through its log, with no model call there.

use std::cell::Cell;

use super::credentials::{aws_setup, CredentialOptions};
use super::device::device_id;
use super::device_log::{replay_logs, sync_log};
use super::host::NativeHost;
use super::plugin_data::{regex_filter_rule, PluginData};
use super::reports::{
    AskReport, CitedSource, RecallReport, RecalledInsight, RecalledMemory, RememberReport, RememberedMemory,
    StatusReport,
};
use super::vault::VaultDir;
use crate::agents::answer_pieces::{render_pieces, AnswerPiece};
use crate::agents::query::QuestionScope;
use crate::calendar::CalendarDate;
use crate::device::layout::device_log_folder;
use crate::domain::{DateSource, JobState, Memory, MemoryId, SourceKind, TextToRemember};
use crate::engine::Engine;
use crate::engine::Host;
use crate::llm::{default_model_for, previous_default_model_for, Clock};
use crate::notes::{parse_fragment, FilePlace};
use crate::select::event_day;
use crate::store::open_from_bytes;
use crate::store::rusqlite_driver::RusqliteDriver;

/// More than this is not a thing to remember but a document: put it in a note.
pub const MAX_REMEMBER_TEXT_BYTES: usize = 32 * 1024;

pub struct Session {
    pub(super) engine: Engine<RusqliteDriver>,
    pub(super) host: NativeHost,
    pub(super) vault: VaultDir,
    pub(super) data: PluginData,
    /// The index's vault path.
    index_path: String,
    /// The index's size as last read or written.
    index_bytes: Cell<u64>,
    /// Started from the legacy single database: saved as this device's index even when
    /// nothing else changed.
    migrated: Cell<bool>,
}

impl Session {
    /// Opens this computer's index of the vault's memory (see `device`), replaying what every
    /// device's log added since.
    pub fn open(vault: VaultDir) -> Result<Self, String> {
        Self::open_as(vault, &device_id()?)
    }

    /// `open` as the device `device`.
    pub fn open_as(vault: VaultDir, device: &str) -> Result<Self, String> {
        let data = vault.plugin_data()?;
        for problem in data.problems() {
            eprintln!("memory-agent: data.json: {problem} (its default is used, as in the plugin)");
        }
        let index_path = vault.own_index_path(device);
        // No index yet: the single database of an older Memory Agent is where this device
        // starts (its migration queues everything it holds for this device's log; no model call).
        let (bytes, migrated) = match vault.read_database(&index_path)? {
            Some(bytes) => (bytes, false),
            // One that cannot be read is no reason to stop: the logs hold every device's memory.
            None => match vault.read_database(&vault.database_path(&data)) {
                Ok(Some(bytes)) => (bytes, true),
                Ok(None) => (Vec::new(), false),
                Err(problem) => {
                    eprintln!("memory-agent: {problem}: not migrated, the index starts from the logs");
                    (Vec::new(), false)
                }
            },
        };
        let store = match open_from_bytes(&bytes, RusqliteDriver::from_bytes) {
            Err(error) if migrated => {
                eprintln!(
                    "memory-agent: {}: {error}: not migrated, the index starts from the logs",
                    vault.database_path(&data)
                );
                open_from_bytes(&[], RusqliteDriver::from_bytes)
            }
            opened => opened,
        }
        .map_err(|error| format!("{index_path}: {error}"))?;
        let removed = store.foreign_objects_removed();
        if !removed.is_empty() {
            eprintln!("memory-agent: {index_path} held {}, removed", crate::store::describe_removed(removed));
        }
        store.set_device(device);
        let host = NativeHost::new(vault.clone());
        let now = host.now();
        let engine = Engine::new(store, id_seed(device, now), now).map_err(|error| error.to_string())?;
        let ignore_filters = vault.ignore_filters();
        engine.set_host_rule(regex_filter_rule(&ignore_filters));
        // Each device consolidates the memories it made (no other device does: two would pay for
        // the same insight), the command too: when enough of its memories wait, or a day after
        // its last consolidation. Not at the start of every run: each run is a start of its own
        // and would pay for a consolidation every time.
        engine.set_settings(data.engine_settings(vault.config_dir(), ignore_filters));
        engine.consolidation_due(now).map_err(|error| error.to_string())?;
        let session = Session {
            engine,
            host,
            vault,
            data,
            index_path,
            index_bytes: Cell::new(bytes.len() as u64),
            migrated: Cell::new(migrated),
        };
        session.replay()?;
        Ok(session)
    }

    /// Replays what the vault's logs added since the last time.
    pub fn replay(&self) -> Result<(), String> {
        let replayed = replay_logs(&self.engine, &self.vault, &self.data.memory_folder, self.host.now())?;
        for problem in &replayed.problems {
            if let Some(error) = &problem.error {
                eprintln!("memory-agent: {} could not be replayed: {error}", problem.path);
            }
            if problem.unreadable > 0 {
                let first = problem.first_skipped.as_ref().map(|skipped| {
                    let at = skipped.line.map_or(format!("byte {}", skipped.byte), |line| format!("line {line}"));
                    format!(" (the first at {at}: {})", skipped.reason)
                });
                eprintln!(
                    "memory-agent: {} damaged or refused line(s) of {} were skipped{}",
                    problem.unreadable,
                    problem.path,
                    first.unwrap_or_default()
                );
            }
            if problem.newer {
                eprintln!(
                    "memory-agent: {} holds lines from a newer Memory Agent: they are read once this one is updated",
                    problem.path
                );
            }
        }
        Ok(())
    }

    /// Appends this device's new entries to its log, then saves the index when anything
    /// changed (the log first: a crash between the two only writes entries twice). The logs
    /// are replayed once more first: another command of this device (an MCP server beside an
    /// `index`) may have appended meanwhile, and the append moves this device's cursor past
    /// its lines.
    pub fn save(&self) -> Result<(), String> {
        // What it found was told at open.
        replay_logs(&self.engine, &self.vault, &self.data.memory_folder, self.host.now())?;
        sync_log(&self.engine, &self.vault, &self.data.memory_folder, self.host.now())?;
        let store = self.engine.store();
        if store.is_dirty() || self.migrated.get() {
            let bytes = store.export().map_err(|error| error.to_string())?;
            self.vault.write_database(&self.index_path, &bytes)?;
            self.index_bytes.set(bytes.len() as u64);
            self.migrated.set(false);
        }
        Ok(())
    }

    /// `result`, once the session is saved (also when `result` is an error: what was replayed
    /// or queued is kept).
    pub fn finish<T>(self, result: Result<T, String>) -> Result<T, String> {
        let saved = self.save();
        let value = result?;
        saved?;
        Ok(value)
    }

    /// A pause by the user can only come from the plugin's database this index started from
    /// (the command has no pause of its own): asking the command to remember lifts it.
    pub(super) fn resume_paused_by_user(&self) -> Result<(), String> {
        if self.engine.paused().is_some_and(|pause| pause.by_user()) {
            self.engine.resume().map_err(|error| error.to_string())?;
        }
        Ok(())
    }

    pub fn device(&self) -> String {
        self.engine.store().device()
    }

    /// Connects the engine to Bedrock with this computer's AWS credentials: the model the
    /// plugin's settings name, else the region's default (falling back to the previous Haiku
    /// when the account may not call it).
    pub(super) async fn connect(&self, credentials: &CredentialOptions) -> Result<(), String> {
        let setup = aws_setup(credentials, &self.data.region).await?;
        let model = self.data.model_id.trim();
        let typed = !model.is_empty();
        let model = if typed { model.to_owned() } else { default_model_for(&setup.region) };
        let fallback = (!typed).then(|| previous_default_model_for(&setup.region));
        let mut config = setup.bedrock_config(model)?;
        config.fallback_model_id = fallback;
        self.engine.configure_connection(Some(config), self.host.now() as u64).map_err(|error| error.to_string())
    }

    /// What the selection would give the model for `question`, from the memories inside
    /// `scope`: no model call, no cost.
    pub fn recall(
        &self,
        question: &str,
        budget_tokens: Option<usize>,
        scope: &QuestionScope,
    ) -> Result<RecallReport, String> {
        if question.trim().is_empty() {
            return Err("Type a question first.".into());
        }
        let within = scope.memories().map_err(|error| error.to_string())?;
        let offset = self.host.utc_offset_minutes();
        let today = CalendarDate::at(self.host.now(), offset);
        let selection = self
            .engine
            .recall(question, today, offset, budget_tokens, Some(&within))
            .map_err(|error| error.to_string())?;
        let memories = selection
            .packed
            .memories
            .iter()
            .map(|memory| {
                let place = FilePlace::of_memory(memory);
                RecalledMemory {
                    id: memory.id.0.clone(),
                    date: Some(event_day(memory, offset).to_string()),
                    source_path: memory.source_path.clone(),
                    heading: memory.position.heading.clone(),
                    line_start: memory.position.line_start,
                    file_kind: place.file_kind,
                    page: place.page,
                    last_page: place.last_page,
                    summary: memory.summary.clone(),
                    facts: memory.facts.clone(),
                    also_on: memory.also_on.clone(),
                    date_source: match (&memory.happened_on, memory.date_source) {
                        (None, _) => "made".into(),
                        (Some(_), DateSource::Text) => "text".into(),
                        (Some(_), DateSource::NoteName) => "note_name".into(),
                        (Some(_), DateSource::NoteProperty) => "note_property".into(),
                        (Some(_), DateSource::FileMetadata) => "file_metadata".into(),
                    },
                    entities: memory.entities.iter().map(|entity| entity.name.clone()).collect(),
                    importance: memory.importance,
                }
            })
            .collect();
        let insights = selection
            .packed
            .insights
            .iter()
            .map(|insight| RecalledInsight {
                id: insight.id.0.clone(),
                insight: insight.insight.clone(),
                memory_ids: insight.memory_ids.iter().map(|id| id.0.clone()).collect(),
            })
            .collect();
        Ok(RecallReport {
            question: question.trim().to_owned(),
            memories,
            insights,
            memories_total: selection.memories_total,
            insights_total: selection.insights_total,
            tokens: selection.packed.tokens,
        })
    }

    /// The QueryAgent's answer from the memories inside `scope`, its citations drawn as their
    /// numbers in the sources, which are resolved to their notes.
    pub async fn ask(
        &self,
        question: &str,
        scope: &QuestionScope,
        credentials: &CredentialOptions,
    ) -> Result<AskReport, String> {
        self.connect(credentials).await?;
        let answer = self
            .engine
            .ask_follow_up(&self.host, question, &[], scope, false)
            .await
            .map_err(|error| error.to_string())?;
        let mut sources = Vec::with_capacity(answer.citations.len());
        for citation in &answer.citations {
            debug_assert_eq!(citation.number, sources.len() + 1, "sources are listed by their numbers");
            let ids: Vec<MemoryId> = citation.memory_ids.iter().map(|id| MemoryId(id.clone())).collect();
            let mut connects: Vec<String> = self
                .engine
                .store()
                .get_memories(&ids)
                .map_err(|error| error.to_string())?
                .into_iter()
                .map(|memory| memory.source_path)
                .collect();
            connects.dedup();
            sources.push(CitedSource {
                kind: citation.kind.to_owned(),
                id: citation.id.clone(),
                summary: citation.summary.clone(),
                source_path: citation.source_path.clone(),
                heading: citation.heading.clone(),
                line_start: citation.line_start,
                file_kind: citation.file_kind,
                page: citation.page,
                last_page: citation.last_page,
                connects,
            });
        }
        let cost = answer.cost.as_ref();
        Ok(AskReport {
            question: question.trim().to_owned(),
            answer: numbered_text(&answer.pieces),
            sources,
            input_tokens: cost.map_or(0, |cost| {
                cost.usage.input_tokens + cost.usage.cache_read_tokens + cost.usage.cache_write_tokens
            }),
            output_tokens: cost.map_or(0, |cost| cost.usage.output_tokens),
            cost_usd: cost.map_or(0.0, |cost| cost.usd),
        })
    }

    /// Remembers `text` now: the IngestAgent makes its memory with this computer's AWS
    /// credentials (with whatever other work is due), and the memory goes to this device's log
    /// at `save`. When the model fails, the work stays queued in the index and is tried again
    /// by the next `remember` or `index` (after the wait its reason names).
    pub async fn remember(&self, text: &str, credentials: &CredentialOptions) -> Result<RememberReport, String> {
        let text = text_to_remember(text)?;
        // Where the memory will be written is checked before anything is paid for.
        self.vault.folder_to_write(&device_log_folder(&self.data.memory_folder, &self.device()))?;
        self.connect(credentials).await?;
        let typed = TextToRemember {
            text: text.to_owned(),
            source_path: String::new(),
            kind: SourceKind::Text,
            heading: None,
            line_start: None,
            note_date: None,
        };
        self.resume_paused_by_user()?;
        let job = self.engine.enqueue_text(&typed, self.host.now()).map_err(|error| error.to_string())?;
        let report = self.engine.run_due_work(&self.host).await.map_err(|error| error.to_string())?;
        let store = self.engine.store();
        if let Some(left) = store.get_job(job).map_err(|error| error.to_string())? {
            let reason = match (&left.state, &left.last_error, &report.paused) {
                (_, _, Some(paused)) => paused.clone(),
                (_, Some(error), None) => error.clone(),
                (JobState::Failed, None, None) => "it failed.".to_owned(),
                _ => "it did not finish.".to_owned(),
            };
            return Err(format!(
                "Nothing was remembered yet: {reason} The text stays queued in this computer's index and is tried \
again by the next `memory-agent remember` or `memory-agent index`."
            ));
        }
        let chunks = parse_fragment(text, self.engine.settings().max_chunk_tokens).chunks;
        let mut memories: Vec<Memory> = Vec::new();
        for chunk in &chunks {
            let found = store
                .find_memory_by_content("", SourceKind::Text, &chunk.content_hash)
                .map_err(|error| error.to_string())?;
            memories.extend(found.filter(|memory| !memories.iter().any(|kept| kept.id == memory.id)));
        }
        let offset = self.host.utc_offset_minutes();
        let memories: Vec<RememberedMemory> = memories
            .iter()
            .map(|memory| RememberedMemory {
                id: memory.id.0.clone(),
                summary: memory.summary.clone(),
                date: event_day(memory, offset).to_string(),
            })
            .collect();
        let how = if memories.is_empty() {
            "Nothing in it was worth a memory.".to_owned()
        } else {
            format!("Remembered on this device ({}); every device gets it from its log.", self.device())
        };
        Ok(RememberReport { memories, how })
    }

    /// The memory's size and the work waiting in this device's index.
    pub fn status(&self) -> Result<StatusReport, String> {
        let store = self.engine.store();
        let status = store.status().map_err(|error| error.to_string())?;
        let region = self.data.region.clone();
        let model = self.data.model_id.trim();
        Ok(StatusReport {
            vault: self.vault.root().display().to_string(),
            device: self.device(),
            database: self.index_path.clone(),
            database_bytes: self.index_bytes.get(),
            memories: status.memories,
            insights: status.insights,
            notes: store.list_sources().map_err(|error| error.to_string())?.len() as u64,
            queued_jobs: status.queued + status.running,
            failed_jobs: status.failed,
            paused: self.engine.paused().is_some(),
            model_id: if model.is_empty() { default_model_for(&region) } else { model.to_owned() },
            region,
        })
    }
}

/// The answer with each run of citations as their numbers in `sources`: `[1]`, `[1, 2]`.
fn numbered_text(pieces: &[AnswerPiece]) -> String {
    render_pieces(pieces, |numbers| {
        let numbers: Vec<String> = numbers.iter().map(usize::to_string).collect();
        format!("[{}]", numbers.join(", "))
    })
}

/// The seed of the ids this session makes: the time and the device, so two computers
/// remembering in the same millisecond never make the same id.
fn id_seed(device: &str, now: crate::domain::Millis) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    (device, now).hash(&mut hasher);
    hasher.finish()
}

/// The text to remember, trimmed; refused when empty, too long or binary.
fn text_to_remember(text: &str) -> Result<&str, String> {
    let text = text.trim();
    if text.is_empty() {
        return Err("Nothing to remember: the text is empty.".into());
    }
    if text.len() > MAX_REMEMBER_TEXT_BYTES {
        return Err(format!(
            "The text is {} KB; at most {} KB can be remembered at once. Put longer text in a note.",
            text.len() / 1024,
            MAX_REMEMBER_TEXT_BYTES / 1024
        ));
    }
    if text.contains('\0') {
        return Err("The text looks binary (it holds a NUL character): only text can be remembered.".into());
    }
    Ok(text)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::{JobWork, NoteJob, Position};
    use crate::store::{NewJob, SqlDriver};

    fn typed_memory(id: &str) -> Memory {
        Memory {
            id: MemoryId(id.into()),
            source_path: String::new(),
            source_kind: SourceKind::Text,
            position: Position::default(),
            raw_text: "Typed.".into(),
            summary: format!("Alice approved budget {id}."),
            entities: Vec::new(),
            topics: Vec::new(),
            importance: 0.5,
            happened_on: None,
            also_on: Vec::new(),
            date_source: Default::default(),
            facts: Vec::new(),
            created_at: 1,
            updated_at: 1,
            consolidated: false,
            content_hash: None,
        }
    }

    /// A vault folder of its own for one test.
    fn vault(test: &str) -> (std::path::PathBuf, VaultDir) {
        let root = std::env::temp_dir().join(format!("memory-agent-session-{test}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        std::fs::create_dir_all(root.join(".obsidian/plugins/memory-agent")).unwrap();
        let vault = VaultDir::open(&root, ".obsidian").unwrap();
        (root, vault)
    }

    fn memory_ids(session: &Session) -> Vec<String> {
        let mut ids: Vec<String> =
            session.engine.list_memories(&Default::default()).unwrap().into_iter().map(|memory| memory.id.0).collect();
        ids.sort();
        ids
    }

    #[test]
    fn a_legacy_database_becomes_this_devices_index_and_log_and_is_never_written() {
        let (root, vault) = vault("legacy");
        let store = open_from_bytes(&[], RusqliteDriver::from_bytes).unwrap();
        for id in ["m1", "m2", "m3"] {
            store.insert_memory(&typed_memory(id)).unwrap();
        }
        let work = JobWork::IngestSource(NoteJob { path: "a.md".into(), pay_after: None, confirmed: false });
        store.enqueue_job(&NewJob { key: "a.md".into(), work }, 1).unwrap();
        store.claim_next_job(2).unwrap().unwrap();
        // Opening puts the interrupted job back in the queue: an update of `jobs`.
        store
            .driver()
            .execute_batch("CREATE TRIGGER wipe AFTER UPDATE ON jobs BEGIN DELETE FROM memories; END;")
            .unwrap();
        let bytes = store.export().unwrap();
        let legacy = root.join(".obsidian/plugins/memory-agent/memory.db");
        std::fs::write(&legacy, &bytes).unwrap();

        let session = Session::open_as(vault.clone(), "cli-a").unwrap();
        let status = session.status().unwrap();
        assert_eq!((status.memories, status.queued_jobs), (3, 1), "the trigger did not run");
        assert_eq!(status.database, ".obsidian/plugins/memory-agent/memory-cli-a.db");
        assert_eq!(session.engine.store().foreign_objects_removed().len(), 1);
        session.save().unwrap();
        assert_eq!(std::fs::read(&legacy).unwrap(), bytes, "the command wrote the legacy database");
        assert!(root.join(".obsidian/plugins/memory-agent/memory-cli-a.db").is_file());
        let log = std::fs::read_to_string(root.join("Memory Agent/cli-a/000001.jsonl")).unwrap();
        assert_eq!(log.lines().filter(|line| line.contains(r#""op":"memory""#)).count(), 3, "{log}");

        // Another computer, after the legacy file is gone: the memory arrives by the log.
        std::fs::remove_file(&legacy).unwrap();
        let other = Session::open_as(vault.clone(), "cli-b").unwrap();
        assert_eq!(memory_ids(&other), ["m1", "m2", "m3"]);
        other.save().unwrap();
        assert!(!root.join("Memory Agent/cli-b").exists(), "what it replayed is not its own to write");
        // The first one again: its own index, its cursors; nothing new.
        let again = Session::open_as(vault, "cli-a").unwrap();
        assert_eq!(memory_ids(&again), ["m1", "m2", "m3"]);
        assert_eq!(again.engine.outgoing_log(5).unwrap().entries, 0);
        let _ = std::fs::remove_dir_all(&root);
    }

    #[test]
    fn what_one_device_remembers_and_forgets_reaches_the_other_through_the_logs() {
        let (root, vault) = vault("two-devices");
        let laptop = Session::open_as(vault.clone(), "laptop").unwrap();
        laptop.engine.store().insert_memory(&typed_memory("m1")).unwrap();
        laptop.engine.store().insert_memory(&typed_memory("m2")).unwrap();
        laptop.save().unwrap();

        let desktop = Session::open_as(vault.clone(), "desktop").unwrap();
        assert_eq!(memory_ids(&desktop), ["m1", "m2"]);
        let recalled = desktop.recall("What did Alice approve?", None, &QuestionScope::default()).unwrap();
        assert_eq!(recalled.memories_total, 2);
        desktop.engine.forget_memory(&MemoryId("m1".into())).unwrap();
        desktop.save().unwrap();
        assert!(root.join("Memory Agent/desktop/000001.jsonl").is_file());

        let laptop = Session::open_as(vault.clone(), "laptop").unwrap();
        assert_eq!(memory_ids(&laptop), ["m2"], "the forget travelled");

        // A line still being written (no newline yet) waits; once whole, it is read.
        let log = root.join("Memory Agent/laptop/000001.jsonl");
        let mut other = typed_memory("m3");
        other.summary = "Bob booked the flight.".into();
        let line = crate::store::log_line(9, &crate::store::LogEntry::Memory { memory: other }).unwrap();
        let whole = std::fs::read(&log).unwrap();
        std::fs::write(&log, [&whole[..], &line.as_bytes()[..20]].concat()).unwrap();
        let desktop = Session::open_as(vault.clone(), "desktop").unwrap();
        assert_eq!(memory_ids(&desktop), ["m2"]);
        desktop.save().unwrap();
        std::fs::write(&log, [&whole[..], line.as_bytes(), b"\n"].concat()).unwrap();
        let desktop = Session::open_as(vault, "desktop").unwrap();
        assert_eq!(memory_ids(&desktop), ["m2", "m3"]);
        let _ = std::fs::remove_dir_all(&root);
    }

    #[test]
    fn two_commands_of_one_device_at_once_lose_nothing() {
        let (root, vault) = vault("same-device");
        let (mcp, index) =
            (Session::open_as(vault.clone(), "cli").unwrap(), Session::open_as(vault.clone(), "cli").unwrap());
        mcp.engine.store().insert_memory(&typed_memory("m1")).unwrap();
        index.engine.store().insert_memory(&typed_memory("m2")).unwrap();
        mcp.save().unwrap();
        index.save().unwrap();
        assert_eq!(memory_ids(&index), ["m1", "m2"], "the other's line was replayed before the append");
        assert_eq!(memory_ids(&Session::open_as(vault, "cli").unwrap()), ["m1", "m2"]);
        let _ = std::fs::remove_dir_all(&root);
    }

    #[test]
    fn recall_names_a_pdfs_page_and_an_images_kind() {
        let (root, vault) = vault("pdf-pages");
        let session = Session::open_as(vault, "cli").unwrap();
        let pdf = Memory {
            source_path: "Papers/Budget.pdf".into(),
            source_kind: SourceKind::Note,
            position: Position { heading: Some("Budget".into()), line_start: Some(2), line_end: Some(3) },
            ..typed_memory("m-pdf")
        };
        let image =
            Memory { source_path: "Photos/board.jpg".into(), source_kind: SourceKind::Note, ..typed_memory("m-img") };
        session.engine.store().insert_memory(&pdf).unwrap();
        session.engine.store().insert_memory(&image).unwrap();
        let recalled = session.recall("What did Alice approve?", None, &QuestionScope::default()).unwrap();
        let mut places: Vec<(String, &str, Option<u32>, Option<u32>)> = recalled
            .memories
            .iter()
            .map(|memory| (memory.id.clone(), memory.file_kind, memory.page, memory.last_page))
            .collect();
        places.sort();
        assert_eq!(places, vec![("m-img".into(), "image", None, None), ("m-pdf".into(), "pdf", Some(2), Some(3))]);
        // Scripts and MCP clients read the same through JSON.
        let json = serde_json::to_value(&recalled).unwrap();
        let pdf = json["memories"].as_array().unwrap().iter().find(|memory| memory["id"] == "m-pdf").unwrap();
        assert_eq!((&pdf["fileKind"], &pdf["page"]), (&serde_json::json!("pdf"), &serde_json::json!(2)));
        let _ = std::fs::remove_dir_all(&root);
    }

    #[test]
    fn two_devices_at_the_same_moment_make_different_ids() {
        assert_ne!(id_seed("laptop", 1_000), id_seed("desktop", 1_000));
        assert_ne!(id_seed("laptop", 1_000), id_seed("laptop", 1_001));
    }

    #[test]
    fn text_to_remember_is_checked() {
        assert_eq!(text_to_remember("  Alice approved the budget.\n").unwrap(), "Alice approved the budget.");
        assert!(text_to_remember("  \n").unwrap_err().contains("empty"));
        assert!(text_to_remember(&"x".repeat(40_000)).unwrap_err().contains("at most 32 KB"));
        assert!(text_to_remember("a\0b").unwrap_err().contains("binary"));
    }
}
