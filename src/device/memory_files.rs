//! A vault folder in memory, for the benchmarks and the tests (never in the WebAssembly build):
//! the same operations as a disk, and a record of which files each step changed, which is
//! what a sync tool that copies a changed file whole uploads.

use std::cell::RefCell;
use std::collections::{BTreeMap, BTreeSet};
use std::future::Future;

use super::files::{Listing, VaultFiles};

#[derive(Default)]
pub struct MemoryFiles {
    files: RefCell<BTreeMap<String, Vec<u8>>>,
    changed: RefCell<BTreeSet<String>>,
}

impl MemoryFiles {
    pub fn new() -> Self {
        MemoryFiles::default()
    }

    /// The file's bytes.
    pub fn get(&self, path: &str) -> Option<Vec<u8>> {
        self.files.borrow().get(path).cloned()
    }

    /// Puts a file as another writer (a sync tool) would; not counted as changed here.
    pub fn put(&self, path: &str, bytes: Vec<u8>) {
        self.files.borrow_mut().insert(path.to_owned(), bytes);
    }

    /// Every file, by path.
    pub fn all(&self) -> BTreeMap<String, Vec<u8>> {
        self.files.borrow().clone()
    }

    /// The paths changed (written, appended, removed) since the last call, each with its size
    /// now (`None`: removed).
    pub fn take_changed(&self) -> Vec<(String, Option<u64>)> {
        let changed = std::mem::take(&mut *self.changed.borrow_mut());
        let files = self.files.borrow();
        changed
            .into_iter()
            .map(|path| {
                let size = files.get(&path).map(|bytes| bytes.len() as u64);
                (path, size)
            })
            .collect()
    }

    fn list_now(&self, folder: &str) -> Listing {
        let files = self.files.borrow();
        Listing::of_folder(folder, files.iter().map(|(path, bytes)| (path.as_str(), bytes.len() as u64)))
    }

    fn append_now(&self, path: &str, text: &str) -> u64 {
        let mut files = self.files.borrow_mut();
        let file = files.entry(path.to_owned()).or_default();
        file.extend_from_slice(text.as_bytes());
        self.changed.borrow_mut().insert(path.to_owned());
        file.len() as u64
    }

    fn create_now(&self, path: &str, text: &str) -> Result<(), String> {
        let mut files = self.files.borrow_mut();
        if files.contains_key(path) {
            return Err(format!("{path} exists"));
        }
        files.insert(path.to_owned(), text.as_bytes().to_vec());
        self.changed.borrow_mut().insert(path.to_owned());
        Ok(())
    }

    fn remove_now(&self, path: &str) {
        if self.files.borrow_mut().remove(path).is_some() {
            self.changed.borrow_mut().insert(path.to_owned());
        }
    }
}

impl VaultFiles for MemoryFiles {
    fn list(&self, folder: &str) -> impl Future<Output = Result<Listing, String>> {
        std::future::ready(Ok(self.list_now(folder)))
    }
    fn read(&self, path: &str, offset: u64) -> impl Future<Output = Result<Option<Vec<u8>>, String>> {
        let bytes = self.files.borrow().get(path).map(|bytes| {
            let from = usize::try_from(offset).unwrap_or(usize::MAX).min(bytes.len());
            bytes[from..].to_vec()
        });
        std::future::ready(Ok(bytes))
    }
    fn append(&self, path: &str, text: &str) -> impl Future<Output = Result<u64, String>> {
        std::future::ready(Ok(self.append_now(path, text)))
    }
    fn create(&self, path: &str, text: &str) -> impl Future<Output = Result<(), String>> {
        std::future::ready(self.create_now(path, text))
    }
    fn remove(&self, path: &str) -> impl Future<Output = Result<(), String>> {
        self.remove_now(path);
        std::future::ready(Ok(()))
    }
    fn pause(&self) -> impl Future<Output = ()> {
        std::future::ready(())
    }
}
