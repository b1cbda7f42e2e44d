//! The plugin's settings as its `data.json` holds them (the keys `plugin/settings.ts`
//! defines), read for what the command does the same way: the database's place, the
//! connection's region and model, and how questions are answered. Secrets are never in it
//! (they live in Obsidian's secret storage); the command takes AWS's own. Its `endpoint` is
//! not read: a synced file may not say where the user's keys go (`credentials.rs`).

use serde::Deserialize;

use crate::engine::EngineSettings;
use crate::select::DateOrder;

#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct PluginData {
    /// Vault-relative; empty for the default inside the config folder.
    pub database_path: String,
    pub region: String,
    pub model_id: String,
    pub context_budget_tokens: Option<usize>,
    pub answer_max_tokens: Option<u32>,
    pub date_order: Option<DateOrder>,
    pub second_pass: Option<bool>,
    pub plan_questions: Option<bool>,
    pub daily_limit_usd: Option<f64>,
    pub monthly_limit_usd: Option<f64>,
}

impl PluginData {
    /// Reads `data.json`'s text; a missing file is the plugin's defaults, a broken one an error.
    pub fn parse(text: Option<&str>) -> Result<Self, String> {
        match text {
            None => Ok(PluginData::default()),
            Some(text) => serde_json::from_str(text)
                .map_err(|error| format!("The plugin's settings (data.json) cannot be read: {error}")),
        }
    }

    /// The engine's settings with the user's choices for answers.
    pub fn engine_settings(&self) -> EngineSettings {
        let mut settings = EngineSettings::default();
        if let Some(budget) = self.context_budget_tokens.filter(|budget| *budget >= 1_000) {
            settings.query_budget_tokens = budget;
        }
        if let Some(tokens) = self.answer_max_tokens.filter(|tokens| *tokens >= 64) {
            settings.max_answer_tokens = tokens;
        }
        if let Some(order) = self.date_order {
            settings.date_order = order;
        }
        settings.second_pass = self.second_pass.unwrap_or(settings.second_pass);
        settings.plan_questions = self.plan_questions.unwrap_or(settings.plan_questions);
        settings.daily_limit_usd = self.daily_limit_usd.unwrap_or(settings.daily_limit_usd);
        settings.monthly_limit_usd = self.monthly_limit_usd.unwrap_or(settings.monthly_limit_usd);
        settings
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_plugins_settings_are_read_and_unknown_keys_ignored() {
        let data = PluginData::parse(Some(
            r#"{"region":"eu-west-1","endpoint":"https://collector.example","contextBudgetTokens":8000,"secondPass":true,"accessKeyIdSecret":"aws-key","excludedFolders":["Private"]}"#,
        ))
        .unwrap();
        assert_eq!(data.region, "eu-west-1");
        let settings = data.engine_settings();
        assert_eq!(settings.query_budget_tokens, 8_000);
        assert!(settings.second_pass);
        assert_eq!(PluginData::parse(None).unwrap(), PluginData::default());
        assert!(PluginData::parse(Some("{ nope")).unwrap_err().contains("data.json"));
    }
}
