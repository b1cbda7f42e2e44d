//! Fences between vault events and jobs in flight: one rule for deletes, renames and notes
//! leaving the scope.
//!
//! Each path has a generation, bumped by every delete or rename that touches it. A job notes
//! the generation of its note when it starts; when it is ready to store, `landing` says
//! where the result belongs now: the same path when nothing happened meanwhile, the new path
//! after renames (the text read is the renamed note's text), or nowhere after a delete —
//! and then `renamed_from` names the notes it may have become, to be read again.
//! Generations live for the session only: jobs do not outlive it (a restart re-queues them).

use std::cell::RefCell;
use std::collections::HashMap;

#[derive(Debug, Default, Clone)]
struct Fence {
    generation: u64,
    /// Set by a rename: where the note went, and the new path's generation just after.
    moved_to: Option<(String, u64)>,
    /// The last thing that happened here was a note arriving by a rename.
    arrived: bool,
}

#[derive(Debug, Default)]
pub struct Fences {
    paths: RefCell<HashMap<String, Fence>>,
    /// Every rename of the session, old path → new paths.
    renames: RefCell<HashMap<String, Vec<String>>>,
}

impl Fences {
    /// The generation of `path` now; a job keeps it from its start.
    pub fn generation(&self, path: &str) -> u64 {
        self.paths.borrow().get(path).map_or(0, |fence| fence.generation)
    }

    pub fn deleted(&self, path: &str) {
        let mut paths = self.paths.borrow_mut();
        let fence = paths.entry(path.to_owned()).or_default();
        fence.generation += 1;
        fence.moved_to = None;
        fence.arrived = false;
    }

    pub fn renamed(&self, old_path: &str, new_path: &str) {
        if old_path == new_path {
            return;
        }
        // Whatever was at the new path is replaced: work on it stores nothing.
        self.deleted(new_path);
        let arrived = self.generation(new_path);
        let mut paths = self.paths.borrow_mut();
        if let Some(target) = paths.get_mut(new_path) {
            target.arrived = true;
        }
        let fence = paths.entry(old_path.to_owned()).or_default();
        fence.generation += 1;
        fence.moved_to = Some((new_path.to_owned(), arrived));
        fence.arrived = false;
        self.renames.borrow_mut().entry(old_path.to_owned()).or_default().push(new_path.to_owned());
    }

    /// The paths notes from `path` were renamed to this session (directly or in a chain)
    /// that still hold them: nothing was deleted or renamed away there since.
    pub fn renamed_from(&self, path: &str) -> Vec<String> {
        let paths = self.paths.borrow();
        let renames = self.renames.borrow();
        let mut found: Vec<String> = Vec::new();
        let mut next = vec![path.to_owned()];
        while let Some(current) = next.pop() {
            for target in renames.get(&current).into_iter().flatten() {
                if target != path && !found.contains(target) {
                    found.push(target.clone());
                    next.push(target.clone());
                }
            }
        }
        found.retain(|target| paths.get(target).is_some_and(|fence| fence.arrived));
        found
    }

    /// Where work on `path` begun at `generation` is stored now, if anywhere.
    pub fn landing(&self, path: &str, generation: u64) -> Option<String> {
        let paths = self.paths.borrow();
        let (mut path, mut generation) = (path.to_owned(), generation);
        // Each hop is one rename; a chain can be no longer than the map.
        for _ in 0..=paths.len() {
            let Some(fence) = paths.get(&path) else { return (generation == 0).then_some(path) };
            if fence.generation == generation {
                return Some(path);
            }
            match &fence.moved_to {
                Some((next, arrived)) if fence.generation == generation + 1 => {
                    path = next.clone();
                    generation = *arrived;
                }
                _ => return None,
            }
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn untouched_paths_land_where_they_started() {
        let fences = Fences::default();
        assert_eq!(fences.landing("a.md", fences.generation("a.md")).as_deref(), Some("a.md"));
    }

    #[test]
    fn a_delete_means_nowhere_even_after_the_note_comes_back() {
        let fences = Fences::default();
        let started = fences.generation("a.md");
        fences.deleted("a.md");
        assert_eq!(fences.landing("a.md", started), None);
        // A new note at the same path is new work, not this job's.
        fences.renamed("b.md", "a.md");
        assert_eq!(fences.landing("a.md", started), None);
    }

    #[test]
    fn renames_are_followed_to_the_last_path() {
        let fences = Fences::default();
        let started = fences.generation("a.md");
        fences.renamed("a.md", "b.md");
        fences.renamed("b.md", "c.md");
        assert_eq!(fences.landing("a.md", started).as_deref(), Some("c.md"));
        fences.deleted("c.md");
        assert_eq!(fences.landing("a.md", started), None);
    }

    #[test]
    fn when_the_chain_is_broken_the_renamed_notes_are_named_for_reading_again() {
        let fences = Fences::default();
        let started = fences.generation("a.md");
        fences.renamed("a.md", "b.md");
        // A new note at the old path, deleted: the bumps no longer tell one rename apart.
        fences.deleted("a.md");
        assert_eq!(fences.landing("a.md", started), None);
        fences.renamed("b.md", "c.md");
        assert_eq!(fences.renamed_from("a.md"), ["c.md"], "b.md was renamed away: only c.md holds the note");
        assert!(fences.renamed_from("c.md").is_empty());
    }

    #[test]
    fn work_on_a_path_something_else_was_renamed_onto_lands_nowhere() {
        let fences = Fences::default();
        let started = fences.generation("b.md");
        fences.renamed("a.md", "b.md");
        assert_eq!(fences.landing("b.md", started), None);
    }
}
