//! The model as agents see it inside the engine: Bedrock calls whose tokens are recorded
//! per local day and agent after every answer.

use super::host::Host;
use crate::agents::Model;
use crate::calendar::CalendarDate;
use crate::llm::{BedrockClient, ConverseReply, ConverseRequest, LlmError};
use crate::store::{SqlDriver, Store};

pub struct MeteredModel<'a, H, D: SqlDriver> {
    pub client: &'a BedrockClient,
    pub host: &'a H,
    pub store: &'a Store<D>,
    pub agent: &'static str,
}

impl<H: Host, D: SqlDriver> Model for MeteredModel<'_, H, D> {
    async fn converse(&self, request: &ConverseRequest) -> Result<ConverseReply, LlmError> {
        let reply = self.client.converse(self.host, self.host, request).await?;
        let day = CalendarDate::at(self.host.now(), self.host.utc_offset_minutes());
        // Usage is bookkeeping: failing to record it must not throw away a paid-for answer.
        let _ = self.store.record_usage(day, self.agent, &reply.usage);
        Ok(reply)
    }
}
