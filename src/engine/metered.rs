//! The model as agents see it inside the engine: Bedrock calls whose tokens are recorded
//! per local day and agent after every answer, and that are not sent once the work they
//! belong to was stopped (unload, reload, pause).
//!
//! Each call is priced on its own: a model with a second price for long prompts (Haiku 5.5)
//! bills a call by that call's prompt, so a call above the threshold is recorded under its
//! agent's long-prompt name (`usage_agent`) and the sums of a day stay priceable per tier.

use std::cell::Cell;

use super::host::Host;
use crate::agents::Model;
use crate::calendar::CalendarDate;
use crate::domain::TokenUsage;
use crate::llm::{estimate_cost_usd, tier_of_call, PriceTier};
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
    /// Their estimated cost, each call priced at its own tier.
    cost_usd: Cell<f64>,
    /// Calls billed at the model's long-prompt price.
    long_prompt_calls: Cell<u32>,
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
        MeteredModel {
            client,
            host,
            store,
            agent,
            stopped,
            used: Cell::default(),
            cost_usd: Cell::default(),
            long_prompt_calls: Cell::default(),
            max_attempts: None,
        }
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

    /// The estimated cost of every answer received, each call at its own price tier.
    pub fn cost_usd(&self) -> f64 {
        self.cost_usd.get()
    }

    /// How many of them were billed at the model's long-prompt price.
    pub fn long_prompt_calls(&self) -> u32 {
        self.long_prompt_calls.get()
    }
}

/// What a usage row of `agent`'s calls billed at the long-prompt price is called.
const LONG_PROMPT_SUFFIX: &str = "+long-prompt";

/// The name a call's usage is recorded under: the agent's, marked when the call was billed at
/// the long-prompt price (rows keep sums, and a sum cannot tell its calls' tiers).
pub(crate) fn usage_agent(agent: &str, tier: PriceTier) -> String {
    match tier {
        PriceTier::Base => agent.to_owned(),
        PriceTier::LongPrompt => format!("{agent}{LONG_PROMPT_SUFFIX}"),
    }
}

/// The price tier of a usage row, from the name it was recorded under.
pub(crate) fn usage_tier(recorded_agent: &str) -> PriceTier {
    if recorded_agent.ends_with(LONG_PROMPT_SUFFIX) {
        PriceTier::LongPrompt
    } else {
        PriceTier::Base
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

impl<H: Host, D: SqlDriver> MeteredModel<'_, H, D> {
    /// One answer Bedrock billed, by `model_id`: its tokens go to the day's usage (and this
    /// model's totals), whether the answer is then used or rejected.
    fn record(&self, model_id: &str, usage: &TokenUsage) {
        let day = CalendarDate::at(self.host.now(), self.host.utc_offset_minutes());
        let tier = tier_of_call(model_id, usage);
        // Usage is bookkeeping: failing to record it must not throw away a paid-for answer.
        let _ = self.store.record_usage(day, &usage_agent(self.agent, tier), usage);
        self.cost_usd.set(self.cost_usd.get() + estimate_cost_usd(model_id, usage));
        if tier == PriceTier::LongPrompt {
            self.long_prompt_calls.set(self.long_prompt_calls.get() + 1);
        }
        let mut used = self.used.get();
        used.input_tokens += usage.input_tokens;
        used.output_tokens += usage.output_tokens;
        used.cache_read_tokens += usage.cache_read_tokens;
        used.cache_write_tokens += usage.cache_write_tokens;
        self.used.set(used);
    }
}

impl<H: Host, D: SqlDriver> Model for MeteredModel<'_, H, D> {
    async fn converse(&self, request: &ConverseRequest) -> Result<ConverseReply, LlmError> {
        let transport = StopAware { host: self.host, stopped: self.stopped };
        let attempts = self.max_attempts.unwrap_or(self.client.config().retry.max_attempts);
        let billed = |model_id: &str, usage: &TokenUsage| self.record(model_id, usage);
        self.client.converse_within(&transport, self.host, request, attempts, &billed).await
    }

    fn cache_minimum_tokens(&self) -> usize {
        crate::llm::cache_minimum_tokens(&self.client.model_id())
    }

    fn tokenizer_factor(&self) -> f64 {
        crate::llm::model_spec(&self.client.model_id()).map_or(1.0, |spec| spec.tokenizer_factor)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_long_prompt_row_is_named_so_and_read_back_as_such() {
        assert_eq!(usage_agent("query", PriceTier::Base), "query");
        assert_eq!(usage_tier(&usage_agent("query", PriceTier::LongPrompt)), PriceTier::LongPrompt);
        assert_eq!(usage_tier("ingest"), PriceTier::Base);
    }
}
