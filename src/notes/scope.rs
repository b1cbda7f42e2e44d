//! Which vault files may be remembered, decided where the text is read — right before
//! anything could be sent: by path (type, the configuration folder, the database, excluded
//! folders and patterns, Obsidian's "Excluded files") and by content (`memory: false`, an
//! excluded tag in the properties or the body, nested tags included).
//!
//! The plugin asks the same rules early (`ScopeRules::exclusion`, through the facade), to
//! avoid queueing what will not be read and to show what is left out; it feeds in what only
//! Obsidian knows — its metadata cache's properties and tags — and never decides itself.
//! Obsidian's `/regex/` filters are JavaScript regular expressions: the host matches those
//! (`host_rule`), everything else is matched here.
//!
//! Every kind of file (`notes::kind`) follows the rules by path; PDFs and images have no
//! properties or tags, so the tag and `memory: false` rules apply to notes only.

use std::borrow::Cow;
use std::sync::OnceLock;

use serde::Deserialize;
use serde_json::{Map, Value};

use super::glob::GlobSet;
use super::kind::FileKind;
use super::{Frontmatter, FrontmatterValue, ParsedNote};

/// The user's exclusion settings, as the plugin hands them over.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct ScopeRules {
    /// Obsidian's configuration folder (`.obsidian` unless changed).
    pub config_dir: String,
    /// The memory database's own path (and its `.tmp`/`.bak` siblings) is never a note.
    pub database_path: String,
    pub include_plain_text: bool,
    /// "Remember images and scanned pages": image files are remembered (and PDF pages without
    /// a text layer sent to the model) only when on. A PDF's text is remembered either way.
    pub include_images: bool,
    pub excluded_folders: Vec<String>,
    /// Globs: `*` within a folder, `**` any depth, `?` one character; without `/` they
    /// match the file name in any folder (the syntax in full: `notes::glob`).
    pub excluded_patterns: Vec<String>,
    /// Without `#`; a tag also excludes its nested tags (`private` covers `private/diary`).
    /// Notes only: PDFs and images have no tags.
    pub excluded_tags: Vec<String>,
    /// Obsidian's "Excluded files": folder or file paths, or `/regex/` (matched by the host).
    pub ignore_filters: Vec<String>,
    /// `excluded_patterns` compiled at their first use; not part of the rules' value.
    #[serde(skip)]
    pub compiled_patterns: CompiledPatterns,
}

/// The excluded patterns compiled once for the many paths matched against them (every
/// vault event, every note read), with the patterns they were compiled from: patterns
/// changed after the first use are compiled again rather than matched stale.
#[derive(Clone, Default)]
pub struct CompiledPatterns(OnceLock<(Vec<String>, GlobSet)>);

impl CompiledPatterns {
    fn for_patterns(&self, patterns: &[String]) -> Cow<'_, GlobSet> {
        let (source, globs) = self.0.get_or_init(|| (patterns.to_vec(), GlobSet::new(patterns)));
        if source == patterns {
            Cow::Borrowed(globs)
        } else {
            Cow::Owned(GlobSet::new(patterns))
        }
    }
}

impl PartialEq for CompiledPatterns {
    /// A cache: two rules are equal by their settings alone.
    fn eq(&self, _: &Self) -> bool {
        true
    }
}

impl std::fmt::Debug for CompiledPatterns {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter.write_str("CompiledPatterns")
    }
}

fn trim_slashes(path: &str) -> &str {
    path.trim().trim_matches('/')
}

fn in_folder(path: &str, folder: &str) -> bool {
    !folder.is_empty() && (path == folder || path.strip_prefix(folder).is_some_and(|rest| rest.starts_with('/')))
}

/// Whether an Obsidian filter is a `/regex/` (with optional flags) rather than a path.
pub fn is_regex_filter(filter: &str) -> bool {
    let filter = filter.trim();
    filter.len() > 2
        && filter.starts_with('/')
        && filter.rfind('/').is_some_and(|end| end > 0 && filter[end + 1..].chars().all(|c| c.is_ascii_lowercase()))
}

impl ScopeRules {
    /// Why the file at `path` is not remembered because of its path or type, or `None`.
    /// `host_rule` answers for Obsidian's `/regex/` filters.
    pub fn path_exclusion(&self, path: &str, host_rule: &dyn Fn(&str) -> bool) -> Option<String> {
        if let Some(reason) = self.kind_exclusion(path) {
            return Some(reason);
        }
        if in_folder(path, trim_slashes(&self.config_dir)) {
            return Some("in the vault's configuration folder".into());
        }
        let database = trim_slashes(&self.database_path);
        if !database.is_empty() && (path == database || path.starts_with(&format!("{database}."))) {
            return Some("Memory Agent's database".into());
        }
        if let Some(folder) =
            self.excluded_folders.iter().map(|folder| trim_slashes(folder)).find(|f| in_folder(path, f))
        {
            return Some(format!("in the excluded folder {folder}"));
        }
        if self.compiled_patterns.for_patterns(&self.excluded_patterns).matches(path) {
            return Some("matches an excluded pattern".into());
        }
        let ignored = self.ignore_filters.iter().filter(|filter| !is_regex_filter(filter)).any(|filter| {
            let filter = filter.trim();
            !filter.is_empty() && (path.starts_with(filter) || in_folder(path, trim_slashes(filter)))
        });
        if ignored || host_rule(path) {
            return Some("in Obsidian's excluded files".into());
        }
        None
    }

    /// Why the file at `path` is not remembered because of its kind (`FileKind::of`), or `None`.
    fn kind_exclusion(&self, path: &str) -> Option<String> {
        let not_remembered = || "images are not remembered (turn on Remember images and scanned pages)".to_owned();
        match FileKind::of(path) {
            FileKind::Note => {
                let plain_text =
                    path.rsplit_once('.').is_some_and(|(_, extension)| extension.eq_ignore_ascii_case("txt"));
                (plain_text && !self.include_plain_text).then(|| "not a note".into())
            }
            FileKind::Pdf => None,
            FileKind::Image(_) => (!self.include_images).then(not_remembered),
            FileKind::UnsupportedImage(format) if self.include_images => {
                Some(format!("{} {format} image: Bedrock takes PNG, JPEG, GIF and WebP", article(format)))
            }
            FileKind::UnsupportedImage(_) => Some(not_remembered()),
            FileKind::Other => Some("not a note".into()),
        }
    }

    /// Why a note is not remembered because of its properties or tags, or `None`.
    pub fn content_exclusion(&self, note: &ParsedNote) -> Option<String> {
        let tags = note.frontmatter.tags().into_iter().chain(note.inline_tags.iter().cloned());
        self.exclusion_by_properties(note.frontmatter.get("memory"), tags)
    }

    /// `content_exclusion` over what Obsidian's metadata cache already parsed: its properties
    /// (the raw `frontmatter` object) and its list of body tags (`#tag`).
    pub fn metadata_exclusion(&self, metadata: &NoteMetadata) -> Option<String> {
        let frontmatter = metadata.frontmatter.as_ref().map(Frontmatter::from_json).unwrap_or_default();
        let body_tags = metadata.tags.iter().filter_map(|tag| super::tags::normalise(tag));
        self.exclusion_by_properties(frontmatter.get("memory"), frontmatter.tags().into_iter().chain(body_tags))
    }

    /// `content_exclusion` of a note's text, reading only its properties and body tags (no chunks).
    pub fn text_exclusion(&self, text: &str) -> Option<String> {
        let text = text.strip_prefix('\u{feff}').unwrap_or(text);
        let text: Cow<str> = if text.contains('\r') {
            Cow::Owned(super::decode::normalise_line_endings(text))
        } else {
            Cow::Borrowed(text)
        };
        let lines: Vec<&str> = text.split('\n').collect();
        let (frontmatter, body_start) = super::frontmatter::split(&lines);
        let body = lines.get(body_start..).unwrap_or_default();
        let body_tags = super::tags::inline_tags(body, &super::markdown::classify(body));
        self.exclusion_by_properties(frontmatter.get("memory"), frontmatter.tags().into_iter().chain(body_tags))
    }

    /// Why the file at `path` is left out, for the plugin's questions (reconciliation, vault
    /// events, the status view): its path first, then its content when `metadata` is known.
    pub fn exclusion(
        &self,
        path: &str,
        metadata: Option<&NoteMetadata>,
        host_rule: &dyn Fn(&str) -> bool,
    ) -> Option<String> {
        // Properties and tags are a note's: a PDF's or image's path alone decides.
        let metadata = metadata.filter(|_| FileKind::of(path) == FileKind::Note);
        self.path_exclusion(path, host_rule).or_else(|| metadata.and_then(|metadata| self.metadata_exclusion(metadata)))
    }

    /// The one content rule, however the note was read: its `memory` property, then its tags
    /// (properties and body) against the excluded tags, nested tags included.
    fn exclusion_by_properties(
        &self,
        memory: Option<&FrontmatterValue>,
        tags: impl IntoIterator<Item = String>,
    ) -> Option<String> {
        if memory.is_some_and(disables_memory) {
            return Some("its properties turn memory off".into());
        }
        let excluded: Vec<String> = self.excluded_tags.iter().filter_map(|tag| super::tags::normalise(tag)).collect();
        tags.into_iter()
            .find(|tag| {
                excluded.iter().any(|rule| {
                    tag == rule || tag.strip_prefix(rule.as_str()).is_some_and(|rest| rest.starts_with('/'))
                })
            })
            .map(|tag| format!("it has the excluded tag #{tag}"))
    }
}

/// What Obsidian's metadata cache knows of a note, as the plugin hands it over unchanged.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(default)]
pub struct NoteMetadata {
    /// The properties, as Obsidian parsed them (`memory: no` may arrive as text or `false`);
    /// none when the note has no properties block.
    pub frontmatter: Option<Map<String, Value>>,
    /// The body's tags as the cache lists them (`#tag`, nested `#a/b`).
    pub tags: Vec<String>,
}

/// "a" or "an" before the name of a format in `kind::UNSUPPORTED_IMAGES`, as it is read aloud
/// (a HEIC, a BMP, an AVIF, an SVG).
fn article(format: &str) -> &'static str {
    if format.starts_with(['A', 'S']) {
        "an"
    } else {
        "a"
    }
}

/// Whether a `memory` property opts the note out: `false`, `no`, `off` (any case, quoted too).
pub(super) fn disables_memory(value: &FrontmatterValue) -> bool {
    match value {
        FrontmatterValue::Bool(enabled) => !enabled,
        FrontmatterValue::Text(text) => {
            ["false", "no", "off"].iter().any(|word| text.trim().eq_ignore_ascii_case(word))
        }
        FrontmatterValue::List(_) | FrontmatterValue::Number(_) => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::notes::{glob_matches, parse_note};
    use serde_json::json;

    fn rules() -> ScopeRules {
        ScopeRules {
            config_dir: ".obsidian".into(),
            database_path: ".obsidian/plugins/memory-agent/memory.db".into(),
            excluded_folders: vec!["Private/".into()],
            excluded_patterns: vec!["*.excalidraw.md".into(), "Archive/**".into(), "Daily/20??-*.md".into()],
            excluded_tags: vec!["#secret".into(), "Diary".into()],
            ignore_filters: vec!["Templates".into(), "/^Scratch/".into()],
            ..ScopeRules::default()
        }
    }

    #[test]
    fn paths_are_excluded_by_type_folder_pattern_and_obsidian_filters() {
        let rules = rules();
        let none = |_: &str| false;
        let cases = [
            ("Notes/a.md", None),
            ("Notes/a.pdf", None),
            ("Notes/a.txt", Some("not a note")),
            ("Notes/a.zip", Some("not a note")),
            ("Private/a.pdf", Some("in the excluded folder Private")),
            (".obsidian/workspace.md", Some("in the vault's configuration folder")),
            ("Private/a.md", Some("in the excluded folder Private")),
            ("Privately/a.md", None),
            ("Drawings/x.excalidraw.md", Some("matches an excluded pattern")),
            ("Archive/2020/old.md", Some("matches an excluded pattern")),
            ("Daily/2026-01-02.md", Some("matches an excluded pattern")),
            ("Daily/Notes-2026.md", None),
            ("Templates/t.md", Some("in Obsidian's excluded files")),
        ];
        for (path, expected) in cases {
            assert_eq!(rules.path_exclusion(path, &none).as_deref(), expected, "{path}");
        }
        let host = |path: &str| path.starts_with("Scratch");
        assert_eq!(rules.path_exclusion("Scratch/x.md", &host).as_deref(), Some("in Obsidian's excluded files"));
        assert!(is_regex_filter("/^Scratch/") && is_regex_filter("/a/i") && !is_regex_filter("Templates/"));
    }

    #[test]
    fn images_are_remembered_only_when_asked_and_only_in_formats_bedrock_takes() {
        let none = |_: &str| false;
        let off = "images are not remembered (turn on Remember images and scanned pages)";
        let mut rules = rules();
        for path in ["Photos/a.PNG", "b.jpeg", "c.heic", "d.svg"] {
            assert_eq!(rules.path_exclusion(path, &none).as_deref(), Some(off), "{path}");
        }
        rules.include_images = true;
        assert_eq!(rules.path_exclusion("Photos/a.PNG", &none), None);
        assert_eq!(rules.path_exclusion("b.webp", &none), None);
        assert_eq!(
            rules.path_exclusion("c.heic", &none).as_deref(),
            Some("a HEIC image: Bedrock takes PNG, JPEG, GIF and WebP")
        );
        assert_eq!(
            rules.path_exclusion("d.svg", &none).as_deref(),
            Some("an SVG image: Bedrock takes PNG, JPEG, GIF and WebP")
        );
        assert_eq!(rules.path_exclusion("Private/a.png", &none).as_deref(), Some("in the excluded folder Private"));
        assert_eq!(rules.path_exclusion("Archive/x.jpg", &none).as_deref(), Some("matches an excluded pattern"));
        assert_eq!(rules.path_exclusion("Templates/x.gif", &none).as_deref(), Some("in Obsidian's excluded files"));
        assert_eq!(rules.path_exclusion("notes.txt", &none).as_deref(), Some("not a note"), "plain text stays off");
        let tagged = NoteMetadata { tags: vec!["#secret".into()], ..NoteMetadata::default() };
        assert_eq!(rules.exclusion("Papers/a.pdf", Some(&tagged), &none), None, "tag rules are a note's");
        assert_eq!(rules.exclusion("Photos/a.png", Some(&tagged), &none), None);
    }

    #[test]
    fn globs_match_like_the_plugins() {
        for (pattern, path, expected) in [
            ("*.md", "a/b/c.md", true),
            ("a/*.md", "a/b/c.md", false),
            ("a/**/c.md", "a/c.md", true),
            ("a/**/c.md", "a/x/y/c.md", true),
            ("a/**", "a/x/y.md", true),
            ("a/", "a/x.md", true),
            ("?.md", "ab.md", false),
            ("x?.md", "d/xy.md", true),
            ("", "a.md", false),
        ] {
            assert_eq!(glob_matches(pattern, path), expected, "{pattern} on {path}");
        }
    }

    #[test]
    fn patterns_changed_after_their_first_use_are_matched_as_changed() {
        let none = |_: &str| false;
        let mut rules = rules();
        assert_eq!(rules.path_exclusion("Inbox/todo.md", &none), None);
        rules.excluded_patterns.push("Inbox/*".into());
        let cloned = rules.clone();
        for rules in [&rules, &cloned] {
            assert_eq!(rules.path_exclusion("Inbox/todo.md", &none).as_deref(), Some("matches an excluded pattern"));
        }
        assert_eq!(rules, ScopeRules { excluded_patterns: rules.excluded_patterns.clone(), ..self::rules() });
    }

    #[test]
    fn excluded_tags_are_found_in_properties_and_body_with_nested_tags() {
        let rules = rules();
        let excluded = |text: &str| rules.content_exclusion(&parse_note(text, 1_500));
        assert_eq!(excluded("Just a note."), None);
        assert_eq!(
            excluded("---\ntags: [work, Secret]\n---\nBody").as_deref(),
            Some("it has the excluded tag #secret")
        );
        assert_eq!(excluded("Dear #diary/2026 today").as_deref(), Some("it has the excluded tag #diary/2026"));
        assert_eq!(excluded("Not a tag: `#secret` in code").as_deref(), None);
        assert_eq!(excluded("#secrets are not #secret/ish").as_deref(), Some("it has the excluded tag #secret/ish"));
        assert_eq!(excluded("---\nmemory: false\n---\nx").as_deref(), Some("its properties turn memory off"));
    }

    /// Every content case, through each way a note is read: the text parsed here (as at read
    /// time), the text's properties and tags only (a reconciliation without Obsidian's cache),
    /// and Obsidian's metadata cache (its frontmatter object and body tags).
    #[test]
    fn content_rules_decide_alike_from_text_and_from_obsidians_cache() {
        let rules = rules();
        let cases: [(&str, serde_json::Value, &[&str], Option<&str>); 9] = [
            ("Just a note.", json!({}), &[], None),
            ("---\nmemory: false\n---\nx", json!({ "memory": false }), &[], Some("its properties turn memory off")),
            ("---\nmemory: no\n---\nx", json!({ "memory": "no" }), &[], Some("its properties turn memory off")),
            ("---\nmemory: Off\n---\nx", json!({ "memory": "Off" }), &[], Some("its properties turn memory off")),
            (
                "---\nmemory: \"FALSE\"\n---\nx",
                json!({ "memory": "FALSE" }),
                &[],
                Some("its properties turn memory off"),
            ),
            ("---\nmemory: yes\n---\nx", json!({ "memory": "yes" }), &[], None),
            (
                "---\ntags: [work, Secret]\n---\nx",
                json!({ "tags": ["work", "Secret"] }),
                &[],
                Some("it has the excluded tag #secret"),
            ),
            (
                "---\ntag: \"a, diary/2026\"\n---\nx",
                json!({ "tag": "a, diary/2026" }),
                &[],
                Some("it has the excluded tag #diary/2026"),
            ),
            (
                "Dear #Diary/2026/May and #diaryish",
                json!({}),
                &["#Diary/2026/May", "#diaryish"],
                Some("it has the excluded tag #diary/2026/may"),
            ),
        ];
        for (text, frontmatter, tags, expected) in cases {
            let from_note = rules.content_exclusion(&parse_note(text, 1_500));
            assert_eq!(from_note.as_deref(), expected, "parsed: {text}");
            assert_eq!(rules.text_exclusion(text), from_note, "text only: {text}");
            let metadata = NoteMetadata {
                frontmatter: frontmatter.as_object().cloned(),
                tags: tags.iter().map(|tag| (*tag).to_owned()).collect(),
            };
            assert_eq!(rules.metadata_exclusion(&metadata), from_note, "cache: {text}");
        }
        let only_near = NoteMetadata { tags: vec!["#diaryish".into(), "#secrets".into()], ..NoteMetadata::default() };
        assert_eq!(rules.metadata_exclusion(&only_near), None, "a tag is not a prefix of another");
        let nested_property = NoteMetadata {
            frontmatter: json!({ "memory": null, "meta": { "memory": false } }).as_object().cloned(),
            ..NoteMetadata::default()
        };
        assert_eq!(rules.metadata_exclusion(&nested_property), None);
    }

    #[test]
    fn the_plugins_question_decides_by_path_first_then_by_what_obsidian_knows() {
        let rules = rules();
        let host = |path: &str| path.starts_with("Scratch");
        let tagged = NoteMetadata { tags: vec!["#secret".into()], ..NoteMetadata::default() };
        assert_eq!(rules.exclusion("Notes/a.md", None, &host), None, "unknown content: decided when read");
        assert_eq!(
            rules.exclusion("Notes/a.md", Some(&tagged), &host).as_deref(),
            Some("it has the excluded tag #secret")
        );
        assert_eq!(
            rules.exclusion("Private/a.md", Some(&tagged), &host).as_deref(),
            Some("in the excluded folder Private")
        );
        assert_eq!(
            rules.exclusion("Scratch/a.md", None, &host).as_deref(),
            Some("in Obsidian's excluded files"),
            "a /regex/ filter, by the host"
        );
        assert_eq!(rules.exclusion("Templates/a.md", None, &host).as_deref(), Some("in Obsidian's excluded files"));
        let metadata: NoteMetadata =
            serde_json::from_value(json!({ "frontmatter": { "memory": "off" }, "tags": [] })).unwrap();
        assert_eq!(
            rules.exclusion("Notes/a.md", Some(&metadata), &host).as_deref(),
            Some("its properties turn memory off")
        );
    }
}
