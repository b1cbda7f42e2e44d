//! The database schema as forward migrations, versioned with `PRAGMA user_version`.
//!
//! `MIGRATIONS[i]` upgrades a database from version `i` to `i + 1`; each runs in its own
//! transaction together with the version bump, so a crash mid-migration leaves the older
//! version intact. Migrations are only ever appended: a released one never changes.
//! Opening a database whose version is above `MIGRATIONS.len()` is refused
//! (`StoreError::NewerSchema`) rather than silently downgraded.

use super::driver::SqlDriver;
use super::StoreError;

/// The schema, one step per version.
pub const MIGRATIONS: &[&str] = &[V1, V2, V3, V4, V5, V6, V7, V8, V9, V10, V11, V12];

/// Version 1: the two tables of the design plus the engine's bookkeeping.
///
/// A memory's source memories are not duplicated in `sources`: `memories.source_path` is
/// the one truth, indexed. Consolidations keep the ids they connect as a JSON array and are
/// looked up with `json_each`, again one truth instead of a link table to keep in step.
const V1: &str = r#"
CREATE TABLE memories (
    id           TEXT PRIMARY KEY,
    source_path  TEXT NOT NULL,
    source_kind  TEXT NOT NULL CHECK (source_kind IN ('note', 'selection', 'text')),
    heading      TEXT,
    line_start   INTEGER,
    line_end     INTEGER,
    raw_text     TEXT NOT NULL,
    summary      TEXT NOT NULL CHECK (length(summary) > 0),
    entities     TEXT NOT NULL DEFAULT '[]' CHECK (json_valid(entities)),
    topics       TEXT NOT NULL DEFAULT '[]' CHECK (json_valid(topics)),
    importance   REAL NOT NULL CHECK (importance >= 0 AND importance <= 1),
    happened_on  TEXT,
    created_at   INTEGER NOT NULL,
    updated_at   INTEGER NOT NULL,
    consolidated INTEGER NOT NULL DEFAULT 0 CHECK (consolidated IN (0, 1))
);
CREATE INDEX memories_by_source ON memories (source_path, source_kind);
CREATE INDEX memories_unconsolidated ON memories (consolidated, created_at);
CREATE INDEX memories_by_happened ON memories (happened_on);
CREATE INDEX memories_by_created ON memories (created_at);

CREATE TABLE consolidations (
    id          TEXT PRIMARY KEY,
    memory_ids  TEXT NOT NULL CHECK (json_valid(memory_ids)),
    insight     TEXT NOT NULL CHECK (length(insight) > 0),
    connections TEXT NOT NULL DEFAULT '[]' CHECK (json_valid(connections)),
    created_at  INTEGER NOT NULL
);
CREATE INDEX consolidations_by_created ON consolidations (created_at);

CREATE TABLE sources (
    path       TEXT PRIMARY KEY,
    mtime      INTEGER NOT NULL,
    size       INTEGER NOT NULL,
    sha256     TEXT NOT NULL,
    updated_at INTEGER NOT NULL
);

CREATE TABLE jobs (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    kind        TEXT NOT NULL CHECK (kind IN ('ingest_source', 'ingest_text', 'consolidate')),
    key         TEXT NOT NULL,
    payload     TEXT NOT NULL CHECK (json_valid(payload)),
    state       TEXT NOT NULL CHECK (state IN ('queued', 'running', 'done', 'failed')),
    attempts    INTEGER NOT NULL DEFAULT 0,
    next_run_at INTEGER NOT NULL,
    last_error  TEXT,
    created_at  INTEGER NOT NULL,
    updated_at  INTEGER NOT NULL
);
-- At most one waiting and one running job per key: a note is never processed twice at once.
CREATE UNIQUE INDEX jobs_one_queued_per_key ON jobs (key) WHERE state = 'queued';
CREATE UNIQUE INDEX jobs_one_running_per_key ON jobs (key) WHERE state = 'running';
CREATE INDEX jobs_due ON jobs (state, next_run_at);

CREATE TABLE meta (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
"#;

/// Version 2: tokens used per local day and agent, for the status view's cost estimate.
const V2: &str = r#"
CREATE TABLE usage (
    day                TEXT NOT NULL,
    agent              TEXT NOT NULL,
    calls              INTEGER NOT NULL DEFAULT 0,
    input_tokens       INTEGER NOT NULL DEFAULT 0,
    output_tokens      INTEGER NOT NULL DEFAULT 0,
    cache_read_tokens  INTEGER NOT NULL DEFAULT 0,
    cache_write_tokens INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (day, agent)
);
"#;

/// Version 3: what the engine needs to skip work. `content_hash` lets an edited note keep
/// the memories of its unchanged chunks (no model call); `skipped` records why a file is
/// not remembered (binary, too large, `memory: false`, …) for the status view.
const V3: &str = r#"
ALTER TABLE memories ADD COLUMN content_hash TEXT;
CREATE INDEX memories_by_content ON memories (source_path, content_hash);
ALTER TABLE sources ADD COLUMN skipped TEXT;
"#;

/// Version 4: full-text search over what a memory says, for choosing what a question's
/// prompt carries once the memories outgrow the budget (`store::recall`).
///
/// FTS4, not FTS5: sql.js is built with FTS3/FTS4 only, and the native build must run the
/// same SQL. The index is an external-content table over `memories` (no second copy of the
/// text), kept in step by triggers in the documented pattern: the old row leaves the index
/// *before* it changes or goes, the new one enters after. Only the four indexed columns
/// re-index a row, so moving a memory or marking it consolidated costs nothing here.
/// `entities` and `topics` are indexed as their JSON text; the tokenizer keeps the words
/// (`name`, `kind` come along in every row, which BM25 shrugs off as uninformative).
/// `remove_diacritics=2` lets "hom qua" find "hôm qua" (the query is folded the same way).
///
/// The index is keyed by the rowid of `memories`, which only `VACUUM` could renumber; the
/// store never vacuums, and `Store::open` rebuilds the index should it ever disagree with
/// the table (it is derived data, never a reason to call the database corrupt).
const V4: &str = r#"
CREATE VIRTUAL TABLE memories_fts USING fts4(
    content="memories", summary, raw_text, entities, topics,
    tokenize=unicode61 "remove_diacritics=2"
);
CREATE TRIGGER memories_fts_before_delete BEFORE DELETE ON memories BEGIN
    DELETE FROM memories_fts WHERE docid = old.rowid;
END;
CREATE TRIGGER memories_fts_before_update BEFORE UPDATE OF summary, raw_text, entities, topics ON memories BEGIN
    DELETE FROM memories_fts WHERE docid = old.rowid;
END;
CREATE TRIGGER memories_fts_after_update AFTER UPDATE OF summary, raw_text, entities, topics ON memories BEGIN
    INSERT INTO memories_fts (docid, summary, raw_text, entities, topics)
    VALUES (new.rowid, new.summary, new.raw_text, new.entities, new.topics);
END;
CREATE TRIGGER memories_fts_after_insert AFTER INSERT ON memories BEGIN
    INSERT INTO memories_fts (docid, summary, raw_text, entities, topics)
    VALUES (new.rowid, new.summary, new.raw_text, new.entities, new.topics);
END;
INSERT INTO memories_fts (memories_fts) VALUES ('rebuild');
"#;

/// Version 5: a compact store for years of notes (the tables of versions 1–4 are read once
/// by `upgrade::finish_version_5`, which then drops them).
///
/// - A memory of a note no longer keeps the note's text: the vault has it. Only selections
///   and typed text, which have no other home, keep theirs (`text`); a note's memory keeps
///   a few of the chunk's own words (`keywords`) for the full-text search.
/// - Paths are stored once (`paths`), so a note's memories, its source record and a rename
///   touch one row; entity names are stored once (`entities`): a memory lists their ids in
///   order (`entity_ids`), and `memory_entities` makes "memories about Alice" an index lookup.
/// - A memory's day (`day`, days since 1970-01-01: when it happened, else the local day it
///   was made) and its importance (thousandths) are indexed columns, so the candidates of a
///   question are index range scans, not passes over every memory. Ties and "newest first"
///   go by `key`, the order memories were made in: no index on the creation time is needed.
/// - Insights are linked to the memories they cite (`insight_sources`), so the orphan fix
///   and "insights over these memories" are lookups instead of `json_each` over every insight.
/// - Every table a full-text index or a link points into has an `INTEGER PRIMARY KEY`, so
///   `VACUUM` (which renumbers implicit rowids) can run.
/// - The full-text index reads its text from the view `memory_search` (external content):
///   no text is stored twice. The store keeps it in step explicitly (`store::search_index`).
///   Its `place` is the note's title (the file name without folders or extension) and the
///   heading: folders would add the same few words to thousands of memories.
/// - Done jobs are deleted when they finish.
const V5: &str = r#"
DROP TRIGGER memories_fts_before_delete;
DROP TRIGGER memories_fts_before_update;
DROP TRIGGER memories_fts_after_update;
DROP TRIGGER memories_fts_after_insert;
DROP TABLE memories_fts;
DROP INDEX memories_by_source;
DROP INDEX memories_unconsolidated;
DROP INDEX memories_by_happened;
DROP INDEX memories_by_created;
DROP INDEX memories_by_content;
DROP INDEX consolidations_by_created;
ALTER TABLE memories RENAME TO legacy_memories;
ALTER TABLE consolidations RENAME TO legacy_consolidations;
ALTER TABLE sources RENAME TO legacy_sources;
DELETE FROM jobs WHERE state = 'done';

CREATE TABLE paths (
    id   INTEGER PRIMARY KEY,
    path TEXT NOT NULL UNIQUE
);

CREATE TABLE sources (
    path_id    INTEGER PRIMARY KEY REFERENCES paths (id),
    mtime      INTEGER NOT NULL,
    size       INTEGER NOT NULL,
    sha256     BLOB NOT NULL,
    updated_at INTEGER NOT NULL,
    skipped    TEXT
);

CREATE TABLE memories (
    key          INTEGER PRIMARY KEY,
    id           TEXT NOT NULL UNIQUE,
    path_id      INTEGER NOT NULL REFERENCES paths (id),
    kind         INTEGER NOT NULL CHECK (kind IN (0, 1, 2)),
    heading      TEXT,
    line_start   INTEGER,
    line_end     INTEGER,
    summary      TEXT NOT NULL CHECK (length(summary) > 0),
    topics       TEXT NOT NULL DEFAULT '[]' CHECK (json_valid(topics)),
    entity_ids   TEXT CHECK (entity_ids IS NULL OR json_valid(entity_ids)),
    text         TEXT,
    keywords     TEXT,
    importance   INTEGER NOT NULL CHECK (importance BETWEEN 0 AND 1000),
    day          INTEGER NOT NULL,
    dated        INTEGER NOT NULL CHECK (dated IN (0, 1)),
    created_at   INTEGER NOT NULL,
    updated_at   INTEGER NOT NULL,
    consolidated INTEGER NOT NULL DEFAULT 0 CHECK (consolidated IN (0, 1)),
    content_hash BLOB
);
CREATE INDEX memories_by_path ON memories (path_id);
CREATE INDEX memories_by_day ON memories (day);
CREATE INDEX memories_by_importance ON memories (importance);
CREATE INDEX memories_waiting ON memories (key) WHERE consolidated = 0;

CREATE TABLE entities (
    id     INTEGER PRIMARY KEY,
    name   TEXT NOT NULL,
    kind   TEXT NOT NULL,
    folded TEXT NOT NULL,
    uses   INTEGER NOT NULL DEFAULT 0,
    UNIQUE (folded, kind)
);

CREATE TABLE memory_entities (
    entity_id  INTEGER NOT NULL,
    memory_key INTEGER NOT NULL,
    PRIMARY KEY (entity_id, memory_key)
) WITHOUT ROWID;

CREATE TABLE consolidations (
    key         INTEGER PRIMARY KEY,
    id          TEXT NOT NULL UNIQUE,
    memory_ids  TEXT NOT NULL CHECK (json_valid(memory_ids)),
    insight     TEXT NOT NULL CHECK (length(insight) > 0),
    connections TEXT NOT NULL DEFAULT '[]' CHECK (json_valid(connections)),
    created_at  INTEGER NOT NULL
);

CREATE TABLE insight_sources (
    memory_key  INTEGER NOT NULL,
    insight_key INTEGER NOT NULL,
    PRIMARY KEY (memory_key, insight_key)
) WITHOUT ROWID;

CREATE VIEW memory_search AS
SELECT m.key AS rowid,
       m.summary AS summary,
       coalesce(m.text, m.keywords, '') AS words,
       coalesce((SELECT group_concat(e.name, ' ') FROM json_each(m.entity_ids) AS listed
                 JOIN entities AS e ON e.id = listed.value), '') AS entities,
       m.topics AS topics,
       (SELECT CASE WHEN name LIKE '%.md' THEN substr(name, 1, length(name) - 3)
                    WHEN name LIKE '%.txt' THEN substr(name, 1, length(name) - 4)
                    ELSE name END
        FROM (SELECT substr(p.path, length(rtrim(p.path, replace(p.path, '/', ''))) + 1) AS name))
         || coalesce(' ' || m.heading, '') AS place
FROM memories AS m JOIN paths AS p ON p.id = m.path_id;

CREATE VIRTUAL TABLE memories_fts USING fts4(
    content="memory_search", summary, words, entities, topics, place,
    tokenize=unicode61 "remove_diacritics=2"
);
CREATE VIRTUAL TABLE memories_terms USING fts4aux(memories_fts);
"#;

/// Version 6: the chunks of a note the model found nothing to remember in (`quiet`, their
/// 8-byte content hashes end to end), so an edit elsewhere in the note does not send them
/// again. They belong to the source record and go with it.
const V6: &str = r#"
ALTER TABLE sources ADD COLUMN quiet BLOB;
"#;

/// Version 7: the search terms the tokenizer cannot make (`stems::index_terms`): stems, and
/// the pairs of Chinese, Japanese and Thai text, as two more columns of the index. They are
/// derived by the SQL function `memory_terms` (Rust, registered by every driver), so nothing
/// is stored twice; the store rebuilds the index once the rules that make them are known
/// (`finish_stems`). Pairs come from the summary, topics and names only: a Chinese note's
/// keywords are whole runs of its text, and their pairs doubled a memory's index for little.
const V7: &str = r#"
DROP TABLE memories_terms;
DROP TABLE memories_fts;
DROP VIEW memory_search;
CREATE VIEW memory_search AS
SELECT m.key AS rowid,
       m.summary AS summary,
       coalesce(m.text, m.keywords, '') AS words,
       coalesce((SELECT group_concat(e.name, ' ') FROM json_each(m.entity_ids) AS listed
                 JOIN entities AS e ON e.id = listed.value), '') AS entities,
       m.topics AS topics,
       (SELECT CASE WHEN name LIKE '%.md' THEN substr(name, 1, length(name) - 3)
                    WHEN name LIKE '%.txt' THEN substr(name, 1, length(name) - 4)
                    ELSE name END
        FROM (SELECT substr(p.path, length(rtrim(p.path, replace(p.path, '/', ''))) + 1) AS name))
         || coalesce(' ' || m.heading, '') AS place,
       memory_terms('stems', m.summary || ' ' || coalesce(m.text, m.keywords, '') || ' ' || m.topics,
                    coalesce((SELECT group_concat(e.name, ' ') FROM json_each(m.entity_ids) AS listed
                              JOIN entities AS e ON e.id = listed.value), '')) AS stems,
       memory_terms('pairs', m.summary || ' ' || m.topics,
                    coalesce((SELECT group_concat(e.name, ' ') FROM json_each(m.entity_ids) AS listed
                              JOIN entities AS e ON e.id = listed.value), '')) AS pairs
FROM memories AS m JOIN paths AS p ON p.id = m.path_id;
CREATE VIRTUAL TABLE memories_fts USING fts4(
    content="memory_search", summary, words, entities, topics, place, stems, pairs,
    tokenize=unicode61 "remove_diacritics=2"
);
CREATE VIRTUAL TABLE memories_terms USING fts4aux(memories_fts);
"#;

/// Version 8: the ids of removed memories and insights (`tombstones`), so that merging
/// another device's copy of the memory (brought by a sync tool) does not bring back what was
/// forgotten, edited away or deleted here. Ids are random, never reused, and say nothing of
/// the text.
const V8: &str = r#"
CREATE TABLE tombstones (id TEXT NOT NULL PRIMARY KEY) WITHOUT ROWID;
"#;

/// Version 9: usage counted per device (`device`, a random id each device keeps to itself), so
/// a merge sums the devices' spending instead of keeping one side's. What was counted before
/// belongs to no device (`''`).
const V9: &str = r#"
CREATE TABLE usage_by_device (
    day                TEXT NOT NULL,
    agent              TEXT NOT NULL,
    device             TEXT NOT NULL,
    calls              INTEGER NOT NULL DEFAULT 0,
    input_tokens       INTEGER NOT NULL DEFAULT 0,
    output_tokens      INTEGER NOT NULL DEFAULT 0,
    cache_read_tokens  INTEGER NOT NULL DEFAULT 0,
    cache_write_tokens INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (day, agent, device)
);
INSERT INTO usage_by_device
    SELECT day, agent, '', calls, input_tokens, output_tokens, cache_read_tokens, cache_write_tokens FROM usage;
DROP TABLE usage;
ALTER TABLE usage_by_device RENAME TO usage;
"#;

/// Version 10: memories keep the facts a summary drops and every day their events happened.
///
/// - `facts`: a JSON list of self-contained sentences the IngestAgent recorded; searched as
///   a column of their own in the full-text index (and in its stems and pairs).
/// - `also_on`: the days after the earliest (`day`) the events happened on, a JSON list of
///   `YYYY-MM-DD` in order; `memory_days` makes each of them an index lookup (the row's own
///   `day` stays the day index), so a question about any of a memory's days costs a range
///   scan. A memory with one day — nearly all — has no row there.
/// - `date_source`: where `day` came from when `dated`: 0 the text, 1 the note's name, 2 the
///   note's properties (`domain::DateSource`).
///
/// The index gains a column, so it is made again; removing the `stems_version` mark has the
/// store rebuild it at open (`finish_stems`), once `memory_terms` is registered.
const V10: &str = r#"
ALTER TABLE memories ADD COLUMN facts TEXT CHECK (facts IS NULL OR json_valid(facts));
ALTER TABLE memories ADD COLUMN also_on TEXT CHECK (also_on IS NULL OR json_valid(also_on));
ALTER TABLE memories ADD COLUMN date_source INTEGER NOT NULL DEFAULT 0 CHECK (date_source IN (0, 1, 2));
CREATE TABLE memory_days (
    day        INTEGER NOT NULL,
    memory_key INTEGER NOT NULL,
    PRIMARY KEY (day, memory_key)
) WITHOUT ROWID;
DROP TABLE memories_terms;
DROP TABLE memories_fts;
DROP VIEW memory_search;
CREATE VIEW memory_search AS
SELECT m.key AS rowid,
       m.summary AS summary,
       coalesce(m.text, m.keywords, '') AS words,
       coalesce((SELECT group_concat(e.name, ' ') FROM json_each(m.entity_ids) AS listed
                 JOIN entities AS e ON e.id = listed.value), '') AS entities,
       m.topics AS topics,
       (SELECT CASE WHEN name LIKE '%.md' THEN substr(name, 1, length(name) - 3)
                    WHEN name LIKE '%.txt' THEN substr(name, 1, length(name) - 4)
                    ELSE name END
        FROM (SELECT substr(p.path, length(rtrim(p.path, replace(p.path, '/', ''))) + 1) AS name))
         || coalesce(' ' || m.heading, '') AS place,
       memory_terms('stems', m.summary || ' ' || coalesce(m.text, m.keywords, '') || ' ' || m.topics
                             || ' ' || coalesce((SELECT group_concat(value, ' ') FROM json_each(m.facts)), ''),
                    coalesce((SELECT group_concat(e.name, ' ') FROM json_each(m.entity_ids) AS listed
                              JOIN entities AS e ON e.id = listed.value), '')) AS stems,
       memory_terms('pairs', m.summary || ' ' || m.topics
                             || ' ' || coalesce((SELECT group_concat(value, ' ') FROM json_each(m.facts)), ''),
                    coalesce((SELECT group_concat(e.name, ' ') FROM json_each(m.entity_ids) AS listed
                              JOIN entities AS e ON e.id = listed.value), '')) AS pairs,
       coalesce((SELECT group_concat(value, ' ') FROM json_each(m.facts)), '') AS facts
FROM memories AS m JOIN paths AS p ON p.id = m.path_id;
CREATE VIRTUAL TABLE memories_fts USING fts4(
    content="memory_search", summary, words, entities, topics, place, stems, pairs, facts,
    tokenize=unicode61 "remove_diacritics=2"
);
CREATE VIRTUAL TABLE memories_terms USING fts4aux(memories_fts);
DELETE FROM meta WHERE key = 'stems_version';
"#;

/// Version 11: the per-device log (`store/log.rs`). This file is now one device's own index;
/// what travels between devices is each device's log in the vault.
///
/// - `log_outbox`: what this device changed and has not yet appended to its log, by kind
///   (`note` path, `memory` id, `removed` tombstone, `insight` id, `usage` device/day/agent
///   key); the entry is built from the rows when it is written. Re-recording a key moves it to
///   the end, so a change made while an append was on its way is written again.
/// - `log_cursors`: how far each device's log file was replayed into this index.
/// - `log_written`: every key this device has written to its log: what its compacted log
///   (a snapshot of its own live entries) holds.
/// - `log_waiting_insights`: insights from a log whose memories have not arrived yet.
/// - `sources.here`: 0 for a note known only from another device's log, not yet read here (the
///   sync tool may bring the file later): its absence here is no removal to log.
///
/// A forget in older versions left a note's quiet chunks as text (`||` of blobs), which read as
/// none: they are blobs again.
///
/// Whatever an older version held is this device's to write: the first device to upgrade
/// writes its memory as its log, with no model call.
const V11: &str = r#"
CREATE TABLE log_outbox (
    seq  INTEGER PRIMARY KEY AUTOINCREMENT,
    kind TEXT NOT NULL,
    key  TEXT NOT NULL,
    UNIQUE (kind, key)
);
CREATE TABLE log_cursors (
    device TEXT NOT NULL,
    file   TEXT NOT NULL,
    offset INTEGER NOT NULL,
    PRIMARY KEY (device, file)
) WITHOUT ROWID;
CREATE TABLE log_written (
    kind TEXT NOT NULL,
    key  TEXT NOT NULL,
    PRIMARY KEY (kind, key)
) WITHOUT ROWID;
CREATE TABLE log_waiting_insights (
    id      TEXT NOT NULL PRIMARY KEY,
    insight TEXT NOT NULL CHECK (json_valid(insight))
) WITHOUT ROWID;
ALTER TABLE sources ADD COLUMN here INTEGER NOT NULL DEFAULT 1 CHECK (here IN (0, 1));
UPDATE sources SET quiet = CAST(quiet AS BLOB) WHERE typeof(quiet) = 'text';
INSERT INTO log_outbox (kind, key) SELECT 'removed', id FROM tombstones;
INSERT INTO log_outbox (kind, key) SELECT 'note', p.path FROM sources AS s JOIN paths AS p ON p.id = s.path_id;
INSERT INTO log_outbox (kind, key) SELECT 'memory', id FROM memories WHERE kind <> 0;
INSERT INTO log_outbox (kind, key) SELECT 'insight', id FROM consolidations;
INSERT INTO log_outbox (kind, key) SELECT 'usage', device || char(9) || day || char(9) || agent FROM usage;
"#;

/// Version 12:
/// - `memories.theirs`, 1 for a memory another device made (replayed from its log): each
///   device consolidates only the memories it made, so two devices never pay for the same
///   insight (each would make its own of the same memories before it saw the other's). What an
///   older version held counts as this device's.
/// - `memories.consolidation_failed`, 1 for a memory of a batch the model answered wrongly
///   every time: set aside, so the memories after it are still consolidated; "Retry failed"
///   puts it back.
const V12: &str = r#"
ALTER TABLE memories ADD COLUMN theirs INTEGER NOT NULL DEFAULT 0 CHECK (theirs IN (0, 1));
ALTER TABLE memories ADD COLUMN consolidation_failed INTEGER NOT NULL DEFAULT 0 CHECK (consolidation_failed IN (0, 1));
"#;

/// The first version with `memories.stems`.
pub const STEMS_SINCE: usize = 7;

/// The first version with `log_outbox` (whose triggers `Store::open` sets up).
pub const LOG_SINCE: usize = 11;

/// The full-text index of memories (version 4 on); derived from `memories`, rebuilt at will.
pub const FULL_TEXT_INDEX: &str = "memories_fts";

/// The tables every Memory Agent database has from version 1 on; used to tell ours from
/// any other SQLite file.
pub const TABLES: &[&str] = &["memories", "consolidations", "sources", "jobs", "meta"];

/// The tables of versions 1–4 that version 5 reads once and drops (`upgrade`).
pub const LEGACY_TABLES: &[&str] = &["legacy_memories", "legacy_consolidations", "legacy_sources"];

/// The version this build writes.
pub fn supported_version() -> u32 {
    MIGRATIONS.len() as u32
}

/// Reads `PRAGMA user_version`.
pub fn read_version<D: SqlDriver>(driver: &D) -> Result<u32, StoreError> {
    let rows = driver.query("PRAGMA user_version", &[])?;
    let version = rows
        .first()
        .and_then(|row| row.first())
        .and_then(|value| value.as_i64())
        .ok_or_else(|| StoreError::Corrupt("cannot read the schema version".into()))?;
    u32::try_from(version).map_err(|_| StoreError::Corrupt(format!("schema version {version}")))
}

/// Brings the database from its version up to `migrations.len()`, one transaction a step.
pub fn migrate<D: SqlDriver>(driver: &D, migrations: &[&str]) -> Result<u32, StoreError> {
    let supported = migrations.len() as u32;
    let found = read_version(driver)?;
    if found > supported {
        return Err(StoreError::NewerSchema { found, supported });
    }
    for (index, step) in migrations.iter().enumerate().skip(found as usize) {
        let target = index as u32 + 1;
        driver.execute_batch("BEGIN IMMEDIATE")?;
        let applied =
            driver.execute_batch(step).and_then(|()| driver.execute_batch(&format!("PRAGMA user_version = {target}")));
        match applied {
            Ok(()) => driver.execute_batch("COMMIT")?,
            Err(error) => {
                // The step failed: leave the database at the version before it.
                let _ = driver.execute_batch("ROLLBACK");
                return Err(StoreError::Migration { to: target, reason: error.to_string() });
            }
        }
    }
    Ok(supported)
}
