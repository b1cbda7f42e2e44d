//! When to try a failed call again: exponential backoff with full jitter.
//!
//! Full jitter (a uniform delay between 0 and the exponential cap) spreads the retries of
//! many throttled calls apart instead of sending them back in step. The random numbers
//! come from a seed the host passes in, so tests replay exactly.

use std::cell::Cell;

/// How many attempts, and how long to wait between them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RetryPolicy {
    /// Attempts in all, the first included.
    pub max_attempts: u32,
    pub base_delay_ms: u64,
    pub max_delay_ms: u64,
}

impl Default for RetryPolicy {
    fn default() -> Self {
        // The AWS SDKs' standard retry mode: three attempts, jittered exponential backoff up
        // to 20 s. Work that still fails waits at the job level (a minute, then longer).
        RetryPolicy { max_attempts: 3, base_delay_ms: 500, max_delay_ms: 20_000 }
    }
}

impl RetryPolicy {
    /// The wait after failed attempt number `attempt` (1-based): uniform in
    /// `0..=min(max, base · 2^(attempt-1))`.
    pub fn delay_ms(&self, attempt: u32, jitter: &Jitter) -> u64 {
        let exponent = attempt.saturating_sub(1).min(30);
        let cap = self.base_delay_ms.saturating_mul(1 << exponent).min(self.max_delay_ms);
        jitter.below(cap + 1)
    }
}

/// A small deterministic random source (xorshift64*), seeded by the host.
#[derive(Debug)]
pub struct Jitter {
    state: Cell<u64>,
}

impl Jitter {
    pub fn new(seed: u64) -> Self {
        // A zero state would stay zero forever.
        Jitter { state: Cell::new(seed | 1) }
    }

    /// A number in `0..bound` (0 when `bound` is 0).
    pub fn below(&self, bound: u64) -> u64 {
        let mut x = self.state.get();
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.state.set(x);
        if bound == 0 {
            0
        } else {
            x.wrapping_mul(0x2545_F491_4F6C_DD1D) % bound
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn delays_grow_exponentially_up_to_the_cap_and_stay_jittered() {
        let policy = RetryPolicy { max_attempts: 8, base_delay_ms: 100, max_delay_ms: 1_000 };
        let jitter = Jitter::new(42);
        for attempt in 1..=8u32 {
            let cap = (100u64 << (attempt - 1)).min(1_000);
            let delays: Vec<u64> = (0..200).map(|_| policy.delay_ms(attempt, &jitter)).collect();
            assert!(delays.iter().all(|delay| *delay <= cap), "attempt {attempt}: over {cap}");
            // Full jitter: the spread covers most of the range, not one fixed value.
            let (low, high) = (delays.iter().min().unwrap(), delays.iter().max().unwrap());
            assert!(*low < cap / 4 && *high > cap * 3 / 4, "attempt {attempt}: {low}..{high} of {cap}");
        }
    }

    #[test]
    fn the_same_seed_gives_the_same_delays() {
        let policy = RetryPolicy::default();
        let (a, b) = (Jitter::new(7), Jitter::new(7));
        let first: Vec<u64> = (1..6).map(|n| policy.delay_ms(n, &a)).collect();
        let second: Vec<u64> = (1..6).map(|n| policy.delay_ms(n, &b)).collect();
        assert_eq!(first, second);
    }
}
