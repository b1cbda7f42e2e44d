//! The engine's knobs, with defaults that suit a personal vault and Claude Haiku 4.5. Those a
//! person sets come from the plugin's settings schema (`settings_schema`): their defaults and
//! bounds are read from there, only converted to the engine's units.

use serde::Deserialize;

use crate::llm::ThinkingEffort;
use crate::notes::ScopeRules;
use crate::select::DateOrder;
use crate::settings_schema::{self as schema, PluginSettings, Whole};

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
    /// Tokens of memories and insights packed into a question's prompt; a question uses at
    /// most what the connected model's window holds besides the rest of the prompt and the
    /// answer (`llm::ModelSpec::largest_context_budget`).
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
    /// How much the model may think before answering ("Thinking for answers"), mapped to each
    /// model's own fields by the request (`llm::ThinkingEffort`).
    pub answer_thinking: ThinkingEffort,
    /// Read the passages behind the memories chosen for a question from the vault ("Read the
    /// notes behind memories"): better answers, more input tokens.
    pub read_passages: bool,
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
    /// How many chunks one ingest call may carry, from one note or several claimed together
    /// (`batcher`); 1 is one call per chunk, exactly as before batching.
    pub ingest_batch_chunks: usize,
}

const KB: u64 = 1_024;
const SECOND_MS: u64 = 1_000;

impl Default for EngineSettings {
    fn default() -> Self {
        EngineSettings {
            consolidation_threshold: schema::CONSOLIDATION_THRESHOLD.default,
            consolidation_batch_size: schema::CONSOLIDATION_BATCH_SIZE.default as u32,
            daily_consolidation: schema::DAILY_CONSOLIDATION.default,
            max_chunk_tokens: 1_500,
            max_note_bytes: schema::MAX_NOTE_SIZE_KB.default * KB,
            query_budget_tokens: schema::CONTEXT_BUDGET_TOKENS.default as usize,
            max_answer_tokens: schema::ANSWER_MAX_TOKENS.default as u32,
            max_job_attempts: 5,
            job_retry_base_ms: 60_000,
            parallel_jobs: 3,
            date_order: date_order(schema::DATE_ORDER.default),
            second_pass: schema::SECOND_PASS.default,
            plan_questions: schema::PLAN_QUESTIONS.default,
            answer_thinking: choice(schema::ANSWER_THINKING.default),
            read_passages: schema::READ_PASSAGES.default,
            scope: ScopeRules::default(),
            daily_limit_usd: schema::DAILY_LIMIT_USD.default as f64,
            monthly_limit_usd: schema::MONTHLY_LIMIT_USD.default as f64,
            other_device_wait_ms: schema::OTHER_DEVICE_WAIT_SECONDS.default * SECOND_MS,
            ingest_batch_chunks: schema::INGEST_BATCH_CHUNKS.default as usize,
        }
    }
}

/// One of `schema::DATE_ORDER`'s allowed values as the engine's type.
fn date_order(value: &str) -> DateOrder {
    choice(value)
}

/// One of a choice's allowed values as the engine's type (both spelt the same in JSON).
fn choice<T: serde::de::DeserializeOwned + Default + std::fmt::Debug>(value: &str) -> T {
    let read = serde_json::from_value(serde_json::Value::from(value));
    debug_assert!(read.is_ok(), "every allowed value is one of the engine's: {value} → {read:?}");
    read.unwrap_or_default()
}

impl EngineSettings {
    /// The engine's settings with what the plugin's `data.json` chose (the command's reading;
    /// the plugin sends the same fields, made from the same table, through `configure`). The
    /// exclusion rules are not among them: they need what only Obsidian knows.
    pub fn from_plugin_settings(settings: &PluginSettings) -> Self {
        let read = serde_json::from_value(settings.engine_json());
        debug_assert!(read.is_ok(), "every engine field of the schema is the engine's: {read:?}");
        read.unwrap_or_default()
    }

    /// Checks values a person chose; the message names the setting. Those of the plugin's
    /// settings are held to the schema's bounds (in its units: kilobytes, seconds); the others
    /// are the engine's own.
    pub fn validate(&self) -> Result<(), String> {
        let chosen: [(Whole, f64); 9] = [
            (schema::CONSOLIDATION_THRESHOLD, self.consolidation_threshold as f64),
            (schema::CONSOLIDATION_BATCH_SIZE, f64::from(self.consolidation_batch_size)),
            (schema::MAX_NOTE_SIZE_KB, self.max_note_bytes as f64 / KB as f64),
            (schema::CONTEXT_BUDGET_TOKENS, self.query_budget_tokens as f64),
            (schema::ANSWER_MAX_TOKENS, f64::from(self.max_answer_tokens)),
            (schema::DAILY_LIMIT_USD, self.daily_limit_usd),
            (schema::MONTHLY_LIMIT_USD, self.monthly_limit_usd),
            (schema::OTHER_DEVICE_WAIT_SECONDS, self.other_device_wait_ms as f64 / SECOND_MS as f64),
            (schema::INGEST_BATCH_CHUNKS, self.ingest_batch_chunks as f64),
        ];
        if let Some(problem) = chosen.iter().find_map(|(setting, value)| setting.range_problem(*value)) {
            return Err(problem);
        }
        let own: [(bool, &str); 3] = [
            ((200..=20_000).contains(&self.max_chunk_tokens), "The chunk size must be between 200 and 20,000 tokens."),
            (self.max_job_attempts >= 1, "Jobs need at least one attempt."),
            ((1..=8).contains(&self.parallel_jobs), "Between 1 and 8 jobs can run at once."),
        ];
        match own.iter().find(|(ok, _)| !ok) {
            Some((_, message)) => Err((*message).to_owned()),
            None => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::settings_schema::read_settings;

    #[test]
    fn the_defaults_are_the_schemas() {
        let settings = EngineSettings::default();
        assert_eq!(EngineSettings::from_plugin_settings(&PluginSettings::default()), settings);
        assert_eq!(settings.validate(), Ok(()));
        assert_eq!(settings.max_note_bytes, 2 * 1024 * 1024);
        assert_eq!(settings.other_device_wait_ms, 120_000);
        for allowed in schema::DATE_ORDER.allowed {
            let order = date_order(allowed);
            assert_eq!(serde_json::to_value(order).unwrap(), *allowed, "{allowed} reads as itself");
        }
        for allowed in schema::ANSWER_THINKING.allowed {
            let effort: ThinkingEffort = choice(allowed);
            assert_eq!(serde_json::to_value(effort).unwrap(), *allowed, "{allowed} reads as itself");
        }
    }

    #[test]
    fn every_engine_field_of_the_schema_is_one_of_the_engines() {
        // A field the engine does not know would be ignored silently: set each one alone to a
        // value other than its default and see the engine take it.
        for field in schema::ENGINE_FIELDS {
            let default = EngineSettings::default();
            let mut chosen = serde_json::Map::new();
            let other = match &schema::SETTINGS.iter().find(|setting| setting.key() == field.setting) {
                Some(schema::Setting::Whole(whole)) => serde_json::json!((whole.default + 1) * field.scale),
                Some(schema::Setting::Toggle(toggle)) => serde_json::json!(!toggle.default),
                Some(schema::Setting::Choice(choice)) => {
                    serde_json::json!(choice.allowed.iter().find(|allowed| **allowed != choice.default))
                }
                _ => panic!("{} has no engine value", field.setting),
            };
            chosen.insert(field.engine.to_owned(), other);
            let taken: EngineSettings = serde_json::from_value(serde_json::Value::Object(chosen)).unwrap();
            assert_ne!(taken, default, "{} → {}", field.setting, field.engine);
        }
    }

    #[test]
    fn chosen_values_arrive_in_the_engines_units() {
        let chosen = read_settings(&serde_json::json!({
            "maxNoteSizeKb": 10, "otherDeviceWaitSeconds": 5, "dateOrder": "monthDay",
            "answerMaxTokens": 64, "dailyLimitUsd": 3, "consolidationBatchSize": 20
        }));
        let settings = EngineSettings::from_plugin_settings(&chosen);
        assert_eq!(settings.max_note_bytes, 10 * 1024);
        assert_eq!(settings.other_device_wait_ms, 5_000);
        assert_eq!(settings.date_order, DateOrder::MonthDay);
        assert_eq!(settings.max_answer_tokens, 2_000, "64 is below the schema's minimum: the default");
        assert_eq!(settings.daily_limit_usd, 3.0);
        assert_eq!(settings.consolidation_batch_size, 20);
    }

    #[test]
    fn validation_holds_the_schemas_bounds_and_says_which() {
        let valid = EngineSettings::default();
        let refused = |settings: EngineSettings| settings.validate().unwrap_err();
        assert_eq!(
            refused(EngineSettings { max_answer_tokens: 99, ..valid.clone() }),
            schema::ANSWER_MAX_TOKENS.out_of_range_message()
        );
        assert!(refused(EngineSettings { max_note_bytes: 1_000, ..valid.clone() }).contains("size limit"));
        assert!(refused(EngineSettings { daily_limit_usd: f64::NAN, ..valid.clone() }).contains("daily limit"));
        assert!(refused(EngineSettings { consolidation_threshold: 10_001, ..valid.clone() }).contains("threshold"));
        assert!(refused(EngineSettings { parallel_jobs: 9, ..valid.clone() }).contains("at once"));
        assert_eq!(EngineSettings { daily_limit_usd: 0.5, max_note_bytes: 1_500, ..valid }.validate(), Ok(()));
    }
}
