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
}

/// `blocks` with a cache point after them when `prefix_tokens` reach the model's minimum.
pub fn cached_if_worth_it<M: Model>(
    model: &M,
    mut blocks: Vec<ContentBlock>,
    prefix_tokens: usize,
) -> Vec<ContentBlock> {
    if prefix_tokens >= model.cache_minimum_tokens() {
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
