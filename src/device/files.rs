//! The file operations the device runtime asks of its host. Each host carries them out as its
//! platform does (Obsidian's `DataAdapter`, `std::fs`, the simulation's vaults); none decides
//! anything about the files. Paths are vault-relative with `/`.

use std::future::Future;

/// What a folder holds: its files with their sizes, and its folders, by name (not path).
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Listing {
    pub files: Vec<(String, u64)>,
    pub folders: Vec<String>,
}

/// The vault's files, as the device runtime uses them.
pub trait VaultFiles {
    /// What `folder` holds; empty when it does not exist.
    fn list(&self, folder: &str) -> impl Future<Output = Result<Listing, String>>;
    /// The file's bytes from `offset` to its end; `None` when it does not exist.
    fn read(&self, path: &str, offset: u64) -> impl Future<Output = Result<Option<Vec<u8>>, String>>;
    /// Adds `text` at the end of the file (made, with its folder, when missing); its size after.
    fn append(&self, path: &str, text: &str) -> impl Future<Output = Result<u64, String>>;
    /// Writes a new file whole (with its folder); an existing file of that name is an error:
    /// the runtime never overwrites a log file in place.
    fn create(&self, path: &str, text: &str) -> impl Future<Output = Result<(), String>>;
    /// Removes the file; one already gone is no error.
    fn remove(&self, path: &str) -> impl Future<Output = Result<(), String>>;
    /// Lets other work run (a question, a vault event) between two slices of a long replay.
    fn pause(&self) -> impl Future<Output = ()>;
}
