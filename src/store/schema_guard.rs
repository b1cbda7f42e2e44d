//! The store opens only its own schema: a database file is data, never code to run.
//!
//! A file can carry triggers, views and indexes of its own (written by another program, a
//! damaged sync, or someone who can write the vault). SQLite runs a trigger whenever its
//! table changes, so a foreign `AFTER INSERT ON jobs … DELETE FROM memories` would empty the
//! memory at the first queued note, and a trigger that never ends would hang every start.
//! At open, before anything is written, `Store::open` compares `sqlite_master` with what the
//! schema's own migrations create (`expected_objects`, derived from `schema::MIGRATIONS`,
//! never a second hand-kept list) and drops every object they do not define; a view, trigger
//! or index of ours whose SQL was changed is put back as the schema wrote it. Tables' rows are
//! never touched, so no memory is lost. `PRAGMA trusted_schema = OFF` is set first, so
//! nothing a file defines can call an application function while it is being looked at.
//!
//! Dropping, not refusing: refusing (moving the file aside like a damaged one) would leave the
//! user with an empty memory for something the store can undo exactly, since it knows every
//! object it made. A file this cannot clean (e.g. a table of an unknown virtual table module,
//! which SQLite cannot drop) fails to open and is handled as a damaged one.

use std::collections::BTreeMap;

use serde::Serialize;

use super::{SqlDriver, StoreError};

/// The kind of a schema object, as `sqlite_master.type` names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum ObjectKind {
    // In the order they are dropped: what runs first, tables (and their indexes) last.
    Trigger,
    View,
    Index,
    Table,
}

impl ObjectKind {
    fn from_master(kind: &str) -> Option<Self> {
        match kind {
            "trigger" => Some(ObjectKind::Trigger),
            "view" => Some(ObjectKind::View),
            "index" => Some(ObjectKind::Index),
            "table" => Some(ObjectKind::Table),
            _ => None,
        }
    }

    fn sql_word(self) -> &'static str {
        match self {
            ObjectKind::Trigger => "TRIGGER",
            ObjectKind::View => "VIEW",
            ObjectKind::Index => "INDEX",
            ObjectKind::Table => "TABLE",
        }
    }
}

/// An object of a database file that the schema did not make (or made otherwise), removed
/// when the store opened it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ForeignObject {
    pub kind: ObjectKind,
    pub name: String,
}

/// The objects removed at open, for people: "2 unknown database objects (triggers: wipe;
/// views: peek)". The plugin's notice and the command's warning both say this.
pub fn describe_removed(objects: &[ForeignObject]) -> String {
    let mut groups: BTreeMap<ObjectKind, Vec<&str>> = BTreeMap::new();
    for object in objects {
        groups.entry(object.kind).or_default().push(&object.name);
    }
    let listed: Vec<String> = groups
        .into_iter()
        .map(|(kind, names)| {
            let label = match kind {
                ObjectKind::Trigger => "triggers",
                ObjectKind::View => "views",
                ObjectKind::Index => "indexes",
                ObjectKind::Table => "tables",
            };
            format!("{label}: {}", names.join(", "))
        })
        .collect();
    let plural = if objects.len() == 1 { "" } else { "s" };
    format!("{} unknown database object{plural} ({})", objects.len(), listed.join("; "))
}

/// An object the schema makes, and the statement that made it.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Expected {
    kind: ObjectKind,
    /// The `CREATE` statement as the migration wrote it; `None` for a table renamed into
    /// place or a virtual table's shadow table (SQLite writes those).
    create: Option<String>,
    /// The virtual table a shadow table belongs to (it goes when that table is dropped).
    shadow_of: Option<String>,
}

impl Expected {
    /// Whether SQLite keeps this object's `CREATE` statement as written, so that a changed
    /// one can be told (tables change with `ALTER TABLE … ADD COLUMN`; they hold no code).
    fn sql_is_fixed(&self) -> bool {
        self.kind != ObjectKind::Table && self.create.is_some()
    }
}

/// The tables SQLite makes for an FTS3/FTS4 table `<name>` (`<name>_segments`, …).
const FTS_SHADOW_SUFFIXES: [&str; 5] = ["content", "segments", "segdir", "docsize", "stat"];

/// The objects a file at `version` holds when only the schema made it: the `CREATE`, `DROP`
/// and `ALTER TABLE … RENAME` statements of `migrations[..version]` replayed by name.
fn expected_objects(migrations: &[&str], version: u32) -> BTreeMap<String, Expected> {
    let mut objects = BTreeMap::new();
    for migration in migrations.iter().take(version as usize) {
        for statement in statements(migration) {
            apply(&mut objects, &statement);
        }
    }
    objects
}

/// The statements of a migration, comments removed. A trigger's body holds `;`s: it ends at
/// its `END;`.
fn statements(migration: &str) -> Vec<String> {
    let text: String = migration
        .lines()
        .map(|line| line.split_once("--").map_or(line, |(code, _)| code))
        .collect::<Vec<_>>()
        .join("\n");
    let mut statements = Vec::new();
    let mut rest = text.as_str();
    while !rest.trim().is_empty() {
        let trimmed = rest.trim_start();
        let is_trigger = words(trimmed).take(2).eq(["CREATE", "TRIGGER"]);
        let end = if is_trigger { trimmed.find("END;").map(|at| at + "END".len()) } else { trimmed.find(';') };
        let Some(end) = end else {
            statements.push(trimmed.trim().to_owned());
            break;
        };
        statements.push(trimmed[..end].trim().to_owned());
        rest = &trimmed[end + 1..];
    }
    statements
}

/// The upper-cased words of a statement, parentheses split off.
fn words(statement: &str) -> impl Iterator<Item = String> + '_ {
    statement
        .split(|c: char| c.is_whitespace() || c == '(' || c == ')' || c == ',')
        .filter(|word| !word.is_empty())
        .map(str::to_ascii_uppercase)
}

/// An object name as written in a statement (the schema never quotes its names).
fn name_at(statement: &str, index: usize) -> Option<String> {
    statement
        .split(|c: char| c.is_whitespace() || c == '(')
        .filter(|word| !word.is_empty())
        .nth(index)
        .map(|name| name.trim_matches('"').to_owned())
}

/// Applies one migration statement to the objects it creates, drops or renames.
fn apply(objects: &mut BTreeMap<String, Expected>, statement: &str) {
    let upper: Vec<String> = words(statement).take(6).collect();
    let upper: Vec<&str> = upper.iter().map(String::as_str).collect();
    let create = |kind| Expected { kind, create: Some(statement.to_owned()), shadow_of: None };
    match upper.as_slice() {
        ["CREATE", "TABLE", ..] => {
            objects.extend(name_at(statement, 2).map(|name| (name, create(ObjectKind::Table))));
        }
        ["CREATE", "VIRTUAL", "TABLE", _, "USING", module, ..] => {
            let Some(name) = name_at(statement, 3) else { return };
            if matches!(*module, "FTS3" | "FTS4") {
                for suffix in FTS_SHADOW_SUFFIXES {
                    let shadow = Expected { kind: ObjectKind::Table, create: None, shadow_of: Some(name.clone()) };
                    objects.insert(format!("{name}_{suffix}"), shadow);
                }
            }
            objects.insert(name, Expected { kind: ObjectKind::Table, create: None, shadow_of: None });
        }
        ["CREATE", "UNIQUE", "INDEX", ..] => {
            objects.extend(name_at(statement, 3).map(|name| (name, create(ObjectKind::Index))));
        }
        ["CREATE", "INDEX", ..] => objects.extend(name_at(statement, 2).map(|name| (name, create(ObjectKind::Index)))),
        ["CREATE", "VIEW", ..] => objects.extend(name_at(statement, 2).map(|name| (name, create(ObjectKind::View)))),
        ["CREATE", "TRIGGER", ..] => {
            objects.extend(name_at(statement, 2).map(|name| (name, create(ObjectKind::Trigger))));
        }
        ["DROP", _, "IF", "EXISTS", ..] => drop_named(objects, name_at(statement, 4)),
        ["DROP", _, ..] => drop_named(objects, name_at(statement, 2)),
        ["ALTER", "TABLE", _, "RENAME", "TO", ..] => {
            let (Some(from), Some(to)) = (name_at(statement, 2), name_at(statement, 5)) else { return };
            if let Some(mut table) = objects.remove(&from) {
                // SQLite rewrote its statement: what is known is the name.
                table.create = None;
                objects.insert(to, table);
            }
        }
        _ => {}
    }
}

/// Drops an object, with the shadow tables of a virtual table.
fn drop_named(objects: &mut BTreeMap<String, Expected>, name: Option<String>) {
    let Some(name) = name else { return };
    objects.remove(&name);
    objects.retain(|_, object| object.shadow_of.as_deref() != Some(name.as_str()));
}

/// Collapses whitespace, so a statement compares equal however it was indented.
fn normalized(sql: &str) -> String {
    sql.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// `name` as an SQL identifier, whatever it holds.
fn quoted(name: &str) -> String {
    format!("\"{}\"", name.replace('"', "\"\""))
}

/// What `sqlite_master` holds besides SQLite's own objects: kind, name, statement.
fn present_objects<D: SqlDriver>(driver: &D) -> Result<Vec<(String, String, Option<String>)>, StoreError> {
    let rows = driver
        .query("SELECT type, name, sql FROM sqlite_master WHERE name NOT LIKE 'sqlite\\_%' ESCAPE '\\'", &[])
        .map_err(|error| StoreError::Corrupt(error.to_string()))?;
    Ok(rows
        .into_iter()
        .filter_map(|row| {
            let mut row = row.into_iter();
            match (row.next(), row.next(), row.next()) {
                (Some(kind), Some(name), sql) => Some((
                    kind.as_str()?.to_owned(),
                    name.as_str()?.to_owned(),
                    sql.and_then(|sql| sql.as_str().map(str::to_owned)),
                )),
                _ => None,
            }
        })
        .collect())
}

/// Makes the database hold only what the schema of `version` defines (see the module's
/// comment); returns what it removed. Runs before anything else writes, in one transaction.
pub(super) fn remove_foreign_objects<D: SqlDriver>(
    driver: &D,
    migrations: &[&str],
    version: u32,
) -> Result<Vec<ForeignObject>, StoreError> {
    let expected = expected_objects(migrations, version);
    let mut foreign = Vec::new();
    let mut restore = Vec::new();
    for (kind, name, sql) in present_objects(driver)? {
        let kind = ObjectKind::from_master(&kind)
            .ok_or_else(|| StoreError::Corrupt(format!("the schema holds an object of kind `{kind}`")))?;
        match expected.get(&name) {
            Some(ours) if ours.kind == kind && !ours.sql_is_fixed() => {}
            Some(ours)
                if ours.kind == kind && sql.as_deref().map(normalized) == ours.create.as_deref().map(normalized) => {}
            Some(ours) => {
                // Ours by name, changed (or of another kind): removed, and ours put back.
                if ours.sql_is_fixed() {
                    restore.extend(ours.create.clone());
                }
                foreign.push(ForeignObject { kind, name });
            }
            None => foreign.push(ForeignObject { kind, name }),
        }
    }
    if foreign.is_empty() {
        return Ok(foreign);
    }
    foreign.sort_by(|a, b| (a.kind, &a.name).cmp(&(b.kind, &b.name)));
    let mut script = String::from("BEGIN IMMEDIATE;\n");
    for object in &foreign {
        script.push_str(&format!("DROP {} IF EXISTS {};\n", object.kind.sql_word(), quoted(&object.name)));
    }
    for create in &restore {
        script.push_str(create);
        script.push_str(";\n");
    }
    script.push_str("COMMIT;");
    if let Err(error) = driver.execute_batch(&script) {
        let _ = driver.execute_batch("ROLLBACK");
        return Err(StoreError::Corrupt(format!("the file holds objects Memory Agent cannot remove: {error}")));
    }
    debug_assert!(
        present_objects(driver).is_ok_and(|left| left.iter().all(|(_, name, _)| expected.contains_key(name))),
        "an object the schema does not define is left"
    );
    Ok(foreign)
}

#[cfg(test)]
mod tests {
    use super::super::schema::MIGRATIONS;
    use super::*;

    #[test]
    fn the_latest_schema_holds_what_its_migrations_leave() {
        let objects = expected_objects(MIGRATIONS, MIGRATIONS.len() as u32);
        for table in [
            "memories",
            "paths",
            "entities",
            "usage",
            "tombstones",
            "memories_fts",
            "memories_fts_segdir",
            "memory_days",
        ] {
            assert_eq!(objects.get(table).map(|object| object.kind), Some(ObjectKind::Table), "{table}");
        }
        assert_eq!(objects.get("memory_search").map(|object| object.kind), Some(ObjectKind::View));
        assert!(objects["memory_search"].create.as_deref().is_some_and(|sql| sql.contains("memory_terms")));
        assert!(
            objects["memory_search"].create.as_deref().is_some_and(|sql| sql.contains("m.facts")),
            "version 10's view"
        );
        assert_eq!(objects.get("jobs_due").map(|object| object.kind), Some(ObjectKind::Index));
        // Dropped or renamed away by later versions.
        for gone in ["memories_fts_after_insert", "memories_by_source", "usage_by_device"] {
            assert!(!objects.contains_key(gone), "{gone}");
        }
        assert!(objects.values().all(|object| object.kind != ObjectKind::Trigger));
    }

    #[test]
    fn version_4_has_the_full_text_triggers() {
        let objects = expected_objects(MIGRATIONS, 4);
        let triggers: Vec<&str> = objects
            .iter()
            .filter(|(_, object)| object.kind == ObjectKind::Trigger)
            .map(|(name, _)| name.as_str())
            .collect();
        assert_eq!(
            triggers,
            [
                "memories_fts_after_insert",
                "memories_fts_after_update",
                "memories_fts_before_delete",
                "memories_fts_before_update"
            ]
        );
        assert!(objects["memories_fts_after_insert"].create.as_deref().is_some_and(|sql| sql.ends_with("END")));
    }

    #[test]
    fn removed_objects_are_described_by_kind() {
        let object = |kind, name: &str| ForeignObject { kind, name: name.into() };
        assert_eq!(
            describe_removed(&[
                object(ObjectKind::Trigger, "wipe"),
                object(ObjectKind::Trigger, "spin"),
                object(ObjectKind::View, "peek")
            ]),
            "3 unknown database objects (triggers: wipe, spin; views: peek)"
        );
        assert_eq!(describe_removed(&[object(ObjectKind::Table, "x")]), "1 unknown database object (tables: x)");
    }

    #[test]
    fn a_trigger_body_stays_one_statement() {
        let found = statements("CREATE TABLE a (x);\nCREATE TRIGGER t AFTER INSERT ON a BEGIN\n DELETE FROM a; SELECT 1;\nEND;\n-- a; comment\nDROP TABLE a;");
        assert_eq!(found.len(), 3);
        assert!(found[1].starts_with("CREATE TRIGGER t") && found[1].ends_with("END"));
    }
}
