//! What this account may call in this region, from Bedrock's control plane (the `bedrock`
//! service, SigV4 name `bedrock`): `ListInferenceProfiles` (GET /inference-profiles) and
//! `ListFoundationModels` (GET /foundation-models), shapes as in botocore's `bedrock`
//! service definition. The settings tab offers the result as a list; a typed id still works.

use serde::Serialize;
use serde_json::Value;

use super::client::BedrockClient;
use super::error::{classify, LlmError};
use super::http::{Clock, HttpRequest, HttpTransport, TransportError};
use super::sign::authenticate;

/// A model or inference profile that can answer Converse requests here.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ModelChoice {
    /// What goes into the Model ID setting.
    pub id: String,
    pub name: String,
    /// `profile` (cross-region inference profile) or `model` (on-demand in this region).
    pub kind: &'static str,
}

/// At most this many pages of each list (a page holds up to 1,000).
const MAX_PAGES: usize = 5;

impl BedrockClient {
    /// The active system-defined inference profiles, then the on-demand text models.
    pub async fn list_models<T: HttpTransport, C: Clock>(
        &self,
        transport: &T,
        clock: &C,
    ) -> Result<Vec<ModelChoice>, LlmError> {
        let mut choices = Vec::new();
        let mut next: Option<String> = None;
        for _ in 0..MAX_PAGES {
            let token = next.as_deref().map(|token| format!("&nextToken={}", super::config::percent_encode(token)));
            let page = self
                .get(
                    transport,
                    clock,
                    &format!("/inference-profiles?maxResults=1000&type=SYSTEM_DEFINED{}", token.unwrap_or_default()),
                )
                .await?;
            for summary in page.get("inferenceProfileSummaries").and_then(Value::as_array).into_iter().flatten() {
                let active = summary.get("status").and_then(Value::as_str).is_none_or(|status| status == "ACTIVE");
                if let (true, Some(id)) = (active, summary.get("inferenceProfileId").and_then(Value::as_str)) {
                    let name = summary.get("inferenceProfileName").and_then(Value::as_str).unwrap_or(id);
                    choices.push(ModelChoice { id: id.to_owned(), name: name.to_owned(), kind: "profile" });
                }
            }
            next = page.get("nextToken").and_then(Value::as_str).map(str::to_owned);
            if next.is_none() {
                break;
            }
        }
        let models =
            self.get(transport, clock, "/foundation-models?byOutputModality=TEXT&byInferenceType=ON_DEMAND").await?;
        for summary in models.get("modelSummaries").and_then(Value::as_array).into_iter().flatten() {
            let active = summary
                .pointer("/modelLifecycle/status")
                .and_then(Value::as_str)
                .is_none_or(|status| status == "ACTIVE");
            if let (true, Some(id)) = (active, summary.get("modelId").and_then(Value::as_str)) {
                let name = summary.get("modelName").and_then(Value::as_str).unwrap_or(id);
                let provider = summary.get("providerName").and_then(Value::as_str).unwrap_or("");
                let name = if provider.is_empty() { name.to_owned() } else { format!("{provider} {name}") };
                choices.push(ModelChoice { id: id.to_owned(), name, kind: "model" });
            }
        }
        Ok(choices)
    }

    async fn get<T: HttpTransport, C: Clock>(&self, transport: &T, clock: &C, path: &str) -> Result<Value, LlmError> {
        let config = self.config();
        let mut request = HttpRequest {
            method: "GET".into(),
            url: config.control_plane_url(path),
            headers: vec![],
            body: String::new(),
        };
        authenticate(&mut request, &config.auth, &config.region, "bedrock", clock.now() + self.clock_offset_ms())?;
        request.headers.push(("accept".into(), "application/json".into()));
        let response = transport.send(request).await.map_err(|error| match error {
            TransportError::Offline(reason) => LlmError::Offline(reason),
            TransportError::Network(reason) => LlmError::Network(reason),
            TransportError::Stopped => LlmError::Stopped,
        })?;
        if !(200..300).contains(&response.status) {
            return Err(classify(&response, &config.model_id, &config.region));
        }
        serde_json::from_str(&response.body).map_err(|_| LlmError::BadResponse("the model list is not JSON".into()))
    }
}
