//! A vault path given from outside (an agent's `read_note`, a command's argument) in the one
//! form every rule is written for: `Folder/Note.md`. Exclusions, patterns and Obsidian's
//! "Excluded files" compare strings, so `./Private/diary.md`, `Private//diary.md` or
//! `Private\diary.md` must become `Private/diary.md` before any of them is asked, and a path
//! that names something outside the vault is refused here.

/// `path` as the vault's rules see it: `/` between parts, no empty or `.` parts; refused when
/// it is empty, absolute, climbs out (`..`), or holds a control character.
pub fn normalize_vault_path(path: &str) -> Result<String, String> {
    let refuse = || format!("\"{}\" is not a path inside the vault.", path.escape_debug());
    if path.chars().any(char::is_control) {
        return Err(refuse());
    }
    let unified = path.trim().replace('\\', "/");
    let drive = unified.as_bytes().get(1) == Some(&b':');
    if unified.starts_with('/') || drive {
        return Err(refuse());
    }
    let mut parts = Vec::new();
    for part in unified.split('/') {
        match part {
            "" | "." => {}
            ".." => return Err(refuse()),
            part => parts.push(part),
        }
    }
    if parts.is_empty() {
        return Err(refuse());
    }
    Ok(parts.join("/"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_spelling_of_a_path_becomes_the_one_the_rules_compare() {
        for spelling in [
            "Private/diary.md",
            "./Private/diary.md",
            "Private//diary.md",
            "Private/./diary.md",
            "Private\\diary.md",
            " Private/diary.md/",
        ] {
            assert_eq!(normalize_vault_path(spelling).as_deref(), Ok("Private/diary.md"), "{spelling}");
        }
    }

    #[test]
    fn paths_out_of_the_vault_or_with_control_characters_are_refused() {
        for refused in [
            "",
            ".",
            "./",
            "../outside.md",
            "Trips/../../outside.md",
            "/etc/passwd",
            "C:/x.md",
            "C:\\x.md",
            "a\nb.md",
            "a\0.md",
        ] {
            assert!(normalize_vault_path(refused).is_err(), "{refused:?}");
        }
    }
}
