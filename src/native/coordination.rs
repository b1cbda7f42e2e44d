//! `memory-agent index` and a running plugin never pay for the same note: the plugin keeps a
//! heartbeat file in its plugin folder (`running-<device>.json`, `{"device","at"}`, rewritten
//! every minute while it is loaded), and `index` refuses to start while one is fresh. While
//! `index` runs it keeps `indexing.json` in its own log folder, rewritten every 20 s and removed
//! at the end; a plugin that sees a fresh one leaves the paid note work to the command.

use std::path::{Path, PathBuf};
use std::sync::mpsc::{self, RecvTimeoutError, Sender};
use std::thread::JoinHandle;
use std::time::Duration;

use serde::{Deserialize, Serialize};

use super::host::system_millis;
use crate::domain::Millis;

use crate::device::presence::{HEARTBEAT_FRESH_MS as PLUGIN_HEARTBEAT_FRESH_MS, INDEXING_EVERY_MS, INDEXING_FILE};

/// How often `indexing.json` is rewritten while `index` runs.
const INDEXING_REFRESH: Duration = Duration::from_millis(INDEXING_EVERY_MS as u64);
/// A heartbeat is a few dozen bytes; a large file there is not one.
const MAX_MARKER_BYTES: u64 = 4 * 1024;

/// What a heartbeat or the indexing marker says.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Beat {
    pub device: String,
    pub at: Millis,
}

/// The devices whose plugin heartbeat in `plugin_folder` is younger than
/// `PLUGIN_HEARTBEAT_FRESH_MS` at `now` (a file that cannot be read as one counts by its
/// modification time, under its file name).
pub fn fresh_plugin_heartbeats(plugin_folder: &Path, now: Millis) -> Vec<String> {
    let Ok(entries) = std::fs::read_dir(plugin_folder) else { return Vec::new() };
    let mut fresh: Vec<String> = entries
        .flatten()
        .filter_map(|entry| {
            let name = entry.file_name().to_str()?.to_owned();
            let device = name.strip_prefix("running-")?.strip_suffix(".json")?.to_owned();
            let beat = read_beat(&entry.path()).unwrap_or(Beat { device, at: modified_at(&entry.path())? });
            (now.saturating_sub(beat.at) < PLUGIN_HEARTBEAT_FRESH_MS).then_some(beat.device)
        })
        .collect();
    fresh.sort();
    fresh
}

fn read_beat(path: &Path) -> Option<Beat> {
    if std::fs::metadata(path).ok()?.len() > MAX_MARKER_BYTES {
        return None;
    }
    serde_json::from_slice(&std::fs::read(path).ok()?).ok()
}

fn modified_at(path: &Path) -> Option<Millis> {
    let modified = std::fs::metadata(path).ok()?.modified().ok()?;
    Some(modified.duration_since(std::time::UNIX_EPOCH).ok()?.as_millis() as Millis)
}

/// `indexing.json`, kept fresh on a thread of its own while this value lives and removed when
/// it is dropped.
pub struct IndexingMarker {
    path: PathBuf,
    stop: Option<Sender<()>>,
    refresher: Option<JoinHandle<()>>,
}

impl IndexingMarker {
    /// Writes the marker in `folder` (the command's own log folder) for `device`.
    pub fn start(folder: &Path, device: &str) -> Result<Self, String> {
        let path = folder.join(INDEXING_FILE);
        write_beat(&path, device)?;
        let (stop, stopped) = mpsc::channel::<()>();
        let (refreshed_path, device) = (path.clone(), device.to_owned());
        let refresher = std::thread::spawn(move || {
            // Until stopped (or the marker's owner is gone); a failed rewrite is tried again next
            // time, the marker only ages meanwhile.
            while let Err(RecvTimeoutError::Timeout) = stopped.recv_timeout(INDEXING_REFRESH) {
                let _ = write_beat(&refreshed_path, &device);
            }
        });
        Ok(IndexingMarker { path, stop: Some(stop), refresher: Some(refresher) })
    }
}

impl Drop for IndexingMarker {
    fn drop(&mut self) {
        drop(self.stop.take());
        if let Some(refresher) = self.refresher.take() {
            let _ = refresher.join();
        }
        let _ = std::fs::remove_file(&self.path);
    }
}

fn write_beat(path: &Path, device: &str) -> Result<(), String> {
    let beat = serde_json::to_string(&Beat { device: device.to_owned(), at: system_millis() })
        .map_err(|error| error.to_string())?;
    std::fs::write(path, beat).map_err(|error| format!("Cannot write {}: {error}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_fresh_heartbeat_is_found_and_an_old_one_is_not() {
        let folder = std::env::temp_dir().join(format!("memory-agent-heartbeats-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&folder);
        std::fs::create_dir_all(&folder).unwrap();
        let now = 1_800_000_000_000;
        let beat = |device: &str, at: Millis| serde_json::to_string(&Beat { device: device.into(), at }).unwrap();
        std::fs::write(folder.join("running-laptop.json"), beat("laptop", now - 10_000)).unwrap();
        std::fs::write(folder.join("running-phone.json"), beat("phone", now - PLUGIN_HEARTBEAT_FRESH_MS)).unwrap();
        std::fs::write(folder.join("data.json"), beat("other", now)).unwrap();
        assert_eq!(fresh_plugin_heartbeats(&folder, now), ["laptop"]);
        // Unreadable: its time is the file's own (just written, so fresh at the system's now).
        std::fs::write(folder.join("running-tablet.json"), "{").unwrap();
        assert!(fresh_plugin_heartbeats(&folder, system_millis()).contains(&"tablet".to_owned()));
        let _ = std::fs::remove_dir_all(&folder);
    }

    #[test]
    fn the_indexing_marker_lives_as_long_as_its_value() {
        let folder = std::env::temp_dir().join(format!("memory-agent-indexing-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&folder);
        std::fs::create_dir_all(&folder).unwrap();
        let marker = IndexingMarker::start(&folder, "cli-1").unwrap();
        let beat = read_beat(&folder.join(INDEXING_FILE)).unwrap();
        assert_eq!(beat.device, "cli-1");
        assert!(system_millis() - beat.at < 5_000);
        drop(marker);
        assert!(!folder.join(INDEXING_FILE).exists());
        let _ = std::fs::remove_dir_all(&folder);
    }
}
