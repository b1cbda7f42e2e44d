//! The engine's knobs, with defaults that suit a personal vault and Claude Haiku 4.5.

use serde::Deserialize;

use crate::notes::ScopeRules;
use crate::select::DateOrder;

#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct EngineSettings {
    /// Consolidate when this many memories wait.
    pub consolidation_threshold: u64,
    /// At most this many memories per consolidation call.
    pub consolidation_batch_size: u32,
    /// Also consolidate once a day when anything waits.
    pub daily_consolidation: bool,
    /// A note is split into chunks of at most this many tokens, one memory each.
    pub max_chunk_tokens: usize,
    /// Larger files are skipped with a reason.
    pub max_note_bytes: u64,
    /// Tokens of memories and insights packed into a question's prompt. Haiku 4.5 reads
    /// 200K tokens; this leaves room for instructions, the question and the answer.
    pub query_budget_tokens: usize,
    pub max_answer_tokens: u32,
    /// A job that keeps failing stops after this many attempts and waits for "Retry failed".
    pub max_job_attempts: u32,
    /// The first wait before a failed job runs again; doubles each time, up to six hours.
    pub job_retry_base_ms: u64,
    /// Jobs run at once (the Bedrock client limits calls separately).
    pub parallel_jobs: usize,
    /// How the user writes numeric dates in questions: `1/2/2026` is 1 February
    /// (`dayMonth`) or 2 January (`monthDay`). The plugin defaults it from the locale.
    pub date_order: DateOrder,
    /// Let the model fetch more memories once (`more_memories`) before answering: better
    /// answers when the chosen memories miss something, at the price of a second call.
    pub second_pass: bool,
    /// Before choosing memories, ask the model what to search for (synonyms, names, dates):
    /// better recall for questions worded unlike the notes, at the price of a small call.
    pub plan_questions: bool,
    /// Which notes are never read or sent (folders, patterns, tags, Obsidian's filters).
    pub scope: ScopeRules,
    /// Estimated US dollars the model may cost in a local day; 0 = no limit. When reached,
    /// work pauses until the next day (or a higher limit) and questions ask first.
    pub daily_limit_usd: f64,
    /// The same for a calendar month.
    pub monthly_limit_usd: f64,
    /// Once the memory is shared, how long a note whose text may come from another device
    /// waits for that device's memory of it before it is paid for here (the plugin's "Wait for
    /// other devices"); used for notes a merge found changed.
    pub other_device_wait_ms: u64,
}

impl Default for EngineSettings {
    fn default() -> Self {
        EngineSettings {
            consolidation_threshold: 5,
            consolidation_batch_size: 50,
            daily_consolidation: true,
            max_chunk_tokens: 1_500,
            max_note_bytes: 2 * 1024 * 1024,
            query_budget_tokens: 150_000,
            max_answer_tokens: 2_000,
            max_job_attempts: 5,
            job_retry_base_ms: 60_000,
            parallel_jobs: 3,
            date_order: DateOrder::DayMonth,
            second_pass: false,
            plan_questions: false,
            scope: ScopeRules::default(),
            daily_limit_usd: 0.0,
            monthly_limit_usd: 0.0,
            other_device_wait_ms: 120_000,
        }
    }
}

impl EngineSettings {
    /// Checks values a person typed; the message names the setting.
    pub fn validate(&self) -> Result<(), String> {
        let checks: [(bool, &str); 9] = [
            (
                self.daily_limit_usd >= 0.0 && self.monthly_limit_usd >= 0.0,
                "A spending limit is an amount of dollars, 0 for none.",
            ),
            (self.consolidation_threshold >= 2, "The consolidation threshold must be at least 2."),
            (
                (2..=200).contains(&self.consolidation_batch_size),
                "The consolidation batch size must be between 2 and 200.",
            ),
            ((200..=20_000).contains(&self.max_chunk_tokens), "The chunk size must be between 200 and 20,000 tokens."),
            (self.max_note_bytes >= 1_024, "The size limit must be at least 1 KB."),
            (
                (1_000..=190_000).contains(&self.query_budget_tokens),
                "The context budget must be between 1,000 and 190,000 tokens.",
            ),
            (
                (100..=8_000).contains(&self.max_answer_tokens),
                "The answer length must be between 100 and 8,000 tokens.",
            ),
            (self.max_job_attempts >= 1, "Jobs need at least one attempt."),
            ((1..=8).contains(&self.parallel_jobs), "Between 1 and 8 jobs can run at once."),
        ];
        match checks.iter().find(|(ok, _)| !ok) {
            Some((_, message)) => Err((*message).to_owned()),
            None => Ok(()),
        }
    }
}
