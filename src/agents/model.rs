//! The seam between agents and the Bedrock client: "send this request, get the reply".

use std::future::Future;

use crate::llm::{BedrockClient, Clock, ContentBlock, ConverseReply, ConverseRequest, HttpTransport, LlmError};

/// Something that answers Converse requests.
pub trait Model {
    fn converse(&self, request: &ConverseRequest) -> impl Future<Output = Result<ConverseReply, LlmError>>;

    /// The fewest tokens a prompt prefix needs to be cached: agents put a cache point only
    /// where the prefix reaches it (and a reuse is likely).
    fn cache_minimum_tokens(&self) -> usize {
        1_024
    }

    /// The model's tokens for one token of the core's estimate (`tokens`): about 1.3 for the
    /// tokenizer of Claude 4.7 and later, 1 for the older one and unknown models.
    fn tokenizer_factor(&self) -> f64 {
        1.0
    }

    /// `estimated` tokens (the core's estimate) as this model counts them, rounded up.
    fn model_tokens(&self, estimated: usize) -> usize {
        debug_assert!(self.tokenizer_factor() >= 1.0, "the estimate is never cut below itself");
        (estimated as f64 * self.tokenizer_factor()).ceil() as usize
    }
}

/// `blocks` with a cache point after them when `prefix_tokens` (the core's estimate) reach
/// the model's minimum, counted as the model counts them.
pub fn cached_if_worth_it<M: Model>(
    model: &M,
    mut blocks: Vec<ContentBlock>,
    prefix_tokens: usize,
) -> Vec<ContentBlock> {
    if model.model_tokens(prefix_tokens) >= model.cache_minimum_tokens() {
        blocks.push(ContentBlock::CachePoint);
    }
    blocks
}

/// The real model: the Bedrock client with the host's transport and clock.
pub struct BedrockModel<'a, T, C> {
    pub client: &'a BedrockClient,
    pub transport: &'a T,
    pub clock: &'a C,
}

impl<T: HttpTransport, C: Clock> Model for BedrockModel<'_, T, C> {
    async fn converse(&self, request: &ConverseRequest) -> Result<ConverseReply, LlmError> {
        self.client.converse(self.transport, self.clock, request).await
    }

    fn cache_minimum_tokens(&self) -> usize {
        crate::llm::cache_minimum_tokens(&self.client.model_id())
    }

    fn tokenizer_factor(&self) -> f64 {
        crate::llm::model_spec(&self.client.model_id()).map_or(1.0, |spec| spec.tokenizer_factor)
    }
}

/// A model that is never called, for tests that only build requests.
#[cfg(test)]
pub(crate) struct NoCall;

#[cfg(test)]
impl Model for NoCall {
    async fn converse(&self, _: &ConverseRequest) -> Result<ConverseReply, LlmError> {
        Err(LlmError::Config("not called in this test".into()))
    }
}
