//! The durable job queue: queued → running → done / failed, with attempts and retry times.
//!
//! A key (e.g. a note's path) has at most one queued and one running job, and a queued job
//! is not claimed while its key is running, so a note is never processed twice at once.
//! Asking again for work already waiting updates that job instead of adding a second one.
//! A finished job is deleted; a failed one stays, visible with its reason.
//!
//! What a job does is a `JobWork`, kept in two columns (`kind`, `payload` as JSON); `work_row`
//! and `read_work` are the one place that writes and reads them.

use super::driver::SqlValue;
use super::rows::RowReader;
use super::{SqlDriver, Store, StoreError};
use crate::domain::{Job, JobKind, JobState, JobWork, Millis, NoteJob};

const COLUMNS: &str = "id, kind, key, payload, state, attempts, next_run_at, last_error, created_at, updated_at";

/// Work to queue.
#[derive(Debug, Clone, PartialEq)]
pub struct NewJob {
    pub key: String,
    pub work: JobWork,
}

impl<D: SqlDriver> Store<D> {
    /// Queues work due now; returns the job's id. A job already waiting under the same key
    /// takes the new work (the newest request wins) and keeps its id, its attempts and, when
    /// it is waiting out a retry (it failed before: attempts spent, or a transient failure's
    /// reason kept), its retry time: asking again never buys a failing job fresh attempts or
    /// an earlier try (only the user's "retry failed" does).
    pub fn enqueue_job(&self, job: &NewJob, now: Millis) -> Result<i64, StoreError> {
        let (kind, payload) = work_row(&job.work)?;
        self.transaction(|store| {
            let waiting =
                store.query("SELECT id FROM jobs WHERE key = ? AND state = 'queued'", &[job.key.as_str().into()])?;
            if let Some(row) = waiting.into_iter().next() {
                let id = RowReader::new(row).i64()?;
                store.change(
                    "UPDATE jobs SET kind = ?, payload = ?,
                        next_run_at = CASE WHEN attempts > 0 OR last_error IS NOT NULL
                                           THEN max(next_run_at, ?3) ELSE ?3 END,
                        updated_at = ?4 WHERE id = ?5",
                    &[kind.into(), payload.as_str().into(), now.into(), now.into(), id.into()],
                )?;
                return Ok(id);
            }
            store.insert_returning_key(
                "INSERT INTO jobs (kind, key, payload, state, attempts, next_run_at, created_at, updated_at)
                 VALUES (?, ?, ?, 'queued', 0, ?, ?, ?) RETURNING id",
                &[kind.into(), job.key.as_str().into(), payload.as_str().into(), now.into(), now.into(), now.into()],
            )
        })
    }

    /// Queues each of `jobs` whose key has no job queued yet, in one statement (a rebuild from
    /// the logs queues a check of every note it adopts); a queued key keeps its work. Returns
    /// how many were queued.
    pub fn enqueue_missing_jobs(&self, jobs: &[NewJob], now: Millis) -> Result<usize, StoreError> {
        let mut listed = Vec::with_capacity(jobs.len());
        let mut keys = std::collections::HashSet::new();
        for job in jobs.iter().filter(|job| keys.insert(job.key.as_str())) {
            let (kind, payload) = work_row(&job.work)?;
            listed.push(serde_json::json!([kind, job.key, payload]));
        }
        if listed.is_empty() {
            return Ok(0);
        }
        // Keys are unique in `listed`: SQLite reads the whole SELECT before inserting (it reads
        // the table written), so a key listed twice would break `jobs_one_queued_per_key`.
        self.change(
            "INSERT INTO jobs (kind, key, payload, state, attempts, next_run_at, created_at, updated_at)
             SELECT json_extract(value, '$[0]'), json_extract(value, '$[1]'), json_extract(value, '$[2]'),
                    'queued', 0, ?2, ?2, ?2
             FROM json_each(?1)
             WHERE NOT EXISTS (SELECT 1 FROM jobs WHERE key = json_extract(value, '$[1]') AND state = 'queued')",
            &[serde_json::Value::Array(listed).to_string().into(), now.into()],
        )
    }

    /// Takes the next due job whose key is not already running, and marks it running. A job
    /// whose stored work cannot be read (a damaged row) is marked failed with the reason, so it
    /// neither blocks the queue nor disappears without a word.
    pub fn claim_next_job(&self, now: Millis) -> Result<Option<Job>, StoreError> {
        self.claim_due(now, None)
    }

    /// Takes the next due job like `claim_next_job`, and when it reads a note, up to `limit`
    /// due note jobs in all (in the same order): a worker runs them together, sharing their
    /// model calls. Other work (typed text, consolidation) is claimed alone.
    pub fn claim_next_jobs(&self, now: Millis, limit: usize) -> Result<Vec<Job>, StoreError> {
        let Some(first) = self.claim_due(now, None)? else { return Ok(Vec::new()) };
        let notes = matches!(first.work, JobWork::IngestSource(_));
        let mut claimed = vec![first];
        while notes && claimed.len() < limit {
            match self.claim_due(now, Some(JobKind::IngestSource.as_str()))? {
                Some(job) => claimed.push(job),
                None => break,
            }
        }
        Ok(claimed)
    }

    /// The next due job (of `kind`, when given) whose key is not running, marked running.
    fn claim_due(&self, now: Millis, kind: Option<&str>) -> Result<Option<Job>, StoreError> {
        loop {
            let claimed = self.transaction(|store| {
                let rows = store.query(
                    &format!(
                        "SELECT {COLUMNS} FROM jobs AS waiting
                         WHERE state = 'queued' AND next_run_at <= ?1 AND (?2 IS NULL OR kind = ?2)
                           AND NOT EXISTS (SELECT 1 FROM jobs AS busy
                                           WHERE busy.key = waiting.key AND busy.state = 'running')
                         ORDER BY next_run_at, id LIMIT 1"
                    ),
                    &[now.into(), kind.map_or(SqlValue::Null, SqlValue::from)],
                )?;
                let Some(row) = rows.into_iter().next() else { return Ok(Some(None)) };
                let id = RowReader::new(row.clone()).i64()?;
                match read_job(row) {
                    Ok(job) => store.mark_running(job, now).map(Some).map(Some),
                    Err(StoreError::InvalidData(reason)) => store.fail_unreadable(id, &reason, now).map(|()| None),
                    Err(error) => Err(error),
                }
            })?;
            if let Some(claimed) = claimed {
                return Ok(claimed);
            }
        }
    }

    fn mark_running(&self, mut job: Job, now: Millis) -> Result<Job, StoreError> {
        self.change(
            "UPDATE jobs SET state = 'running', attempts = attempts + 1, updated_at = ? WHERE id = ?",
            &[now.into(), job.id.into()],
        )?;
        job.state = JobState::Running;
        job.attempts += 1;
        job.updated_at = now;
        Ok(job)
    }

    /// A job whose stored work cannot be read is set aside as failed, with why.
    fn fail_unreadable(&self, id: i64, reason: &str, now: Millis) -> Result<(), StoreError> {
        let message = format!(
            "This job's stored data cannot be read ({reason}), so it is not tried again; editing its note queues the note afresh."
        );
        self.change(
            "UPDATE jobs SET state = 'failed', last_error = ?, updated_at = ? WHERE id = ?",
            &[message.as_str().into(), now.into(), id.into()],
        )?;
        Ok(())
    }

    /// The running job finished its work: it is deleted, since nothing needs a done job (and
    /// a remembered selection's payload holds its whole text).
    pub fn complete_job(&self, id: i64, _now: Millis) -> Result<(), StoreError> {
        let changed = self.change("DELETE FROM jobs WHERE id = ? AND state = 'running'", &[id.into()])?;
        if changed == 0 {
            return Err(StoreError::NotFound(format!("running job {id}")));
        }
        Ok(())
    }

    /// The running job's answer was wrong (the try counts against its attempts). With
    /// `retry_at` it waits until then; without, it stays failed (visible, retryable by
    /// command). When newer work for the same key is already waiting, that job supersedes
    /// this one, which is dropped.
    pub fn fail_job(&self, id: i64, error: &str, retry_at: Option<Millis>, now: Millis) -> Result<(), StoreError> {
        self.settle_running(id, |store, job| {
            let (state, next_run_at) = match retry_at {
                Some(at) => (JobState::Queued, at),
                None => (JobState::Failed, job.next_run_at),
            };
            store.change(
                "UPDATE jobs SET state = ?, next_run_at = ?, last_error = ?, updated_at = ? WHERE id = ?",
                &[state.as_str().into(), next_run_at.into(), error.into(), now.into(), id.into()],
            )
        })
    }

    /// Puts a running job back in the queue as if it had not been tried (the engine paused
    /// before it could do the work, e.g. the keys need fixing); it runs on resume.
    pub fn release_job(&self, id: i64, now: Millis) -> Result<(), StoreError> {
        self.release_job_until(id, now, now, None)
    }

    /// `release_job`, due at `due` (a transient failure, such as Bedrock throttling or a
    /// failed vault read: not the job's fault, so not an attempt), with the reason it waits.
    pub fn release_job_until(&self, id: i64, due: Millis, now: Millis, reason: Option<&str>) -> Result<(), StoreError> {
        self.settle_running(id, |store, _| {
            store.change(
                "UPDATE jobs SET state = 'queued', attempts = max(attempts - 1, 0), next_run_at = ?,
                    last_error = coalesce(?, last_error), updated_at = ? WHERE id = ?",
                &[due.into(), reason.into(), now.into(), id.into()],
            )
        })
    }

    /// Ends a running job with `update`, in one transaction. When newer work for the same
    /// key is already waiting, that job supersedes this one, which is dropped instead.
    fn settle_running(
        &self,
        id: i64,
        update: impl FnOnce(&Self, &Job) -> Result<usize, StoreError>,
    ) -> Result<(), StoreError> {
        self.transaction(|store| {
            let job = store.get_job(id)?.ok_or_else(|| StoreError::NotFound(format!("job {id}")))?;
            if job.state != JobState::Running {
                return Err(StoreError::NotFound(format!("running job {id}")));
            }
            if store.has_queued(&job.key)? {
                store.change("DELETE FROM jobs WHERE id = ?", &[id.into()])?;
            } else {
                update(store, &job)?;
            }
            Ok(())
        })
    }

    /// After a restart: jobs left running were interrupted mid-flight; queue them again.
    /// Their work is idempotent (memories are replaced by id), so running again makes no
    /// duplicates. Returns how many were re-queued.
    pub fn requeue_interrupted_jobs(&self, now: Millis) -> Result<usize, StoreError> {
        self.transaction(|store| store.reopen_jobs(JobState::Running, now, false))
    }

    /// Failed jobs are queued again, attempts reset. `confirmed`: the user asked, which also
    /// confirms each file that waited for them (`NoteJob::confirmed`).
    pub fn retry_failed_jobs(&self, now: Millis, confirmed: bool) -> Result<usize, StoreError> {
        self.transaction(|store| {
            if confirmed {
                store.confirm_failed_notes()?;
            }
            store.reopen_jobs(JobState::Failed, now, true)
        })
    }

    /// Marks each failed note job as confirmed by the user.
    fn confirm_failed_notes(&self) -> Result<(), StoreError> {
        for job in self.list_jobs(Some(JobState::Failed))? {
            if let JobWork::IngestSource(note) = &job.work {
                let confirmed = JobWork::IngestSource(NoteJob { confirmed: true, ..note.clone() });
                let (_, payload) = work_row(&confirmed)?;
                self.change("UPDATE jobs SET payload = ? WHERE id = ?", &[payload.into(), job.id.into()])?;
            }
        }
        Ok(())
    }

    pub fn get_job(&self, id: i64) -> Result<Option<Job>, StoreError> {
        let rows = self.query(&format!("SELECT {COLUMNS} FROM jobs WHERE id = ?"), &[id.into()])?;
        rows.into_iter().next().map(read_job).transpose()
    }

    /// Jobs in `state` (all when `None`), oldest first.
    pub fn list_jobs(&self, state: Option<JobState>) -> Result<Vec<Job>, StoreError> {
        self.list_jobs_limited(state, 0)
    }

    /// At most `limit` jobs in `state` (all when `None`; `limit` 0 = no limit), oldest first.
    /// A row whose work cannot be read is left out (it is counted in the status, and failed
    /// with the reason when it comes due).
    pub fn list_jobs_limited(&self, state: Option<JobState>, limit: u32) -> Result<Vec<Job>, StoreError> {
        let limit = if limit == 0 { -1 } else { i64::from(limit) };
        let rows = self.query(
            &format!("SELECT {COLUMNS} FROM jobs WHERE (?1 IS NULL OR state = ?1) ORDER BY id LIMIT ?2"),
            &[state.map(JobState::as_str).into(), limit.into()],
        )?;
        let mut jobs = Vec::with_capacity(rows.len());
        for row in rows {
            match read_job(row) {
                Ok(job) => jobs.push(job),
                Err(StoreError::InvalidData(_)) => {}
                Err(error) => return Err(error),
            }
        }
        Ok(jobs)
    }

    /// The store is closing with work in flight: running jobs go back to the queue as if
    /// they had not been tried (what they were doing is abandoned). Returns how many.
    /// A running job whose key has newer work waiting is dropped instead (that job will
    /// read the note as it is then).
    pub fn release_running_jobs(&self, now: Millis) -> Result<usize, StoreError> {
        self.transaction(|store| {
            store.change(
                "DELETE FROM jobs WHERE state = 'running'
                   AND key IN (SELECT key FROM jobs WHERE state = 'queued')",
                &[],
            )?;
            store.change(
                "UPDATE jobs SET state = 'queued', attempts = max(attempts - 1, 0), next_run_at = min(next_run_at, ?1),
                    updated_at = ?1 WHERE state = 'running'",
                &[now.into()],
            )
        })
    }

    /// When the earliest waiting job is due (it may be now or past), if any job waits.
    pub fn next_due_at(&self) -> Result<Option<Millis>, StoreError> {
        let rows = self.query("SELECT min(next_run_at) FROM jobs WHERE state = 'queued'", &[])?;
        Ok(rows.into_iter().next().and_then(|row| row.into_iter().next()).and_then(|value| value.as_i64()))
    }

    /// Whether a job under `key` failed for good at or after `since`.
    pub fn failed_since(&self, key: &str, since: Millis) -> Result<bool, StoreError> {
        let rows = self.query(
            "SELECT 1 FROM jobs WHERE key = ? AND state = 'failed' AND updated_at >= ?",
            &[key.into(), since.into()],
        )?;
        Ok(!rows.is_empty())
    }

    /// Deletes one job, whatever its state (its work was overtaken by a vault event).
    pub fn delete_job(&self, id: i64) -> Result<(), StoreError> {
        self.change("DELETE FROM jobs WHERE id = ?", &[id.into()])?;
        Ok(())
    }

    /// Drops the work waiting (or failed) under `key`: what it was for is gone. A running job
    /// is left to end; its result is fenced off by the engine.
    pub fn drop_jobs(&self, key: &str) -> Result<usize, StoreError> {
        self.change("DELETE FROM jobs WHERE key = ? AND state IN ('queued', 'failed')", &[key.into()])
    }

    /// The work waiting under `key`, if a job waits.
    pub fn queued_work(&self, key: &str) -> Result<Option<JobWork>, StoreError> {
        let rows = self.query("SELECT kind, payload FROM jobs WHERE key = ? AND state = 'queued'", &[key.into()])?;
        let Some(row) = rows.into_iter().next() else { return Ok(None) };
        let mut row = RowReader::new(row);
        let kind = row.text()?;
        read_work(&kind, &row.text()?).map(Some)
    }

    fn has_queued(&self, key: &str) -> Result<bool, StoreError> {
        Ok(!self.query("SELECT 1 FROM jobs WHERE key = ? AND state = 'queued'", &[key.into()])?.is_empty())
    }

    fn reopen_jobs(&self, from: JobState, now: Millis, reset_attempts: bool) -> Result<usize, StoreError> {
        let mut reopened = 0;
        for job in self.list_jobs(Some(from))? {
            if self.has_queued(&job.key)? {
                self.change("DELETE FROM jobs WHERE id = ?", &[job.id.into()])?;
                continue;
            }
            let attempts = if reset_attempts { 0 } else { job.attempts };
            self.change(
                "UPDATE jobs SET state = 'queued', attempts = ?, next_run_at = ?, updated_at = ? WHERE id = ?",
                &[attempts.into(), now.into(), now.into(), job.id.into()],
            )?;
            reopened += 1;
        }
        Ok(reopened)
    }
}

/// A job's work as its `kind` and `payload` columns.
fn work_row(work: &JobWork) -> Result<(&'static str, String), StoreError> {
    let payload = match work {
        JobWork::IngestSource(note) => serde_json::to_string(note),
        JobWork::IngestText(text) => serde_json::to_string(text),
        JobWork::Consolidate(consolidate) => serde_json::to_string(consolidate),
    };
    Ok((work.kind().as_str(), payload.map_err(|error| StoreError::InvalidInput(error.to_string()))?))
}

/// A job's work from its `kind` and `payload` columns (as every version wrote them). Told
/// apart by the column, each payload read straight from its text: serde's adjacently tagged
/// reading would buffer it in its generic `Content` tree, tens of KB of the plugin's module.
fn read_work(kind: &str, payload: &str) -> Result<JobWork, StoreError> {
    let unreadable = |error: serde_json::Error| StoreError::InvalidData(format!("job `{kind}` {payload}: {error}"));
    match JobKind::parse(kind) {
        Some(JobKind::IngestSource) => serde_json::from_str(payload).map(JobWork::IngestSource),
        Some(JobKind::IngestText) => serde_json::from_str(payload).map(JobWork::IngestText),
        Some(JobKind::Consolidate) => serde_json::from_str(payload).map(JobWork::Consolidate),
        None => return Err(StoreError::InvalidData(format!("unknown job kind `{kind}`"))),
    }
    .map_err(unreadable)
}

fn read_job(row: Vec<SqlValue>) -> Result<Job, StoreError> {
    let mut row = RowReader::new(row);
    let id = row.i64()?;
    let kind = row.text()?;
    let key = row.text()?;
    let work = read_work(&kind, &row.text()?)?;
    let state = row.text()?;
    Ok(Job {
        id,
        work,
        key,
        state: JobState::parse(&state)
            .ok_or_else(|| StoreError::InvalidData(format!("unknown job state `{state}`")))?,
        attempts: row.u32()?,
        next_run_at: row.i64()?,
        last_error: row.opt_text()?,
        created_at: row.i64()?,
        updated_at: row.i64()?,
    })
}
