//! Candidate memories for a question: by date, by entity, by full text (BM25), the most
//! recent and the most important — the SQL behind `select`, written once for both drivers.
//!
//! Every candidate query is an index range scan (`memories_by_day`, `memories_by_importance`,
//! the entity links, the full-text index), so its cost follows the number of candidates asked
//! for, not the number of memories. Ties go newest first, by `key` (the order memories were
//! made in).
//!
//! Full-text search uses the FTS4 index of `search_index`. FTS4 has no ranking function,
//! so the ranking happens here in Rust: `matchinfo(…, 'pcnalx')` hands back, per row, the
//! counts Okapi BM25 needs (rows, average and actual column lengths, hits per phrase and
//! column), and `bm25` turns them into a score. The terms a question shares with a large
//! share of the memories carry almost no weight but would make every question read
//! thousands of rows, so the most common terms are left out (`fts4aux` tells how many
//! memories each term is in) until the rest match at most `MAX_TEXT_MATCHES` memories;
//! the rarest term is always kept. Only row ids and those counts are read for every
//! match; memories are read only for the best `limit`.
//!
//! Candidates are read without their text (`raw_text` comes back empty): the prompt
//! carries summaries.
//!
//! A memory's day is `happened_on` when the model found one, else the local date it was
//! made (stored as `day` when it was made). For a question about a day, an undated memory
//! counts by its creation time at the asker's offset, so "today" means the asker's today.

use std::collections::HashMap;

use serde::Serialize;

use super::consolidations::{read_consolidation, COLUMNS as INSIGHT_COLUMNS};
use super::memories::{read_candidate, SELECT_CANDIDATE};
use super::rows::{single, to_json};
use super::schema::FULL_TEXT_INDEX;
use super::scope::MemoryScope;
use super::{SqlDriver, SqlValue, Store, StoreError};
use crate::calendar::CalendarDate;
use crate::domain::{Consolidation, Memory, MemoryId};

const MILLIS_PER_DAY: i64 = 86_400_000;

/// BM25's term-frequency saturation and length normalisation, the usual values.
const K1: f64 = 1.2;
const B: f64 = 0.75;

/// How much a hit counts in each indexed column (summary, words, entities, topics, place,
/// stems, pairs, facts):
/// the summary says what matters (1.5: before version 5 the raw text repeated it, and the
/// ranking was tuned with that weight), entities and topics are chosen words, the words of
/// a note are its leftovers, and the place (path and heading) is a title shared by every
/// memory of a note, so it only breaks ties (more, and one note's memories crowd out the
/// rest: `npm run bench:recall` loses 0.01 at 4,000 tokens with 0.3).
/// Stems count as chosen words do (the tldr-pages set loses 0.02 at 4,000 tokens with 0.5);
/// the pairs of Chinese, Japanese and Thai text are those texts' only terms, so they count
/// as the summary does (with the stems' weight, the Chinese questions lose 0.2 at 4,000).
/// Facts are the model's sentences like the summary, but many to a memory: BM25's length
/// normalisation already shrinks a long column, so they count a little below it (1.2).
const COLUMN_WEIGHTS: [f64; 8] = [1.5, 0.5, 1.2, 0.8, 0.15, 1.0, 1.5, 1.2];

/// The full-text search scores about this many matches per question (at least twice `limit`).
pub const MAX_TEXT_MATCHES: usize = 1_200;

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

impl SearchTerm {
    pub fn word(text: impl Into<String>, prefix: bool) -> Self {
        SearchTerm { text: text.into(), prefix }
    }
}

/// A memory found by full-text search and its BM25 score (higher is better).
#[derive(Debug, Clone, PartialEq)]
pub struct ScoredMemory {
    pub memory: Memory,
    pub score: f64,
}

/// A memory next to another in the same source (`Store::neighbours_of`).
#[derive(Debug, Clone)]
pub struct Neighbour {
    /// The memory it neighbours.
    pub of: MemoryId,
    pub memory: Memory,
    /// It comes right after `of` (the turn answering it, the chunk continuing it), not before.
    pub after: bool,
}

impl<D: SqlDriver> Store<D> {
    /// How many memories there are.
    pub fn memory_count(&self) -> Result<u64, StoreError> {
        single(self.query("SELECT count(*) FROM memories", &[])?)?.u64()
    }

    /// Sizes of all memories, for deciding whether they might all fit a budget. It reads
    /// every memory: call it only when the count says they might.
    pub fn memory_sizes(&self) -> Result<MemorySizes, StoreError> {
        let rows = self.query(
            "SELECT count(*),
                    coalesce(sum(length(m.id) + length(p.path) + coalesce(length(m.heading) + 1, 0)
                                 + length(m.summary) + (CASE m.dated WHEN 1 THEN 10 ELSE 7 END)), 0)
             FROM memories AS m JOIN paths AS p ON p.id = m.path_id",
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
        let offset_ms = i64::from(utc_offset_minutes) * 60_000;
        let start = from.to_days() * MILLIS_PER_DAY - offset_ms;
        let end = (to.to_days() + 1) * MILLIS_PER_DAY - offset_ms;
        // An undated memory's stored day is its local day at the offset it was made at; a day
        // either side covers any offset, and its creation time decides at the asker's offset.
        // A memory of several days is found by any of them: the later ones are in `memory_days`.
        let rows = self.query(
            &format!(
                "{SELECT_CANDIDATE}
                 WHERE (m.day BETWEEN ?1 - 1 AND ?2 + 1
                        AND ((m.dated = 1 AND m.day BETWEEN ?1 AND ?2)
                             OR (m.dated = 0 AND m.created_at >= ?3 AND m.created_at < ?4)))
                    OR m.key IN (SELECT memory_key FROM memory_days WHERE day BETWEEN ?1 AND ?2)
                 ORDER BY m.importance DESC, m.key DESC LIMIT ?5"
            ),
            &[from.to_days().into(), to.to_days().into(), start.into(), end.into(), limit.into()],
        )?;
        rows.into_iter().map(read_candidate).collect()
    }

    /// Memories about any of `names` (entity names, compared without case or diacritics),
    /// the latest days first (without raw text): questions about people are mostly about
    /// the recent past, and "the last time I saw …" needs the newest.
    pub fn memories_about(&self, names: &[String], limit: u32) -> Result<Vec<Memory>, StoreError> {
        if names.is_empty() {
            return Ok(Vec::new());
        }
        let folded: Vec<String> = names.iter().map(|name| crate::words::fold(name.trim())).collect();
        let rows = self.query(
            &format!(
                "{SELECT_CANDIDATE}
                 WHERE m.key IN (SELECT me.memory_key FROM entities AS e
                                 JOIN memory_entities AS me ON me.entity_id = e.id
                                 WHERE e.folded IN (SELECT value FROM json_each(?1)))
                 ORDER BY m.day DESC, m.key DESC LIMIT ?2"
            ),
            &[to_json(&folded), limit.into()],
        )?;
        rows.into_iter().map(read_candidate).collect()
    }

    /// Memories matching any of `terms`, best BM25 score first, at most `limit` (without
    /// raw text).
    pub fn search_memories(&self, terms: &[SearchTerm], limit: usize) -> Result<Vec<ScoredMemory>, StoreError> {
        self.search_memories_within(terms, limit, &MemoryScope::default())
    }

    /// `search_memories` among the memories inside `scope` only.
    pub fn search_memories_within(
        &self,
        terms: &[SearchTerm],
        limit: usize,
        scope: &MemoryScope,
    ) -> Result<Vec<ScoredMemory>, StoreError> {
        let cap = MAX_TEXT_MATCHES.max(limit * 2);
        let terms = self.searchable_terms(terms, cap)?;
        let Some(expression) = match_expression(&terms) else { return Ok(Vec::new()) };
        let (clause, scope_params) = scope.sql(3);
        let within = if scope.limits() {
            format!(" AND docid IN (SELECT m.key FROM memories AS m WHERE 1 = 1{clause})")
        } else {
            String::new()
        };
        let mut params: Vec<SqlValue> = vec![expression.into(), (cap as i64).into()];
        params.extend(scope_params);
        let rows = self.query(
            &format!(
                "SELECT docid, matchinfo({FULL_TEXT_INDEX}, 'pcnalx') FROM {FULL_TEXT_INDEX}
                 WHERE {FULL_TEXT_INDEX} MATCH ?1{within} ORDER BY docid DESC LIMIT ?2"
            ),
            &params,
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
        let keys: Vec<i64> = scored.iter().map(|(key, _)| *key).collect();
        let mut by_key = self.candidates_by_key(&keys)?;
        Ok(scored
            .into_iter()
            .filter_map(|(key, score)| by_key.remove(&key).map(|memory| ScoredMemory { memory, score }))
            .collect())
    }

    /// The `count` terms of `terms` in the fewest memories, but in some (a smaller search to try
    /// when SQLite refuses a larger one: a term no memory holds finds nothing).
    pub fn rarest_terms(&self, terms: &[SearchTerm], count: usize) -> Result<Vec<SearchTerm>, StoreError> {
        let mut counted: Vec<(u64, &SearchTerm)> = Vec::with_capacity(terms.len());
        for term in terms {
            let documents = self.documents_with(term)?;
            if documents > 0 {
                counted.push((documents, term));
            }
        }
        counted.sort_by_key(|(documents, _)| *documents);
        Ok(counted.into_iter().take(count).map(|(_, term)| term.clone()).collect())
    }

    /// `terms` without the most common ones, so that the rest match at most about `cap`
    /// memories; the rarest is always kept.
    fn searchable_terms(&self, terms: &[SearchTerm], cap: usize) -> Result<Vec<SearchTerm>, StoreError> {
        let mut counted: Vec<(u64, &SearchTerm)> = Vec::with_capacity(terms.len());
        for term in terms {
            counted.push((self.documents_with(term)?, term));
        }
        counted.sort_by_key(|(documents, _)| *documents);
        let mut total = 0u64;
        let mut kept = Vec::with_capacity(counted.len());
        for (documents, term) in counted {
            total += documents;
            if kept.is_empty() || total <= cap as u64 {
                kept.push(term.clone());
            }
        }
        Ok(kept)
    }

    /// How many memories a term's rarest word is in (its prefix's words, for a prefix term).
    pub fn documents_with(&self, term: &SearchTerm) -> Result<u64, StoreError> {
        let words = search_words(&term.text);
        let mut fewest: Option<u64> = None;
        for (index, word) in words.iter().enumerate() {
            let prefix = term.prefix && index + 1 == words.len();
            let rows = if prefix {
                let mut end = word.clone();
                end.push(char::MAX);
                self.query(
                    "SELECT coalesce(sum(documents), 0) FROM memories_terms WHERE col = '*' AND term >= ?1 AND term < ?2",
                    &[word.as_str().into(), end.into()],
                )?
            } else {
                self.query(
                    "SELECT coalesce(sum(documents), 0) FROM memories_terms WHERE col = '*' AND term = ?1",
                    &[word.as_str().into()],
                )?
            };
            let documents = single(rows)?.u64()?;
            fewest = Some(fewest.map_or(documents, |fewest| fewest.min(documents)));
        }
        Ok(fewest.unwrap_or(0))
    }

    /// The memories just before and after each of `ids` in the same source (a note's
    /// neighbouring chunks, a conversation's neighbouring turns), by the order they were made,
    /// with the id of the memory they neighbour (without raw text). Two index seeks each.
    pub fn neighbours_of(&self, ids: &[MemoryId]) -> Result<Vec<Neighbour>, StoreError> {
        if ids.is_empty() {
            return Ok(Vec::new());
        }
        let pairs = self.query(
            "SELECT c.id, (SELECT max(n.key) FROM memories AS n WHERE n.path_id = c.path_id AND n.key < c.key),
                    (SELECT min(n.key) FROM memories AS n WHERE n.path_id = c.path_id AND n.key > c.key)
             FROM memories AS c WHERE c.id IN (SELECT value FROM json_each(?1))",
            &[to_json(&ids)],
        )?;
        // (key, the memory it neighbours, whether it comes after it)
        let mut found: Vec<(i64, MemoryId, bool)> = Vec::new();
        for row in pairs {
            let id = row.first().and_then(SqlValue::as_str).map(|id| MemoryId(id.to_owned()));
            let Some(id) = id else { continue };
            for (value, after) in row[1..].iter().zip([false, true]) {
                if let Some(key) = value.as_i64() {
                    found.push((key, id.clone(), after));
                }
            }
        }
        let keys: Vec<i64> = found.iter().map(|(key, ..)| *key).collect();
        let by_key = self.candidates_by_key(&keys)?;
        Ok(found
            .into_iter()
            .filter_map(|(key, of, after)| {
                by_key.get(&key).map(|memory| Neighbour { of, memory: memory.clone(), after })
            })
            .collect())
    }

    /// The candidates (without raw text) with these keys, by key.
    pub(super) fn candidates_by_key(&self, keys: &[i64]) -> Result<HashMap<i64, Memory>, StoreError> {
        let rows = self.query(
            &format!("{SELECT_CANDIDATE} WHERE m.key IN (SELECT value FROM json_each(?1))"),
            &[to_json(&keys)],
        )?;
        let mut by_key: HashMap<i64, Memory> = HashMap::with_capacity(rows.len());
        for row in rows {
            let key = row.first().and_then(SqlValue::as_i64);
            let memory = read_candidate(row)?;
            if let Some(key) = key {
                by_key.insert(key, memory);
            }
        }
        Ok(by_key)
    }

    /// The memories of the latest days, newest first (without raw text).
    pub fn recent_memories(&self, limit: u32) -> Result<Vec<Memory>, StoreError> {
        let rows =
            self.query(&format!("{SELECT_CANDIDATE} ORDER BY m.day DESC, m.key DESC LIMIT ?1"), &[limit.into()])?;
        rows.into_iter().map(read_candidate).collect()
    }

    /// The most important memories, newer first among equals (without raw text).
    pub fn important_memories(&self, limit: u32) -> Result<Vec<Memory>, StoreError> {
        let rows = self
            .query(&format!("{SELECT_CANDIDATE} ORDER BY m.importance DESC, m.key DESC LIMIT ?1"), &[limit.into()])?;
        rows.into_iter().map(read_candidate).collect()
    }

    /// Insights citing at least one of `ids`, newest first.
    pub fn insights_citing_any(&self, ids: &[MemoryId]) -> Result<Vec<Consolidation>, StoreError> {
        if ids.is_empty() {
            return Ok(Vec::new());
        }
        let rows = self.query(
            &format!(
                "SELECT {INSIGHT_COLUMNS} FROM consolidations
                 WHERE key IN (SELECT s.insight_key FROM memories AS m
                               JOIN insight_sources AS s ON s.memory_key = m.key
                               WHERE m.id IN (SELECT value FROM json_each(?1)))
                 ORDER BY key DESC"
            ),
            &[to_json(&ids)],
        )?;
        rows.into_iter().map(read_consolidation).collect()
    }
}

/// The words of a search term as the index holds them: lower case, letters and digits.
fn search_words(text: &str) -> Vec<String> {
    text.split(|c: char| !c.is_alphanumeric()).filter(|word| !word.is_empty()).map(|word| word.to_lowercase()).collect()
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
        SearchTerm::word(text, prefix)
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
