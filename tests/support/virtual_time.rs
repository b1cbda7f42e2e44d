//! A virtual clock and a single-threaded executor that jumps time forward when every task
//! is waiting on a timer: timeouts, backoff and slow replies run instantly and exactly.

use std::cell::RefCell;
use std::future::Future;
use std::pin::Pin;
use std::rc::Rc;
use std::task::{Context, Poll, Waker};

use futures::executor::LocalPool;
use futures::task::LocalSpawnExt;
use memory_agent::domain::Millis;
use memory_agent::llm::Clock;

#[derive(Default)]
struct ClockState {
    now: Millis,
    timers: Vec<(Millis, Waker)>,
}

/// Time that passes only when the executor says so.
#[derive(Clone, Default)]
pub struct VirtualClock {
    state: Rc<RefCell<ClockState>>,
}

impl VirtualClock {
    pub fn starting_at(now: Millis) -> Self {
        let clock = VirtualClock::default();
        clock.state.borrow_mut().now = now;
        clock
    }

    /// Moves time forward by `millis`, waking what is due (between runs of the engine).
    pub fn advance_by(&self, millis: Millis) {
        let now = self.state.borrow().now + millis;
        self.advance_to(now);
    }

    /// Moves time to the earliest pending timer and wakes everything due; false if none.
    fn advance(&self) -> bool {
        let next = self.state.borrow().timers.iter().map(|(deadline, _)| *deadline).min();
        match next {
            Some(next) => {
                let now = self.state.borrow().now.max(next);
                self.advance_to(now);
                true
            }
            None => false,
        }
    }

    fn advance_to(&self, now: Millis) {
        let mut state = self.state.borrow_mut();
        state.now = now;
        let (due, later): (Vec<_>, Vec<_>) = state.timers.drain(..).partition(|(deadline, _)| *deadline <= now);
        state.timers = later;
        drop(state);
        for (_, waker) in due {
            waker.wake();
        }
    }
}

pub struct Sleep {
    clock: VirtualClock,
    deadline: Millis,
}

impl Future for Sleep {
    type Output = ();
    fn poll(self: Pin<&mut Self>, context: &mut Context<'_>) -> Poll<()> {
        let mut state = self.clock.state.borrow_mut();
        if state.now >= self.deadline {
            Poll::Ready(())
        } else {
            state.timers.push((self.deadline, context.waker().clone()));
            Poll::Pending
        }
    }
}

impl Clock for VirtualClock {
    fn now(&self) -> Millis {
        self.state.borrow().now
    }

    fn sleep(&self, millis: u64) -> impl Future<Output = ()> {
        let deadline = self.now().saturating_add(i64::try_from(millis).unwrap_or(i64::MAX));
        Sleep { clock: self.clone(), deadline }
    }
}

/// Runs all `tasks` to completion on `clock`'s virtual time; returns their outputs in order.
pub fn run_all<T: 'static>(clock: &VirtualClock, tasks: Vec<Pin<Box<dyn Future<Output = T>>>>) -> Vec<T> {
    let mut pool = LocalPool::new();
    let results: Rc<RefCell<Vec<Option<T>>>> = Rc::new(RefCell::new((0..tasks.len()).map(|_| None).collect()));
    for (index, task) in tasks.into_iter().enumerate() {
        let results = results.clone();
        pool.spawner()
            .spawn_local(async move {
                let output = task.await;
                results.borrow_mut()[index] = Some(output);
            })
            .expect("spawn");
    }
    loop {
        pool.run_until_stalled();
        if results.borrow().iter().all(Option::is_some) {
            break;
        }
        assert!(clock.advance(), "deadlock: tasks wait but no timer is pending");
    }
    Rc::try_unwrap(results).ok().expect("results still shared").into_inner().into_iter().map(Option::unwrap).collect()
}

/// Runs one future to completion on virtual time.
pub fn run<T: 'static>(clock: &VirtualClock, task: impl Future<Output = T> + 'static) -> T {
    run_all(clock, vec![Box::pin(task)]).pop().expect("one result")
}
