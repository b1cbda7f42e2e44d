//! How many Bedrock calls may be in flight at once: additive increase, multiplicative
//! decrease (AIMD, as TCP does).
//!
//! Throttling halves the working limit; each success raises it by 1/limit, so it climbs
//! back by about one per round of calls. A bulk ingest of a large vault neither floods
//! Bedrock nor stays slow after one bad minute. Single-threaded by design (WebAssembly).

use std::cell::RefCell;
use std::future::poll_fn;
use std::task::{Poll, Waker};

#[derive(Debug)]
struct State {
    limit: f64,
    max: f64,
    in_flight: u32,
    waiting: Vec<Waker>,
}

/// An async gate that admits at most the current limit of holders.
#[derive(Debug)]
pub struct ConcurrencyLimiter {
    state: RefCell<State>,
}

/// A place in flight; dropping it frees the place.
#[derive(Debug)]
pub struct Permit<'a> {
    limiter: &'a ConcurrencyLimiter,
}

impl ConcurrencyLimiter {
    pub fn new(max: u32) -> Self {
        let max = f64::from(max.max(1));
        ConcurrencyLimiter { state: RefCell::new(State { limit: max, max, in_flight: 0, waiting: Vec::new() }) }
    }

    /// Waits for a place.
    pub async fn acquire(&self) -> Permit<'_> {
        poll_fn(|context| {
            let mut state = self.state.borrow_mut();
            if f64::from(state.in_flight) < state.limit.floor() {
                state.in_flight += 1;
                Poll::Ready(())
            } else {
                state.waiting.push(context.waker().clone());
                Poll::Pending
            }
        })
        .await;
        Permit { limiter: self }
    }

    /// Bedrock throttled a call: halve the limit (never below one).
    pub fn on_throttled(&self) {
        let mut state = self.state.borrow_mut();
        state.limit = (state.limit / 2.0).max(1.0);
    }

    /// A call succeeded: raise the limit a little, up to the maximum.
    pub fn on_success(&self) {
        let mut state = self.state.borrow_mut();
        state.limit = (state.limit + 1.0 / state.limit).min(state.max);
        Self::wake_all(&mut state);
    }

    /// The whole number of calls admitted now.
    pub fn current_limit(&self) -> u32 {
        self.state.borrow().limit.floor() as u32
    }

    pub fn in_flight(&self) -> u32 {
        self.state.borrow().in_flight
    }

    fn release(&self) {
        let mut state = self.state.borrow_mut();
        state.in_flight -= 1;
        Self::wake_all(&mut state);
    }

    // Waiters re-check the limit when polled; waking all keeps the logic obviously right.
    fn wake_all(state: &mut State) {
        for waker in state.waiting.drain(..) {
            waker.wake();
        }
    }
}

impl Drop for Permit<'_> {
    fn drop(&mut self) {
        self.limiter.release();
    }
}

#[cfg(test)]
mod tests {
    use super::ConcurrencyLimiter;

    #[test]
    fn throttling_halves_and_successes_climb_back_slowly() {
        let limiter = ConcurrencyLimiter::new(8);
        assert_eq!(limiter.current_limit(), 8);
        limiter.on_throttled();
        assert_eq!(limiter.current_limit(), 4);
        limiter.on_throttled();
        limiter.on_throttled();
        limiter.on_throttled();
        assert_eq!(limiter.current_limit(), 1, "never below one");
        limiter.on_success();
        assert_eq!(limiter.current_limit(), 2, "1 + 1/1");
        for _ in 0..3 {
            limiter.on_success();
        }
        assert_eq!(limiter.current_limit(), 3, "2 + 1/2 + 1/2.5 + 1/2.9: about one per round");
        for _ in 0..100 {
            limiter.on_success();
        }
        assert_eq!(limiter.current_limit(), 8, "capped at the maximum");
    }
}
