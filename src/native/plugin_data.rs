//! The plugin's settings as its `data.json` holds them, read through the same schema as the
//! plugin's (`settings_schema`): the same defaults, and a value the plugin would refuse falls
//! back to its default here too. The command takes what it does the same way: the legacy
//! database's place, the memory folder, the connection's region and model, how questions are
//! answered, and which notes are left out. Secrets are never
//! in it (they live in Obsidian's secret storage); the command takes AWS's own. Its `endpoint`
//! is not read: a synced file may not say where the user's keys go (`credentials.rs`).

use crate::engine::{EngineSettings, HostRule};
use crate::notes::{is_regex_filter, ScopeRules};
use crate::settings_schema::{self as schema, read_settings, PluginSettings};

#[derive(Debug, Clone, PartialEq)]
pub struct PluginData {
    /// Vault-relative; empty for the default inside the config folder. Since each device
    /// keeps its own index, only read once, to migrate from it.
    pub database_path: String,
    /// Where each device's log folder is (vault-relative).
    pub memory_folder: String,
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
            memory_folder: settings.text(&schema::MEMORY_FOLDER).trim().trim_matches('/').to_owned(),
            region: settings.text(&schema::REGION).to_owned(),
            model_id: settings.text(&schema::MODEL_ID).to_owned(),
            settings,
        }
    }

    /// The engine's settings with the user's choices, the exclusion rules included (as the
    /// plugin's `scopeRulesOf` makes them, with Obsidian's "Excluded files" from `app.json`).
    pub fn engine_settings(&self, config_dir: &str, ignore_filters: Vec<String>) -> EngineSettings {
        let mut settings = EngineSettings::from_plugin_settings(&self.settings);
        settings.scope = self.scope_rules(config_dir, ignore_filters);
        settings
    }

    fn scope_rules(&self, config_dir: &str, ignore_filters: Vec<String>) -> ScopeRules {
        let owned = |items: Vec<&str>| items.into_iter().map(str::to_owned).collect::<Vec<String>>();
        let mut excluded_folders = owned(self.settings.list(&schema::EXCLUDED_FOLDERS));
        // Saved conversations are not remembered unless asked: no answer becomes a memory of itself.
        if !self.settings.toggle(&schema::REMEMBER_CONVERSATIONS) {
            excluded_folders.push(self.settings.text(&schema::CONVERSATION_FOLDER).to_owned());
        }
        ScopeRules {
            config_dir: config_dir.to_owned(),
            database_path: self.database_path.clone(),
            include_plain_text: self.settings.toggle(&schema::INCLUDE_PLAIN_TEXT),
            include_images: self.settings.toggle(&schema::REMEMBER_IMAGES),
            excluded_folders,
            excluded_patterns: owned(self.settings.list(&schema::EXCLUDED_PATTERNS)),
            excluded_tags: owned(self.settings.list(&schema::EXCLUDED_TAGS)),
            ignore_filters,
            ..ScopeRules::default()
        }
    }

    /// Values `data.json` holds that the plugin would refuse too (their defaults are used).
    pub fn problems(&self) -> Vec<String> {
        self.settings.problems().iter().map(|problem| format!("{}: {}", problem.key, problem.message)).collect()
    }
}

/// The rule for Obsidian's `/regex/` filters (the plugin's host matches them with JavaScript's
/// `RegExp`; here `regex-lite`, with the `i`, `m` and `s` flags). One this engine cannot read
/// (a look-around, a back-reference) is reported and left out, as an invalid one is in Obsidian.
pub fn regex_filter_rule(filters: &[String]) -> Option<HostRule> {
    let expressions: Vec<regex_lite::Regex> = filters
        .iter()
        .map(|filter| filter.trim())
        .filter(|filter| is_regex_filter(filter))
        .filter_map(|filter| {
            let end = filter.rfind('/')?;
            let flags: String = filter[end + 1..].chars().filter(|flag| matches!(flag, 'i' | 'm' | 's')).collect();
            let pattern =
                if flags.is_empty() { filter[1..end].to_owned() } else { format!("(?{flags}){}", &filter[1..end]) };
            regex_lite::Regex::new(&pattern)
                .inspect_err(|error| {
                    eprintln!("memory-agent: Obsidian's excluded-files filter {filter} cannot be read here ({error})")
                })
                .ok()
        })
        .collect();
    if expressions.is_empty() {
        return None;
    }
    Some(Box::new(move |path: &str| expressions.iter().any(|expression| expression.is_match(path))))
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
        let settings = data.engine_settings(".obsidian", vec!["Archive/".into()]);
        assert_eq!(settings.query_budget_tokens, 8_000);
        assert!(settings.second_pass);
        assert_eq!(settings.scope.excluded_folders, ["Private", "Memory conversations"]);
        assert_eq!(
            settings.scope.path_exclusion("Private/a.md", &|_| false).as_deref(),
            Some("in the excluded folder Private")
        );
        assert!(settings.scope.path_exclusion("Archive/old.md", &|_| false).is_some());
        assert!(settings.scope.path_exclusion(".obsidian/notes.md", &|_| false).is_some());
        assert_eq!(settings.scope.path_exclusion("Trips/Lisbon.md", &|_| false), None);
        assert_eq!(data.memory_folder, "Memory Agent");
        assert_eq!(PluginData::parse(None).unwrap(), PluginData::default());
        assert!(PluginData::parse(Some("{ nope")).unwrap_err().contains("data.json"));
    }

    #[test]
    fn obsidians_regex_filters_match_as_in_javascript() {
        let rule = regex_filter_rule(&["Archive/".into(), "/^tmp\\//i".into(), "/draft$/".into()]).unwrap();
        assert!(rule("TMP/a.md"));
        assert!(!rule("Notes/tmp/a.md"));
        assert!(!rule("Archive/a.md"), "a path filter is the scope rules' own");
        assert!(regex_filter_rule(&["Archive/".into()]).is_none());
    }

    #[test]
    fn values_the_plugin_refuses_are_its_defaults_here_too() {
        // 64 tokens was once accepted here and refused by the plugin (which says 100 at least).
        let data = PluginData::parse(Some(
            r#"{"answerMaxTokens":64,"contextBudgetTokens":999999,"databasePath":"../outside.db","region":""}"#,
        ))
        .unwrap();
        let defaults = EngineSettings::default();
        let settings = data.engine_settings(".obsidian", Vec::new());
        assert_eq!(settings.max_answer_tokens, defaults.max_answer_tokens);
        assert_eq!(settings.query_budget_tokens, defaults.query_budget_tokens);
        assert_eq!(data.database_path, "", "a path leaving the vault is the default place");
        assert_eq!(data.region, DEFAULT_REGION);
        assert_eq!(data.problems().len(), 3, "{:?}", data.problems());
        assert!(data.problems()[0].starts_with("databasePath: "));
    }
}
