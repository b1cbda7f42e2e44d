//! When to consolidate: at start when memories wait, when enough wait, and once a day.
//!
//! The last run is kept as UTC milliseconds in `meta`, so "a day since" is a plain
//! difference and means the same whatever time zone the user is in or travels to.

use super::Engine;
use crate::domain::{ConsolidateJob, JobWork, Millis};
use crate::store::{NewJob, SqlDriver, StoreError};

pub const LAST_CONSOLIDATION_KEY: &str = "last_consolidation_at";
pub(super) const DAY_MS: Millis = 86_400_000;
pub(super) const CONSOLIDATION_KEY: &str = "consolidate";

impl<D: SqlDriver> Engine<D> {
    /// Which trigger, if any, says a consolidation is due now.
    pub fn consolidation_due(&self, now: Millis) -> Result<Option<&'static str>, StoreError> {
        // The at-start trigger is looked at once, on the first check of the session.
        let at_start = !self.start_trigger_checked.replace(true);
        // A consolidation that failed for good holds the automatic triggers for a day: it
        // would fail the same way, paid for again after every job. "Retry failed" or
        // "Consolidate now" still run it.
        if self.store.failed_since(CONSOLIDATION_KEY, now - DAY_MS)? {
            return Ok(None);
        }
        let waiting = self.store.count_unconsolidated()?;
        // One memory alone has nothing to connect with.
        if waiting < 2 {
            return Ok(None);
        }
        if at_start {
            return Ok(Some("start"));
        }
        let settings = self.settings.borrow();
        if waiting >= settings.consolidation_threshold {
            return Ok(Some("threshold"));
        }
        if settings.daily_consolidation {
            let last = self.store.get_meta(LAST_CONSOLIDATION_KEY)?.and_then(|value| value.parse::<Millis>().ok());
            if last.is_none_or(|last| now - last >= DAY_MS) {
                return Ok(Some("daily"));
            }
        }
        Ok(None)
    }

    /// Queues a consolidation when a trigger says so; returns the trigger.
    pub fn enqueue_due_consolidation(&self, now: Millis) -> Result<Option<&'static str>, StoreError> {
        let due = self.consolidation_due(now)?;
        if let Some(trigger) = due {
            self.enqueue_consolidation(trigger, now)?;
        }
        Ok(due)
    }

    /// Queues a consolidation (also the "Consolidate now" command).
    pub fn enqueue_consolidation(&self, trigger: &str, now: Millis) -> Result<i64, StoreError> {
        self.store.enqueue_job(
            &NewJob {
                key: CONSOLIDATION_KEY.into(),
                work: JobWork::Consolidate(ConsolidateJob { trigger: Some(trigger.to_owned()) }),
            },
            now,
        )
    }
}
