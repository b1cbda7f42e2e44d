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
pub const MIGRATIONS: &[&str] = &[V1, V2, V3, V4];

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

/// The full-text index of memories (version 4 on); derived from `memories`, rebuilt at will.
pub const FULL_TEXT_INDEX: &str = "memories_fts";

/// The tables every Memory Agent database has from version 1 on; used to tell ours from
/// any other SQLite file.
pub const TABLES: &[&str] = &["memories", "consolidations", "sources", "jobs", "meta"];

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
