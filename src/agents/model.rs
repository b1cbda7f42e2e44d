//! The seam between agents and the Bedrock client: "send this request, get the reply".

use std::future::Future;

use crate::llm::{BedrockClient, Clock, ConverseReply, ConverseRequest, HttpTransport, LlmError};

/// Something that answers Converse requests.
pub trait Model {
    fn converse(&self, request: &ConverseRequest) -> impl Future<Output = Result<ConverseReply, LlmError>>;
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
}
