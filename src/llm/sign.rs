//! Authenticating a request: SigV4 with the `aws-sigv4` crate, or a Bedrock API key.
//!
//! The signing time is the host's `now`, never `SystemTime::now()` (which panics in
//! WebAssembly). The URL path arrives already percent-encoded (`%3A` for the `:` of model
//! ids); `aws-sigv4`'s default settings encode it once more for the canonical URI, as AWS
//! expects for every service but S3.

use std::time::{Duration, UNIX_EPOCH};

use aws_credential_types::Credentials;
use aws_sigv4::http_request::{sign, SignableBody, SignableRequest, SigningSettings};
use aws_sigv4::sign::v4;

use super::config::BedrockAuth;
use super::error::LlmError;
use super::http::HttpRequest;
use crate::domain::Millis;

/// Adds the authentication headers to `request`.
pub fn authenticate(
    request: &mut HttpRequest,
    auth: &BedrockAuth,
    region: &str,
    service: &str,
    now: Millis,
) -> Result<(), LlmError> {
    match auth {
        BedrockAuth::ApiKey(key) => {
            request.headers.push(("authorization".into(), format!("Bearer {key}")));
            Ok(())
        }
        BedrockAuth::AccessKey { access_key_id, secret_access_key, session_token } => {
            let credentials = Credentials::new(
                access_key_id,
                secret_access_key,
                session_token.clone().filter(|token| !token.is_empty()),
                None,
                "memory-agent-settings",
            );
            sign_v4(request, credentials, region, service, now)
        }
    }
}

fn sign_v4(
    request: &mut HttpRequest,
    credentials: Credentials,
    region: &str,
    service: &str,
    now: Millis,
) -> Result<(), LlmError> {
    // Only the signing step can fail, and only on malformed input: say so without the keys.
    let failed = |what: &str| LlmError::Config(format!("Could not sign the request: {what}."));
    let identity = credentials.into();
    let time = UNIX_EPOCH + Duration::from_millis(u64::try_from(now).map_err(|_| failed("the clock is before 1970"))?);
    let params = v4::SigningParams::builder()
        .identity(&identity)
        .region(region)
        .name(service)
        .time(time)
        .settings(SigningSettings::default())
        .build()
        .map_err(|_| failed("incomplete signing parameters"))?
        .into();
    let signable = SignableRequest::new(
        &request.method,
        &request.url,
        request.headers.iter().map(|(name, value)| (name.as_str(), value.as_str())),
        SignableBody::Bytes(request.body.as_bytes()),
    )
    .map_err(|_| failed("the URL or a header is not valid"))?;
    let (instructions, _signature) =
        sign(signable, &params).map_err(|_| failed("the URL or a header is not valid"))?.into_parts();
    for (name, value) in instructions.headers() {
        request.headers.push((name.to_owned(), value.to_owned()));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// 2015-08-30T12:36:00Z, the date of AWS's published SigV4 test suite.
    const SUITE_TIME: Millis = 1_440_938_160_000;

    fn suite_keys() -> BedrockAuth {
        BedrockAuth::AccessKey {
            access_key_id: "AKIDEXAMPLE".into(),
            secret_access_key: "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY".into(),
            session_token: None,
        }
    }

    fn signed(
        method: &str,
        url: &str,
        headers: &[(&str, &str)],
        auth: &BedrockAuth,
        service: &str,
        now: Millis,
    ) -> HttpRequest {
        let mut request = HttpRequest {
            method: method.into(),
            url: url.into(),
            headers: headers.iter().map(|(name, value)| ((*name).into(), (*value).into())).collect(),
            body: String::new(),
        };
        authenticate(&mut request, auth, "us-east-1", service, now).unwrap();
        request
    }

    fn header<'a>(request: &'a HttpRequest, name: &str) -> Option<&'a str> {
        request.headers.iter().find(|(key, _)| key.eq_ignore_ascii_case(name)).map(|(_, value)| value.as_str())
    }

    /// Vectors from AWS's SigV4 test suite (aws-sig-v4-test-suite).
    #[test]
    fn published_sigv4_test_vectors() {
        let scope = "AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20150830/us-east-1/service/aws4_request, SignedHeaders=host;x-amz-date, Signature=";
        let cases = [
            (
                "get-vanilla",
                "GET",
                "https://example.amazonaws.com/",
                "5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31",
            ),
            (
                "post-vanilla",
                "POST",
                "https://example.amazonaws.com/",
                "5da7c1a2acd57cee7505fc6676e4e544621c30862966e37dddb68e92efbe5d6b",
            ),
            (
                "get-vanilla-query-order-key-case",
                "GET",
                "https://example.amazonaws.com/?Param2=value2&Param1=value1",
                "b97d918cfa904a5beff61c982a1b6f458b799221646efd99d3219ec94cdf2500",
            ),
            (
                "get-unreserved",
                "GET",
                "https://example.amazonaws.com/-._~0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz",
                "07ef7494c76fa4850883e2b006601f940f8a34d404d0cfa977f52a65bbf5f24f",
            ),
        ];
        for (name, method, url, signature) in cases {
            let request = signed(method, url, &[], &suite_keys(), "service", SUITE_TIME);
            assert_eq!(header(&request, "x-amz-date"), Some("20150830T123600Z"), "{name}");
            assert_eq!(header(&request, "authorization"), Some(format!("{scope}{signature}").as_str()), "{name}");
        }
    }

    #[test]
    fn session_tokens_are_sent_and_signed() {
        let auth = BedrockAuth::AccessKey {
            access_key_id: "ASIAEXAMPLE".into(),
            secret_access_key: "secret".into(),
            session_token: Some("token/with+chars=".into()),
        };
        let request = signed(
            "POST",
            "https://bedrock-runtime.us-east-1.amazonaws.com/model/m%3A0/converse",
            &[],
            &auth,
            "bedrock",
            SUITE_TIME,
        );
        assert_eq!(header(&request, "x-amz-security-token"), Some("token/with+chars="));
        assert!(header(&request, "authorization")
            .unwrap()
            .contains("SignedHeaders=host;x-amz-date;x-amz-security-token"));
    }

    #[test]
    fn api_keys_are_bearer_tokens() {
        let request = signed(
            "POST",
            "https://bedrock-runtime.us-east-1.amazonaws.com/x",
            &[],
            &BedrockAuth::ApiKey("ABSKkey".into()),
            "bedrock",
            0,
        );
        assert_eq!(header(&request, "authorization"), Some("Bearer ABSKkey"));
        assert_eq!(header(&request, "x-amz-date"), None);
    }
}
