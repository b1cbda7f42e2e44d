//! What the memory browser shows: memories newest first, filtered in SQL and the full-text
//! index, a page at a time by keyset (`before`), so the first screen costs the same at 50
//! memories or 50,000. Insights page the same way. Lists never carry a memory's text.

use serde::{Deserialize, Serialize};

use super::consolidations::{read_consolidation, COLUMNS as INSIGHT_COLUMNS};
use super::memories::{read_memory, SELECT_CARD};
use super::rows::{single, RowReader};
use super::schema::FULL_TEXT_INDEX;
use super::{SqlDriver, SqlValue, Store, StoreError};
use crate::calendar::CalendarDate;
use crate::domain::{Consolidation, Memory};
use crate::words::fold;

/// Where a page ends: the next page starts after this memory (or insight), newest first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct MemoryCursor {
    pub key: i64,
}

/// A page of the memory browser: filters (all optional, combined with AND) and where to start.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct MemoryQuery {
    /// Words that must all be found (as words or word starts) in what a memory says.
    pub text: Option<String>,
    /// Part of the source note's path.
    pub source: Option<String>,
    /// Part of an entity's name, without case or diacritics.
    pub entity: Option<String>,
    /// Part of a topic.
    pub topic: Option<String>,
    /// `YYYY-MM-DD`, inclusive: the memory's day.
    pub from: Option<String>,
    pub to: Option<String>,
    pub before: Option<MemoryCursor>,
    /// Memories per page (0 = 50).
    pub limit: u32,
    /// Only memories of this kind of file: `note`, `pdf` or `image`.
    pub file_kind: Option<BrowseFileKind>,
}

/// The kinds of file the browser filters by (the kind is the file's extension).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum BrowseFileKind {
    /// Notes, selections and typed text: any file neither a PDF nor an image.
    Note,
    Pdf,
    Image,
}

/// Which extensions (lowercase, without the dot) make a file a PDF or an image. The caller
/// hands in the notes module's lists (`notes::kind`, which the store sits below), so the
/// browser and every DTO's `fileKind` sort paths by one rule.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FileExtensions<'a> {
    pub pdf: &'a [&'a str],
    pub image: &'a [&'a str],
}

/// One page of memories (as the store reads them, or as a view shows them: `map`).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct MemoryPage<M = Memory> {
    pub memories: Vec<M>,
    /// Where the next page starts; `None` on the last page.
    pub next: Option<MemoryCursor>,
    /// How many memories the filters let through, counted up to `MATCHING_COUNT_LIMIT`
    /// (`None` without filters: then it is `total`).
    pub matching: Option<u64>,
    pub total: u64,
}

impl<M> MemoryPage<M> {
    /// The same page with each memory turned into what a view shows.
    pub fn map<N>(self, view: impl FnMut(M) -> N) -> MemoryPage<N> {
        let MemoryPage { memories, next, matching, total } = self;
        MemoryPage { memories: memories.into_iter().map(view).collect(), next, matching, total }
    }
}

/// One page of insights, newest first.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct InsightPage {
    pub insights: Vec<Consolidation>,
    pub next: Option<MemoryCursor>,
    pub total: u64,
}

/// Filtered counts stop here ("10,000+"): counting further would read every memory.
pub const MATCHING_COUNT_LIMIT: u64 = 10_000;
const DEFAULT_PAGE: u32 = 50;
const MAX_PAGE: u32 = 500;

impl<D: SqlDriver> Store<D> {
    /// A page of memories for the browser; `extensions` sort files into kinds for its
    /// `file_kind` filter.
    pub fn browse_memories(&self, query: &MemoryQuery, extensions: &FileExtensions) -> Result<MemoryPage, StoreError> {
        let limit = if query.limit == 0 { DEFAULT_PAGE } else { query.limit.min(MAX_PAGE) };
        let (filters, mut params) = filters(query, extensions)?;
        let mut page_filters = filters.clone();
        if let Some(cursor) = query.before {
            page_filters.push(format!("m.key < ?{}", params.len() + 1));
            params.push(cursor.key.into());
        }
        let filtered = !filters.is_empty();
        let sql = format!(
            "{SELECT_CARD} {where_clause} ORDER BY m.key DESC LIMIT {fetch}",
            where_clause = where_clause(&page_filters),
            fetch = limit + 1
        );
        let mut rows = self.query(&sql, &params)?;
        let more = rows.len() > limit as usize;
        rows.truncate(limit as usize);
        let mut memories = Vec::with_capacity(rows.len());
        let mut last = None;
        for row in rows {
            let key = row.first().and_then(SqlValue::as_i64);
            let memory = read_memory(row)?;
            last = key.map(|key| MemoryCursor { key });
            memories.push(memory);
        }
        let total = self.memory_count()?;
        let matching = if filtered {
            let (filters, params) = self::filters(query, extensions)?;
            let sql = format!(
                "SELECT count(*) FROM (SELECT 1 FROM memories AS m JOIN paths AS p ON p.id = m.path_id {} LIMIT {})",
                where_clause(&filters),
                MATCHING_COUNT_LIMIT + 1
            );
            Some(single(self.query(&sql, &params)?)?.u64()?)
        } else {
            None
        };
        Ok(MemoryPage { memories, next: if more { last } else { None }, matching, total })
    }

    /// A page of insights, newest first.
    pub fn browse_insights(&self, before: Option<MemoryCursor>, limit: u32) -> Result<InsightPage, StoreError> {
        let limit = if limit == 0 { DEFAULT_PAGE } else { limit.min(MAX_PAGE) };
        let (condition, params): (&str, Vec<SqlValue>) = match before {
            Some(cursor) => ("WHERE key < ?1", vec![cursor.key.into()]),
            None => ("", Vec::new()),
        };
        let rows = self.query(
            &format!(
                "SELECT key, {INSIGHT_COLUMNS} FROM consolidations {condition}
                 ORDER BY key DESC LIMIT {}",
                limit + 1
            ),
            &params,
        )?;
        let more = rows.len() > limit as usize;
        let mut insights = Vec::new();
        let mut last = None;
        for mut row in rows.into_iter().take(limit as usize) {
            let key = RowReader::new(vec![row.remove(0)]).i64()?;
            let insight = read_consolidation(row)?;
            last = Some(MemoryCursor { key });
            insights.push(insight);
        }
        let total = single(self.query("SELECT count(*) FROM consolidations", &[])?)?.u64()?;
        Ok(InsightPage { insights, next: if more { last } else { None }, total })
    }
}

impl<D: SqlDriver> Store<D> {
    /// Every memory (with its text) and insight as one JSON document, for the user's export.
    pub fn export_json(&self) -> Result<String, StoreError> {
        #[derive(Serialize)]
        struct Export {
            memories: Vec<Memory>,
            insights: Vec<Consolidation>,
        }
        let rows = self.query(&format!("{} ORDER BY m.key DESC", super::memories::SELECT_FULL), &[])?;
        let memories = rows.into_iter().map(read_memory).collect::<Result<Vec<_>, _>>()?;
        let export = Export { memories, insights: self.list_consolidations(0, 0)? };
        serde_json::to_string_pretty(&export).map_err(|error| StoreError::InvalidData(error.to_string()))
    }
}

fn where_clause(filters: &[String]) -> String {
    if filters.is_empty() {
        String::new()
    } else {
        format!("WHERE {}", filters.join(" AND "))
    }
}

/// The SQL conditions of a query's filters and their parameters (numbered from 1).
fn filters(query: &MemoryQuery, extensions: &FileExtensions) -> Result<(Vec<String>, Vec<SqlValue>), StoreError> {
    let mut filters = Vec::new();
    let mut params: Vec<SqlValue> = Vec::new();
    let next = |value: SqlValue, params: &mut Vec<SqlValue>| {
        params.push(value);
        params.len()
    };
    let filled =
        |value: &Option<String>| value.as_deref().map(str::trim).filter(|value| !value.is_empty()).map(str::to_owned);
    if let Some(text) = filled(&query.text) {
        match all_words_expression(&text) {
            Some(expression) => {
                let at = next(expression.into(), &mut params);
                filters.push(format!(
                    "m.key IN (SELECT docid FROM {FULL_TEXT_INDEX} WHERE {FULL_TEXT_INDEX} MATCH ?{at})"
                ));
            }
            // Only punctuation: nothing can match it.
            None => filters.push("0".into()),
        }
    }
    if let Some(source) = filled(&query.source) {
        let at = next(like_pattern(&source).into(), &mut params);
        filters.push(format!("p.path LIKE ?{at} ESCAPE '\\'"));
    }
    if let Some(entity) = filled(&query.entity) {
        let at = next(like_pattern(&fold(&entity)).into(), &mut params);
        filters.push(format!(
            "m.key IN (SELECT me.memory_key FROM entities AS e JOIN memory_entities AS me ON me.entity_id = e.id
                       WHERE e.folded LIKE ?{at} ESCAPE '\\')"
        ));
    }
    if let Some(topic) = filled(&query.topic) {
        let at = next(like_pattern(&topic).into(), &mut params);
        filters.push(format!("m.topics LIKE ?{at} ESCAPE '\\'"));
    }
    let mut bounds = [i64::MIN, i64::MAX];
    for (bound, at) in [(&query.from, 0), (&query.to, 1)] {
        if let Some(date) = filled(bound) {
            let day = CalendarDate::parse(&date)
                .ok_or_else(|| StoreError::InvalidInput(format!("{date} is not a date (YYYY-MM-DD)")))?;
            bounds[at] = day.to_days();
        }
    }
    if bounds != [i64::MIN, i64::MAX] {
        // Any of a memory's days counts: its first (`day`) or a later one (`memory_days`).
        let (from_at, to_at) = (next(bounds[0].into(), &mut params), next(bounds[1].into(), &mut params));
        filters.push(format!(
            "(m.day BETWEEN ?{from_at} AND ?{to_at}
              OR m.key IN (SELECT memory_key FROM memory_days WHERE day BETWEEN ?{from_at} AND ?{to_at}))"
        ));
    }
    if let Some(kind) = query.file_kind {
        // The path's ending, as `FileKind::of` reads the extension (LIKE ignores ASCII case). It
        // is checked on the rows the page walks, newest first: linear in what the page reads.
        let mut ends = |list: &[&str]| -> String {
            let alternatives: Vec<String> = list
                .iter()
                .map(|extension| {
                    format!("p.path LIKE ?{} ESCAPE '\\'", next(ending_pattern(extension).into(), &mut params))
                })
                .collect();
            if alternatives.is_empty() {
                "0".to_owned()
            } else {
                format!("({})", alternatives.join(" OR "))
            }
        };
        filters.push(match kind {
            BrowseFileKind::Pdf => ends(extensions.pdf),
            BrowseFileKind::Image => ends(extensions.image),
            BrowseFileKind::Note => {
                let (pdf, image) = (ends(extensions.pdf), ends(extensions.image));
                format!("(NOT {pdf} AND NOT {image})")
            }
        });
    }
    Ok((filters, params))
}

/// `%.ext` for LIKE: a path ending in `.ext`, LIKE's own wildcards taken literally.
fn ending_pattern(extension: &str) -> String {
    let escaped = extension.replace('\\', "\\\\").replace('%', "\\%").replace('_', "\\_");
    format!("%.{escaped}")
}

/// `%text%` for LIKE, with LIKE's own wildcards taken literally.
fn like_pattern(text: &str) -> String {
    let escaped = text.replace('\\', "\\\\").replace('%', "\\%").replace('_', "\\_");
    format!("%{escaped}%")
}

/// `"alice"* "budget"*`: every word, as a word or the start of one (FTS4: space is AND).
fn all_words_expression(text: &str) -> Option<String> {
    let words: Vec<String> = crate::words::words(text)
        .into_iter()
        .flat_map(|word| {
            // A word such as `1/2/2026` is several words to the index.
            word.lower
                .split(|c: char| !c.is_alphanumeric())
                .filter(|part| !part.is_empty())
                .map(str::to_owned)
                .collect::<Vec<_>>()
        })
        .map(|word| format!("\"{word}*\""))
        .collect();
    (!words.is_empty()).then(|| words.join(" "))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn filter_words_are_quoted_prefixes_and_like_wildcards_are_literal() {
        assert_eq!(all_words_expression("Alice's  Q3-budget"), Some("\"alice*\" \"q3*\" \"budget*\"".into()));
        assert_eq!(all_words_expression("\" OR *"), Some("\"or*\"".into()));
        assert_eq!(all_words_expression("on 1/2/2026"), Some("\"on*\" \"1*\" \"2*\" \"2026*\"".into()));
        assert_eq!(all_words_expression("?!"), None);
        assert_eq!(like_pattern("50%_a\\b"), "%50\\%\\_a\\\\b%");
    }
}
