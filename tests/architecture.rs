//! ARCHITECTURE.md's module table is the crate's layering: a module may use only the modules its
//! row names, and only ones listed before it. This test reads the table and every `crate::` path
//! in `src/`, so a new arrow (or a cycle, like the `words` ↔ `stems` one it found) fails here
//! instead of drifting unnoticed.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

/// One row of the table: the modules it describes and the modules they may use.
struct Row {
    modules: Vec<String>,
    may_use: Allowed,
}

enum Allowed {
    Listed(Vec<String>),
    EverythingAbove,
    Everything,
}

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Names written in backticks in a table cell.
fn backticked(cell: &str) -> Vec<String> {
    cell.split('`').skip(1).step_by(2).map(str::to_string).collect()
}

fn module_table() -> Vec<Row> {
    let text = fs::read_to_string(root().join("ARCHITECTURE.md")).expect("ARCHITECTURE.md");
    let section = text.split("## The Rust crate").nth(1).expect("the crate's section");
    let section = section.split("\n## ").next().unwrap_or(section);
    section
        .lines()
        .filter(|line| line.starts_with("| `"))
        .map(|line| {
            let cells: Vec<&str> = line.trim_matches('|').split('|').collect();
            assert!(cells.len() >= 3, "a module row has three cells: {line}");
            let last = cells[cells.len() - 1].trim();
            let may_use = match last {
                "everything above" => Allowed::EverythingAbove,
                "everything" => Allowed::Everything,
                "—" => Allowed::Listed(Vec::new()),
                listed => Allowed::Listed(backticked(listed)),
            };
            Row { modules: backticked(cells[0]), may_use }
        })
        .collect()
}

/// The top-level modules `lib.rs` declares.
fn declared_modules() -> BTreeSet<String> {
    let lib = fs::read_to_string(root().join("src/lib.rs")).expect("src/lib.rs");
    let mut declared: BTreeSet<String> = lib
        .lines()
        .filter_map(|line| line.trim().strip_prefix("pub mod ").or_else(|| line.trim().strip_prefix("mod ")))
        .map(|rest| rest.trim_end_matches(';').to_string())
        .collect();
    // The modules of the text crate (`crates/text`), re-exported as the crate's own.
    for line in lib.lines().filter_map(|line| line.trim().strip_prefix("pub use memory_agent_text::")) {
        declared.extend(
            line.trim_end_matches(';')
                .trim_matches(|c| c == '{' || c == '}')
                .split(',')
                .map(|name| name.trim().to_string()),
        );
    }
    declared
}

fn rust_files(path: &Path, out: &mut Vec<PathBuf>) {
    if path.is_dir() {
        for entry in fs::read_dir(path).expect("a source folder") {
            rust_files(&entry.expect("an entry").path(), out);
        }
    } else if path.is_file() && path.extension().is_some_and(|extension| extension == "rs") {
        out.push(path.to_path_buf());
    }
}

/// The modules a module's files name through `crate::…` (comments included: a doc link to a
/// module is an arrow too).
fn modules_used_by(module: &str) -> BTreeSet<String> {
    let mut files = Vec::new();
    for src in [root().join("src"), root().join("crates/text/src")] {
        rust_files(&src.join(module), &mut files);
        rust_files(&src.join(format!("{module}.rs")), &mut files);
    }
    assert!(!files.is_empty(), "no source for module {module}");
    let mut used = BTreeSet::new();
    for file in files {
        let text = fs::read_to_string(&file).expect("a source file");
        for (at, _) in text.match_indices("crate::") {
            // `$crate::` inside a macro, or a longer name ending in `crate`, is not an arrow.
            let before = text[..at].chars().next_back();
            if before.is_some_and(|c| c == '$' || c == '_' || c.is_alphanumeric()) {
                continue;
            }
            let name: String =
                text[at + "crate::".len()..].chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
            if !name.is_empty() && name != module {
                used.insert(name);
            }
        }
    }
    used
}

#[test]
fn every_module_uses_only_what_its_row_allows_and_only_modules_listed_before_it() {
    let table = module_table();
    let declared = declared_modules();
    let mut order: BTreeMap<String, usize> = BTreeMap::new();
    for (index, row) in table.iter().enumerate() {
        for module in &row.modules {
            assert!(order.insert(module.clone(), index).is_none(), "{module} has two rows");
        }
    }
    let in_table: BTreeSet<String> = order.keys().cloned().collect();
    assert_eq!(in_table, declared, "ARCHITECTURE.md's table and lib.rs name the same modules");

    let mut problems = Vec::new();
    for (index, row) in table.iter().enumerate() {
        for module in &row.modules {
            for used in modules_used_by(module) {
                let Some(&used_row) = order.get(&used) else {
                    problems.push(format!("{module} uses crate::{used}, which is not a module of the table"));
                    continue;
                };
                let allowed = match &row.may_use {
                    Allowed::Everything => true,
                    Allowed::EverythingAbove => used_row < index,
                    Allowed::Listed(names) => names.contains(&used) && used_row < index,
                };
                if !allowed {
                    problems.push(format!("{module} uses {used}, which its row in ARCHITECTURE.md does not allow"));
                }
            }
        }
        // A row may name only modules above it, so the arrows can never form a cycle.
        if let Allowed::Listed(names) = &row.may_use {
            for name in names {
                match order.get(name) {
                    Some(&named_row) if named_row < index => {}
                    _ => problems
                        .push(format!("the row of {:?} names {name}, which is not listed before it", row.modules)),
                }
            }
        }
    }
    assert!(problems.is_empty(), "layering broken:\n{}", problems.join("\n"));
}

#[test]
fn the_table_reader_sees_a_forbidden_arrow() {
    // The checker itself: `words` may use nothing, so a `crate::stems` there would be caught.
    let table = module_table();
    let words = table.iter().find(|row| row.modules.iter().any(|module| module == "words")).expect("a words row");
    match &words.may_use {
        Allowed::Listed(names) => assert!(!names.contains(&"stems".to_string())),
        _ => panic!("words may use only listed modules"),
    }
    assert!(!modules_used_by("words").contains("stems"));
    assert!(modules_used_by("stems").contains("words"));
}
