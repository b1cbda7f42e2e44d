//! Whole-text snapshots: a prompt is product, so a change of its wording must show as a diff.
//!
//! `assert_snapshot("ingest-note", &text)` compares `text` with
//! `tests/snapshots/prompts/ingest-note.txt`. With `UPDATE_SNAPSHOTS=1` the file is written
//! instead (review the diff, then commit it); a missing file fails, so a snapshot is never
//! made silently in CI.

use std::path::PathBuf;

fn snapshot_path(name: &str) -> PathBuf {
    debug_assert!(name.chars().all(|c| c.is_ascii_alphanumeric() || c == '-'), "snapshot names are plain: {name}");
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/snapshots/prompts").join(format!("{name}.txt"))
}

/// Fails with the first differing line when `actual` is not the stored snapshot `name`.
pub fn assert_snapshot(name: &str, actual: &str) {
    let path = snapshot_path(name);
    if std::env::var_os("UPDATE_SNAPSHOTS").is_some() {
        std::fs::create_dir_all(path.parent().expect("the snapshot folder")).expect("create the snapshot folder");
        std::fs::write(&path, actual).expect("write the snapshot");
        return;
    }
    let expected = std::fs::read_to_string(&path).unwrap_or_else(|_| {
        panic!("no snapshot {}; run with UPDATE_SNAPSHOTS=1 and review the new file", path.display())
    });
    if expected == actual {
        return;
    }
    let first_difference = expected
        .lines()
        .zip(actual.lines())
        .position(|(expected, actual)| expected != actual)
        .unwrap_or_else(|| expected.lines().count().min(actual.lines().count()));
    panic!(
        "snapshot {name} differs at line {}:\n  stored:  {:?}\n  now:     {:?}\n(run with UPDATE_SNAPSHOTS=1 to accept, then review the diff)",
        first_difference + 1,
        expected.lines().nth(first_difference).unwrap_or("<end>"),
        actual.lines().nth(first_difference).unwrap_or("<end>"),
    );
}
