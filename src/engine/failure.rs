//! What a failed try means for its job, decided by the kind of failure, never by its words.
//!
//! Two kinds matter. A *transient* failure is the world's, not the answer's: Bedrock throttling
//! or over a quota, a 5xx, the network or the device offline, a timeout, a vault read that
//! failed. The job waits (exponential backoff, at most an hour, jittered from the host's seed)
//! and tries again for as long as it takes; it never spends an attempt and never ends failed.
//! A *wrong* answer is the model's: output that breaks the rules after the agent's own retry,
//! an unreadable answer, a refusal, a model error. Those spend the job's attempts, and after
//! the bound the job stays failed until the user retries it. A request that cannot succeed as
//! it is (Bedrock refusing it as invalid, an answer cut off, the store failing) fails at once.
//! Settings errors pause the engine instead (every call would fail until the user acts), and
//! work stopped before its call was sent goes back untried.
//!
//! Every message stored for the user says what happens next (`waiting`, `failed`).

use crate::agents::AgentError;
use crate::domain::Millis;
use crate::llm::LlmError;
use crate::store::StoreError;

/// The longest a transiently failing job waits between tries.
pub(super) const MAX_TRANSIENT_WAIT_MS: Millis = 3_600_000;
/// The first wait of a throttled job (a per-minute quota's window), and of one over a hard quota.
const THROTTLED_WAIT_MS: Millis = 60_000;
const QUOTA_WAIT_MS: Millis = 15 * 60_000;

/// Why a job's try did not finish.
#[derive(Debug)]
pub(super) enum JobError {
    /// An agent, the model call or the store failed.
    Agent(AgentError),
    /// The vault could not be read just now (the host's file read failed): the note is read
    /// again later.
    VaultRead { path: String, reason: String },
    /// The work is far beyond what the user agreed to (or was asked about): it waits for
    /// them, nothing sent (why, with the estimate).
    AwaitsUser(String),
}

impl From<AgentError> for JobError {
    fn from(error: AgentError) -> Self {
        JobError::Agent(error)
    }
}

impl From<StoreError> for JobError {
    fn from(error: StoreError) -> Self {
        JobError::Agent(AgentError::Store(error))
    }
}

impl From<LlmError> for JobError {
    fn from(error: LlmError) -> Self {
        JobError::Agent(AgentError::Model(error))
    }
}

impl std::fmt::Display for JobError {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            JobError::Agent(error) => error.fmt(formatter),
            JobError::VaultRead { path, reason } => write!(formatter, "Memory Agent could not read {path} ({reason})."),
            JobError::AwaitsUser(why) => write!(formatter, "{why}"),
        }
    }
}

/// What a failed try means for the job.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Next {
    /// Stopped before its call was sent (a pause, an unload): back to the queue, untried.
    Untried,
    /// Every call would fail until the user changes the settings: the engine pauses itself.
    PauseForSettings,
    /// The world's failure: wait at least `first_wait` (growing with each failure in a row)
    /// and try again; no attempt is spent. `throttled` also slows every worker down.
    Wait { first_wait: Millis, throttled: bool },
    /// A wrong or refused answer: spends an attempt; fails for good after the bound.
    Counted,
    /// Cannot succeed as it is: fails now, until the user retries.
    Fails,
}

impl JobError {
    pub(super) fn next(&self, retry_base_ms: Millis) -> Next {
        let wait = |first_wait: Millis| Next::Wait { first_wait, throttled: false };
        let error = match self {
            JobError::VaultRead { .. } => return wait(retry_base_ms),
            JobError::AwaitsUser(_) => return Next::Fails,
            JobError::Agent(AgentError::Model(error)) => error,
            JobError::Agent(AgentError::InvalidOutput(_) | AgentError::Refused(_)) => return Next::Counted,
            JobError::Agent(AgentError::Store(_) | AgentError::OverLimit(_)) => return Next::Fails,
        };
        // Every variant is named, so a new one needs a decision here.
        match error {
            LlmError::Stopped => Next::Untried,
            LlmError::Config(_)
            | LlmError::EndpointUnconfirmed(_)
            | LlmError::Auth(_)
            | LlmError::ClockSkew(_)
            | LlmError::ExpiredToken
            | LlmError::ApiKeyExpired(_)
            | LlmError::UseCaseFormRequired(_)
            | LlmError::AccessDenied { .. }
            | LlmError::NeedsInferenceProfile { .. }
            | LlmError::ModelNotFound { .. } => Next::PauseForSettings,
            LlmError::Throttled => Next::Wait { first_wait: THROTTLED_WAIT_MS, throttled: true },
            LlmError::QuotaExceeded(_) => Next::Wait { first_wait: QUOTA_WAIT_MS, throttled: true },
            LlmError::ModelNotReady
            | LlmError::Unavailable(_)
            | LlmError::Timeout(_)
            | LlmError::ModelTimeout
            | LlmError::Offline(_)
            | LlmError::Network(_) => wait(retry_base_ms),
            LlmError::BadResponse(_) | LlmError::ModelError(_) | LlmError::Refused(_) => Next::Counted,
            LlmError::InvalidRequest(_) | LlmError::ContextWindowExceeded | LlmError::MaxTokens => Next::Fails,
        }
    }
}

/// How long a job waits after `streak` transient failures in a row (0 for the first):
/// `first_wait` doubled for each, at most an hour; `jitter` (0..1, from the host's seed) takes
/// up to a quarter off, so jobs that failed together do not all come back together. Never
/// less than `first_wait`.
pub(super) fn transient_wait(first_wait: Millis, streak: u32, jitter: f64) -> Millis {
    let first_wait = first_wait.clamp(1, MAX_TRANSIENT_WAIT_MS);
    let doubled = first_wait.saturating_mul(1 << streak.min(20)).min(MAX_TRANSIENT_WAIT_MS);
    let jittered = doubled - (doubled as f64 * jitter.clamp(0.0, 1.0) / 4.0) as Millis;
    let wait = jittered.max(first_wait);
    debug_assert!((first_wait..=MAX_TRANSIENT_WAIT_MS).contains(&wait));
    wait
}

/// `HH:MM` in the user's time zone.
pub(super) fn local_clock(at: Millis, utc_offset_minutes: i32) -> String {
    let minutes = (at / 60_000 + Millis::from(utc_offset_minutes)).rem_euclid(24 * 60);
    format!("{:02}:{:02}", minutes / 60, minutes % 60)
}

/// The stored words for a job that waits after a transient failure.
pub(super) fn waiting(error: &JobError, at: Millis, utc_offset_minutes: i32) -> String {
    format!(
        "{} Memory Agent tries again at {} and keeps trying (waiting longer each time, at most an hour) until it works.",
        sentence(&error.to_string()),
        local_clock(at, utc_offset_minutes)
    )
}

/// The stored words for a wrong answer that leaves tries.
pub(super) fn counted(error: &JobError, attempts: u32, bound: u32, at: Millis, utc_offset_minutes: i32) -> String {
    format!(
        "{} That was try {attempts} of {bound}; Memory Agent tries again at {}.",
        sentence(&error.to_string()),
        local_clock(at, utc_offset_minutes)
    )
}

/// The stored words for a job that failed for good (or waits for the user).
pub(super) fn failed(error: &JobError, attempts: u32, counted: bool) -> String {
    if let JobError::AwaitsUser(why) = error {
        return format!(
            "Waits for you: {} Choose Retry failed in the Memory status view to remember it anyway, or leave it out \
             (Settings → Memory Agent → Excluded folders).",
            sentence(why)
        );
    }
    let tries = if counted {
        format!(" after {attempts} {}", if attempts == 1 { "try" } else { "tries" })
    } else {
        String::new()
    };
    format!(
        "Failed{tries}: {} Nothing more is tried until you choose Retry failed in the Memory status view.",
        sentence(&error.to_string())
    )
}

/// `text` as a sentence: a capital first letter and a full stop (or other end) at the end.
fn sentence(text: &str) -> String {
    let text = text.trim();
    let mut chars = text.chars();
    let mut out: String = chars.next().map(|first| first.to_uppercase().chain(chars).collect()).unwrap_or_default();
    if !out.ends_with(['.', '!', '?', ')']) {
        out.push('.');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn transient_failures_wait_longer_each_time_up_to_an_hour() {
        let waits: Vec<Millis> = (0..12).map(|streak| transient_wait(60_000, streak, 0.0)).collect();
        assert_eq!(&waits[..4], &[60_000, 120_000, 240_000, 480_000]);
        assert_eq!(waits[11], MAX_TRANSIENT_WAIT_MS);
        assert!(waits.windows(2).all(|pair| pair[0] <= pair[1]));
        let jittered = transient_wait(60_000, 3, 0.99);
        assert!((360_000..480_000).contains(&jittered), "{jittered}");
        assert_eq!(transient_wait(60_000, 0, 0.99), 60_000, "never below the first wait");
        assert_eq!(transient_wait(60_000, u32::MAX, 1.0), 2_700_000, "an hour less at most a quarter");
    }

    #[test]
    fn the_world_s_failures_wait_and_the_answer_s_failures_count() {
        let transient = [
            JobError::from(LlmError::Throttled),
            LlmError::QuotaExceeded("tokens".into()).into(),
            LlmError::Unavailable(503).into(),
            LlmError::Unavailable(500).into(),
            LlmError::Network("connection reset".into()).into(),
            LlmError::Offline("no network".into()).into(),
            LlmError::Timeout(60).into(),
            LlmError::ModelTimeout.into(),
            LlmError::ModelNotReady.into(),
            JobError::VaultRead { path: "a.md".into(), reason: "EBUSY".into() },
        ];
        for error in &transient {
            assert!(matches!(error.next(60_000), Next::Wait { .. }), "{error}");
        }
        let counted = [
            JobError::from(AgentError::InvalidOutput("importance must be a number".into())),
            AgentError::Refused("declined".into()).into(),
            LlmError::BadResponse("not JSON".into()).into(),
            LlmError::ModelError("failed".into()).into(),
        ];
        for error in &counted {
            assert_eq!(error.next(60_000), Next::Counted, "{error}");
        }
        assert_eq!(JobError::from(LlmError::MaxTokens).next(60_000), Next::Fails);
        assert_eq!(JobError::from(LlmError::Auth("bad".into())).next(60_000), Next::PauseForSettings);
        assert_eq!(JobError::from(LlmError::Stopped).next(60_000), Next::Untried);
    }

    #[test]
    fn every_message_says_what_happens_next() {
        let error = JobError::from(LlmError::Unavailable(503));
        let at = 1_796_025_600_000 + 6 * 3_600_000 + 5 * 60_000; // 14:05 UTC
        let words = waiting(&error, at, 60);
        assert!(words.starts_with("Bedrock is unavailable right now (HTTP 503)."), "{words}");
        assert!(words.contains("tries again at 15:05 and keeps trying"), "{words}");
        let wrong = JobError::from(AgentError::InvalidOutput("summary is empty".into()));
        assert!(counted(&wrong, 2, 5, at, 0).ends_with("That was try 2 of 5; Memory Agent tries again at 14:05."));
        let gave_up = failed(&wrong, 5, true);
        assert!(gave_up.starts_with("Failed after 5 tries: The model's answer was not usable"), "{gave_up}");
        assert!(gave_up.ends_with("choose Retry failed in the Memory status view."), "{gave_up}");
        assert!(failed(&JobError::from(LlmError::MaxTokens), 1, false)
            .starts_with("Failed: The model's answer was cut off"));
        let read = JobError::VaultRead { path: "a.md".into(), reason: "EBUSY".into() };
        assert!(waiting(&read, at, 0)
            .starts_with("Memory Agent could not read a.md (EBUSY). Memory Agent tries again at 14:05"));
    }
}
