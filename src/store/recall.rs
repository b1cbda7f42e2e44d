//! Candidate memories for a question: by date, by entity, by full text (BM25), the most
//! recent and the most important — the SQL behind `select`, written once for both drivers.
//!
//! Full-text search uses the FTS4 index of schema version 4. FTS4 has no ranking function,
//! so the ranking happens here in Rust: `matchinfo(…, 'pcnalx')` hands back, per row, the
//! counts Okapi BM25 needs (rows, average and actual column lengths, hits per phrase and
//! column), and `bm25` turns them into a score. Only row ids and those counts are read for
//! every match; whole memories are read only for the best `limit`.
//!
//! Candidates are read without their raw text (`raw_text` comes back empty): the prompt
//! carries summaries, and for years of notes the raw text would be megabytes copied out of
//! SQLite per question. `Store::get_memory` reads a memory whole.
//!
//! A memory's day is `happened_on` when the model found one, else the local date of
//! `created_at` at the asker's UTC offset (what a daily note's memory falls back to). The
//! fallback uses the offset at the time of the question, not the one at ingest: the store
//! does not keep the latter, and a day's error at a time-zone border is harmless here.

use std::collections::HashMap;

use serde::Serialize;

use super::consolidations::{read_consolidation, COLUMNS as INSIGHT_COLUMNS};
use super::memories::{read_memory, COLUMNS};
use super::rows::{single, to_json};
use super::schema::FULL_TEXT_INDEX;
use super::{SqlDriver, SqlValue, Store, StoreError};
use crate::calendar::CalendarDate;
use crate::domain::{Consolidation, Memory, MemoryId};

const MILLIS_PER_DAY: i64 = 86_400_000;

/// A memory's columns for a candidate: all but the raw text, read as "".
fn candidate_columns() -> String {
    COLUMNS.replacen("raw_text", "'' AS raw_text", 1)
}

/// BM25's term-frequency saturation and length normalisation, the usual values.
const K1: f64 = 1.2;
const B: f64 = 0.75;

/// How much a hit counts in each indexed column (summary, raw text, entities, topics):
/// the summary says what matters, entities and topics are chosen words, the raw text is
/// long and repeats the summary.
const COLUMN_WEIGHTS: [f64; 4] = [1.0, 0.5, 1.2, 0.8];

/// Character counts summed over every memory: enough to tell that the memory lines cannot
/// all fit a budget without reading them (`select` knows the line format, the store not).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct MemorySizes {
    pub count: u64,
    /// id + source path + `#heading` + summary + date (7 for "undated"): the fields every
    /// line carries in full.
    pub core_chars: u64,
}

/// One word or phrase to search for; `prefix` also matches longer words ("meet" → "meeting").
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SearchTerm {
    pub text: String,
    pub prefix: bool,
}

/// A memory found by full-text search and its BM25 score (higher is better).
#[derive(Debug, Clone, PartialEq)]
pub struct ScoredMemory {
    pub memory: Memory,
    pub score: f64,
}

impl<D: SqlDriver> Store<D> {
    /// Sizes of all memories, for deciding cheaply whether they might all fit a budget.
    pub fn memory_sizes(&self) -> Result<MemorySizes, StoreError> {
        let rows = self.query(
            "SELECT count(*),
                    coalesce(sum(length(id) + length(source_path) + coalesce(length(heading) + 1, 0)
                                 + length(summary) + coalesce(length(happened_on), 7)), 0)
             FROM memories",
            &[],
        )?;
        let mut row = single(rows)?;
        Ok(MemorySizes { count: row.u64()?, core_chars: row.u64()? })
    }

    /// Memories whose day falls in `from..=to`, most important first (without raw text).
    pub fn memories_between(
        &self,
        from: CalendarDate,
        to: CalendarDate,
        utc_offset_minutes: i32,
        limit: u32,
    ) -> Result<Vec<Memory>, StoreError> {
        let columns = candidate_columns();
        let offset_ms = i64::from(utc_offset_minutes) * 60_000;
        let start = from.to_days() * MILLIS_PER_DAY - offset_ms;
        let end = (to.to_days() + 1) * MILLIS_PER_DAY - offset_ms;
        let rows = self.query(
            &format!(
                "SELECT {columns} FROM memories WHERE happened_on BETWEEN ?1 AND ?2
                 UNION ALL
                 SELECT {columns} FROM memories WHERE happened_on IS NULL AND created_at >= ?3 AND created_at < ?4
                 ORDER BY importance DESC, created_at DESC, id LIMIT ?5"
            ),
            &[from.to_string().into(), to.to_string().into(), start.into(), end.into(), limit.into()],
        )?;
        rows.into_iter().map(read_memory).collect()
    }

    /// Memories about any of `names` (entity names, compared without ASCII case), the
    /// latest days first (without raw text): questions about people are mostly about the
    /// recent past, and "the last time I saw …" needs the newest.
    pub fn memories_about(
        &self,
        names: &[String],
        utc_offset_minutes: i32,
        limit: u32,
    ) -> Result<Vec<Memory>, StoreError> {
        let columns = candidate_columns();
        if names.is_empty() {
            return Ok(Vec::new());
        }
        let rows = self.query(
            &format!(
                "SELECT {columns} FROM memories AS m
                 WHERE EXISTS (SELECT 1 FROM json_each(m.entities) AS e
                               WHERE lower(json_extract(e.value, '$.name'))
                                     IN (SELECT lower(value) FROM json_each(?1)))
                 ORDER BY coalesce(happened_on, date(created_at / 1000 + ?2, 'unixepoch')) DESC, created_at DESC, id
                 LIMIT ?3"
            ),
            &[to_json(&names), (i64::from(utc_offset_minutes) * 60).into(), limit.into()],
        )?;
        rows.into_iter().map(read_memory).collect()
    }

    /// Memories matching any of `terms`, best BM25 score first, at most `limit` (without
    /// raw text).
    pub fn search_memories(&self, terms: &[SearchTerm], limit: usize) -> Result<Vec<ScoredMemory>, StoreError> {
        let Some(expression) = match_expression(terms) else { return Ok(Vec::new()) };
        let rows = self.query(
            &format!(
                "SELECT docid, matchinfo({FULL_TEXT_INDEX}, 'pcnalx') FROM {FULL_TEXT_INDEX}
                 WHERE {FULL_TEXT_INDEX} MATCH ?1"
            ),
            &[expression.into()],
        )?;
        let mut scored: Vec<(i64, f64)> = Vec::with_capacity(rows.len());
        for row in rows {
            let docid = row.first().and_then(SqlValue::as_i64);
            let info = match row.get(1) {
                Some(SqlValue::Blob(bytes)) => decode_matchinfo(bytes),
                _ => Vec::new(),
            };
            if let Some(docid) = docid {
                scored.push((docid, bm25(&info, &COLUMN_WEIGHTS)));
            }
        }
        scored.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        scored.truncate(limit);
        if scored.is_empty() {
            return Ok(Vec::new());
        }
        let docids: Vec<i64> = scored.iter().map(|(docid, _)| *docid).collect();
        let columns = candidate_columns();
        let rows = self.query(
            &format!("SELECT rowid, {columns} FROM memories WHERE rowid IN (SELECT value FROM json_each(?1))"),
            &[to_json(&docids)],
        )?;
        let mut by_rowid: HashMap<i64, Memory> = HashMap::with_capacity(rows.len());
        for mut row in rows {
            if row.is_empty() {
                continue;
            }
            let rowid = row.remove(0).as_i64();
            let memory = read_memory(row)?;
            if let Some(rowid) = rowid {
                by_rowid.insert(rowid, memory);
            }
        }
        Ok(scored
            .into_iter()
            .filter_map(|(docid, score)| by_rowid.remove(&docid).map(|memory| ScoredMemory { memory, score }))
            .collect())
    }

    /// The memories of the latest days, newest first (without raw text).
    pub fn recent_memories(&self, utc_offset_minutes: i32, limit: u32) -> Result<Vec<Memory>, StoreError> {
        let columns = candidate_columns();
        let rows = self.query(
            &format!(
                "SELECT {columns} FROM memories
                 ORDER BY coalesce(happened_on, date(created_at / 1000 + ?1, 'unixepoch')) DESC, created_at DESC, id
                 LIMIT ?2"
            ),
            &[(i64::from(utc_offset_minutes) * 60).into(), limit.into()],
        )?;
        rows.into_iter().map(read_memory).collect()
    }

    /// The most important memories, newer first among equals (without raw text).
    pub fn important_memories(&self, limit: u32) -> Result<Vec<Memory>, StoreError> {
        let columns = candidate_columns();
        let rows = self.query(
            &format!("SELECT {columns} FROM memories ORDER BY importance DESC, created_at DESC, id LIMIT ?1"),
            &[limit.into()],
        )?;
        rows.into_iter().map(read_memory).collect()
    }

    /// Insights citing at least one of `ids`, newest first.
    pub fn insights_citing_any(&self, ids: &[MemoryId]) -> Result<Vec<Consolidation>, StoreError> {
        if ids.is_empty() {
            return Ok(Vec::new());
        }
        let rows = self.query(
            &format!(
                "SELECT {INSIGHT_COLUMNS} FROM consolidations AS c
                 WHERE EXISTS (SELECT 1 FROM json_each(c.memory_ids) AS cited
                               WHERE cited.value IN (SELECT value FROM json_each(?1)))
                 ORDER BY created_at DESC, id"
            ),
            &[to_json(&ids)],
        )?;
        rows.into_iter().map(read_consolidation).collect()
    }

    /// Every entity name the memories mention, once per spelling, most used first.
    pub fn entity_names(&self) -> Result<Vec<String>, StoreError> {
        let rows = self.query(
            "SELECT json_extract(e.value, '$.name') AS name, count(*) AS uses
             FROM memories AS m, json_each(m.entities) AS e
             WHERE json_type(e.value, '$.name') = 'text'
             GROUP BY name ORDER BY uses DESC, name",
            &[],
        )?;
        Ok(rows
            .into_iter()
            .filter_map(|row| row.into_iter().next().and_then(|v| v.as_str().map(str::to_owned)))
            .collect())
    }
}

/// `"alice nguyen" OR "meet*"`: one quoted phrase per term, or `None` when no term has a
/// word in it. Only letters, digits and spaces go inside the quotes (plus a trailing `*`),
/// so no question can make the expression malformed.
fn match_expression(terms: &[SearchTerm]) -> Option<String> {
    let phrases: Vec<String> = terms
        .iter()
        .filter_map(|term| {
            let words: Vec<&str> =
                term.text.split(|c: char| !c.is_alphanumeric()).filter(|word| !word.is_empty()).collect();
            if words.is_empty() {
                return None;
            }
            let star = if term.prefix { "*" } else { "" };
            Some(format!("\"{}{star}\"", words.join(" ")))
        })
        .collect();
    (!phrases.is_empty()).then(|| phrases.join(" OR "))
}

/// matchinfo's blob: 32-bit unsigned integers in the byte order of the machine running
/// SQLite, which is the machine running this code.
fn decode_matchinfo(bytes: &[u8]) -> Vec<u32> {
    bytes.chunks_exact(4).map(|chunk| u32::from_ne_bytes([chunk[0], chunk[1], chunk[2], chunk[3]])).collect()
}

/// Okapi BM25 of one row from `matchinfo(…, 'pcnalx')`, summed over phrases and columns
/// with `weights` per column (missing weights count 1). A blob of the wrong shape scores 0.
///
/// Layout: p (phrases), c (columns), n (rows), a[c] (average tokens per column), l[c]
/// (this row's tokens per column), then for each phrase and column x = (hits in this row,
/// hits in all rows, rows with a hit).
pub fn bm25(info: &[u32], weights: &[f64]) -> f64 {
    let (Some(&phrases), Some(&columns), Some(&rows)) = (info.first(), info.get(1), info.get(2)) else {
        return 0.0;
    };
    let (phrases, columns) = (phrases as usize, columns as usize);
    // Checked: the counts come from the blob, and usize is 32 bits in WebAssembly.
    let expected = columns
        .checked_mul(2)
        .and_then(|lengths| lengths.checked_add(3))
        .zip(phrases.checked_mul(columns).and_then(|cells| cells.checked_mul(3)))
        .and_then(|(head, hits)| head.checked_add(hits));
    if expected != Some(info.len()) {
        return 0.0;
    }
    let hits_at = 3 + 2 * columns;
    let rows = f64::from(rows);
    let mut score = 0.0;
    for phrase in 0..phrases {
        for column in 0..columns {
            let x = hits_at + 3 * (phrase * columns + column);
            let hits = f64::from(info[x]);
            if hits == 0.0 {
                continue;
            }
            let with_hit = f64::from(info[x + 2]);
            let idf = (1.0 + (rows - with_hit + 0.5) / (with_hit + 0.5)).ln();
            let average = f64::from(info[3 + column]).max(1.0);
            let length = f64::from(info[3 + columns + column]);
            let saturation = hits * (K1 + 1.0) / (hits + K1 * (1.0 - B + B * length / average));
            score += weights.get(column).copied().unwrap_or(1.0) * idf * saturation;
        }
    }
    score
}

#[cfg(test)]
mod tests {
    use super::*;

    fn term(text: &str, prefix: bool) -> SearchTerm {
        SearchTerm { text: text.into(), prefix }
    }

    #[test]
    fn the_match_expression_cannot_be_broken_by_the_question() {
        assert_eq!(match_expression(&[]), None);
        assert_eq!(match_expression(&[term("\"*()", false), term("  ", true)]), None);
        assert_eq!(
            match_expression(&[term("Alice Nguyen", false), term("meet", true), term("q3\" OR \"x", false)]),
            Some("\"Alice Nguyen\" OR \"meet*\" OR \"q3 OR x\"".into())
        );
        assert_eq!(match_expression(&[term("ngân-sách", false)]), Some("\"ngân sách\"".into()));
    }

    #[test]
    fn bm25_prefers_rarer_words_more_hits_and_shorter_rows() {
        // One phrase, one column, 100 rows of 10 tokens on average.
        let row = |hits: u32, with_hit: u32, length: u32| vec![1, 1, 100, 10, length, hits, hits * 3, with_hit];
        let rare = bm25(&row(1, 2, 10), &[1.0]);
        let common = bm25(&row(1, 60, 10), &[1.0]);
        assert!(rare > common && common > 0.0, "{rare} {common}");
        assert!(bm25(&row(3, 2, 10), &[1.0]) > rare);
        assert!(bm25(&row(1, 2, 5), &[1.0]) > bm25(&row(1, 2, 40), &[1.0]));
        assert_eq!(bm25(&row(0, 2, 10), &[1.0]), 0.0);
        assert_eq!(bm25(&row(1, 2, 10), &[2.0]), 2.0 * rare);
    }

    #[test]
    fn a_malformed_matchinfo_scores_zero_without_panicking() {
        assert_eq!(bm25(&[], &COLUMN_WEIGHTS), 0.0);
        assert_eq!(bm25(&[1, 4, 100], &COLUMN_WEIGHTS), 0.0);
        assert_eq!(bm25(&[u32::MAX, u32::MAX, 1], &COLUMN_WEIGHTS), 0.0);
        assert_eq!(decode_matchinfo(&[1, 0, 0, 0, 9]).len(), 1);
    }
}
