//! The command's device id: what names its own index (`memory-<device>.db`) and its log folder
//! in the vault. One per computer account, kept outside any vault (so a synced vault never
//! carries it to another computer, where two commands would then write one log):
//! `$XDG_CONFIG_HOME/memory-agent/device`, else `~/.config/memory-agent/device`, made on first
//! use. `MEMORY_AGENT_DEVICE` overrides it (tests run several devices on one machine).

use std::hash::{BuildHasher, Hasher};
use std::path::{Path, PathBuf};

use crate::device::layout::is_device_id;

/// The environment variable that names the device instead of the file.
pub const DEVICE_VARIABLE: &str = "MEMORY_AGENT_DEVICE";

/// This computer's device id for the command (see the module comment).
pub fn device_id() -> Result<String, String> {
    if let Some(named) = std::env::var_os(DEVICE_VARIABLE) {
        let named = named.to_string_lossy().trim().to_owned();
        return checked(&named, DEVICE_VARIABLE);
    }
    let file = device_file(
        std::env::var_os("XDG_CONFIG_HOME").map(PathBuf::from),
        std::env::var_os("HOME").map(PathBuf::from),
    )
    .ok_or("Cannot tell where to keep this computer's device id: set HOME or XDG_CONFIG_HOME.")?;
    device_id_in(&file)
}

/// Where the device id is kept: under `XDG_CONFIG_HOME` when it is an absolute path (the XDG
/// rule: a relative one is ignored), else under `~/.config`.
fn device_file(config_home: Option<PathBuf>, home: Option<PathBuf>) -> Option<PathBuf> {
    let config = config_home
        .filter(|path| path.is_absolute())
        .or_else(|| home.filter(|path| !path.as_os_str().is_empty()).map(|home| home.join(".config")))?;
    Some(config.join("memory-agent").join("device"))
}

/// The id kept in `file`, made and written there when the file is missing.
fn device_id_in(file: &Path) -> Result<String, String> {
    match std::fs::read_to_string(file) {
        Ok(text) => checked(text.trim(), &file.display().to_string()),
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => {
            let id = new_device_id();
            if let Some(folder) = file.parent() {
                std::fs::create_dir_all(folder)
                    .map_err(|error| format!("Cannot create {}: {error}", folder.display()))?;
            }
            std::fs::write(file, format!("{id}\n"))
                .map_err(|error| format!("Cannot write {}: {error}", file.display()))?;
            Ok(id)
        }
        Err(error) => Err(format!("Cannot read {}: {error}", file.display())),
    }
}

fn checked(id: &str, from: &str) -> Result<String, String> {
    if is_device_id(id) {
        Ok(id.to_owned())
    } else {
        Err(format!("{from} does not hold a device id (letters, digits and dashes, at most 64): \"{id}\"."))
    }
}

/// 16 lower-case hex characters: the standard library's randomly seeded hasher over the time
/// and the process id (no random crate for one id per computer).
#[allow(clippy::disallowed_methods)] // The command's host is where time comes from.
fn new_device_id() -> String {
    let mut hasher = std::collections::hash_map::RandomState::new().build_hasher();
    let since = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap_or_default();
    hasher.write_u128(since.as_nanos());
    hasher.write_u32(std::process::id());
    format!("{:016x}", hasher.finish())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_id_is_made_once_kept_and_checked() {
        let root = std::env::temp_dir().join(format!("memory-agent-device-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        let file = device_file(Some(root.clone()), None).unwrap();
        assert_eq!(file, root.join("memory-agent/device"));
        let made = device_id_in(&file).unwrap();
        assert_eq!(made.len(), 16);
        assert!(made.bytes().all(|byte| byte.is_ascii_hexdigit() && !byte.is_ascii_uppercase()), "{made}");
        assert_eq!(device_id_in(&file).unwrap(), made, "the same id every time");
        std::fs::write(&file, "../elsewhere\n").unwrap();
        assert!(device_id_in(&file).unwrap_err().contains("does not hold a device id"));
        let _ = std::fs::remove_dir_all(&root);
    }

    #[test]
    fn a_relative_config_home_is_ignored_and_two_ids_differ() {
        let home = PathBuf::from("/home/ana");
        assert_eq!(
            device_file(Some(PathBuf::from("relative")), Some(home.clone())),
            Some(home.join(".config/memory-agent/device"))
        );
        assert_eq!(device_file(None, None), None);
        assert_ne!(new_device_id(), new_device_id());
        assert!(checked("laptop-2", "test").is_ok());
        assert!(checked("", "test").is_err());
    }
}
