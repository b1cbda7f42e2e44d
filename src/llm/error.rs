//! What can go wrong talking to Bedrock, in words a person can act on.
//!
//! Bedrock's REST-JSON errors carry their type in the `x-amzn-ErrorType` header (and
//! sometimes `__type` in the body) and a `message` in the body; `classify` maps them,
//! with the status code, onto these variants. Each knows whether retrying can help.

use thiserror::Error;

use super::http::HttpResponse;
use crate::error::ErrorCode;

#[derive(Debug, Clone, PartialEq, Error)]
pub enum LlmError {
    /// A setting is missing or malformed; nothing was sent.
    #[error("{0}")]
    Config(String),
    /// A custom endpoint outside AWS's own Bedrock hosts that this device's user has not
    /// confirmed; nothing was sent (the host is in the message, never a key).
    #[error("Memory Agent sends your AWS credentials only to AWS's own Bedrock endpoints, and {0} is not one of them. Nothing was sent. If you trust {0}, confirm it on this device: Settings → Memory Agent → Connection, \"Advanced: endpoint\"; otherwise clear the endpoint.")]
    EndpointUnconfirmed(String),
    /// AWS did not recognise the keys (UnrecognizedClient, InvalidSignature, IncompleteSignature).
    #[error("Bedrock rejected the keys: check the access key id and secret access key in settings. ({0})")]
    Auth(String),
    /// The request was signed with a time too far from AWS's clock.
    #[error("Bedrock rejected the request because this device's clock is off. Set the clock automatically and try again. ({0})")]
    ClockSkew(String),
    /// Temporary credentials ran out.
    #[error("The session token has expired: paste fresh temporary keys (or use a long-term key) in settings.")]
    ExpiredToken,
    /// A Bedrock API key that is no longer valid (short-term keys last at most 12 hours).
    #[error("The Bedrock API key has expired or was revoked: create a new one in the Bedrock console (short-term keys last at most 12 hours; a long-term key lasts until its expiry date) and put it in the secret you chose in settings. ({0})")]
    ApiKeyExpired(String),
    /// The account has not submitted Anthropic's use-case form, which Claude models need.
    #[error("This AWS account has not yet submitted Anthropic's use-case details, which Claude models need: in the Bedrock console open Model catalog, choose a Claude model and submit the form, wait a few minutes, then try again. ({0})")]
    UseCaseFormRequired(String),
    /// The keys work but may not call this model here.
    #[error("No access to {model} in {region}: enable model access in the Bedrock console for {region}, and check that the IAM policy allows bedrock:InvokeModel. ({message})")]
    AccessDenied { model: String, region: String, message: String },
    /// A bare model id that needs an inference profile in this region.
    #[error("{model} cannot be called on demand in {region}: use an inference profile id such as us.{bare} (or eu., apac., global.). ({message})")]
    NeedsInferenceProfile { model: String, bare: String, region: String, message: String },
    /// The model id does not exist in this region.
    #[error(
        "Bedrock does not know the model {model} in {region}: check the model id and region in settings. ({message})"
    )]
    ModelNotFound { model: String, region: String, message: String },
    /// Bedrock refused the request itself (a bug on our side, or a limit such as size).
    #[error("Bedrock refused the request: {0}")]
    InvalidRequest(String),
    /// Too many requests; retried with backoff (the message says nothing of what follows:
    /// the caller knows, and says it — a job waits, a question is asked again by the user).
    #[error("Bedrock is throttling requests (too many at once, or over the account's quota).")]
    Throttled,
    /// Over a hard quota of the account (e.g. tokens a day); retrying soon does not help.
    #[error("This request is over a Bedrock quota of your account ({0}); for more, ask for a higher quota in the Service Quotas console.")]
    QuotaExceeded(String),
    /// The model took too long on this request (HTTP 408); tried again later, not at once.
    #[error("The model took too long on this request.")]
    ModelTimeout,
    /// The model failed while processing the request (HTTP 424).
    #[error("The model failed while processing this request. ({0})")]
    ModelError(String),
    /// The model declined, a guardrail or content filter blocked it, or it could not make a
    /// valid tool call: trying the same text again rarely helps.
    #[error("The model declined this text ({0}).")]
    Refused(String),
    /// The prompt and answer did not fit the model's context window: the answer was cut.
    #[error("The answer was cut off: the question's prompt did not fit the model's context window.")]
    ContextWindowExceeded,
    /// The model is still being loaded; retried.
    #[error("The model is not ready yet.")]
    ModelNotReady,
    /// A 5xx from Bedrock; retried.
    #[error("Bedrock is unavailable right now (HTTP {0}).")]
    Unavailable(u16),
    /// No answer within the timeout; retried.
    #[error("Bedrock did not answer within {0} seconds.")]
    Timeout(u64),
    /// No connection; retried.
    #[error("Cannot reach Bedrock: this device seems to be offline. ({0})")]
    Offline(String),
    /// The connection broke mid-request; retried.
    #[error("The connection to Bedrock broke: {0}")]
    Network(String),
    /// The answer hit the output limit and would be cut short; the caller decides.
    #[error("The model's answer was cut off at the output token limit.")]
    MaxTokens,
    /// A 200 whose body is not a Converse answer we can read.
    #[error("Bedrock sent an answer Memory Agent cannot read: {0}")]
    BadResponse(String),
    /// Not sent: the work was stopped (the plugin unloaded, its store reloaded, or paused).
    #[error("Memory Agent stopped this work before asking the model.")]
    Stopped,
}

impl LlmError {
    /// Whether the client tries the same request again at once (with backoff): throttling and
    /// transient faults, as the AWS SDKs' standard retry mode classifies them. Quota, model
    /// timeouts and model errors are not retried by the SDKs; here the job retries them later.
    pub fn is_retryable(&self) -> bool {
        matches!(
            self,
            LlmError::Throttled
                | LlmError::ModelNotReady
                | LlmError::Unavailable(_)
                | LlmError::Timeout(_)
                | LlmError::Offline(_)
                | LlmError::Network(_)
                | LlmError::BadResponse(_)
        )
    }

    /// Whether a later attempt of the whole job may succeed (minutes later, not at once).
    /// What a job does about each error is decided in `engine::failure`.
    pub fn is_transient(&self) -> bool {
        self.is_retryable()
            || matches!(self, LlmError::QuotaExceeded(_) | LlmError::ModelTimeout | LlmError::ModelError(_))
    }
}

impl ErrorCode for LlmError {
    fn code(&self) -> &'static str {
        match self {
            LlmError::Config(_) => "llm.config",
            LlmError::EndpointUnconfirmed(_) => "llm.endpoint_unconfirmed",
            LlmError::Auth(_) => "llm.auth",
            LlmError::ClockSkew(_) => "llm.clock_skew",
            LlmError::ExpiredToken => "llm.expired_token",
            LlmError::ApiKeyExpired(_) => "llm.api_key_expired",
            LlmError::UseCaseFormRequired(_) => "llm.use_case_form",
            LlmError::AccessDenied { .. } => "llm.access_denied",
            LlmError::NeedsInferenceProfile { .. } => "llm.needs_inference_profile",
            LlmError::ModelNotFound { .. } => "llm.model_not_found",
            LlmError::InvalidRequest(_) => "llm.invalid_request",
            LlmError::Throttled => "llm.throttled",
            LlmError::QuotaExceeded(_) => "llm.quota_exceeded",
            LlmError::ModelTimeout => "llm.model_timeout",
            LlmError::ModelError(_) => "llm.model_error",
            LlmError::Refused(_) => "llm.refused",
            LlmError::ContextWindowExceeded => "llm.context_window_exceeded",
            LlmError::ModelNotReady => "llm.model_not_ready",
            LlmError::Unavailable(_) => "llm.unavailable",
            LlmError::Timeout(_) => "llm.timeout",
            LlmError::Offline(_) => "llm.offline",
            LlmError::Network(_) => "llm.network",
            LlmError::MaxTokens => "llm.max_tokens",
            LlmError::BadResponse(_) => "llm.bad_response",
            LlmError::Stopped => "llm.stopped",
        }
    }
}

/// Maps a non-2xx Bedrock response to an error.
pub fn classify(response: &HttpResponse, model: &str, region: &str) -> LlmError {
    let body: Option<serde_json::Value> = serde_json::from_str(&response.body).ok();
    let message = body
        .as_ref()
        .and_then(|body| body.get("message").or_else(|| body.get("Message")))
        .and_then(|message| message.as_str())
        .unwrap_or("")
        .chars()
        .take(300)
        .collect::<String>();
    let error_type = response
        .header("x-amzn-errortype")
        .map(str::to_owned)
        .or_else(|| body.as_ref().and_then(|body| body.get("__type")?.as_str().map(str::to_owned)))
        .unwrap_or_default();
    // "ThrottlingException:http://internal…" or "com.amazon…#ThrottlingException".
    let kind = error_type.split(':').next().unwrap_or("").rsplit('#').next().unwrap_or("");
    let lower = message.to_ascii_lowercase();
    match kind {
        "UnrecognizedClientException"
        | "IncompleteSignatureException"
        | "MissingAuthenticationTokenException"
        | "InvalidClientTokenId" => LlmError::Auth(message),
        "InvalidSignatureException"
            if lower.contains("expired") || lower.contains("not yet current") || lower.contains("clock") =>
        {
            LlmError::ClockSkew(message)
        }
        "InvalidSignatureException" => LlmError::Auth(message),
        "ExpiredTokenException" => LlmError::ExpiredToken,
        // A Bedrock API key (a bearer token) that expired or was revoked.
        "UnauthorizedException" | "InvalidBearerTokenException" => LlmError::ApiKeyExpired(message),
        _ if lower.contains("bearer token") && (lower.contains("expired") || lower.contains("invalid")) => {
            LlmError::ApiKeyExpired(message)
        }
        "AccessDeniedException" => LlmError::AccessDenied { model: model.into(), region: region.into(), message },
        "ValidationException" if lower.contains("on-demand") || lower.contains("inference profile") => {
            LlmError::NeedsInferenceProfile {
                model: model.into(),
                bare: bare_model(model),
                region: region.into(),
                message,
            }
        }
        "ResourceNotFoundException" if lower.contains("use case details") => LlmError::UseCaseFormRequired(message),
        "ResourceNotFoundException" => LlmError::ModelNotFound { model: model.into(), region: region.into(), message },
        "ValidationException" if lower.contains("model identifier is invalid") => {
            LlmError::ModelNotFound { model: model.into(), region: region.into(), message }
        }
        // The throttling codes of the SDKs' standard retry mode that Bedrock sends.
        "ThrottlingException" | "TooManyRequestsException" | "ThrottledException" | "RequestLimitExceeded" => {
            LlmError::Throttled
        }
        "ServiceQuotaExceededException" => LlmError::QuotaExceeded(message),
        "ModelNotReadyException" => LlmError::ModelNotReady,
        "ModelTimeoutException" => LlmError::ModelTimeout,
        "ModelErrorException" => LlmError::ModelError(message),
        "ValidationException" if lower.contains("too long") || lower.contains("context window") => {
            LlmError::ContextWindowExceeded
        }
        "ServiceUnavailableException" | "InternalServerException" => LlmError::Unavailable(response.status),
        _ => match response.status {
            401 | 403 => LlmError::Auth(message),
            404 => LlmError::ModelNotFound { model: model.into(), region: region.into(), message },
            408 => LlmError::ModelTimeout,
            424 => LlmError::ModelError(message),
            429 => LlmError::Throttled,
            500..=599 => LlmError::Unavailable(response.status),
            status => LlmError::InvalidRequest(format!("HTTP {status} {kind} {message}").trim().to_owned()),
        },
    }
}

/// `anthropic.claude-…` from `us.anthropic.claude-…` or a bare id, for the profile hint.
fn bare_model(model: &str) -> String {
    ["us.", "eu.", "apac.", "global.", "us-gov.", "jp.", "au."]
        .iter()
        .find_map(|prefix| model.strip_prefix(prefix))
        .unwrap_or(model)
        .to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn response(status: u16, error_type: &str, message: &str) -> HttpResponse {
        HttpResponse {
            status,
            headers: vec![
                (
                    "X-Amzn-ErrorType".into(),
                    format!("{error_type}:http://internal.amazon.com/coral/com.amazon.bedrock/"),
                ),
                ("x-amzn-RequestId".into(), "abc".into()),
            ],
            body: serde_json::json!({ "message": message }).to_string(),
        }
    }

    const MODEL: &str = "anthropic.claude-haiku-4-5-20251001-v1:0";

    #[test]
    fn each_aws_error_maps_to_an_actionable_kind() {
        let cases: Vec<(HttpResponse, &str, &str)> = vec![
            (response(403, "UnrecognizedClientException", "The security token included in the request is invalid."), "llm.auth", "check the access key id"),
            (response(403, "InvalidSignatureException", "The request signature we calculated does not match"), "llm.auth", "secret access key"),
            (response(403, "InvalidSignatureException", "Signature expired: 20260101T000000Z is now earlier than 20260101T000500Z"), "llm.clock_skew", "clock"),
            (response(403, "ExpiredTokenException", "The security token included in the request is expired"), "llm.expired_token", "session token has expired"),
            (response(403, "AccessDeniedException", "You don't have access to the model with the specified model ID."), "llm.access_denied", "enable model access in the Bedrock console for eu-west-1"),
            (response(400, "ValidationException", "Invocation of model ID anthropic.claude-haiku-4-5-20251001-v1:0 with on-demand throughput isn't supported."), "llm.needs_inference_profile", "inference profile id such as us.anthropic.claude-haiku-4-5-20251001-v1:0"),
            (response(400, "ValidationException", "The provided model identifier is invalid."), "llm.model_not_found", "check the model id"),
            (response(429, "ThrottlingException", "Too many requests"), "llm.throttled", "throttling"),
            (response(429, "ModelNotReadyException", "not ready"), "llm.model_not_ready", "not ready"),
            (response(503, "ServiceUnavailableException", "down"), "llm.unavailable", "unavailable"),
            (response(500, "InternalServerException", "oops"), "llm.unavailable", "HTTP 500"),
            (HttpResponse { status: 502, headers: vec![], body: "<html>Bad gateway</html>".into() }, "llm.unavailable", "HTTP 502"),
            (response(400, "ValidationException", "messages: must not be empty"), "llm.invalid_request", "must not be empty"),
            // The messages AWS sends, as reported by users and the SDKs' issue trackers.
            (response(403, "InvalidSignatureException", "Signature not yet current: 20261201T121000Z is still later than 20261201T120500Z (20261201T120000Z + 5 min.)"), "llm.clock_skew", "clock"),
            (response(404, "ResourceNotFoundException", "Model use case details have not been submitted for this account. Fill out the Anthropic use case details form before using the model."), "llm.use_case_form", "submit the form"),
            (response(400, "ServiceQuotaExceededException", "Your request exceeds the service quota for your account. You can view your quotas at https://docs.aws.amazon.com/servicequotas/latest/userguide/gs-request-quota.html."), "llm.quota_exceeded", "higher quota"),
            (response(408, "ModelTimeoutException", "The request took too long to process. Processing time exceeded the model timeout length."), "llm.model_timeout", "took too long"),
            (response(424, "ModelErrorException", "The request failed due to an error while processing the model."), "llm.model_error", "failed while processing"),
            (response(400, "ValidationException", "Input is too long for requested model."), "llm.context_window_exceeded", "cut off"),
            (response(403, "UnauthorizedException", "Bearer Token has expired"), "llm.api_key_expired", "12 hours"),
            (response(403, "AccessDeniedException", "Bearer Token has expired"), "llm.api_key_expired", "API key"),
        ];
        for (response, code, words) in cases {
            let error = classify(&response, MODEL, "eu-west-1");
            assert_eq!(error.code(), code, "{response:?}");
            assert!(error.to_string().contains(words), "{code}: {error}");
        }
    }

    #[test]
    fn only_transient_errors_are_retried() {
        assert!(LlmError::Throttled.is_retryable());
        assert!(LlmError::Unavailable(503).is_retryable());
        assert!(LlmError::Timeout(60).is_retryable());
        assert!(LlmError::Network("reset".into()).is_retryable());
        assert!(!LlmError::Auth(String::new()).is_retryable());
        assert!(!LlmError::ExpiredToken.is_retryable());
        assert!(!LlmError::MaxTokens.is_retryable());
        assert!(!LlmError::InvalidRequest(String::new()).is_retryable());
    }
}
