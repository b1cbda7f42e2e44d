//! One Converse call, done right: sign, send with a timeout, classify, retry, limit.

use std::pin::pin;

use futures_util::future::{select, Either};

use super::config::BedrockConfig;
use super::converse::{parse_reply, ConverseReply, ConverseRequest};
use super::error::{classify, LlmError};
use super::http::{Clock, HttpRequest, HttpTransport, TransportError};
use super::limiter::ConcurrencyLimiter;
use super::retry::Jitter;
use super::sign::authenticate;

/// A Bedrock Runtime client for one connection setting.
#[derive(Debug)]
pub struct BedrockClient {
    config: BedrockConfig,
    limiter: ConcurrencyLimiter,
    jitter: Jitter,
}

impl BedrockClient {
    /// Checks the settings; `seed` drives the retry jitter.
    pub fn new(config: BedrockConfig, seed: u64) -> Result<Self, LlmError> {
        config.validate()?;
        let limiter = ConcurrencyLimiter::new(config.max_concurrency);
        Ok(BedrockClient { config, limiter, jitter: Jitter::new(seed) })
    }

    pub fn config(&self) -> &BedrockConfig {
        &self.config
    }

    pub fn limiter(&self) -> &ConcurrencyLimiter {
        &self.limiter
    }

    /// Sends `request`, retrying transient failures with backoff, within the concurrency
    /// limit. Returns the answer or the last error.
    pub async fn converse<T: HttpTransport, C: Clock>(
        &self,
        transport: &T,
        clock: &C,
        request: &ConverseRequest,
    ) -> Result<ConverseReply, LlmError> {
        let body = request.to_body();
        let tool = request.forced_tool.as_ref().map(|tool| tool.name.as_str());
        let mut attempt = 0;
        loop {
            attempt += 1;
            let outcome = {
                let _permit = self.limiter.acquire().await;
                self.attempt(transport, clock, &body, tool).await
            };
            match outcome {
                Ok(reply) => {
                    self.limiter.on_success();
                    return Ok(reply);
                }
                Err(error) => {
                    if error == LlmError::Throttled {
                        self.limiter.on_throttled();
                    }
                    if !error.is_retryable() || attempt >= self.config.retry.max_attempts {
                        return Err(error);
                    }
                    clock.sleep(self.config.retry.delay_ms(attempt, &self.jitter)).await;
                }
            }
        }
    }

    async fn attempt<T: HttpTransport, C: Clock>(
        &self,
        transport: &T,
        clock: &C,
        body: &str,
        tool: Option<&str>,
    ) -> Result<ConverseReply, LlmError> {
        let config = &self.config;
        let mut request =
            HttpRequest { method: "POST".into(), url: config.converse_url(), headers: vec![], body: body.to_owned() };
        authenticate(&mut request, &config.auth, &config.region, "bedrock", clock.now())?;
        // Added after signing: hosts (Electron, proxies) may rewrite these two, and a
        // rewritten signed header would fail the signature.
        request.headers.push(("content-type".into(), "application/json".into()));
        request.headers.push(("accept".into(), "application/json".into()));
        let sent = pin!(transport.send(request));
        let deadline = pin!(clock.sleep(config.timeout_ms));
        let response = match select(sent, deadline).await {
            Either::Left((Ok(response), _)) => response,
            Either::Left((Err(TransportError::Offline(reason)), _)) => return Err(LlmError::Offline(reason)),
            Either::Left((Err(TransportError::Network(reason)), _)) => return Err(LlmError::Network(reason)),
            Either::Left((Err(TransportError::Stopped), _)) => return Err(LlmError::Stopped),
            Either::Right(_) => return Err(LlmError::Timeout(config.timeout_ms.div_ceil(1_000))),
        };
        if (200..300).contains(&response.status) {
            parse_reply(&response.body, tool)
        } else {
            Err(classify(&response, &config.model_id, &config.region))
        }
    }
}
