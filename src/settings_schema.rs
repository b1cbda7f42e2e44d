//! The plugin's settings as its `data.json` holds them, declared once: each key, its default,
//! its bounds or allowed values, and the sentence a person reads when a value is refused.
//! Everything else derives from this table: the engine's defaults and checks
//! (`engine::EngineSettings`), the command's reading of `data.json` (`native::PluginData`),
//! and the plugin's defaults, types, bounds and messages (`plugin/generated/settings-schema.ts`,
//! written from `schema_json` by `npm run build`, so the plugin has them before its worker
//! starts). Keys never change once released: files already synced hold them.
//!
//! Reading is forgiving, as the plugin always was: a value of the wrong type or out of bounds
//! falls back to its default, so a hand-edited file cannot stop anything; `problems` says why.

use serde_json::{json, Map, Value};

use crate::llm::{default_model_for, previous_default_model_for, BEDROCK_REGIONS, DEFAULT_REGION};
use crate::notes::kind::{IMAGE_EXTENSIONS, NOTE_EXTENSIONS, PDF_EXTENSIONS, UNSUPPORTED_IMAGES};

/// A whole number within bounds, in the unit the person types.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Whole {
    pub key: &'static str,
    /// What the messages call it ("The quiet delay").
    pub label: &'static str,
    pub unit: &'static str,
    pub default: u64,
    pub min: u64,
    pub max: u64,
}

/// On or off.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Toggle {
    pub key: &'static str,
    pub default: bool,
}

/// One of a few named values.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Choice {
    pub key: &'static str,
    pub default: &'static str,
    pub allowed: &'static [&'static str],
}

/// Text, trimmed, checked by its rule.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Text {
    pub key: &'static str,
    pub default: &'static str,
    pub rule: TextRule,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TextRule {
    /// Any text (the names of secrets).
    Free,
    /// A Bedrock model id or inference profile id (empty: the region's recommended one).
    /// Checked when typed (`validate_setting`); a stored one is read as it is, and Bedrock
    /// refuses an id it does not know where it is used.
    ModelId,
    /// Replaces AWS's endpoint: `https://`, or `http://` to this device only, without user
    /// info (`llm::endpoint_host`). Checked when typed; a stored one is read as it is and
    /// checked again by `configure`, which also asks whom credentials may go to.
    Endpoint,
    /// Empty means the default region.
    Region,
    /// A `.db` file inside the vault; empty means the default place in the config folder.
    DatabasePath,
    /// A folder inside the vault, without leading or trailing slashes; never empty.
    Folder,
}

/// Lines of text (folders, patterns, tags), trimmed, empty ones dropped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct List {
    pub key: &'static str,
    pub rule: ListRule,
}

/// What each line of a list must be, when typed (`validate_setting`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ListRule {
    /// A folder inside the vault (`folder_problem`).
    Folders,
    /// An exclusion glob (`pattern_problem`).
    Patterns,
    /// A tag, with or without its `#` (`tag_problem`); stored without it.
    Tags,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Setting {
    Whole(Whole),
    Toggle(Toggle),
    Choice(Choice),
    Text(Text),
    List(List),
}

const fn whole(key: &'static str, label: &'static str, unit: &'static str, bounds: [u64; 3]) -> Whole {
    let [default, min, max] = bounds;
    assert!(min <= default && default <= max, "a default lies within its bounds");
    Whole { key, label, unit, default, min, max }
}

const fn toggle(key: &'static str, default: bool) -> Toggle {
    Toggle { key, default }
}

const fn free_text(key: &'static str) -> Text {
    Text { key, default: "", rule: TextRule::Free }
}

// Storage and connection.
/// Empty: `<config folder>/plugins/memory-agent/memory.db` (the plugin knows the folder).
pub const DATABASE_PATH: Text = Text { key: "databasePath", default: "", rule: TextRule::DatabasePath };
pub const AUTH_METHOD: Choice = Choice { key: "authMethod", default: "accessKey", allowed: &["accessKey", "apiKey"] };
pub const REGION: Text = Text { key: "region", default: DEFAULT_REGION, rule: TextRule::Region };
/// Empty: the model the core recommends for the region (`llm::default_model_for`).
pub const MODEL_ID: Text = Text { key: "modelId", default: "", rule: TextRule::ModelId };
// Secrets are never here: these are the names of entries in Obsidian's secret storage.
pub const ACCESS_KEY_ID_SECRET: Text = free_text("accessKeyIdSecret");
pub const SECRET_ACCESS_KEY_SECRET: Text = free_text("secretAccessKeySecret");
pub const SESSION_TOKEN_SECRET: Text = free_text("sessionTokenSecret");
pub const API_KEY_SECRET: Text = free_text("apiKeySecret");
/// Replaces AWS's endpoint (VPC endpoints); empty for AWS's own.
pub const ENDPOINT: Text = Text { key: "endpoint", default: "", rule: TextRule::Endpoint };

// What to remember.
pub const EXCLUDED_FOLDERS: List = List { key: "excludedFolders", rule: ListRule::Folders };
pub const EXCLUDED_PATTERNS: List = List { key: "excludedPatterns", rule: ListRule::Patterns };
pub const EXCLUDED_TAGS: List = List { key: "excludedTags", rule: ListRule::Tags };
pub const QUIET_DELAY_SECONDS: Whole = whole("quietDelaySeconds", "The quiet delay", "seconds", [30, 0, 3_600]);
/// Once the memory is shared: how long a note changed on another device waits for that
/// device's memories before it is paid for here.
pub const OTHER_DEVICE_WAIT_SECONDS: Whole =
    whole("otherDeviceWaitSeconds", "The wait for other devices", "seconds", [120, 0, 86_400]);
pub const MAX_NOTE_SIZE_KB: Whole = whole("maxNoteSizeKb", "The size limit", "kilobytes", [2_048, 1, 102_400]);
pub const BULK_CONFIRM_THRESHOLD: Whole =
    whole("bulkConfirmThreshold", "The bulk-ingest threshold", "notes", [200, 0, 1_000_000]);
pub const INCLUDE_PLAIN_TEXT: Toggle = toggle("includePlainText", false);
/// "Remember images and scanned pages": image files and PDF pages without a text layer are sent
/// to the model (`ScopeRules::include_images`). Off by default: each costs about 1,600 input
/// tokens (`images::image_tokens` at `images::MAX_SENT_PIXELS`). A PDF's text is read either way.
pub const REMEMBER_IMAGES: Toggle = toggle("rememberImages", false);
/// The label and description the settings tab shows for `REMEMBER_IMAGES`.
pub const REMEMBER_IMAGES_LABEL: &str = "Remember images and scanned pages";
pub const REMEMBER_IMAGES_DESCRIPTION: &str = "Send image files (PNG, JPEG, GIF, WebP) and PDF pages without text to the model, \
downscaled to about 1.15 megapixels: about 1,600 input tokens an image or scanned page. A PDF's text is remembered either way. \
Excluded folders and patterns apply; excluded tags and properties apply to notes only.";
/// How many chunks (of one note or several) one ingest call may carry; 1 is one call per chunk.
/// The default was chosen by measurement (`tests/ingest_batch_bench.rs`, the first ingest of the
/// 10,862 tldr-pages notes with the scripted model): input tokens −57% at 4, −69% at 8, −73% at
/// 12, −75% at 16 against one call per chunk; 0.13 calls a note at 8. Past 8 the saving is small,
/// while an answer gone wrong or a failed call holds back more chunks.
pub const INGEST_BATCH_CHUNKS: Whole = whole("ingestBatchChunks", "Chunks per ingest call", "chunks", [8, 1, 20]);

// Consolidation.
pub const CONSOLIDATION_THRESHOLD: Whole =
    whole("consolidationThreshold", "The consolidation threshold", "memories", [5, 2, 10_000]);
pub const CONSOLIDATION_BATCH_SIZE: Whole = whole("consolidationBatchSize", "The batch size", "memories", [50, 2, 200]);
pub const DAILY_CONSOLIDATION: Toggle = toggle("dailyConsolidation", true);

// Answers.
/// The maximum fits the largest window (1M tokens, Claude 4.6 and later, less the answer and
/// instructions); a question on a smaller model uses at most what its window holds
/// (`llm::ModelSpec::largest_context_budget`). The default keeps a question under Haiku 5.5's
/// long-prompt price (100K prompt tokens as its tokenizer counts, about 1.3 a token of ours,
/// with the rest of the prompt): above it, every token of the call costs five times as much.
pub const CONTEXT_BUDGET_TOKENS: Whole =
    whole("contextBudgetTokens", "The context budget", "tokens", [70_000, 1_000, 950_000]);
pub const ANSWER_MAX_TOKENS: Whole = whole("answerMaxTokens", "The answer length", "tokens", [2_000, 100, 8_000]);
/// The plugin defaults it from the locale; this is the default without one.
pub const DATE_ORDER: Choice = Choice { key: "dateOrder", default: "dayMonth", allowed: &["dayMonth", "monthDay"] };
pub const SECOND_PASS: Toggle = toggle("secondPass", false);
/// "Thinking for answers": how much the model may think before answering a question (its
/// thinking tokens are billed as output and shown in the answer's cost). Off by default:
/// Haiku answers from memories well without it, at a fraction of the cost.
pub const ANSWER_THINKING: Choice =
    Choice { key: "answerThinking", default: "off", allowed: &["off", "low", "medium"] };
pub const PLAN_QUESTIONS: Toggle = toggle("planQuestions", false);
/// "Read the notes behind memories": the QueryAgent reads the passages the chosen memories
/// came from (`agents::passages`).
pub const READ_PASSAGES: Toggle = toggle("readPassages", true);

// Conversations.
/// The vault folder where each device keeps its log of what it remembered (`store/log.rs`):
/// what a sync tool carries between devices.
pub const MEMORY_FOLDER: Text = Text { key: "memoryFolder", default: "Memory Agent", rule: TextRule::Folder };
pub const CONVERSATION_FOLDER: Text =
    Text { key: "conversationFolder", default: "Memory conversations", rule: TextRule::Folder };
pub const AUTO_SAVE_CONVERSATIONS: Toggle = toggle("autoSaveConversations", false);
pub const REMEMBER_CONVERSATIONS: Toggle = toggle("rememberConversations", false);

// Spending (estimated US dollars; 0 = no limit).
pub const DAILY_LIMIT_USD: Whole = whole("dailyLimitUsd", "The daily limit", "US dollars", [0, 0, 100_000]);
pub const MONTHLY_LIMIT_USD: Whole = whole("monthlyLimitUsd", "The monthly limit", "US dollars", [0, 0, 1_000_000]);

/// Every setting `data.json` may hold, in the order the plugin lists them.
pub const SETTINGS: &[Setting] = &[
    Setting::Text(DATABASE_PATH),
    Setting::Choice(AUTH_METHOD),
    Setting::Text(REGION),
    Setting::Text(MODEL_ID),
    Setting::Text(ACCESS_KEY_ID_SECRET),
    Setting::Text(SECRET_ACCESS_KEY_SECRET),
    Setting::Text(SESSION_TOKEN_SECRET),
    Setting::Text(API_KEY_SECRET),
    Setting::Text(ENDPOINT),
    Setting::List(EXCLUDED_FOLDERS),
    Setting::List(EXCLUDED_PATTERNS),
    Setting::List(EXCLUDED_TAGS),
    Setting::Whole(QUIET_DELAY_SECONDS),
    Setting::Whole(OTHER_DEVICE_WAIT_SECONDS),
    Setting::Whole(MAX_NOTE_SIZE_KB),
    Setting::Whole(BULK_CONFIRM_THRESHOLD),
    Setting::Toggle(INCLUDE_PLAIN_TEXT),
    Setting::Toggle(REMEMBER_IMAGES),
    Setting::Whole(INGEST_BATCH_CHUNKS),
    Setting::Whole(CONSOLIDATION_THRESHOLD),
    Setting::Whole(CONSOLIDATION_BATCH_SIZE),
    Setting::Toggle(DAILY_CONSOLIDATION),
    Setting::Whole(CONTEXT_BUDGET_TOKENS),
    Setting::Whole(ANSWER_MAX_TOKENS),
    Setting::Choice(DATE_ORDER),
    Setting::Toggle(SECOND_PASS),
    Setting::Choice(ANSWER_THINKING),
    Setting::Toggle(PLAN_QUESTIONS),
    Setting::Toggle(READ_PASSAGES),
    Setting::Text(CONVERSATION_FOLDER),
    Setting::Text(MEMORY_FOLDER),
    Setting::Toggle(AUTO_SAVE_CONVERSATIONS),
    Setting::Toggle(REMEMBER_CONVERSATIONS),
    Setting::Whole(DAILY_LIMIT_USD),
    Setting::Whole(MONTHLY_LIMIT_USD),
];

/// A setting the engine takes (the rest are the plugin's own), under the engine's name for it
/// (`engine::EngineSettings`, camelCase) and in its unit: the value times `scale`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EngineField {
    pub setting: &'static str,
    pub engine: &'static str,
    pub scale: u64,
}

const fn engine_field(setting: &'static str, engine: &'static str, scale: u64) -> EngineField {
    EngineField { setting, engine, scale }
}

/// How the settings reach the engine, for the plugin (its `configure`) and the command alike.
pub const ENGINE_FIELDS: &[EngineField] = &[
    engine_field(CONSOLIDATION_THRESHOLD.key, "consolidationThreshold", 1),
    engine_field(CONSOLIDATION_BATCH_SIZE.key, "consolidationBatchSize", 1),
    engine_field(DAILY_CONSOLIDATION.key, "dailyConsolidation", 1),
    engine_field(MAX_NOTE_SIZE_KB.key, "maxNoteBytes", 1_024),
    engine_field(CONTEXT_BUDGET_TOKENS.key, "queryBudgetTokens", 1),
    engine_field(ANSWER_MAX_TOKENS.key, "maxAnswerTokens", 1),
    engine_field(DATE_ORDER.key, "dateOrder", 1),
    engine_field(SECOND_PASS.key, "secondPass", 1),
    engine_field(ANSWER_THINKING.key, "answerThinking", 1),
    engine_field(PLAN_QUESTIONS.key, "planQuestions", 1),
    engine_field(READ_PASSAGES.key, "readPassages", 1),
    engine_field(DAILY_LIMIT_USD.key, "dailyLimitUsd", 1),
    engine_field(MONTHLY_LIMIT_USD.key, "monthlyLimitUsd", 1),
    engine_field(OTHER_DEVICE_WAIT_SECONDS.key, "otherDeviceWaitMs", 1_000),
    engine_field(INGEST_BATCH_CHUNKS.key, "ingestBatchChunks", 1),
];

/// `1234567` as `1,234,567`: the messages are in English.
pub fn grouped(number: u64) -> String {
    let digits = number.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (index, digit) in digits.chars().enumerate() {
        if index > 0 && (digits.len() - index).is_multiple_of(3) {
            out.push(',');
        }
        out.push(digit);
    }
    out
}

impl Whole {
    pub fn missing_message(&self) -> String {
        format!("{} is missing: enter a number.", self.label)
    }

    pub fn not_a_number_message(&self) -> String {
        format!("{} must be a number.", self.label)
    }

    pub fn not_whole_message(&self) -> String {
        format!("{} must be a whole number.", self.label)
    }

    pub fn out_of_range_message(&self) -> String {
        format!("{} must be between {} and {} {}.", self.label, grouped(self.min), grouped(self.max), self.unit)
    }

    /// Why `value` (in this setting's unit) is outside the bounds, or None. The engine, which
    /// takes some of these in finer units, checks only this.
    pub fn range_problem(&self, value: f64) -> Option<String> {
        // `contains` is false for NaN, so a NaN is refused too.
        (!(self.min as f64..=self.max as f64).contains(&value)).then(|| self.out_of_range_message())
    }

    /// Why `value` cannot be this setting, or None: a whole number within the bounds.
    pub fn problem(&self, value: f64) -> Option<String> {
        if value.is_finite() && value.fract() != 0.0 {
            return Some(self.not_whole_message());
        }
        self.range_problem(value)
    }
}

/// Why `path` cannot be the database file's place in the vault, or None.
pub fn database_path_problem(path: &str) -> Option<String> {
    let path = path.trim();
    let problem = if path.is_empty() {
        "Enter a path for the database file."
    } else if !path.ends_with(".db") {
        "The database file name must end with .db."
    } else if leaves_the_vault(path) {
        "The path must stay inside the vault (no '..')."
    } else if is_absolute(path) {
        "Use a path relative to the vault folder."
    } else {
        return None;
    };
    Some(problem.to_owned())
}

/// Why `folder` (vault-relative) cannot be used, or None.
pub fn folder_problem(folder: &str) -> Option<String> {
    if leaves_the_vault(folder) {
        Some(format!("\"{folder}\": folders must be inside the vault (no '..')."))
    } else if is_absolute(folder) {
        Some(format!("\"{folder}\": use a folder path relative to the vault."))
    } else {
        None
    }
}

/// Why `id` cannot be a model id, or None (empty: the region's recommended model).
pub fn model_id_problem(id: &str) -> Option<String> {
    id.trim().contains(char::is_whitespace).then(|| "A model ID has no spaces.".to_owned())
}

/// Why `endpoint` cannot replace AWS's endpoint, or None (empty: AWS's own). Whom credentials
/// may then go to is `llm::endpoint_trust`'s question, asked where they are sent.
pub fn endpoint_problem(endpoint: &str) -> Option<String> {
    let endpoint = endpoint.trim();
    if endpoint.is_empty() {
        return None;
    }
    crate::llm::endpoint_host(endpoint).err()
}

/// Why `pattern` is not a usable exclusion glob, or None. The glob syntax (`notes::Glob`) has
/// no classes or alternatives, so an unpaired bracket is a typing slip, not a pattern.
pub fn pattern_problem(pattern: &str) -> Option<String> {
    let count = |c: char| pattern.matches(c).count();
    if count('[') != count(']') {
        Some(format!("\"{pattern}\": a [ has no matching ] (or the other way round)."))
    } else if count('{') != count('}') {
        Some(format!("\"{pattern}\": a {{ has no matching }} (or the other way round)."))
    } else {
        None
    }
}

/// Why `tag` (with or without its `#`) is not a tag, or None; nested tags (`a/b`) are tags.
pub fn tag_problem(tag: &str) -> Option<String> {
    let name = stored_tag(tag);
    if name.is_empty() || name.contains(|c: char| c.is_whitespace() || c == ',' || c == '#') {
        Some(format!("\"{tag}\" is not a tag: one tag per line, without spaces, such as #private."))
    } else if name.chars().all(|c| c.is_ascii_digit()) {
        Some(format!("\"{tag}\" is not a tag: a tag needs at least one letter."))
    } else {
        None
    }
}

/// A tag as the settings keep it: without its leading `#`.
fn stored_tag(tag: &str) -> &str {
    tag.strip_prefix('#').unwrap_or(tag)
}

impl ListRule {
    /// The items as kept, or why one of them cannot be.
    fn check(self, items: Vec<Value>) -> Result<Vec<Value>, String> {
        let text = |item: &Value| item.as_str().unwrap_or_default().to_owned();
        let problem = |item: &Value| match self {
            ListRule::Folders => folder_problem(&text(item)),
            ListRule::Patterns => pattern_problem(&text(item)),
            ListRule::Tags => tag_problem(&text(item)),
        };
        if let Some(problem) = items.iter().find_map(problem) {
            return Err(problem);
        }
        Ok(match self {
            ListRule::Tags => items.iter().map(|item| Value::String(stored_tag(&text(item)).to_owned())).collect(),
            ListRule::Folders | ListRule::Patterns => items,
        })
    }
}

/// A value typed in the settings, as it is saved, or why it cannot be (the sentence shown next
/// to the field): the reading rules of `Setting::check` and the stricter ones for typed text
/// (model ids, endpoints) and list items. A list may come as the text area's text, one item a line.
pub fn validate_setting(key: &str, value: &Value) -> Result<Value, String> {
    let setting = SETTINGS
        .iter()
        .find(|setting| setting.key() == key)
        .ok_or_else(|| format!("There is no setting named {key}."))?;
    let value = match (setting, value) {
        (Setting::List(_), Value::String(text)) => Value::Array(text.lines().map(|line| json!(line)).collect()),
        _ => value.clone(),
    };
    let checked = setting.check(&value)?;
    match (setting, checked) {
        (Setting::Text(text), Value::String(typed)) => {
            let problem = match text.rule {
                TextRule::ModelId => model_id_problem(&typed),
                TextRule::Endpoint => endpoint_problem(&typed),
                TextRule::Free | TextRule::Region | TextRule::DatabasePath | TextRule::Folder => None,
            };
            problem.map_or(Ok(Value::String(typed)), Err)
        }
        (Setting::List(list), Value::Array(items)) => list.rule.check(items).map(Value::Array),
        (_, checked) => Ok(checked),
    }
}

fn leaves_the_vault(path: &str) -> bool {
    path.split(['/', '\\']).any(|segment| segment == "..")
}

/// `/…`, `\…` or a drive letter (`C:`).
fn is_absolute(path: &str) -> bool {
    let bytes = path.as_bytes();
    matches!(bytes.first(), Some(b'/' | b'\\'))
        || (bytes.len() >= 2 && bytes[0].is_ascii_alphabetic() && bytes[1] == b':')
}

impl Text {
    /// The text as used, or why it cannot be.
    fn check(&self, text: &str) -> Result<String, String> {
        let text = text.trim();
        match self.rule {
            // A model id or endpoint in a file is kept as it is: checked where it is used.
            TextRule::Free | TextRule::ModelId | TextRule::Endpoint => Ok(text.to_owned()),
            TextRule::Region => Ok(if text.is_empty() { self.default } else { text }.to_owned()),
            TextRule::DatabasePath => database_path_problem(text).map_or_else(|| Ok(text.to_owned()), Err),
            TextRule::Folder => {
                let folder = text.trim_matches('/');
                if folder.is_empty() {
                    return Err(if self.key == MEMORY_FOLDER.key {
                        "Choose a folder for the memory's log files.".to_owned()
                    } else {
                        "Choose a folder for saved conversations.".to_owned()
                    });
                }
                folder_problem(folder).map_or_else(|| Ok(folder.to_owned()), Err)
            }
        }
    }
}

impl Setting {
    pub fn key(&self) -> &'static str {
        match self {
            Setting::Whole(setting) => setting.key,
            Setting::Toggle(setting) => setting.key,
            Setting::Choice(setting) => setting.key,
            Setting::Text(setting) => setting.key,
            Setting::List(setting) => setting.key,
        }
    }

    pub fn default_value(&self) -> Value {
        match self {
            Setting::Whole(setting) => json!(setting.default),
            Setting::Toggle(setting) => json!(setting.default),
            Setting::Choice(setting) => json!(setting.default),
            Setting::Text(setting) => json!(setting.default),
            Setting::List(_) => json!([]),
        }
    }

    /// The value as used (trimmed, normalised), or why `raw` cannot be this setting.
    pub fn check(&self, raw: &Value) -> Result<Value, String> {
        let key = self.key();
        match (self, raw) {
            (Setting::Whole(setting), Value::Number(number)) => {
                let value = number.as_f64().unwrap_or(f64::NAN);
                setting.problem(value).map_or_else(|| Ok(raw.clone()), Err)
            }
            (Setting::Whole(setting), _) => Err(setting.not_a_number_message()),
            (Setting::Toggle(_), Value::Bool(_)) => Ok(raw.clone()),
            (Setting::Toggle(_), _) => Err(format!("The setting {key} must be true or false.")),
            (Setting::Choice(setting), Value::String(text)) if setting.allowed.contains(&text.as_str()) => {
                Ok(raw.clone())
            }
            (Setting::Choice(setting), _) => {
                Err(format!("The setting {key} must be one of: {}.", setting.allowed.join(", ")))
            }
            (Setting::Text(setting), Value::String(text)) => setting.check(text).map(Value::String),
            (Setting::Text(_), _) => Err(format!("The setting {key} must be text.")),
            // Items that are not text are dropped, as the plugin always did.
            (Setting::List(_), Value::Array(items)) => Ok(Value::Array(
                items
                    .iter()
                    .filter_map(Value::as_str)
                    .map(str::trim)
                    .filter(|item| !item.is_empty())
                    .map(|item| Value::String(item.to_owned()))
                    .collect(),
            )),
            (Setting::List(_), _) => Err(format!("The setting {key} must be a list of text.")),
        }
    }
}

/// A value `data.json` holds that cannot be used, and why (its default is used instead).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SettingProblem {
    pub key: &'static str,
    pub message: String,
}

/// Every setting's value as used: the file's where it is valid, the default elsewhere.
/// Unknown keys are dropped.
#[derive(Debug, Clone, PartialEq)]
pub struct PluginSettings {
    values: Map<String, Value>,
    problems: Vec<SettingProblem>,
}

impl Default for PluginSettings {
    fn default() -> Self {
        read_settings(&Value::Null)
    }
}

/// Reads what `data.json` holds (anything but an object reads as no settings at all).
pub fn read_settings(data: &Value) -> PluginSettings {
    let empty = Map::new();
    let stored = data.as_object().unwrap_or(&empty);
    let mut values = Map::new();
    let mut problems = Vec::new();
    for setting in SETTINGS {
        let value = match stored.get(setting.key()).map(|raw| setting.check(raw)) {
            Some(Ok(value)) => value,
            Some(Err(message)) => {
                problems.push(SettingProblem { key: setting.key(), message });
                setting.default_value()
            }
            None => setting.default_value(),
        };
        values.insert(setting.key().to_owned(), value);
    }
    PluginSettings { values, problems }
}

impl PluginSettings {
    /// The values as one JSON object, every key present.
    pub fn to_json(&self) -> Value {
        Value::Object(self.values.clone())
    }

    /// What the file held that could not be used.
    pub fn problems(&self) -> &[SettingProblem] {
        &self.problems
    }

    fn value(&self, key: &str) -> &Value {
        let value = self.values.get(key);
        debug_assert!(value.is_some(), "every setting of the table is read: {key}");
        value.unwrap_or(&Value::Null)
    }

    pub fn whole(&self, setting: &Whole) -> u64 {
        // Checked to be whole and within bounds when read.
        self.value(setting.key).as_f64().map_or(setting.default, |value| value as u64)
    }

    pub fn toggle(&self, setting: &Toggle) -> bool {
        self.value(setting.key).as_bool().unwrap_or(setting.default)
    }

    pub fn choice(&self, setting: &Choice) -> &str {
        self.value(setting.key).as_str().unwrap_or(setting.default)
    }

    pub fn text(&self, setting: &Text) -> &str {
        self.value(setting.key).as_str().unwrap_or(setting.default)
    }

    pub fn list(&self, setting: &List) -> Vec<&str> {
        self.value(setting.key)
            .as_array()
            .map(|items| items.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default()
    }
    /// The settings the engine takes, under its names and in its units (`ENGINE_FIELDS`).
    pub fn engine_json(&self) -> Value {
        let fields = ENGINE_FIELDS.iter().map(|field| {
            let value = self.value(field.setting);
            let scaled = match value.as_u64() {
                Some(number) => json!(number * field.scale),
                None => value.clone(),
            };
            (field.engine.to_owned(), scaled)
        });
        Value::Object(fields.collect())
    }
}

fn describe(setting: &Setting) -> Value {
    let default = setting.default_value();
    let mut described = match setting {
        Setting::Whole(whole) => json!({
            "kind": "whole",
            "default": default,
            "min": whole.min,
            "max": whole.max,
            "messages": {
                "missing": whole.missing_message(),
                "notANumber": whole.not_a_number_message(),
                "notWhole": whole.not_whole_message(),
                "outOfRange": whole.out_of_range_message(),
            },
        }),
        Setting::Toggle(_) => json!({ "kind": "toggle", "default": default }),
        Setting::Choice(choice) => json!({ "kind": "choice", "default": default, "allowed": choice.allowed }),
        Setting::Text(text) => {
            let rule = match text.rule {
                TextRule::Free => "free",
                TextRule::ModelId => "modelId",
                TextRule::Endpoint => "endpoint",
                TextRule::Region => "region",
                TextRule::DatabasePath => "databasePath",
                TextRule::Folder => "folder",
            };
            json!({ "kind": "text", "default": default, "rule": rule })
        }
        Setting::List(_) => json!({ "kind": "list", "default": default }),
    };
    described["key"] = json!(setting.key());
    described
}

/// The schema as the plugin's build writes it down: every setting (a list, in the table's
/// order), the regions, the default region, each region's default model and the one it falls
/// back to when the account may not call the default.
pub fn schema_json() -> Value {
    let settings: Vec<Value> = SETTINGS.iter().map(describe).collect();
    let default_models: Map<String, Value> =
        BEDROCK_REGIONS.iter().map(|region| ((*region).to_owned(), json!(default_model_for(region)))).collect();
    let fallback_models: Map<String, Value> = BEDROCK_REGIONS
        .iter()
        .map(|region| ((*region).to_owned(), json!(previous_default_model_for(region))))
        .collect();
    let engine_fields: Vec<Value> = ENGINE_FIELDS
        .iter()
        .map(|field| json!({ "setting": field.setting, "engine": field.engine, "scale": field.scale }))
        .collect();
    let unsupported_images: Vec<&str> = UNSUPPORTED_IMAGES.iter().map(|(extension, _)| *extension).collect();
    json!({
        "settings": settings,
        "engineFields": engine_fields,
        // The plugin forwards vault events for these files; the core's `exclusions` still decides.
        "fileExtensions": {
            "note": NOTE_EXTENSIONS,
            "pdf": PDF_EXTENSIONS,
            "image": IMAGE_EXTENSIONS,
            "unsupportedImage": unsupported_images,
        },
        "rememberImages": { "label": REMEMBER_IMAGES_LABEL, "description": REMEMBER_IMAGES_DESCRIPTION },
        "bedrockRegions": BEDROCK_REGIONS,
        "defaultRegion": DEFAULT_REGION,
        "defaultModels": default_models,
        "fallbackModels": fallback_models,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(text: &str) -> PluginSettings {
        read_settings(&serde_json::from_str(text).unwrap())
    }

    #[test]
    fn keys_are_unique_and_defaults_pass_their_own_checks() {
        let mut keys: Vec<&str> = SETTINGS.iter().map(Setting::key).collect();
        keys.sort_unstable();
        keys.dedup();
        assert_eq!(keys.len(), SETTINGS.len(), "a key is declared twice");
        for setting in SETTINGS {
            // The database path's default is empty on purpose (the plugin's folder), never checked.
            if *setting == Setting::Text(DATABASE_PATH) {
                continue;
            }
            assert_eq!(setting.check(&setting.default_value()), Ok(setting.default_value()), "{}", setting.key());
        }
    }

    #[test]
    fn every_engine_field_names_a_setting_and_only_numbers_are_scaled() {
        for field in ENGINE_FIELDS {
            let setting = SETTINGS.iter().find(|setting| setting.key() == field.setting);
            assert!(setting.is_some(), "{} is a setting", field.setting);
            assert!(field.scale == 1 || matches!(setting, Some(Setting::Whole(_))), "{}", field.setting);
        }
        let engine = read(r#"{"maxNoteSizeKb":3,"otherDeviceWaitSeconds":2,"secondPass":true}"#).engine_json();
        assert_eq!(engine["maxNoteBytes"], 3 * 1_024);
        assert_eq!(engine["otherDeviceWaitMs"], 2_000);
        assert_eq!(engine["secondPass"], true);
        assert_eq!(engine.as_object().unwrap().len(), ENGINE_FIELDS.len());
    }

    #[test]
    fn numbers_are_whole_and_within_bounds() {
        let budget = CONTEXT_BUDGET_TOKENS;
        assert_eq!(budget.problem(1_000.0), None);
        assert_eq!(budget.problem(950_000.0), None);
        assert_eq!(budget.problem(999.0).unwrap(), "The context budget must be between 1,000 and 950,000 tokens.");
        assert_eq!(budget.problem(950_001.0), budget.problem(999.0));
        assert_eq!(budget.problem(1_500.5).unwrap(), "The context budget must be a whole number.");
        assert!(budget.problem(f64::NAN).is_some() && budget.problem(f64::INFINITY).is_some());
        assert_eq!(grouped(1_000_000), "1,000,000");
        assert_eq!(grouped(100), "100");
    }

    #[test]
    fn a_stored_file_is_read_forgivingly() {
        let settings = read(
            r#"{"answerMaxTokens":64,"contextBudgetTokens":8000,"quietDelaySeconds":2.5,"secondPass":"yes",
                "dateOrder":"monthDay","authMethod":"password","region":"  ","databasePath":"../x.db",
                "conversationFolder":"/Chats/","excludedTags":[" private ",3,""],"unknown":1}"#,
        );
        assert_eq!(settings.whole(&ANSWER_MAX_TOKENS), 2_000, "below the minimum: the default");
        assert_eq!(settings.whole(&CONTEXT_BUDGET_TOKENS), 8_000);
        assert_eq!(settings.whole(&QUIET_DELAY_SECONDS), 30, "not whole: the default");
        assert!(!settings.toggle(&SECOND_PASS));
        assert_eq!(settings.choice(&DATE_ORDER), "monthDay");
        assert_eq!(settings.choice(&AUTH_METHOD), "accessKey");
        assert_eq!(settings.text(&REGION), DEFAULT_REGION);
        assert_eq!(settings.text(&DATABASE_PATH), "");
        assert_eq!(settings.text(&CONVERSATION_FOLDER), "Chats");
        assert_eq!(settings.list(&EXCLUDED_TAGS), vec!["private"]);
        assert!(settings.to_json().get("unknown").is_none());
        let refused: Vec<&str> = settings.problems().iter().map(|problem| problem.key).collect();
        assert_eq!(
            refused,
            ["databasePath", "authMethod", "quietDelaySeconds", "answerMaxTokens", "secondPass"],
            "in the table's order; the blank region is the default, not a mistake"
        );
        assert_eq!(settings.problems()[3].message, "The answer length must be between 100 and 8,000 tokens.");
        assert_eq!(read("[1]"), PluginSettings::default());
    }

    #[test]
    fn paths_and_folders_stay_in_the_vault() {
        assert_eq!(database_path_problem("Memory/agent.db"), None);
        assert_eq!(database_path_problem("..memory.db"), None, "dots inside a name are fine");
        for (bad, why) in [
            ("  ", "Enter a path"),
            ("memory.sqlite", ".db"),
            ("a\\..\\memory.db", "inside the vault"),
            ("/home/me/memory.db", "relative"),
            ("C:/memory.db", "relative"),
        ] {
            assert!(database_path_problem(bad).is_some_and(|problem| problem.contains(why)), "{bad}");
        }
        assert!(folder_problem("a/../b").is_some() && folder_problem("\\x").is_some());
    }

    #[test]
    fn the_schema_lists_every_setting_regions_and_their_models() {
        let schema = schema_json();
        let keys: Vec<&str> =
            schema["settings"].as_array().unwrap().iter().map(|setting| setting["key"].as_str().unwrap()).collect();
        assert_eq!(keys, SETTINGS.iter().map(Setting::key).collect::<Vec<_>>());
        assert_eq!(schema["settings"][23]["key"], "answerMaxTokens");
        assert_eq!(schema["settings"][23]["min"], 100);
        let remember_images = schema["settings"].as_array().unwrap().iter().find(|s| s["key"] == "rememberImages");
        assert_eq!(remember_images.unwrap()["default"], false);
        assert_eq!(schema["fileExtensions"]["pdf"], json!(["pdf"]));
        assert_eq!(schema["fileExtensions"]["image"], json!(["png", "jpg", "jpeg", "gif", "webp"]));
        assert_eq!(schema["fileExtensions"]["note"], json!(["md", "txt"]));
        assert!(schema["fileExtensions"]["unsupportedImage"].as_array().unwrap().contains(&json!("heic")));
        assert!(schema["rememberImages"]["description"].as_str().unwrap().contains("about 1,600 input tokens"));
        assert_eq!(schema["defaultRegion"], DEFAULT_REGION);
        assert_eq!(schema["bedrockRegions"].as_array().unwrap().len(), BEDROCK_REGIONS.len());
        assert_eq!(schema["defaultModels"][DEFAULT_REGION], crate::llm::DEFAULT_MODEL_ID);
        assert_eq!(schema["fallbackModels"][DEFAULT_REGION], "us.anthropic.claude-haiku-4-5-20251001-v1:0");
    }

    #[test]
    fn typed_model_ids_and_endpoints_follow_the_cores_rules() {
        assert_eq!(
            validate_setting("modelId", &json!(" global.anthropic.claude-haiku-4-5-20251001-v1:0 ")),
            Ok(json!("global.anthropic.claude-haiku-4-5-20251001-v1:0"))
        );
        assert_eq!(validate_setting("modelId", &json!("")), Ok(json!("")), "empty: the recommended model");
        assert_eq!(validate_setting("modelId", &json!("claude haiku")), Err("A model ID has no spaces.".to_owned()));
        for good in [
            "",
            "  ",
            "https://bedrock.example",
            "http://localhost:8080/x",
            "http://127.0.0.1:9999",
            "http://[::1]:4566",
        ] {
            assert_eq!(validate_setting("endpoint", &json!(good)), Ok(json!(good.trim())), "{good}");
        }
        for (bad, why) in [
            ("ftp://x", "must start with https://"),
            ("bedrock.example", "must start with https://"),
            ("http://bedrock.example", "plain http:// is allowed only to localhost"),
            ("http://127.0.0.2", "plain http:// is allowed only to localhost"),
            ("https://user:secret@bedrock.example", "user name or password"),
            ("https://host:port", "not a valid address"),
            ("https://a b", "not a valid address"),
            // Parsed, not prefixed: a host that merely starts with a loopback name is another host.
            ("http://127.0.0.1.evil.example", "plain http:// is allowed only to localhost"),
            ("http://localhost@evil.example", "user name or password"),
            ("http://10.0.0.1", "plain http:// is allowed only to localhost"),
        ] {
            let problem = validate_setting("endpoint", &json!(bad)).unwrap_err();
            assert!(problem.contains(why), "{bad}: {problem}");
        }
        // The rule is the connection's own, not a copy of it.
        assert_eq!(endpoint_problem("http://example.org"), crate::llm::endpoint_host("http://example.org").err());
    }

    #[test]
    fn typed_lists_are_checked_item_by_item() {
        assert_eq!(
            validate_setting("excludedFolders", &json!("Private\n\n  Journal/Health \n")),
            Ok(json!(["Private", "Journal/Health"]))
        );
        assert_eq!(
            validate_setting("excludedFolders", &json!(["a/../b"])).unwrap_err(),
            "\"a/../b\": folders must be inside the vault (no '..')."
        );
        assert_eq!(
            validate_setting("excludedFolders", &json!("ok\n/etc")).unwrap_err(),
            "\"/etc\": use a folder path relative to the vault."
        );
        assert_eq!(
            validate_setting("excludedPatterns", &json!("**/drafts/**\n*.excalidraw.md\n[x]{y}")),
            Ok(json!(["**/drafts/**", "*.excalidraw.md", "[x]{y}"]))
        );
        assert_eq!(
            validate_setting("excludedPatterns", &json!("a[b")).unwrap_err(),
            "\"a[b\": a [ has no matching ] (or the other way round)."
        );
        assert_eq!(
            validate_setting("excludedPatterns", &json!("a}")).unwrap_err(),
            "\"a}\": a { has no matching } (or the other way round)."
        );
        assert_eq!(
            validate_setting("excludedTags", &json!("#ok\nnested/tag\ntag-with_dash\n#2026a")),
            Ok(json!(["ok", "nested/tag", "tag-with_dash", "2026a"]))
        );
        for (bad, why) in [
            ("#", "one tag per line"),
            ("two words", "one tag per line"),
            ("a,b", "one tag per line"),
            ("##a", "one tag per line"),
            ("#2026", "at least one letter"),
        ] {
            let problem = validate_setting("excludedTags", &json!(bad)).unwrap_err();
            assert!(
                problem.starts_with(&format!("\"{bad}\" is not a tag")) && problem.contains(why),
                "{bad}: {problem}"
            );
        }
        assert_eq!(validate_setting("excludedTags", &json!("")), Ok(json!([])), "no lines: no tags");
    }

    #[test]
    fn typed_paths_folders_and_other_settings_use_the_reading_rules() {
        assert_eq!(validate_setting("databasePath", &json!("  Memory/agent.db ")), Ok(json!("Memory/agent.db")));
        assert_eq!(
            validate_setting("databasePath", &json!("../x.db")).unwrap_err(),
            "The path must stay inside the vault (no '..')."
        );
        assert_eq!(validate_setting("conversationFolder", &json!("/Chats/")), Ok(json!("Chats")));
        assert_eq!(
            validate_setting("conversationFolder", &json!(" / ")).unwrap_err(),
            "Choose a folder for saved conversations."
        );
        assert_eq!(
            validate_setting("conversationFolder", &json!("C:/x")).unwrap_err(),
            "\"C:/x\": use a folder path relative to the vault."
        );
        assert_eq!(
            validate_setting("answerMaxTokens", &json!(64)).unwrap_err(),
            "The answer length must be between 100 and 8,000 tokens."
        );
        assert_eq!(validate_setting("secondPass", &json!(true)), Ok(json!(true)));
        assert_eq!(validate_setting("nothing", &json!(1)).unwrap_err(), "There is no setting named nothing.");
    }
}
