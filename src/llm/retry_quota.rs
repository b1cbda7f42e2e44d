//! The retry quota of the AWS SDKs' standard retry mode: a token bucket shared by every
//! call of a client. A retry costs 5 tokens (10 after a timeout or a broken connection); a
//! call that succeeds gives back what its retries cost, or 1 when it needed none. When the
//! bucket is empty, failures are returned at once instead of retried, so an outage does not
//! multiply the calls made (and paid).

use std::cell::Cell;

const CAPACITY: u32 = 500;
const RETRY_COST: u32 = 5;
const TIMEOUT_RETRY_COST: u32 = 10;
const NO_RETRY_INCREMENT: u32 = 1;

#[derive(Debug)]
pub struct RetryQuota {
    available: Cell<u32>,
}

impl Default for RetryQuota {
    fn default() -> Self {
        RetryQuota { available: Cell::new(CAPACITY) }
    }
}

impl RetryQuota {
    /// Takes the cost of one retry, if the bucket holds it; returns what was taken.
    pub fn acquire(&self, after_timeout: bool) -> Option<u32> {
        let cost = if after_timeout { TIMEOUT_RETRY_COST } else { RETRY_COST };
        let available = self.available.get();
        if available < cost {
            return None;
        }
        self.available.set(available - cost);
        Some(cost)
    }

    /// A call succeeded after retries costing `spent` (0: it needed none).
    pub fn release(&self, spent: u32) {
        let refund = if spent == 0 { NO_RETRY_INCREMENT } else { spent };
        self.available.set((self.available.get() + refund).min(CAPACITY));
    }

    #[cfg(test)]
    pub fn available(&self) -> u32 {
        self.available.get()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_outage_empties_the_bucket_and_successes_fill_it_again() {
        let quota = RetryQuota::default();
        let mut retries = 0;
        while quota.acquire(false).is_some() {
            retries += 1;
        }
        assert_eq!(retries, 100, "500 tokens, 5 a retry");
        assert_eq!(quota.acquire(true), None);
        quota.release(0);
        assert_eq!(quota.available(), 1);
        quota.release(10);
        assert_eq!(quota.available(), 11);
        for _ in 0..1_000 {
            quota.release(0);
        }
        assert_eq!(quota.available(), CAPACITY, "never above capacity");
    }
}
