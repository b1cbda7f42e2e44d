//! The model as agents see it inside the engine: Bedrock calls whose tokens are recorded
//! per local day and agent after every answer, and that are not sent once the work they
//! belong to was stopped (unload, reload, pause).

use std::cell::Cell;

use super::host::Host;
use crate::agents::Model;
use crate::calendar::CalendarDate;
use crate::domain::TokenUsage;
use crate::llm::{BedrockClient, ConverseReply, ConverseRequest, HttpRequest, HttpResponse, HttpTransport};
use crate::llm::{LlmError, TransportError};
use crate::store::{SqlDriver, Store};

pub struct MeteredModel<'a, H, D: SqlDriver> {
    client: &'a BedrockClient,
    host: &'a H,
    store: &'a Store<D>,
    agent: &'static str,
    /// Whether the work was stopped; checked before every attempt, retries included.
    stopped: &'a dyn Fn() -> bool,
    /// The tokens of every answer so far (what one question cost).
    used: Cell<TokenUsage>,
    /// Tries per call; fewer when someone waits for the answer.
    max_attempts: Option<u32>,
}

impl<'a, H, D: SqlDriver> MeteredModel<'a, H, D> {
    pub fn new(
        client: &'a BedrockClient,
        host: &'a H,
        store: &'a Store<D>,
        agent: &'static str,
        stopped: &'a dyn Fn() -> bool,
    ) -> Self {
        MeteredModel { client, host, store, agent, stopped, used: Cell::default(), max_attempts: None }
    }

    /// Someone waits for the answer: throttling or an outage fails the call after two tries
    /// with a clear message, instead of keeping them waiting through every retry.
    pub fn interactive(mut self) -> Self {
        self.max_attempts = Some(INTERACTIVE_ATTEMPTS);
        self
    }

    /// The tokens of every answer received through this model.
    pub fn used(&self) -> TokenUsage {
        self.used.get()
    }
}

const INTERACTIVE_ATTEMPTS: u32 = 2;

/// The host's transport, refusing to send once the work is stopped.
struct StopAware<'a, H> {
    host: &'a H,
    stopped: &'a dyn Fn() -> bool,
}

impl<H: Host> HttpTransport for StopAware<'_, H> {
    async fn send(&self, request: HttpRequest) -> Result<HttpResponse, TransportError> {
        if (self.stopped)() {
            return Err(TransportError::Stopped);
        }
        self.host.send(request).await
    }
}

impl<H: Host, D: SqlDriver> Model for MeteredModel<'_, H, D> {
    async fn converse(&self, request: &ConverseRequest) -> Result<ConverseReply, LlmError> {
        let transport = StopAware { host: self.host, stopped: self.stopped };
        let attempts = self.max_attempts.unwrap_or(self.client.config().retry.max_attempts);
        let reply = self.client.converse_within(&transport, self.host, request, attempts).await?;
        let day = CalendarDate::at(self.host.now(), self.host.utc_offset_minutes());
        // Usage is bookkeeping: failing to record it must not throw away a paid-for answer.
        let _ = self.store.record_usage(day, self.agent, &reply.usage);
        let mut used = self.used.get();
        used.input_tokens += reply.usage.input_tokens;
        used.output_tokens += reply.usage.output_tokens;
        used.cache_read_tokens += reply.usage.cache_read_tokens;
        used.cache_write_tokens += reply.usage.cache_write_tokens;
        self.used.set(used);
        Ok(reply)
    }

    fn cache_minimum_tokens(&self) -> usize {
        crate::llm::cache_minimum_tokens(&self.client.model_id())
    }
}
