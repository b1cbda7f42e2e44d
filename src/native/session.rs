//! One use of the memory from outside Obsidian: the vault's settings, a snapshot of its
//! database in memory, and the engine over it. Nothing is written back — what a question
//! costs here is not added to the plugin's usage — and each session reads the database again,
//! so it sees what Obsidian saved last.

use super::credentials::{aws_setup, CredentialOptions};
use super::host::NativeHost;
use super::inbox::append_to_inbox;
use super::plugin_data::PluginData;
use super::reports::{
    AskReport, CitedSource, RecallReport, RecalledInsight, RecalledMemory, RememberReport, StatusReport,
};
use super::vault::VaultDir;
use crate::agents::answer_pieces::{render_pieces, AnswerPiece};
use crate::agents::query::QuestionScope;
use crate::calendar::CalendarDate;
use crate::domain::{DateSource, MemoryId};
use crate::engine::Engine;
use crate::engine::Host;
use crate::llm::{default_model_for, previous_default_model_for, Clock};
use crate::select::event_day;
use crate::store::open_from_bytes;
use crate::store::rusqlite_driver::RusqliteDriver;

pub struct Session {
    engine: Engine<RusqliteDriver>,
    host: NativeHost,
    vault: VaultDir,
    data: PluginData,
    database_bytes: u64,
}

impl Session {
    /// Opens the vault's memory as Obsidian last saved it (empty when it has none yet).
    pub fn open(vault: VaultDir) -> Result<Self, String> {
        let data = vault.plugin_data()?;
        for problem in data.problems() {
            eprintln!("memory-agent: data.json: {problem} (its default is used, as in the plugin)");
        }
        let bytes = vault.database_snapshot(&data)?.unwrap_or_default();
        let store = open_from_bytes(&bytes, RusqliteDriver::from_bytes)
            .map_err(|error| format!("{}: {error}", vault.database_path(&data)))?;
        // Removed from this reading only (the snapshot is never written): Obsidian removes them
        // from the file when it next opens it.
        let removed = store.foreign_objects_removed();
        if !removed.is_empty() {
            eprintln!(
                "memory-agent: {} holds {}, left out of this reading (Obsidian removes them when it opens the memory)",
                vault.database_path(&data),
                crate::store::describe_removed(removed)
            );
        }
        let host = NativeHost::new(vault.clone());
        let now = host.now();
        let engine = Engine::new(store, now as u64, now).map_err(|error| error.to_string())?;
        engine.set_settings(data.engine_settings());
        // What a sync tool kept beside the file when two devices changed it at once is part of
        // the memory too (merged here in memory only; the plugin merges it for good).
        for (name, copy) in vault.conflict_copies(&data)? {
            // One that cannot be read or merged (from a newer Memory Agent) is left out.
            if let Ok(theirs) = open_from_bytes(&copy, RusqliteDriver::from_bytes) {
                let _ =
                    engine.merge_copy(&theirs).inspect_err(|error| eprintln!("memory-agent: {name} left out: {error}"));
            }
        }
        Ok(Session { engine, host, vault, data, database_bytes: bytes.len() as u64 })
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
            .map(|memory| RecalledMemory {
                id: memory.id.0.clone(),
                date: Some(event_day(memory, offset).to_string()),
                source_path: memory.source_path.clone(),
                heading: memory.position.heading.clone(),
                line_start: memory.position.line_start,
                summary: memory.summary.clone(),
                facts: memory.facts.clone(),
                also_on: memory.also_on.clone(),
                date_source: match (&memory.happened_on, memory.date_source) {
                    (None, _) => "made".into(),
                    (Some(_), DateSource::Text) => "text".into(),
                    (Some(_), DateSource::NoteName) => "note_name".into(),
                    (Some(_), DateSource::NoteProperty) => "note_property".into(),
                },
                entities: memory.entities.iter().map(|entity| entity.name.clone()).collect(),
                importance: memory.importance,
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
        let setup = aws_setup(credentials, &self.data.region).await?;
        let model = self.data.model_id.trim();
        let typed = !model.is_empty();
        let model = if typed { model.to_owned() } else { default_model_for(&setup.region) };
        let fallback = (!typed).then(|| previous_default_model_for(&setup.region));
        let mut config = setup.bedrock_config(model)?;
        // The default falls back to the previous Haiku when the account may not call it.
        config.fallback_model_id = fallback;
        self.engine.configure_connection(Some(config), self.host.now() as u64).map_err(|error| error.to_string())?;
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

    /// The memory's size and the work waiting, as the snapshot has them.
    pub fn status(&self) -> Result<StatusReport, String> {
        let store = self.engine.store();
        let status = store.status().map_err(|error| error.to_string())?;
        let region = self.data.region.clone();
        let model = self.data.model_id.trim();
        Ok(StatusReport {
            vault: self.vault.root().display().to_string(),
            database: self.vault.database_path(&self.data),
            database_bytes: self.database_bytes,
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

/// Puts `text` in the vault's inbox note, for the plugin to remember (see `inbox`).
pub fn remember(vault: &VaultDir, text: &str) -> Result<RememberReport, String> {
    let host = NativeHost::new(vault.clone());
    let note = append_to_inbox(vault, text, host.now(), host.utc_offset_minutes())?;
    Ok(RememberReport {
        how: format!(
            "Saved as {note}. Memory Agent remembers it: at once while Obsidian is open, else when it next starts."
        ),
        note,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::{JobWork, Memory, MemoryId, NoteJob, Position, SourceKind};
    use crate::store::{NewJob, SqlDriver};

    #[test]
    fn a_snapshot_with_triggers_of_its_own_is_read_without_running_them_and_never_written() {
        let root = std::env::temp_dir().join(format!("memory-agent-vault-triggers-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        std::fs::create_dir_all(root.join(".obsidian/plugins/memory-agent")).unwrap();
        let store = open_from_bytes(&[], RusqliteDriver::from_bytes).unwrap();
        for id in ["m1", "m2", "m3"] {
            store
                .insert_memory(&Memory {
                    id: MemoryId(id.into()),
                    source_path: String::new(),
                    source_kind: SourceKind::Text,
                    position: Position::default(),
                    raw_text: "Typed.".into(),
                    summary: format!("Memory {id}."),
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
                })
                .unwrap();
        }
        let work = JobWork::IngestSource(NoteJob { path: "a.md".into(), pay_after: None });
        let job = NewJob { key: "a.md".into(), work };
        store.enqueue_job(&job, 1).unwrap();
        store.claim_next_job(2).unwrap().unwrap();
        // Opening puts the interrupted job back in the queue: an update of `jobs`.
        store
            .driver()
            .execute_batch("CREATE TRIGGER wipe AFTER UPDATE ON jobs BEGIN DELETE FROM memories; END;")
            .unwrap();
        let bytes = store.export().unwrap();
        let db = root.join(".obsidian/plugins/memory-agent/memory.db");
        std::fs::write(&db, &bytes).unwrap();

        let session = Session::open(VaultDir::open(&root, ".obsidian").unwrap()).unwrap();
        let status = session.status().unwrap();
        assert_eq!((status.memories, status.queued_jobs), (3, 1));
        assert_eq!(session.engine.store().foreign_objects_removed().len(), 1);
        assert_eq!(std::fs::read(&db).unwrap(), bytes, "the command wrote the database");
        let _ = std::fs::remove_dir_all(&root);
    }
}
