//! A question's scope as the store applies it: only the memories of some notes, folders
//! and days ("ask about this note", "…about #travel", "…in March"). The scope is applied in
//! SQL to the candidate searches and as a predicate to what they return, so the budget is
//! spent only on memories inside it.
//!
//! Every condition uses an index: notes and folders go through `paths` (its unique path
//! index; a folder is the range `folder/` ..< `folder0`, `0` being the character after `/`)
//! and then `memories_by_path`; days through `memories_by_day`.

use serde::Deserialize;

use super::rows::{single, to_json};
use super::{SqlDriver, SqlValue, Store, StoreError};
use crate::calendar::CalendarDate;
use crate::domain::Memory;

/// Which memories a question may use. Notes and folders together are one place limit (a
/// memory in any of them is in); days narrow it further. Empty lists and no days: all.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct MemoryScope {
    /// Notes by vault path.
    pub notes: Vec<String>,
    /// Folders by vault path: their notes and every subfolder's.
    pub folders: Vec<String>,
    /// The first and last day (inclusive) of the memories' days.
    pub from: Option<CalendarDate>,
    pub to: Option<CalendarDate>,
}

impl MemoryScope {
    /// Whether it leaves anything out.
    pub fn limits(&self) -> bool {
        self.limits_place() || self.from.is_some() || self.to.is_some()
    }

    /// Whether the notes and folders leave anything out: the vault's root among them does not.
    fn limits_place(&self) -> bool {
        (!self.notes.is_empty() || !self.folders.is_empty()) && self.folder_prefixes().is_some()
    }

    /// Whether a memory from `source_path`, about `day`, is inside.
    pub fn contains(&self, source_path: &str, day: CalendarDate) -> bool {
        let in_place = !self.limits_place()
            || self.notes.iter().any(|note| note == source_path)
            || self.folders.iter().any(|folder| in_folder(source_path, folder));
        in_place && self.from.is_none_or(|from| day >= from) && self.to.is_none_or(|to| day <= to)
    }

    /// Whether `memory`, whose first day is `day` (its event day, or the day it was made),
    /// is inside: on any of its days.
    pub fn contains_memory(&self, memory: &Memory, day: CalendarDate) -> bool {
        self.contains(&memory.source_path, day)
            || memory
                .also_on
                .iter()
                .filter_map(|date| CalendarDate::parse(date))
                .any(|later| self.contains(&memory.source_path, later))
    }

    /// The folders without trailing slashes, the root ("" or "/") meaning every note.
    fn folder_prefixes(&self) -> Option<Vec<String>> {
        let mut prefixes = Vec::with_capacity(self.folders.len());
        for folder in &self.folders {
            let trimmed = folder.trim_matches('/');
            if trimmed.is_empty() {
                return None;
            }
            prefixes.push(trimmed.to_owned());
        }
        Some(prefixes)
    }

    /// `AND …` conditions over `m` (memories) with their parameters, numbered from `first`.
    pub(super) fn sql(&self, first: usize) -> (String, Vec<SqlValue>) {
        let mut clause = String::new();
        let mut params: Vec<SqlValue> = Vec::new();
        if let Some(folders) = self.folder_prefixes().filter(|_| self.limits_place()) {
            let (notes_at, folders_at) = (first, first + 1);
            clause.push_str(&format!(
                " AND m.path_id IN (SELECT id FROM paths WHERE path IN (SELECT value FROM json_each(?{notes_at}))
                   UNION ALL SELECT p2.id FROM json_each(?{folders_at}) AS f
                   JOIN paths AS p2 ON p2.path >= f.value || '/' AND p2.path < f.value || '0')"
            ));
            params.push(to_json(&self.notes));
            params.push(to_json(&folders));
        }
        if self.from.is_some() || self.to.is_some() {
            // A memory is in when any of its days is: its first (`day`, indexed) or a later one
            // (`memory_days`, keyed by day), each a range scan.
            let (from_at, to_at) = (first + params.len(), first + params.len() + 1);
            clause.push_str(&format!(
                " AND (m.day BETWEEN ?{from_at} AND ?{to_at}
                       OR m.key IN (SELECT memory_key FROM memory_days WHERE day BETWEEN ?{from_at} AND ?{to_at}))"
            ));
            params.push(self.from.map_or(i64::MIN, CalendarDate::to_days).into());
            params.push(self.to.map_or(i64::MAX, CalendarDate::to_days).into());
        }
        (clause, params)
    }
}

fn in_folder(path: &str, folder: &str) -> bool {
    let folder = folder.trim_matches('/');
    folder.is_empty() || path.strip_prefix(folder).is_some_and(|rest| rest.starts_with('/'))
}

impl<D: SqlDriver> Store<D> {
    /// How many memories are inside `scope`.
    pub fn count_in_scope(&self, scope: &MemoryScope) -> Result<u64, StoreError> {
        let (clause, params) = scope.sql(1);
        single(self.query(&format!("SELECT count(*) FROM memories AS m WHERE 1 = 1{clause}"), &params)?)?.u64()
    }

    /// The memories inside `scope` (without raw text): the most important first when
    /// `important`, else the latest days first; at most `limit` (0 = all).
    ///
    /// The keys are chosen first and only the chosen rows read: a candidate's columns cost a
    /// lookup of its entities each, and sorting a large scope's rows with them read took 170 ms
    /// at 50,000 memories (`npm run bench`), where sorting keys takes a few.
    pub fn memories_in_scope(
        &self,
        scope: &MemoryScope,
        important: bool,
        limit: u32,
    ) -> Result<Vec<Memory>, StoreError> {
        let (clause, mut params) = scope.sql(1);
        let order = if important { "m.importance DESC, m.key DESC" } else { "m.day DESC, m.key DESC" };
        let limit_at = params.len() + 1;
        params.push(if limit == 0 { (-1i64).into() } else { limit.into() });
        let rows = self.query(
            &format!("SELECT m.key FROM memories AS m WHERE 1 = 1{clause} ORDER BY {order} LIMIT ?{limit_at}"),
            &params,
        )?;
        let keys: Vec<i64> = rows.iter().filter_map(|row| row.first().and_then(SqlValue::as_i64)).collect();
        let mut by_key = self.candidates_by_key(&keys)?;
        Ok(keys.iter().filter_map(|key| by_key.remove(key)).collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn day(text: &str) -> CalendarDate {
        CalendarDate::parse(text).unwrap()
    }

    #[test]
    fn a_scope_holds_its_notes_folders_and_days() {
        let scope = MemoryScope {
            notes: vec!["Work/Budget.md".into()],
            folders: vec!["Trips/".into()],
            from: Some(day("2026-03-01")),
            to: Some(day("2026-03-31")),
        };
        assert!(scope.contains("Trips/Lisbon.md", day("2026-03-14")));
        assert!(scope.contains("Trips/2026/Porto.md", day("2026-03-01")));
        assert!(scope.contains("Work/Budget.md", day("2026-03-31")));
        assert!(!scope.contains("Trips/Lisbon.md", day("2026-04-01")), "outside the days");
        assert!(!scope.contains("Tripsy.md", day("2026-03-14")), "a folder is not a prefix of a name");
        assert!(!scope.contains("", day("2026-03-14")), "typed text is in no note");
        assert!(MemoryScope::default().contains("", day("2026-03-14")));
        assert!(!MemoryScope::default().limits());
        let root = MemoryScope { folders: vec!["/".into()], ..MemoryScope::default() };
        assert!(root.contains("Any/Note.md", day("2026-03-14")));
        assert_eq!(root.sql(1).0, "", "the vault's root leaves nothing out");
    }
}
