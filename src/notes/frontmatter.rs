//! Frontmatter: the YAML block at the top of a note, read by a small, forgiving parser.
//!
//! Only the subset people write in Obsidian properties is understood: `key: value` with
//! plain or quoted scalars, inline `[a, b]` and block `- a` lists, `|`/`>` text blocks.
//! A YAML crate was rejected: the maintained ones are large in WebAssembly, and they
//! refuse the whole block over one bad line, where a note's metadata should survive a typo.
//! Here a line that cannot be read is skipped, never an error.

use serde_json::{Map, Number, Value};

use super::tags;
use crate::calendar::CalendarDate;

/// One property value.
#[derive(Debug, Clone, PartialEq)]
pub enum FrontmatterValue {
    /// A string; dates stay text (`2026-02-01`), as do numbers with leading zeros (`007`).
    Text(String),
    /// A list, inline or block; its items are kept as written (unquoted).
    List(Vec<String>),
    /// `true`, `false`, `yes`, `no` in any case.
    Bool(bool),
    /// A finite decimal number.
    Number(f64),
}

/// The properties of a note, in the order written. Keys compare case-insensitively; a key
/// written twice keeps its first place and its last value.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Frontmatter {
    entries: Vec<Entry>,
}

#[derive(Debug, Clone, PartialEq)]
struct Entry {
    key: String,
    folded: String,
    value: FrontmatterValue,
}

impl Frontmatter {
    /// The value of `key`, whatever its case.
    pub fn get(&self, key: &str) -> Option<&FrontmatterValue> {
        let folded = key.to_lowercase();
        self.entries.iter().find(|entry| entry.folded == folded).map(|entry| &entry.value)
    }

    /// The value of `key` when it is text.
    pub fn text(&self, key: &str) -> Option<&str> {
        match self.get(key)? {
            FrontmatterValue::Text(text) => Some(text),
            _ => None,
        }
    }

    /// Whether the note opts out of being remembered: `memory: false`, `no`, `off`, quoted too
    /// (the rule is `scope::disables_memory`).
    pub fn is_memory_disabled(&self) -> bool {
        self.get("memory").is_some_and(super::scope::disables_memory)
    }

    /// Properties another parser already read (Obsidian's metadata cache): text, booleans,
    /// numbers and lists of them; nulls and nested mappings are left out, as `parse` does.
    pub fn from_json(properties: &Map<String, Value>) -> Frontmatter {
        let mut frontmatter = Frontmatter::default();
        for (key, value) in properties {
            let value = match value {
                Value::String(text) => FrontmatterValue::Text(text.clone()),
                Value::Bool(flag) => FrontmatterValue::Bool(*flag),
                Value::Number(number) => FrontmatterValue::Number(number.as_f64().unwrap_or_default()),
                Value::Array(items) => FrontmatterValue::List(items.iter().filter_map(json_item_text).collect()),
                Value::Null | Value::Object(_) => continue,
            };
            frontmatter.insert(key, value);
        }
        frontmatter
    }

    /// The tags of `tags:` and `tag:`, written as a list, `[a, b]`, `a, b` or `a b`; without
    /// `#`, lowercase, unique, in order. Tags cannot hold spaces, so list items split too.
    pub fn tags(&self) -> Vec<String> {
        let mut found = Vec::new();
        for key in ["tags", "tag"] {
            let words: Vec<&str> = match self.get(key) {
                Some(FrontmatterValue::Text(text)) => vec![text.as_str()],
                Some(FrontmatterValue::List(items)) => items.iter().map(String::as_str).collect(),
                _ => continue,
            };
            for word in words.iter().flat_map(|text| text.split(|c: char| c == ',' || c.is_whitespace())) {
                if let Some(tag) = tags::normalise(word) {
                    tags::push_unique(&mut found, tag);
                }
            }
        }
        found
    }

    /// The note's own date: the first of `date`, `created`, `day` that holds `YYYY-MM-DD`
    /// or an RFC 3339 time.
    pub fn date(&self) -> Option<CalendarDate> {
        ["date", "created", "day"].iter().find_map(|key| CalendarDate::parse(self.text(key)?.trim()))
    }

    /// The properties as a JSON object, for the prompt's metadata. Whole numbers print
    /// without a fraction (`3`, not `3.0`).
    pub fn to_json(&self) -> Value {
        let mut object = Map::new();
        for entry in &self.entries {
            let value = match &entry.value {
                FrontmatterValue::Text(text) => Value::String(text.clone()),
                FrontmatterValue::List(items) => Value::Array(items.iter().cloned().map(Value::String).collect()),
                FrontmatterValue::Bool(flag) => Value::Bool(*flag),
                FrontmatterValue::Number(number) => number_to_json(*number),
            };
            object.insert(entry.key.clone(), value);
        }
        Value::Object(object)
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    fn insert(&mut self, key: &str, value: FrontmatterValue) {
        let folded = key.to_lowercase();
        match self.entries.iter_mut().find(|entry| entry.folded == folded) {
            Some(entry) => entry.value = value,
            None => self.entries.push(Entry { key: key.to_owned(), folded, value }),
        }
    }
}

/// A list item given as JSON, as text (`parse` keeps list items as written).
fn json_item_text(value: &Value) -> Option<String> {
    match value {
        Value::String(text) => Some(text.clone()),
        Value::Bool(_) | Value::Number(_) => Some(value.to_string()),
        Value::Null | Value::Array(_) | Value::Object(_) => None,
    }
}

fn number_to_json(number: f64) -> Value {
    // Below 2^53 every whole f64 is an exact i64.
    if number.fract() == 0.0 && number.abs() < 9_007_199_254_740_992.0 {
        Value::from(number as i64)
    } else {
        Number::from_f64(number).map_or(Value::Null, Value::Number)
    }
}

/// Splits a note's lines into its frontmatter and the index of the first body line. The
/// block must open on the very first line with `---` and close with `---` or `...`;
/// without a closing line there is no frontmatter and the whole note is body.
pub(super) fn split(lines: &[&str]) -> (Frontmatter, usize) {
    if lines.first().map(|line| line.trim_end()) != Some("---") {
        return (Frontmatter::default(), 0);
    }
    let closing = lines.iter().skip(1).position(|line| matches!(line.trim_end(), "---" | "..."));
    match closing {
        Some(offset) => (parse(&lines[1..=offset]), offset + 2),
        None => (Frontmatter::default(), 0),
    }
}

/// Reads the lines between the `---` markers.
fn parse(lines: &[&str]) -> Frontmatter {
    let mut frontmatter = Frontmatter::default();
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i].trim_end();
        i += 1;
        // Indented lines here belong to nothing readable (a nested mapping, a multi-line
        // quoted string); a list item with no key is a stray.
        if line.trim().is_empty() || line.starts_with(['#', ' ', '\t', '-']) {
            continue;
        }
        let Some((key, rest)) = split_key(line) else { continue };
        let rest = rest.trim();
        if rest.is_empty() {
            let (items, next) = block_list(lines, i);
            i = next;
            if let Some(items) = items {
                frontmatter.insert(key, FrontmatterValue::List(items));
            }
        } else if let Some(folded) = block_scalar_style(rest) {
            let (text, next) = block_scalar(lines, i, folded);
            i = next;
            frontmatter.insert(key, FrontmatterValue::Text(text));
        } else if let Some(value) = value(rest) {
            frontmatter.insert(key, value);
        }
    }
    frontmatter
}

/// `key: rest`: the key is quoted, or runs to the first colon followed by a space or the
/// end of the line (so `url: https://x` keys on `url`).
fn split_key(line: &str) -> Option<(&str, &str)> {
    let (key, rest) = if line.starts_with(['"', '\'']) {
        let (key, after) = quoted_raw(line)?;
        (key, after.trim_start().strip_prefix(':')?)
    } else {
        let bytes = line.as_bytes();
        let colon =
            (0..bytes.len()).find(|&at| bytes[at] == b':' && matches!(bytes.get(at + 1), None | Some(b' ' | b'\t')))?;
        (line[..colon].trim(), &line[colon + 1..])
    };
    if !(rest.is_empty() || rest.starts_with([' ', '\t'])) || key.is_empty() {
        return None;
    }
    Some((key, rest))
}

/// Items of a block list starting at `start` (`  - a` lines, or `- a` at the key's own
/// indentation, as YAML allows) and the index after it. `None` when the key has no list
/// under it (a null) or has a nested mapping, which is skipped whole.
fn block_list(lines: &[&str], start: usize) -> (Option<Vec<String>>, usize) {
    let mut items = Vec::new();
    let mut readable = true;
    let mut i = start;
    while i < lines.len() {
        let line = lines[i].trim_end();
        let trimmed = line.trim_start();
        let indented = trimmed.len() < line.len();
        let item = trimmed.strip_prefix('-').filter(|rest| rest.is_empty() || rest.starts_with([' ', '\t']));
        if !indented && item.is_none() && !trimmed.is_empty() && !trimmed.starts_with('#') {
            break;
        }
        i += 1;
        match item {
            Some(item) => items.extend(scalar_text(item.trim())),
            None if trimmed.is_empty() || trimmed.starts_with('#') => {}
            None => readable = false,
        }
    }
    ((readable && !items.is_empty()).then_some(items), i)
}

/// `|` keeps line breaks, `>` folds lines into one; chomping and indentation indicators
/// (`|-`, `>+`, `|2`) are accepted and otherwise ignored.
fn block_scalar_style(rest: &str) -> Option<bool> {
    let folded = match rest.chars().next()? {
        '|' => false,
        '>' => true,
        _ => return None,
    };
    let indicators = rest[1..].split(" #").next().unwrap_or("").trim();
    indicators.chars().all(|c| matches!(c, '-' | '+' | '1'..='9')).then_some(folded)
}

/// The indented lines after `key: |` (or `>`), without their common indentation.
fn block_scalar(lines: &[&str], start: usize, folded: bool) -> (String, usize) {
    let mut end = start;
    while end < lines.len() {
        let line = lines[end].trim_end();
        if !(line.is_empty() || line.starts_with([' ', '\t'])) {
            break;
        }
        end += 1;
    }
    let block: Vec<&str> = lines[start..end].iter().map(|line| line.trim_end()).collect();
    let indent = block.iter().filter(|line| !line.is_empty()).map(|line| line.len() - line.trim_start().len()).min();
    let indent = indent.unwrap_or(0);
    let body: Vec<&str> = block.iter().map(|line| line.get(indent..).unwrap_or_else(|| line.trim_start())).collect();
    let text = if folded {
        // Folding joins lines with spaces; an empty line stands for a line break.
        body.split(|line| line.is_empty()).map(|lines| lines.join(" ")).collect::<Vec<_>>().join("\n")
    } else {
        body.join("\n")
    };
    (text.trim().to_owned(), end)
}

/// A one-line value: an inline list, a quoted string, or a plain scalar typed as YAML does.
/// `None` for what is skipped: nulls, inline mappings, anchors and aliases, broken quoting.
fn value(rest: &str) -> Option<FrontmatterValue> {
    match rest.chars().next()? {
        '[' => inline_list(rest).map(FrontmatterValue::List),
        '"' | '\'' => {
            let (text, after) = quoted(rest)?;
            is_end(after).then_some(FrontmatterValue::Text(text))
        }
        '{' | '&' | '*' | '!' => None,
        _ => plain(rest),
    }
}

fn plain(rest: &str) -> Option<FrontmatterValue> {
    // YAML reads `tags: #a #b` as a comment; people who write it mean tags, and an
    // exclusion tag must not be lost, so a value that starts with `#` is kept as text.
    let text = if rest.starts_with('#') { rest } else { strip_comment(rest) };
    if text.is_empty() || text == "~" || text.eq_ignore_ascii_case("null") {
        return None;
    }
    for (word, flag) in [("true", true), ("yes", true), ("false", false), ("no", false)] {
        if text.eq_ignore_ascii_case(word) {
            return Some(FrontmatterValue::Bool(flag));
        }
    }
    Some(number(text).map_or_else(|| FrontmatterValue::Text(text.to_owned()), FrontmatterValue::Number))
}

/// A plain value without a trailing ` # comment`.
fn strip_comment(text: &str) -> &str {
    let cut = text.find(" #").into_iter().chain(text.find("\t#")).min();
    cut.map_or(text, |at| &text[..at]).trim()
}

fn is_end(after: &str) -> bool {
    let after = after.trim();
    after.is_empty() || after.starts_with('#')
}

/// YAML 1.2's decimal numbers; `007` stays text (an id, not seven), as do `.inf` and `0x1f`.
fn number(text: &str) -> Option<f64> {
    let digits = text.strip_prefix(['-', '+']).unwrap_or(text);
    let (mantissa, exponent) = match digits.find(['e', 'E']) {
        Some(at) => (&digits[..at], Some(&digits[at + 1..])),
        None => (digits, None),
    };
    let (whole, fraction) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    let all_digits = |part: &str| part.bytes().all(|byte| byte.is_ascii_digit());
    let valid = (!whole.is_empty() || !fraction.is_empty())
        && all_digits(whole)
        && all_digits(fraction)
        && !(whole.len() > 1 && whole.starts_with('0'))
        && exponent.is_none_or(|exponent| {
            let exponent = exponent.strip_prefix(['-', '+']).unwrap_or(exponent);
            !exponent.is_empty() && all_digits(exponent)
        });
    let number: f64 = text.parse().ok().filter(|_| valid)?;
    number.is_finite().then_some(number)
}

/// `[a, "b, c", 'd']`: items split at top-level commas, unquoted; empty items dropped.
/// Nested lists and mappings are beyond this parser: `None`.
fn inline_list(rest: &str) -> Option<Vec<String>> {
    let mut items = Vec::new();
    let mut inner = rest.strip_prefix('[')?.trim_start();
    loop {
        if let Some(after) = inner.strip_prefix(']') {
            return is_end(after).then_some(items);
        }
        let (item, after) = if inner.starts_with(['"', '\'']) {
            quoted(inner)?
        } else {
            let end = inner.find([',', ']'])?;
            if inner[..end].contains(['[', '{']) {
                return None;
            }
            (inner[..end].trim().to_owned(), &inner[end..])
        };
        if !item.is_empty() {
            items.push(item);
        }
        let after = after.trim_start();
        inner = match after.strip_prefix(',') {
            Some(next) => next.trim_start(),
            None if after.starts_with(']') => after,
            None => return None,
        };
    }
}

/// A block list item as text: unquoted when quoted, otherwise as written (a comment cut).
fn scalar_text(item: &str) -> Option<String> {
    if item.starts_with(['"', '\'']) {
        return quoted(item).filter(|(_, after)| is_end(after)).map(|(text, _)| text);
    }
    let text = if item.starts_with('#') { item } else { strip_comment(item) };
    (!text.is_empty() && text != "~" && !text.eq_ignore_ascii_case("null")).then(|| text.to_owned())
}

/// A quoted string at the start of `text` and what follows it. Double quotes take
/// backslash escapes; single quotes escape themselves by doubling (`'it''s'`).
fn quoted(text: &str) -> Option<(String, &str)> {
    let quote = text.chars().next()?;
    let mut out = String::new();
    let mut chars = text.char_indices().skip(1);
    while let Some((at, c)) = chars.next() {
        match c {
            '\'' if quote == '\'' => {
                if text[at + 1..].starts_with('\'') {
                    chars.next();
                    out.push('\'');
                } else {
                    return Some((out, &text[at + 1..]));
                }
            }
            '"' if quote == '"' => return Some((out, &text[at + 1..])),
            '\\' if quote == '"' => {
                let (_, escaped) = chars.next()?;
                match escaped {
                    'n' => out.push('\n'),
                    't' => out.push('\t'),
                    'r' => out.push('\r'),
                    '0' => out.push('\0'),
                    'u' => {
                        let hex: String = chars.by_ref().take(4).map(|(_, c)| c).collect();
                        out.extend(u32::from_str_radix(&hex, 16).ok().and_then(char::from_u32));
                    }
                    other => out.push(other),
                }
            }
            _ => out.push(c),
        }
    }
    None
}

/// Like `quoted`, for keys: the raw text between the quotes is enough.
fn quoted_raw(text: &str) -> Option<(&str, &str)> {
    let quote = text.chars().next()?;
    let end = text[1..].find(quote)? + 1;
    Some((&text[1..end], &text[end + 1..]))
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::{split, Frontmatter, FrontmatterValue};

    fn read(text: &str) -> Frontmatter {
        let lines: Vec<&str> = text.split('\n').collect();
        split(&lines).0
    }

    fn block(body: &str) -> Frontmatter {
        read(&format!("---\n{body}\n---\nbody"))
    }

    fn text(value: &str) -> Option<FrontmatterValue> {
        Some(FrontmatterValue::Text(value.to_owned()))
    }

    fn list(items: &[&str]) -> Option<FrontmatterValue> {
        Some(FrontmatterValue::List(items.iter().map(|item| item.to_string()).collect()))
    }

    #[test]
    fn reads_each_form_of_value() {
        use FrontmatterValue::{Bool, Number};
        let cases: &[(&str, Option<FrontmatterValue>)] = &[
            ("title: Weekly review", text("Weekly review")),
            ("title:   spaced out   ", text("spaced out")),
            ("title: 'single ''quoted'''", text("single 'quoted'")),
            ("title: \"double \\\"quoted\\\" \\u00e9\\n\"", text("double \"quoted\" é\n")),
            ("title: \"a # not a comment\" # a comment", text("a # not a comment")),
            ("title: plain # a comment", text("plain")),
            ("title: C# in depth", text("C# in depth")),
            ("title: Chuyến đi Đà Lạt 🌲", text("Chuyến đi Đà Lạt 🌲")),
            ("url: https://example.com/a:b", text("https://example.com/a:b")),
            ("title: a: b", text("a: b")),
            ("date: 2026-02-01", text("2026-02-01")),
            ("time: 2026-02-01T09:00:00+07:00", text("2026-02-01T09:00:00+07:00")),
            ("done: true", Some(Bool(true))),
            ("done: No", Some(Bool(false))),
            ("done: YES", Some(Bool(true))),
            ("done: 'false'", text("false")),
            ("rating: 4", Some(Number(4.0))),
            ("rating: -2.5e3", Some(Number(-2500.0))),
            ("rating: .5", Some(Number(0.5))),
            ("id: 007", text("007")),
            ("id: 1.2.3", text("1.2.3")),
            ("id: .inf", text(".inf")),
            ("id: 1e999", text("1e999")),
            ("id: 0x1f", text("0x1f")),
            ("aliases: [a, \"b c\", 'd, e', , f]", list(&["a", "b c", "d, e", "f"])),
            ("aliases: []", list(&[])),
            ("aliases: [a, [nested]]", None),
            ("aliases: [unclosed", None),
            ("aliases: [a] trailing", None),
            ("aliases: {a: 1}", None),
            ("aliases: *anchor", None),
            ("aliases: ~", None),
            ("aliases: null", None),
            ("aliases:", None),
            ("aliases: \"unclosed", None),
            ("\"quoted key\": value", text("value")),
        ];
        for (line, expected) in cases {
            let key = if line.starts_with('"') { "quoted key" } else { line.split(':').next().unwrap() };
            let frontmatter = block(line);
            assert_eq!(frontmatter.get(key), expected.as_ref(), "{line}");
        }
        assert_eq!(block("\"quoted key\": value").text("Quoted Key"), Some("value"));
    }

    #[test]
    fn reads_block_lists_and_block_text() {
        let lines = [
            "tags:",
            "  - daily",
            "  - \"work life\"",
            "  # a comment",
            "  -",
            "",
            "  - 'last'",
            "aliases:",
            "- same indent",
            "- second",
            "people:",
            "  alice: friend",
            "  - bob",
            "notes: |",
            "  line one",
            "    indented",
            "",
            "  line three",
            "summary: >-",
            "  folded",
            "  text",
            "",
            "  new paragraph",
            "after: yes",
        ];
        let frontmatter = block(&lines.join("\n"));
        assert_eq!(frontmatter.get("tags"), list(&["daily", "work life", "last"]).as_ref());
        assert_eq!(frontmatter.get("aliases"), list(&["same indent", "second"]).as_ref());
        assert_eq!(frontmatter.get("people"), None, "a nested mapping is skipped whole");
        assert_eq!(frontmatter.text("notes"), Some("line one\n  indented\n\nline three"));
        assert_eq!(frontmatter.text("summary"), Some("folded text\nnew paragraph"));
        assert_eq!(frontmatter.get("after"), Some(&FrontmatterValue::Bool(true)));
    }

    #[test]
    fn skips_what_it_cannot_read() {
        let frontmatter = block(
            "# a comment\ntitle: kept\nno colon here\n: no key\n  stray: indented\n- stray item\nkey:no-space\n\
             broken: \"unclosed\nlast: kept too\nTITLE: replaced",
        );
        assert_eq!(frontmatter.text("title"), Some("replaced"), "keys are case-insensitive; the last value wins");
        assert_eq!(frontmatter.text("last"), Some("kept too"));
        assert_eq!(frontmatter.to_json(), json!({"title": "replaced", "last": "kept too"}));
    }

    #[test]
    fn finds_the_block_only_at_the_very_top() {
        let cases: &[(&str, usize, bool)] = &[
            ("---\ntitle: x\n---\nbody", 3, true),
            ("---\r\ntitle: x\r\n...\r\nbody", 3, true),
            ("---\n---\nbody", 2, false),
            ("---\ntitle: x\n---", 3, true),
            ("no frontmatter\n---\ntitle: x\n---", 0, false),
            ("\n---\ntitle: x\n---", 0, false),
            ("---\ntitle: never closed", 0, false),
            ("--- \ntitle: x\n---  \nbody", 3, true),
            ("----\ntitle: x\n----", 0, false),
            ("", 0, false),
        ];
        for (text, body_start, has_title) in cases {
            let lines: Vec<&str> = text.split('\n').collect();
            let (frontmatter, start) = split(&lines);
            assert_eq!(start, *body_start, "{text:?}");
            assert_eq!(frontmatter.text("title").is_some(), *has_title, "{text:?}");
            assert_eq!(frontmatter.is_empty(), !has_title, "{text:?}");
        }
    }

    #[test]
    fn memory_can_be_switched_off_in_several_spellings() {
        let cases = [
            ("memory: false", true),
            ("memory: no", true),
            ("memory: off", true),
            ("memory: \"false\"", true),
            ("Memory: 'Off'", true),
            ("MEMORY: FALSE", true),
            ("memory: true", false),
            ("memory: on", false),
            ("memory: 0", false),
            ("title: false", false),
        ];
        for (line, disabled) in cases {
            assert_eq!(block(line).is_memory_disabled(), disabled, "{line}");
        }
        assert!(!Frontmatter::default().is_memory_disabled());
    }

    #[test]
    fn tags_come_in_every_form() {
        let cases: &[(&str, &[&str])] = &[
            ("tags: [Daily, \"#work\"]", &["daily", "work"]),
            ("tags:\n  - daily\n  - '#Work'\n  - a/b", &["daily", "work", "a/b"]),
            ("tags: daily, work", &["daily", "work"]),
            ("tags: daily work", &["daily", "work"]),
            ("tags: #daily #work", &["daily", "work"]),
            ("tag: single", &["single"]),
            ("tags: [a, b]\ntag: b, c", &["a", "b", "c"]),
            ("tags: [a, A, a]", &["a"]),
            ("tags: 42", &[]),
            ("tags:", &[]),
            ("title: no tags", &[]),
        ];
        for (body, expected) in cases {
            assert_eq!(block(body).tags(), *expected, "{body}");
        }
    }

    #[test]
    fn the_date_is_date_then_created_then_day() {
        let cases = [
            ("date: 2026-02-01", Some("2026-02-01")),
            ("date: '2026-02-01'", Some("2026-02-01")),
            ("created: 2026-02-01T23:30:00+07:00", Some("2026-02-01")),
            ("day: 2026-02-01", Some("2026-02-01")),
            ("date: 2026-02-03\ncreated: 2026-02-01", Some("2026-02-03")),
            ("day: 2026-02-03\ncreated: 2026-02-01", Some("2026-02-01")),
            ("date: someday\ncreated: 2026-02-01", Some("2026-02-01")),
            ("date: 2026-02-30", None),
            ("date: [2026-02-01]", None),
            ("title: x", None),
        ];
        for (body, expected) in cases {
            assert_eq!(block(body).date().map(|date| date.to_string()).as_deref(), expected, "{body}");
        }
    }

    #[test]
    fn json_keeps_types_and_keys() {
        let frontmatter = block("Title: x\nrating: 4\nratio: 0.25\ndone: false\ntags: [a, b]");
        assert_eq!(
            frontmatter.to_json(),
            json!({"Title": "x", "rating": 4, "ratio": 0.25, "done": false, "tags": ["a", "b"]})
        );
        assert_eq!(Frontmatter::default().to_json(), json!({}));
    }
}
