//! Short ids for memories (`m-…`) and insights (`c-…`), from a seed the host passes in.
//!
//! Citations carry these ids, so they are short (10 hex digits) but unique in practice;
//! the engine still checks the store before using one. No randomness inside the core:
//! the seed comes from the host (JavaScript's `crypto.getRandomValues`).

use std::cell::Cell;

use crate::domain::Millis;
use crate::hash::sha256_hex;

pub struct IdGenerator {
    seed: u64,
    counter: Cell<u64>,
}

impl IdGenerator {
    pub fn new(seed: u64) -> Self {
        IdGenerator { seed, counter: Cell::new(0) }
    }

    /// A fresh candidate id such as `m-3f9a1c2b7d`.
    pub fn next(&self, prefix: &str, now: Millis) -> String {
        let count = self.counter.get();
        self.counter.set(count + 1);
        let digest = sha256_hex(format!("{}:{count}:{now}", self.seed).as_bytes());
        format!("{prefix}-{}", &digest[..10])
    }

    /// A number in 0..1 from the seed and `salt`: the jitter of a retry's wait, different on
    /// every device and for every job, the same when replayed.
    pub fn jitter(&self, salt: &str) -> f64 {
        let digest = sha256_hex(format!("{}:jitter:{salt}", self.seed).as_bytes());
        let bits = u64::from_str_radix(&digest[..13], 16).unwrap_or(0);
        bits as f64 / (1u64 << 52) as f64
    }
}

#[cfg(test)]
mod tests {
    use super::IdGenerator;

    #[test]
    fn ids_are_short_distinct_and_reproducible() {
        let ids = IdGenerator::new(5);
        let first: Vec<String> = (0..1_000).map(|_| ids.next("m", 1)).collect();
        let unique: std::collections::HashSet<&String> = first.iter().collect();
        assert_eq!(unique.len(), 1_000);
        assert!(first.iter().all(|id| id.len() == 12 && id.starts_with("m-")));
        assert_eq!(IdGenerator::new(5).next("m", 1), first[0]);
        assert_ne!(IdGenerator::new(6).next("m", 1), first[0]);
    }
}
