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
use crate::agents::query::QuestionScope;
use crate::calendar::CalendarDate;
use crate::domain::MemoryId;
use crate::engine::Engine;
use crate::engine::Host;
use crate::llm::{default_model_for, Clock};
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
        let bytes = vault.database_snapshot(&data)?.unwrap_or_default();
        let store = open_from_bytes(&bytes, RusqliteDriver::from_bytes)
            .map_err(|error| format!("{}: {error}", vault.database_path(&data)))?;
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

    /// The QueryAgent's answer from the memories inside `scope`, its citations numbered and
    /// resolved to their notes.
    pub async fn ask(
        &self,
        question: &str,
        scope: &QuestionScope,
        credentials: &CredentialOptions,
    ) -> Result<AskReport, String> {
        let setup = aws_setup(credentials, &self.data.region).await?;
        let model = self.data.model_id.trim();
        let model = if model.is_empty() { default_model_for(&setup.region) } else { model.to_owned() };
        let config = setup.bedrock_config(model)?;
        self.engine.configure_connection(Some(config), self.host.now() as u64).map_err(|error| error.to_string())?;
        let answer = self
            .engine
            .ask_follow_up(&self.host, question, &[], scope, false)
            .await
            .map_err(|error| error.to_string())?;
        let mut sources = Vec::with_capacity(answer.citations.len());
        let mut text = answer.answer.clone();
        for (index, citation) in answer.citations.iter().enumerate() {
            let marker = format!("{}:{}", citation.kind, citation.id);
            text = text.replace(&format!("[{marker}]"), &format!("[{}]", index + 1));
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
            answer: text,
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
        let region = if self.data.region.trim().is_empty() { "us-east-1".to_owned() } else { self.data.region.clone() };
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
