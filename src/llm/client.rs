//! One Converse call, done right: sign, send with a timeout, classify, retry, limit.

use std::cell::RefCell;
use std::pin::pin;

use futures_util::future::{select, Either};

use super::config::BedrockConfig;
use super::converse::{billed_usage, parse_reply, ConverseReply, ConverseRequest};
use super::error::{classify, LlmError};
use super::http::{Clock, HttpRequest, HttpResponse, HttpTransport, TransportError};
use super::limiter::ConcurrencyLimiter;
use super::retry::Jitter;
use super::retry_quota::RetryQuota;
use super::sign::authenticate;
use super::skew::{parse_http_date, ClockOffset};
use crate::domain::TokenUsage;

/// A Bedrock Runtime client for one connection setting.
#[derive(Debug)]
pub struct BedrockClient {
    config: BedrockConfig,
    limiter: ConcurrencyLimiter,
    jitter: Jitter,
    /// How far the device's clock is from AWS's, learnt from `Date` headers.
    clock: ClockOffset,
    /// The standard retry mode's token bucket, shared by every call.
    quota: RetryQuota,
    /// Set once Bedrock denied the default model and calls went to its fallback: kept for
    /// this client's life (this session on this device; a restart tries the default again).
    fallback: RefCell<Option<ModelFallback>>,
}

/// Calls go to the previous Haiku because the account may not call the default one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ModelFallback {
    /// The default model Bedrock denied.
    pub from: String,
    /// The model used instead.
    pub to: String,
    /// Bedrock's own words for the denial.
    pub reason: String,
}

impl ModelFallback {
    /// What the user is told: which model is used, why, and how to get the default back.
    pub fn message(&self, region: &str) -> String {
        format!(
            "Memory Agent uses {to} because this AWS account has no access to the default model {from} in {region} \
             (Bedrock: {reason}). To use {from}, enable it in the Bedrock console for {region}; Memory Agent tries it \
             again when it restarts. A Model ID typed in the settings is always used as it is.",
            to = self.to,
            from = self.from,
            reason = self.reason.trim_end_matches('.'),
        )
    }
}

/// A retry hint never makes the client wait longer than this; the job waits longer.
const MAX_HINTED_WAIT_MS: u64 = 60_000;

impl BedrockClient {
    pub fn new(config: BedrockConfig, seed: u64) -> Result<Self, LlmError> {
        config.validate()?;
        let limiter = ConcurrencyLimiter::new(config.max_concurrency);
        Ok(BedrockClient {
            config,
            limiter,
            jitter: Jitter::new(seed),
            clock: ClockOffset::default(),
            quota: RetryQuota::default(),
            fallback: RefCell::new(None),
        })
    }

    /// The connection as configured; the model calls go to is `model_id()`.
    pub fn config(&self) -> &BedrockConfig {
        &self.config
    }

    /// The model calls go to: the configured one, or its fallback once Bedrock denied it.
    pub fn model_id(&self) -> String {
        self.fallback.borrow().as_ref().map_or_else(|| self.config.model_id.clone(), |fallback| fallback.to.clone())
    }

    /// Why calls go to another model than the configured one, if they do.
    pub fn fallback(&self) -> Option<ModelFallback> {
        self.fallback.borrow().clone()
    }

    /// Keeps the fallback `previous` found when it served the same connection (a settings
    /// change elsewhere rebuilds the client): the denied default is not asked again each time.
    pub fn keep_fallback_of(&self, previous: &BedrockClient) {
        let (old, new) = (&previous.config, &self.config);
        let same = old.model_id == new.model_id
            && old.fallback_model_id == new.fallback_model_id
            && old.region == new.region
            && old.auth == new.auth
            && old.endpoint == new.endpoint;
        if same {
            *self.fallback.borrow_mut() = previous.fallback();
        }
    }

    /// After `model` was denied: switches to the configured fallback when `model` is the
    /// default that has one (true: try again there). A model the user typed has no fallback.
    fn fall_back_after(&self, model: &str, error: &LlmError) -> bool {
        let LlmError::AccessDenied { message, .. } = error else { return false };
        let Some(to) = self.config.fallback_model_id.as_ref() else { return false };
        if model != self.config.model_id || *to == self.config.model_id {
            return false;
        }
        let mut fallback = self.fallback.borrow_mut();
        // Calls in flight together are all denied: the first one records the switch.
        if fallback.is_none() {
            *fallback = Some(ModelFallback { from: model.to_owned(), to: to.clone(), reason: message.clone() });
        }
        debug_assert!(fallback.as_ref().is_some_and(|fallback| fallback.to == *to));
        true
    }

    pub fn limiter(&self) -> &ConcurrencyLimiter {
        &self.limiter
    }

    /// How far (ms) the device's clock was found from AWS's; 0 until a correction.
    pub fn clock_offset_ms(&self) -> i64 {
        self.clock.offset_ms()
    }

    pub async fn converse<T: HttpTransport, C: Clock>(
        &self,
        transport: &T,
        clock: &C,
        request: &ConverseRequest,
    ) -> Result<ConverseReply, LlmError> {
        self.converse_within(transport, clock, request, self.config.retry.max_attempts, &|_, _| {}).await
    }

    /// `converse` with at most `max_attempts` tries: a question (someone waits) fails fast,
    /// background work retries longer — and its job later still. `billed` hears of every answer
    /// Bedrock bills (the model that answered, the tokens), the ones this client then rejects
    /// included (the forced tool not called, a tool input cut at `max_tokens`).
    pub async fn converse_within<T: HttpTransport, C: Clock>(
        &self,
        transport: &T,
        clock: &C,
        request: &ConverseRequest,
        max_attempts: u32,
        billed: &dyn Fn(&str, &TokenUsage),
    ) -> Result<ConverseReply, LlmError> {
        let tool = request.forced_tool.as_ref().map(|tool| tool.name.as_str());
        let max_attempts = max_attempts.clamp(1, self.config.retry.max_attempts.max(1));
        let (mut attempt, mut spent, mut skew_retried) = (0, 0, false);
        loop {
            attempt += 1;
            let model = self.model_id();
            // Built for each attempt's model: after a fallback the request goes to another model,
            // whose request fields may differ.
            let body = request.to_body(super::models::model_spec(&model));
            let outcome = {
                let _permit = self.limiter.acquire().await;
                self.attempt(transport, clock, &model, &body, tool, billed).await
            };
            let (error, hint_ms) = match outcome {
                Ok(reply) => {
                    self.limiter.on_success();
                    self.quota.release(spent);
                    return Ok(reply);
                }
                Err(failure) => failure,
            };
            // Signed with a clock AWS disagrees with: the offset was just learnt from the
            // response, so one immediate re-sign is all it takes (as the SDKs do).
            if matches!(error, LlmError::ClockSkew(_)) && !skew_retried && self.clock.offset_ms() != 0 {
                skew_retried = true;
                continue;
            }
            // The default model denied: the previous Haiku at once, not an attempt spent.
            if self.fall_back_after(&model, &error) {
                continue;
            }
            if error == LlmError::Throttled {
                self.limiter.on_throttled();
            }
            if !error.is_retryable() || attempt >= max_attempts {
                return Err(error);
            }
            let after_timeout = matches!(error, LlmError::Timeout(_) | LlmError::Network(_));
            let Some(cost) = self.quota.acquire(after_timeout) else { return Err(error) };
            spent += cost;
            let backoff = self.config.retry.delay_ms(attempt, &self.jitter);
            clock.sleep(backoff.max(hint_ms.unwrap_or(0).min(MAX_HINTED_WAIT_MS))).await;
        }
    }

    /// One try. A failure carries the server's retry hint, if it gave one.
    async fn attempt<T: HttpTransport, C: Clock>(
        &self,
        transport: &T,
        clock: &C,
        model: &str,
        body: &str,
        tool: Option<&str>,
        billed: &dyn Fn(&str, &TokenUsage),
    ) -> Result<ConverseReply, (LlmError, Option<u64>)> {
        let config = &self.config;
        let url = config.converse_url_for(model);
        let mut request = HttpRequest { method: "POST".into(), url, headers: vec![], body: body.to_owned() };
        authenticate(&mut request, &config.auth, &config.region, "bedrock", self.clock.corrected(clock.now()))
            .map_err(|error| (error, None))?;
        // Added after signing: hosts (Electron, proxies) may rewrite these two, and a
        // rewritten signed header would fail the signature.
        request.headers.push(("content-type".into(), "application/json".into()));
        request.headers.push(("accept".into(), "application/json".into()));
        let sent = pin!(transport.send(request));
        let deadline = pin!(clock.sleep(config.timeout_ms));
        let response = match select(sent, deadline).await {
            Either::Left((Ok(response), _)) => response,
            Either::Left((Err(TransportError::Offline(reason)), _)) => return Err((LlmError::Offline(reason), None)),
            Either::Left((Err(TransportError::Network(reason)), _)) => return Err((LlmError::Network(reason), None)),
            Either::Left((Err(TransportError::Stopped), _)) => return Err((LlmError::Stopped, None)),
            Either::Right(_) => return Err((LlmError::Timeout(config.timeout_ms.div_ceil(1_000)), None)),
        };
        self.clock.observe(response.header("date"), clock.now());
        if (200..300).contains(&response.status) {
            if let Some(usage) = billed_usage(&response.body) {
                billed(model, &usage);
            }
            parse_reply(&response.body, tool).map_err(|error| (error, None))
        } else {
            Err((classify(&response, model, &config.region), retry_hint_ms(&response)))
        }
    }
}

/// How long the server asks us to wait: `x-amz-retry-after` (milliseconds), or
/// `Retry-After` (seconds, or an HTTP date — then relative to the response's own `Date`).
fn retry_hint_ms(response: &HttpResponse) -> Option<u64> {
    if let Some(ms) = response.header("x-amz-retry-after").and_then(|value| value.trim().parse::<u64>().ok()) {
        return Some(ms);
    }
    let value = response.header("retry-after")?.trim();
    if let Ok(seconds) = value.parse::<u64>() {
        return Some(seconds.saturating_mul(1_000));
    }
    let at = parse_http_date(value)?;
    let now = response.header("date").and_then(parse_http_date)?;
    u64::try_from(at - now).ok()
}
