//! The Bedrock client against scripted replies on virtual time: signing, parsing, every
//! retry path, the timeout and the concurrency limit.

mod support;

use std::rc::Rc;

use memory_agent::error::ErrorCode;
use memory_agent::llm::{
    default_model_for, previous_default_model_for, BedrockAuth, BedrockClient, BedrockConfig, Clock, ConverseRequest,
    LlmError, Message, RetryPolicy, ToolSpec, TransportError,
};
use serde_json::json;
use support::scripted_transport::{Scripted, ScriptedTransport};
use support::virtual_time::{run, run_all, VirtualClock};

/// 2026-11-30T08:00:00Z
const NOW: i64 = 1_796_025_600_000;

fn config() -> BedrockConfig {
    let mut config = BedrockConfig::new(
        "us-east-1",
        BedrockAuth::AccessKey {
            access_key_id: "AKIDMEMORYAGENTTEST".into(),
            secret_access_key: "test-secret".into(),
            session_token: None,
        },
    );
    // A model id with a colon, to check its percent-encoding in the path.
    config.model_id = "us.anthropic.claude-haiku-4-5-20251001-v1:0".into();
    config.timeout_ms = 30_000;
    config.retry = RetryPolicy { max_attempts: 4, base_delay_ms: 1_000, max_delay_ms: 8_000 };
    config
}

/// The connection with an empty Model ID, as the plugin and the command build it.
fn default_model_config() -> BedrockConfig {
    let mut config = config();
    config.model_id = default_model_for("us-east-1");
    config.fallback_model_id = Some(previous_default_model_for("us-east-1"));
    config
}

const DENIED: &str = "You don't have access to the model with the specified model ID.";

fn model_in(url: &str) -> &str {
    url.split("/model/").nth(1).and_then(|rest| rest.split('/').next()).unwrap_or("")
}

#[test]
fn a_denied_default_model_falls_back_once_to_the_previous_haiku_and_stays_there() {
    let (clock, transport, client) = setup(default_model_config());
    assert_eq!(client.model_id(), "us.anthropic.claude-haiku-5-5");
    transport
        .push(Scripted::aws_error(403, "AccessDeniedException", DENIED))
        .push(Scripted::text("Hi."))
        .push(Scripted::text("Again."));
    let reply = call(&clock, &transport, &client, question()).unwrap();
    assert_eq!(reply.text, "Hi.");
    assert_eq!(call(&clock, &transport, &client, question()).unwrap().text, "Again.");
    let models: Vec<String> = transport.requests().iter().map(|request| model_in(&request.url).to_owned()).collect();
    assert_eq!(
        models,
        [
            "us.anthropic.claude-haiku-5-5",
            "us.anthropic.claude-haiku-4-5-20251001-v1%3A0",
            "us.anthropic.claude-haiku-4-5-20251001-v1%3A0"
        ],
        "the default is asked once, then the previous Haiku only"
    );
    assert_eq!(client.model_id(), "us.anthropic.claude-haiku-4-5-20251001-v1:0");
    let fallback = client.fallback().unwrap();
    assert_eq!(fallback.from, "us.anthropic.claude-haiku-5-5");
    assert_eq!(fallback.reason, DENIED);
    let message = fallback.message("us-east-1");
    assert!(message.contains("uses us.anthropic.claude-haiku-4-5-20251001-v1:0"), "{message}");
    assert!(message.contains("no access to the default model us.anthropic.claude-haiku-5-5 in us-east-1"), "{message}");

    // A client rebuilt for the same connection keeps the choice; another connection tries again.
    let same = BedrockClient::new(default_model_config(), 9).unwrap();
    same.keep_fallback_of(&client);
    assert_eq!(same.fallback(), Some(fallback));
    let mut elsewhere = default_model_config();
    elsewhere.region = "eu-west-1".into();
    let other = BedrockClient::new(elsewhere, 9).unwrap();
    other.keep_fallback_of(&client);
    assert_eq!(other.fallback(), None);
}

#[test]
fn a_typed_model_that_is_denied_stays_a_clear_error() {
    let mut typed = config();
    typed.model_id = "us.anthropic.claude-haiku-5-5".into();
    let (clock, transport, client) = setup(typed);
    transport.push(Scripted::aws_error(403, "AccessDeniedException", DENIED));
    let error = call(&clock, &transport, &client, question()).unwrap_err();
    assert_eq!(error.code(), "llm.access_denied");
    assert!(error.to_string().contains("No access to us.anthropic.claude-haiku-5-5 in us-east-1"), "{error}");
    assert_eq!(transport.requests().len(), 1);
    assert_eq!(client.fallback(), None);
    assert_eq!(client.model_id(), "us.anthropic.claude-haiku-5-5");
}

#[test]
fn a_denied_fallback_is_the_fallbacks_error_and_other_errors_do_not_switch() {
    let (clock, transport, client) = setup(default_model_config());
    transport.push(Scripted::aws_error(403, "AccessDeniedException", DENIED)).push(Scripted::aws_error(
        403,
        "AccessDeniedException",
        DENIED,
    ));
    let error = call(&clock, &transport, &client, question()).unwrap_err();
    assert!(error.to_string().contains("No access to us.anthropic.claude-haiku-4-5-20251001-v1:0"), "{error}");
    assert_eq!(transport.requests().len(), 2, "one switch, never a loop");

    let (clock, transport, client) = setup(default_model_config());
    transport.push(Scripted::aws_error(400, "ValidationException", "The provided model identifier is invalid."));
    assert_eq!(call(&clock, &transport, &client, question()).unwrap_err().code(), "llm.model_not_found");
    assert_eq!(client.fallback(), None);
}

fn question() -> ConverseRequest {
    ConverseRequest {
        system: vec![],
        messages: vec![Message::user("Hello?")],
        max_tokens: 100,
        temperature: None,
        forced_tool: None,
        offered_tools: vec![],
        thinking: memory_agent::llm::ThinkingEffort::Off,
    }
}

fn setup(config: BedrockConfig) -> (VirtualClock, ScriptedTransport, Rc<BedrockClient>) {
    let clock = VirtualClock::starting_at(NOW);
    let transport = ScriptedTransport::new(&clock);
    (clock, transport, Rc::new(BedrockClient::new(config, 9).unwrap()))
}

fn call(
    clock: &VirtualClock,
    transport: &ScriptedTransport,
    client: &Rc<BedrockClient>,
    request: ConverseRequest,
) -> Result<memory_agent::llm::ConverseReply, LlmError> {
    let (c, t, k) = (clock.clone(), transport.clone(), client.clone());
    run(clock, async move { k.converse(&t, &c, &request).await })
}

#[test]
fn a_signed_request_reaches_the_percent_encoded_model_url() {
    let (clock, transport, client) = setup(config());
    transport.push(Scripted::text("Hi."));
    let reply = call(&clock, &transport, &client, question()).unwrap();
    assert_eq!(reply.text, "Hi.");
    assert_eq!(reply.usage.input_tokens, 100);
    let sent = &transport.requests()[0];
    assert_eq!(
        sent.url,
        "https://bedrock-runtime.us-east-1.amazonaws.com/model/us.anthropic.claude-haiku-4-5-20251001-v1%3A0/converse"
    );
    let header = |name: &str| sent.headers.iter().find(|(key, _)| key == name).map(|(_, value)| value.clone());
    assert_eq!(header("x-amz-date").as_deref(), Some("20261130T080000Z"));
    let authorization = header("authorization").unwrap();
    assert!(
        authorization
            .starts_with("AWS4-HMAC-SHA256 Credential=AKIDMEMORYAGENTTEST/20261130/us-east-1/bedrock/aws4_request"),
        "{authorization}"
    );
    assert!(!authorization.contains("test-secret"));
    assert_eq!(header("content-type").as_deref(), Some("application/json"));
}

#[test]
fn a_forced_tool_answer_comes_back_as_json() {
    let (clock, transport, client) = setup(config());
    transport.push(Scripted::tool("record_memory", json!({ "summary": "Lunch with Alice." })));
    let mut request = question();
    request.forced_tool = Some(ToolSpec {
        name: "record_memory".into(),
        description: "Record.".into(),
        input_schema: json!({ "type": "object" }),
    });
    let reply = call(&clock, &transport, &client, request).unwrap();
    assert_eq!(reply.tool_input, Some(json!({ "summary": "Lunch with Alice." })));
    assert_eq!(reply.usage.cache_read_tokens, 150);
    let body: serde_json::Value = serde_json::from_str(&transport.requests()[0].body).unwrap();
    assert_eq!(body["toolConfig"]["toolChoice"], json!({ "tool": { "name": "record_memory" } }));
}

#[test]
fn transient_failures_are_retried_until_the_fault_clears() {
    let faults = [
        Scripted::throttled(),
        Scripted::aws_error(500, "InternalServerException", "oops"),
        Scripted::aws_error(503, "ServiceUnavailableException", "down"),
        Scripted::aws_error(429, "ModelNotReadyException", "warming up"),
        Scripted::Fail(TransportError::Network("connection reset".into())),
        Scripted::Fail(TransportError::Offline("getaddrinfo ENOTFOUND".into())),
        Scripted::ok(json!("not a converse answer")),
        Scripted::Reply { status: 200, headers: vec![], body: "<html>proxy</html>".into(), latency_ms: 0 },
        Scripted::Hang,
    ];
    for fault in faults {
        let (clock, transport, client) = setup(config());
        transport.push(fault.clone()).push(fault.clone()).push(Scripted::text("Recovered."));
        let reply = call(&clock, &transport, &client, question());
        assert_eq!(reply.map(|reply| reply.text), Ok("Recovered.".to_owned()), "{fault:?}");
        assert_eq!(transport.requests().len(), 3, "{fault:?}");
        // Two backoffs of at most 1 s and 2 s, plus two 30 s timeouts for a hang.
        let waited = clock.now() - NOW;
        let bound = if matches!(fault, Scripted::Hang) { 63_000 } else { 3_000 };
        assert!(waited <= bound, "{fault:?}: waited {waited} ms");
    }
}

#[test]
fn retries_stop_at_the_bound_with_the_right_error() {
    let cases: Vec<(Scripted, &str)> = vec![
        (Scripted::throttled(), "llm.throttled"),
        (Scripted::aws_error(503, "ServiceUnavailableException", "down"), "llm.unavailable"),
        (Scripted::Fail(TransportError::Network("reset".into())), "llm.network"),
        (Scripted::Hang, "llm.timeout"),
    ];
    for (fault, code) in cases {
        let (clock, transport, client) = setup(config());
        transport.always(fault);
        let error = call(&clock, &transport, &client, question()).unwrap_err();
        assert_eq!(error.code(), code);
        assert_eq!(transport.requests().len(), 4, "{code}: max_attempts is 4");
    }
}

#[test]
fn errors_that_cannot_succeed_are_not_retried() {
    let cases = vec![
        (Scripted::aws_error(403, "AccessDeniedException", "no access"), "llm.access_denied"),
        (Scripted::aws_error(403, "UnrecognizedClientException", "invalid token"), "llm.auth"),
        (Scripted::aws_error(403, "ExpiredTokenException", "expired"), "llm.expired_token"),
        (
            Scripted::aws_error(400, "ValidationException", "with on-demand throughput isn't supported"),
            "llm.needs_inference_profile",
        ),
    ];
    // A text answer cut at max_tokens is not an error (`StopReason::MaxTokens`, the QueryAgent
    // says so); a forced tool's cut input is, as `llm::converse`'s own tests show.
    for (reply, code) in cases {
        let (clock, transport, client) = setup(config());
        transport.always(reply);
        let error = call(&clock, &transport, &client, question()).unwrap_err();
        assert_eq!(error.code(), code);
        assert_eq!(transport.requests().len(), 1, "{code} was retried");
        assert_eq!(clock.now(), NOW, "{code}: no backoff for a final error");
    }
}

#[test]
fn no_more_calls_in_flight_than_the_limit_and_throttling_lowers_it() {
    let mut settings = config();
    settings.max_concurrency = 4;
    settings.retry.max_attempts = 10;
    let (clock, transport, client) = setup(settings);
    transport.always(Scripted::text("ok").slow(2_000));
    let calls = |count: usize| -> Vec<std::pin::Pin<Box<dyn std::future::Future<Output = bool>>>> {
        (0..count)
            .map(|_| {
                let (c, t, k) = (clock.clone(), transport.clone(), client.clone());
                Box::pin(async move { k.converse(&t, &c, &question()).await.is_ok() })
                    as std::pin::Pin<Box<dyn std::future::Future<Output = bool>>>
            })
            .collect()
    };
    assert!(run_all(&clock, calls(20)).into_iter().all(|ok| ok));
    assert_eq!(transport.max_in_flight(), 4, "20 slow calls with a limit of 4");
    assert_eq!(client.limiter().in_flight(), 0);

    // A burst of throttling halves the working limit; later calls respect the lower limit.
    let (clock, transport, client) = {
        let mut settings = config();
        settings.max_concurrency = 8;
        settings.retry.max_attempts = 10;
        setup(settings)
    };
    for _ in 0..3 {
        transport.push(Scripted::throttled());
    }
    transport.always(Scripted::text("ok").slow(2_000));
    let first: Vec<_> = (0..3)
        .map(|_| {
            let (c, t, k) = (clock.clone(), transport.clone(), client.clone());
            Box::pin(async move { k.converse(&t, &c, &question()).await.is_ok() })
                as std::pin::Pin<Box<dyn std::future::Future<Output = bool>>>
        })
        .collect();
    assert!(run_all(&clock, first).into_iter().all(|ok| ok));
    let lowered = client.limiter().current_limit();
    assert!(lowered < 8, "three throttles left the limit at {lowered}");
}

#[test]
fn bad_settings_are_refused_before_anything_is_sent() {
    let mut settings = config();
    settings.region = "mars-1".into();
    let error = BedrockClient::new(settings, 1).unwrap_err();
    assert_eq!(error.code(), "llm.config");
}

/// An AWS error reply with a `Date` header (and any extra headers).
fn error_at(status: u16, error_type: &str, message: &str, date: &str, extra: &[(&str, &str)]) -> Scripted {
    let mut headers = vec![
        ("x-amzn-ErrorType".to_owned(), format!("{error_type}:http://internal.amazon.com/coral/")),
        ("Date".to_owned(), date.to_owned()),
    ];
    headers.extend(extra.iter().map(|(name, value)| ((*name).to_owned(), (*value).to_owned())));
    Scripted::Reply { status, headers, body: json!({ "message": message }).to_string(), latency_ms: 0 }
}

fn amz_date(request: &memory_agent::llm::HttpRequest) -> String {
    request
        .headers
        .iter()
        .find(|(name, _)| name.eq_ignore_ascii_case("x-amz-date"))
        .map(|(_, value)| value.clone())
        .unwrap()
}

#[test]
fn a_clock_ten_minutes_fast_or_slow_is_corrected_from_the_date_header_with_one_extra_call() {
    // AWS's time is NOW (2026-11-30T08:00:00Z); the device is ten minutes fast, then slow.
    for (device, message) in [
        (NOW + 600_000, "Signature not yet current: 20261130T081000Z is still later than 20261130T080500Z (20261130T080000Z + 5 min.)"),
        (NOW - 600_000, "Signature expired: 20261130T075000Z is now earlier than 20261130T075500Z (20261130T080000Z - 5 min.)"),
    ] {
        let clock = VirtualClock::starting_at(device);
        let transport = ScriptedTransport::new(&clock);
        let client = Rc::new(BedrockClient::new(config(), 9).unwrap());
        transport.push(error_at(403, "InvalidSignatureException", message, "Mon, 30 Nov 2026 08:00:00 GMT", &[]));
        transport.push(Scripted::text("Hi."));
        let reply = call(&clock, &transport, &client, question()).unwrap();
        assert_eq!(reply.text, "Hi.");
        let sent = transport.requests();
        assert_eq!(sent.len(), 2, "one extra call");
        assert_eq!(amz_date(&sent[1]), "20261130T080000Z", "the second is signed with AWS's time");
        assert_eq!(client.clock_offset_ms(), NOW - device);
    }
}

#[test]
fn a_clock_error_that_persists_after_the_correction_is_reported_not_retried_forever() {
    let (clock, transport, client) = setup(config());
    let skewed =
        || error_at(403, "InvalidSignatureException", "Signature expired: …", "Mon, 30 Nov 2026 09:00:00 GMT", &[]);
    transport.push(skewed()).push(skewed()).push(skewed());
    let error = call(&clock, &transport, &client, question()).unwrap_err();
    assert_eq!(error.code(), "llm.clock_skew");
    assert_eq!(transport.requests().len(), 2, "one correction, then the user is told");
}

#[test]
fn retry_hints_are_waited_for() {
    let (clock, transport, client) = setup(config());
    let date = "Mon, 30 Nov 2026 08:00:00 GMT";
    transport.push(error_at(
        429,
        "ThrottlingException",
        "Too many tokens, please wait before trying again.",
        date,
        &[("x-amz-retry-after", "7000")],
    ));
    transport.push(error_at(429, "ThrottlingException", "Too many tokens", date, &[("Retry-After", "12")]));
    transport.push(Scripted::text("Hi."));
    call(&clock, &transport, &client, question()).unwrap();
    assert!(clock.now() - NOW >= 19_000, "waited 7 s, then 12 s: {} ms", clock.now() - NOW);
}

#[test]
fn the_retry_quota_stops_an_outage_from_multiplying_calls() {
    let mut settings = config();
    settings.retry = RetryPolicy { max_attempts: 5, base_delay_ms: 10, max_delay_ms: 20 };
    let (clock, transport, client) = setup(settings);
    transport.always(Scripted::aws_error(503, "ServiceUnavailableException", "down"));
    for _ in 0..40 {
        let _ = call(&clock, &transport, &client, question());
    }
    // 40 calls of 5 tries would be 200 requests; the 500-token bucket allows 100 retries.
    assert_eq!(transport.requests().len(), 40 + 100);
}

#[test]
fn quota_model_timeout_and_model_errors_are_not_retried_by_the_client() {
    for (reply, code) in [
        (
            Scripted::aws_error(
                400,
                "ServiceQuotaExceededException",
                "Your request exceeds the service quota for your account.",
            ),
            "llm.quota_exceeded",
        ),
        (
            Scripted::aws_error(408, "ModelTimeoutException", "The request took too long to process."),
            "llm.model_timeout",
        ),
        (
            Scripted::aws_error(
                424,
                "ModelErrorException",
                "The request failed due to an error while processing the model.",
            ),
            "llm.model_error",
        ),
    ] {
        let (clock, transport, client) = setup(config());
        transport.always(reply);
        let error = call(&clock, &transport, &client, question()).unwrap_err();
        assert_eq!(error.code(), code);
        assert_eq!(transport.requests().len(), 1, "{code}: once; the job tries again later");
        assert!(error.is_transient(), "{code} is worth a later try");
    }
}

#[test]
fn the_model_list_comes_from_the_control_plane_signed_for_bedrock() {
    let mut settings = config();
    settings.region = "eu-west-1".into();
    let (clock, transport, client) = setup(settings);
    transport.push(Scripted::ok(json!({
        "inferenceProfileSummaries": [
            { "inferenceProfileName": "EU Anthropic Claude Haiku 4.5", "inferenceProfileId": "eu.anthropic.claude-haiku-4-5-20251001-v1:0", "status": "ACTIVE", "type": "SYSTEM_DEFINED" },
            { "inferenceProfileName": "Old", "inferenceProfileId": "eu.old-v1:0", "status": "INACTIVE", "type": "SYSTEM_DEFINED" }
        ]
    })));
    transport.push(Scripted::ok(json!({
        "modelSummaries": [{ "modelId": "amazon.nova-lite-v1:0", "modelName": "Nova Lite", "providerName": "Amazon", "modelLifecycle": { "status": "ACTIVE" } }]
    })));
    let (c, t, k) = (clock.clone(), transport.clone(), client.clone());
    let models = run(&clock, async move { k.list_models(&t, &c).await }).unwrap();
    let ids: Vec<&str> = models.iter().map(|model| model.id.as_str()).collect();
    assert_eq!(
        ids,
        ["eu.anthropic.claude-haiku-4-5-20251001-v1:0", "amazon.nova-lite-v1:0"],
        "inactive profiles are left out"
    );
    let sent = transport.requests();
    assert_eq!(sent[0].method, "GET");
    assert_eq!(
        sent[0].url,
        "https://bedrock.eu-west-1.amazonaws.com/inference-profiles?maxResults=1000&type=SYSTEM_DEFINED"
    );
    assert_eq!(
        sent[1].url,
        "https://bedrock.eu-west-1.amazonaws.com/foundation-models?byOutputModality=TEXT&byInferenceType=ON_DEMAND"
    );
    let authorization =
        sent[0].headers.iter().find(|(name, _)| name == "authorization").map(|(_, value)| value.clone()).unwrap();
    assert!(authorization.contains("/eu-west-1/bedrock/aws4_request"), "{authorization}");
}
