//! Text to remember from the terminal or an agent goes into the vault, not into the database:
//! a note of its own in the inbox folder (`Memory inbox/2026-12-01 15-20-03.md`, dated in its
//! properties). The plugin remembers the note like any other — at once while Obsidian runs, at
//! its next start otherwise — so the database keeps one writer, each thing remembered is a note
//! the user can read, edit or delete (which forgets it), it syncs to the other devices with the
//! vault, and nothing already remembered is sent again. A note is created, never appended to
//! or replaced, so no editor or other writer can be raced.

use std::io::Write;

use super::vault::VaultDir;
use crate::calendar::CalendarDate;
use crate::domain::Millis;

pub const INBOX_FOLDER: &str = "Memory inbox";
/// More than this is not a thing to remember but a document: put it in a note.
pub const MAX_INBOX_TEXT_BYTES: usize = 32 * 1024;

/// Writes `text` as a new note in the inbox, named and dated by the local time `now` (at
/// `utc_offset_minutes`); returns the note's vault path.
pub fn append_to_inbox(vault: &VaultDir, text: &str, now: Millis, utc_offset_minutes: i32) -> Result<String, String> {
    let text = text.trim();
    if text.is_empty() {
        return Err("Nothing to remember: the text is empty.".into());
    }
    if text.len() > MAX_INBOX_TEXT_BYTES {
        return Err(format!(
            "The text is {} KB; at most {} KB can be remembered at once. Put longer text in a note.",
            text.len() / 1024,
            MAX_INBOX_TEXT_BYTES / 1024
        ));
    }
    if text.contains('\0') {
        return Err("The text looks binary (it holds a NUL character): only text can be remembered.".into());
    }
    let day = CalendarDate::at(now, utc_offset_minutes);
    let local_ms = now + i64::from(utc_offset_minutes) * 60_000;
    let seconds = local_ms.div_euclid(1_000).rem_euclid(86_400);
    // No colons: they are not allowed in file names on Windows, Android and iOS.
    let time = format!("{:02}-{:02}-{:02}", seconds / 3_600, seconds / 60 % 60, seconds % 60);
    let folder = vault.folder_to_write(INBOX_FOLDER)?;
    let note = format!("---\ndate: {day}\n---\n\n{text}\n");
    for copy in 1..100 {
        let name = if copy == 1 { format!("{day} {time}.md") } else { format!("{day} {time} {copy}.md") };
        let path = format!("{INBOX_FOLDER}/{name}");
        // `create_new` never follows a link at the note's own name, nor replaces anything.
        let created = std::fs::OpenOptions::new().write(true).create_new(true).open(folder.join(&name));
        match created {
            Ok(mut file) => {
                file.write_all(note.as_bytes()).map_err(|error| format!("Cannot write {path}: {error}"))?;
                return Ok(path);
            }
            Err(error) if error.kind() == std::io::ErrorKind::AlreadyExists => continue,
            Err(error) => return Err(format!("Cannot write {path}: {error}")),
        }
    }
    Err(format!("Too many notes in {INBOX_FOLDER} for {day} {time}."))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_text_is_a_new_dated_note_and_bad_text_is_refused() {
        let root = std::env::temp_dir().join(format!("memory-agent-inbox-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        std::fs::create_dir_all(root.join(".obsidian")).unwrap();
        let vault = VaultDir::open(&root, ".obsidian").unwrap();
        // 2026-11-30T23:30:00Z is already 1 December at UTC+1.
        let now = 1_796_081_400_000;
        let first = append_to_inbox(&vault, "Alice approved the Q3 budget.", now, 60).unwrap();
        assert_eq!(first, "Memory inbox/2026-12-01 00-30-00.md");
        let second = append_to_inbox(&vault, "# A heading\nBob agreed.", now, 60).unwrap();
        assert_eq!(second, "Memory inbox/2026-12-01 00-30-00 2.md", "the same second never overwrites");
        assert_eq!(
            std::fs::read_to_string(root.join(&first)).unwrap(),
            "---\ndate: 2026-12-01\n---\n\nAlice approved the Q3 budget.\n"
        );
        assert!(append_to_inbox(&vault, "  \n", now, 60).unwrap_err().contains("empty"));
        assert!(append_to_inbox(&vault, &"x".repeat(40_000), now, 60).unwrap_err().contains("at most 32 KB"));
        assert!(append_to_inbox(&vault, "a\0b", now, 60).unwrap_err().contains("binary"));
        let _ = std::fs::remove_dir_all(&root);
    }

    #[cfg(unix)]
    #[test]
    fn an_inbox_linked_out_of_the_vault_is_refused_and_nothing_is_written_there() {
        let base = std::env::temp_dir().join(format!("memory-agent-inbox-link-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&base);
        let (root, outside) = (base.join("vault"), base.join("elsewhere"));
        std::fs::create_dir_all(root.join(".obsidian")).unwrap();
        std::fs::create_dir_all(outside.join("deeper")).unwrap();
        let vault = VaultDir::open(&root, ".obsidian").unwrap();
        let now = 1_796_081_400_000;
        // The inbox itself a link to a folder outside the vault.
        std::os::unix::fs::symlink(&outside, root.join(INBOX_FOLDER)).unwrap();
        let refused = append_to_inbox(&vault, "Alice approved the budget.", now, 0).unwrap_err();
        assert!(refused.contains("symbolic link") && refused.contains(INBOX_FOLDER), "{refused}");
        // A plain folder inside the vault that is itself a link out (the link one level down).
        std::fs::remove_file(root.join(INBOX_FOLDER)).unwrap();
        std::fs::create_dir(root.join("Shared")).unwrap();
        std::os::unix::fs::symlink(outside.join("deeper"), root.join("Shared/inbox")).unwrap();
        assert!(vault.folder_to_write("Shared/inbox").unwrap_err().contains("symbolic link"));
        assert_eq!(std::fs::read_dir(outside.join("deeper")).unwrap().count(), 0, "nothing written outside");
        assert_eq!(std::fs::read_dir(&outside).unwrap().count(), 1, "nothing written outside");
        // A link inside the vault to another folder inside it is still a link: refused too.
        std::fs::create_dir(root.join("Real")).unwrap();
        std::os::unix::fs::symlink(root.join("Real"), root.join(INBOX_FOLDER)).unwrap();
        assert!(append_to_inbox(&vault, "Bob agreed.", now, 0).is_err());
        // A plain inbox works, and a link at a note's own name is never followed.
        std::fs::remove_file(root.join(INBOX_FOLDER)).unwrap();
        std::fs::create_dir(root.join(INBOX_FOLDER)).unwrap();
        std::os::unix::fs::symlink(outside.join("stolen.md"), root.join(INBOX_FOLDER).join("2026-11-30 23-30-00.md"))
            .unwrap();
        let written = append_to_inbox(&vault, "Bob agreed.", now, 0).unwrap();
        assert_eq!(written, "Memory inbox/2026-11-30 23-30-00 2.md");
        assert!(!outside.join("stolen.md").exists());
        let _ = std::fs::remove_dir_all(&base);
    }
}
