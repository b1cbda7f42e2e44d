//! The plugin's settings as its `data.json` holds them, read through the same schema as the
//! plugin's (`settings_schema`): the same defaults, and a value the plugin would refuse falls
//! back to its default here too. The command takes what it does the same way: the database's
//! place, the connection's region and model, and how questions are answered. Secrets are never
//! in it (they live in Obsidian's secret storage); the command takes AWS's own. Its `endpoint`
//! is not read: a synced file may not say where the user's keys go (`credentials.rs`).

use crate::engine::EngineSettings;
use crate::settings_schema::{self as schema, read_settings, PluginSettings};

#[derive(Debug, Clone, PartialEq)]
pub struct PluginData {
    /// Vault-relative; empty for the default inside the config folder.
    pub database_path: String,
    /// The plugin's region: the default region when `data.json` names none.
    pub region: String,
    pub model_id: String,
    settings: PluginSettings,
}

/// The plugin's defaults, as when it never saved any settings.
impl Default for PluginData {
    fn default() -> Self {
        PluginData::from_settings(PluginSettings::default())
    }
}

impl PluginData {
    /// Reads `data.json`'s text; a missing file is the plugin's defaults, a broken one an error.
    pub fn parse(text: Option<&str>) -> Result<Self, String> {
        let data = match text {
            None => serde_json::Value::Null,
            Some(text) => serde_json::from_str(text)
                .map_err(|error| format!("The plugin's settings (data.json) cannot be read: {error}"))?,
        };
        Ok(PluginData::from_settings(read_settings(&data)))
    }

    fn from_settings(settings: PluginSettings) -> Self {
        PluginData {
            database_path: settings.text(&schema::DATABASE_PATH).to_owned(),
            region: settings.text(&schema::REGION).to_owned(),
            model_id: settings.text(&schema::MODEL_ID).to_owned(),
            settings,
        }
    }

    /// The engine's settings with the user's choices.
    pub fn engine_settings(&self) -> EngineSettings {
        EngineSettings::from_plugin_settings(&self.settings)
    }

    /// Values `data.json` holds that the plugin would refuse too (their defaults are used).
    pub fn problems(&self) -> Vec<String> {
        self.settings.problems().iter().map(|problem| format!("{}: {}", problem.key, problem.message)).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::llm::DEFAULT_REGION;

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

    #[test]
    fn values_the_plugin_refuses_are_its_defaults_here_too() {
        // 64 tokens was once accepted here and refused by the plugin (which says 100 at least).
        let data = PluginData::parse(Some(
            r#"{"answerMaxTokens":64,"contextBudgetTokens":999999,"databasePath":"../outside.db","region":""}"#,
        ))
        .unwrap();
        let defaults = EngineSettings::default();
        let settings = data.engine_settings();
        assert_eq!(settings.max_answer_tokens, defaults.max_answer_tokens);
        assert_eq!(settings.query_budget_tokens, defaults.query_budget_tokens);
        assert_eq!(data.database_path, "", "a path leaving the vault is the default place");
        assert_eq!(data.region, DEFAULT_REGION);
        assert_eq!(data.problems().len(), 3, "{:?}", data.problems());
        assert!(data.problems()[0].starts_with("databasePath: "));
    }
}
