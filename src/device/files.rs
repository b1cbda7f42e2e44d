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

impl Listing {
    /// What `folder` holds, out of every file of a vault (path, size): a file directly in it,
    /// or a folder on the way to a deeper one.
    pub fn of_folder<'a>(folder: &str, files: impl IntoIterator<Item = (&'a str, u64)>) -> Listing {
        let prefix = format!("{}/", folder.trim_end_matches('/'));
        let mut listing = Listing::default();
        let mut folders = std::collections::BTreeSet::new();
        for (path, size) in files {
            let Some(rest) = path.strip_prefix(&prefix) else { continue };
            match rest.split_once('/') {
                Some((folder, _)) => {
                    folders.insert(folder.to_owned());
                }
                None => listing.files.push((rest.to_owned(), size)),
            }
        }
        listing.folders = folders.into_iter().collect();
        listing
    }
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
