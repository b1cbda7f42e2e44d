//! Connection settings: region, model, credentials, endpoint, limits.

use std::fmt;

use super::error::LlmError;
use super::retry::RetryPolicy;

/// The region used when none is chosen (the plugin's setting, the command's last resort).
pub const DEFAULT_REGION: &str = "us-east-1";

/// Claude Haiku 5.5 through the US cross-region inference profile (the default region's:
/// `default_model_for(DEFAULT_REGION)`, checked by a test).
pub const DEFAULT_MODEL_ID: &str = "us.anthropic.claude-haiku-5-5";

/// The current Haiku (2026-10-07): it has no in-Region endpoint, only the `us.`, `eu.`, `jp.`,
/// `au.` and `global.` profiles (AWS's model card for Claude Haiku 5.5; /work/notes/models-research.md §1).
const HAIKU_5_5: &str = "anthropic.claude-haiku-5-5";
/// The previous Haiku, which an account without access to Haiku 5.5 falls back to.
const HAIKU_4_5: &str = "anthropic.claude-haiku-4-5-20251001-v1:0";

/// The current Haiku (5.5) through the profile a region may call: an empty Model ID means
/// this. Haiku 5.5 has the same geographies as Haiku 4.5 and a global profile, so no region
/// that offers Bedrock is left without it.
pub fn default_model_for(region: &str) -> String {
    format!("{}.{HAIKU_5_5}", profile_geography(region))
}

/// The previous Haiku (4.5) through the profile a region may call: what the default falls
/// back to, once, when the account has no access to the current one.
pub fn previous_default_model_for(region: &str) -> String {
    format!("{}.{HAIKU_4_5}", profile_geography(region))
}

/// The inference profile prefix a region may call. A geographic profile only works from its
/// own geography: `us.` from the US regions, `eu.` from the EU ones, `jp.` from Tokyo and
/// Osaka, `au.` from Sydney and Melbourne (AWS's "Supported cross-Region inference profiles",
/// checked 2026-12), and `global.` from everywhere else that offers Bedrock.
fn profile_geography(region: &str) -> &'static str {
    let region = region.trim();
    match region {
        "us-east-1" | "us-east-2" | "us-west-1" | "us-west-2" => "us",
        "ap-northeast-1" | "ap-northeast-3" => "jp",
        "ap-southeast-2" | "ap-southeast-4" => "au",
        _ if region.starts_with("eu-") => "eu",
        _ => "global",
    }
}

/// Regions where Bedrock Runtime is offered (the settings list). GovCloud is left out: it
/// needs GovCloud credentials and offers neither Claude Haiku 4.5 nor these profiles.
pub const BEDROCK_REGIONS: &[&str] = &[
    "us-east-1",
    "us-east-2",
    "us-west-1",
    "us-west-2",
    "ca-central-1",
    "ca-west-1",
    "sa-east-1",
    "mx-central-1",
    "eu-central-1",
    "eu-central-2",
    "eu-west-1",
    "eu-west-2",
    "eu-west-3",
    "eu-north-1",
    "eu-south-1",
    "eu-south-2",
    "il-central-1",
    "me-central-1",
    "me-south-1",
    "af-south-1",
    "ap-south-1",
    "ap-south-2",
    "ap-northeast-1",
    "ap-northeast-2",
    "ap-northeast-3",
    "ap-southeast-1",
    "ap-southeast-2",
    "ap-southeast-3",
    "ap-southeast-4",
    "ap-southeast-5",
    "ap-southeast-7",
    "ap-east-2",
];

/// How requests are authenticated.
#[derive(Clone, PartialEq, Eq)]
pub enum BedrockAuth {
    /// An IAM access key, signed with SigV4; a session token for temporary credentials.
    AccessKey { access_key_id: String, secret_access_key: String, session_token: Option<String> },
    /// A Bedrock API key, sent as `Authorization: Bearer …`.
    ApiKey(String),
}

// Secrets never reach a log or an error message, not even through `{:?}`.
impl fmt::Debug for BedrockAuth {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BedrockAuth::AccessKey { session_token, .. } => formatter
                .debug_struct("AccessKey")
                .field("secret", &"<redacted>")
                .field("session_token", &session_token.as_ref().map(|_| "<redacted>"))
                .finish(),
            BedrockAuth::ApiKey(_) => formatter.write_str("ApiKey(<redacted>)"),
        }
    }
}

/// Everything the client needs to reach a model.
#[derive(Debug, Clone, PartialEq)]
pub struct BedrockConfig {
    pub region: String,
    pub model_id: String,
    /// The model to use instead when Bedrock denies access to `model_id`: set only when
    /// `model_id` is the default (no Model ID typed), never for a model the user chose.
    pub fallback_model_id: Option<String>,
    pub auth: BedrockAuth,
    /// Replaces `https://bedrock-runtime.<region>.amazonaws.com` (VPC endpoints, tests).
    pub endpoint: Option<String>,
    /// The one host outside AWS's own names that this device's user confirmed credentials may
    /// go to (kept on the device, never in the synced settings); see `endpoint_trust`.
    pub trusted_endpoint_host: Option<String>,
    /// One attempt gives up after this long.
    pub timeout_ms: u64,
    pub retry: RetryPolicy,
    /// The most calls in flight at once; throttling lowers the working limit below it.
    pub max_concurrency: u32,
}

impl BedrockConfig {
    /// A configuration with the defaults for everything but region and credentials.
    pub fn new(region: &str, auth: BedrockAuth) -> Self {
        BedrockConfig {
            region: region.to_owned(),
            model_id: DEFAULT_MODEL_ID.to_owned(),
            fallback_model_id: None,
            auth,
            endpoint: None,
            trusted_endpoint_host: None,
            timeout_ms: 60_000,
            retry: RetryPolicy::default(),
            max_concurrency: 4,
        }
    }

    /// Checks the settings a person typed, with a sentence for each mistake.
    pub fn validate(&self) -> Result<(), LlmError> {
        let problem = |message: String| Err(LlmError::Config(message));
        if !is_region(&self.region) {
            return problem(format!("\"{}\" is not an AWS region; choose one such as us-east-1.", self.region));
        }
        if self.model_id.trim().is_empty() || self.model_id.chars().any(char::is_whitespace) {
            return problem(format!("\"{}\" is not a model id; the default is {DEFAULT_MODEL_ID}.", self.model_id));
        }
        match &self.auth {
            BedrockAuth::AccessKey { access_key_id, secret_access_key, session_token } => {
                if !is_access_key_id(access_key_id) {
                    return problem("The access key id is missing or malformed (it looks like AKIA… or ASIA…).".into());
                }
                if secret_access_key.trim().is_empty() {
                    return problem("The secret access key is missing.".into());
                }
                if access_key_id.starts_with("ASIA") && session_token.as_deref().is_none_or(str::is_empty) {
                    return problem("Temporary keys (ASIA…) need their session token.".into());
                }
            }
            BedrockAuth::ApiKey(key) => {
                if key.trim().is_empty() || key.chars().any(char::is_whitespace) {
                    return problem("The Bedrock API key is missing or contains spaces.".into());
                }
            }
        }
        if let Some(endpoint) = &self.endpoint {
            let host = parse_endpoint(endpoint).map_err(LlmError::Config)?;
            if endpoint_trust(&host, self.trusted_endpoint_host.as_deref()) == EndpointTrust::Unconfirmed {
                return Err(LlmError::EndpointUnconfirmed(host));
            }
        }
        if self.timeout_ms < 1_000 || self.max_concurrency == 0 || self.retry.max_attempts == 0 {
            return problem("The timeout must be at least 1 second, and concurrency and attempts at least 1.".into());
        }
        Ok(())
    }

    /// `https://bedrock-runtime.<region>.amazonaws.com/model/<percent-encoded id>/converse`.
    pub fn converse_url(&self) -> String {
        self.converse_url_for(&self.model_id)
    }

    /// `converse_url` for another model on the same connection (the default's fallback).
    pub fn converse_url_for(&self, model_id: &str) -> String {
        debug_assert!(self.credentials_may_go_to_endpoint(), "an unconfirmed endpoint got past validate");
        let base = match &self.endpoint {
            Some(endpoint) => endpoint.trim_end_matches('/').to_owned(),
            None => format!("https://bedrock-runtime.{}.amazonaws.com", self.region),
        };
        format!("{base}/model/{}/converse", percent_encode(model_id))
    }

    /// The control plane (`bedrock`, not `bedrock-runtime`), where the account's models are
    /// listed; an endpoint override serves both.
    pub fn control_plane_url(&self, path_and_query: &str) -> String {
        debug_assert!(self.credentials_may_go_to_endpoint(), "an unconfirmed endpoint got past validate");
        let base = match &self.endpoint {
            Some(endpoint) => endpoint.trim_end_matches('/').to_owned(),
            None => format!("https://bedrock.{}.amazonaws.com", self.region),
        };
        format!("{base}{path_and_query}")
    }

    /// The invariant `validate` establishes: no endpoint, AWS's own, or the one confirmed here.
    fn credentials_may_go_to_endpoint(&self) -> bool {
        self.endpoint.as_deref().is_none_or(|endpoint| {
            parse_endpoint(endpoint).is_ok_and(|host| {
                endpoint_trust(&host, self.trusted_endpoint_host.as_deref()) != EndpointTrust::Unconfirmed
            })
        })
    }
}

/// Encodes everything but RFC 3986's unreserved characters: `:` → `%3A`, `/` → `%2F`.
pub fn percent_encode(segment: &str) -> String {
    let mut out = String::with_capacity(segment.len() * 3);
    for byte in segment.bytes() {
        if byte.is_ascii_alphanumeric() || matches!(byte, b'-' | b'_' | b'.' | b'~') {
            out.push(char::from(byte));
        } else {
            out.push_str(&format!("%{byte:02X}"));
        }
    }
    out
}

fn is_region(region: &str) -> bool {
    let parts: Vec<&str> = region.split('-').collect();
    parts.len() >= 3
        && parts
            .iter()
            .all(|part| !part.is_empty() && part.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit()))
        && parts.last().is_some_and(|last| last.chars().all(|c| c.is_ascii_digit()))
}

fn is_access_key_id(id: &str) -> bool {
    (4..=128).contains(&id.len()) && id.chars().all(|c| c.is_ascii_uppercase() || c.is_ascii_digit())
}

/// Hosts a plain-HTTP endpoint may name: this device only (a local stand-in of Bedrock),
/// so keys never travel unencrypted over a network.
const LOOPBACK_HOSTS: &[&str] = &["localhost", "127.0.0.1", "[::1]"];

/// The endpoint's host (lowercased, without port or final dot; `[::1]` keeps its brackets) —
/// the name credentials would be sent to. An endpoint is parsed, not matched by prefix:
/// `https://` to any host, or `http://` to exactly a loopback host (with any port); no user
/// info (`user@host` hides the real host).
pub fn endpoint_host(endpoint: &str) -> Result<String, String> {
    parse_endpoint(endpoint)
}

fn parse_endpoint(endpoint: &str) -> Result<String, String> {
    let refuse = |why: &str| Err(format!("The endpoint \"{endpoint}\" {why}"));
    let (scheme, rest) = match endpoint.split_once("://") {
        Some((scheme, rest)) => (scheme.to_ascii_lowercase(), rest),
        None => return refuse("must start with https://."),
    };
    let authority = rest.split(['/', '?', '#']).next().unwrap_or("");
    if authority.contains('@') {
        return refuse("must not contain a user name or password.");
    }
    let host = if authority.starts_with('[') {
        match authority.find(']') {
            Some(end) => &authority[..=end],
            None => return refuse("is not a valid address."),
        }
    } else {
        authority.split(':').next().unwrap_or("")
    };
    let port = &authority[host.len()..];
    let port_ok = port.is_empty()
        || port.strip_prefix(':').is_some_and(|digits| {
            !digits.is_empty() && digits.len() <= 5 && digits.bytes().all(|byte| byte.is_ascii_digit())
        });
    // A backslash is a path separator to browsers' URL parser but not here: refused, so both
    // always agree on the host.
    if host.is_empty() || !port_ok || endpoint.chars().any(|c| c.is_whitespace() || c == '\\') {
        return refuse("is not a valid address.");
    }
    let host = host.to_ascii_lowercase();
    let host = host.strip_suffix('.').unwrap_or(&host).to_owned();
    match scheme.as_str() {
        "https" => Ok(host),
        "http" if LOOPBACK_HOSTS.contains(&host.as_str()) => Ok(host),
        "http" => refuse("must use https:// (plain http:// is allowed only to localhost, 127.0.0.1 or [::1])."),
        _ => refuse("must start with https://."),
    }
}

/// Whether credentials may go to an endpoint's host.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EndpointTrust {
    /// One of AWS's own Bedrock Runtime names.
    Aws,
    /// Another host, which this device's user confirmed.
    Confirmed,
    /// Another host, not confirmed on this device: nothing is sent there. A synced settings
    /// file is no confirmation — anyone who can write a shared vault could name their own.
    Unconfirmed,
}

/// The rule for every signed request and API key: AWS's own hosts, or the one host this
/// device's user confirmed (`confirmed`, compared as `endpoint_host` gives it).
pub fn endpoint_trust(host: &str, confirmed: Option<&str>) -> EndpointTrust {
    if is_aws_bedrock_runtime_host(host) {
        EndpointTrust::Aws
    } else if confirmed.is_some_and(|confirmed| endpoint_host_form(confirmed) == host) {
        EndpointTrust::Confirmed
    } else {
        EndpointTrust::Unconfirmed
    }
}

/// A confirmed host as the plugin stored it, in `endpoint_host`'s form.
fn endpoint_host_form(host: &str) -> String {
    let host = host.trim().to_ascii_lowercase();
    host.strip_suffix('.').unwrap_or(&host).to_owned()
}

/// The DNS suffixes of the partitions where Bedrock Runtime runs, standard and dual-stack:
/// botocore's `partitions.json` (`aws`: amazonaws.com, api.aws; `aws-cn`: amazonaws.com.cn,
/// api.amazonwebservices.com.cn; `aws-us-gov` shares `aws`'s). The ISO partitions are left
/// out: a user there confirms their endpoint like any other.
const AWS_DNS_SUFFIXES: &[&str] = &["amazonaws.com", "api.aws", "amazonaws.com.cn", "api.amazonwebservices.com.cn"];
/// PrivateLink's endpoint-specific names live under `vpce.<dnsSuffix>` (standard names only).
const AWS_VPCE_SUFFIXES: &[&str] = &["vpce.amazonaws.com", "vpce.amazonaws.com.cn"];

/// AWS's own Bedrock Runtime hosts, as botocore's endpoint rule set for bedrock-runtime
/// (`data/bedrock-runtime/2023-09-30/endpoint-rule-set-1.json`) builds them —
/// `bedrock-runtime[-fips].{Region}.{dnsSuffix | dualStackDnsSuffix}` — and the names
/// AWS PrivateLink gives an interface endpoint ("Access AWS services through AWS PrivateLink":
/// regional `vpce-1a2b3c4d-5e6f.<service>.<region>.vpce.amazonaws.com`, zonal
/// `vpce-1a2b3c4d-5e6f-us-east-1a.<service>.<region>.vpce.amazonaws.com`). A private DNS
/// name of an interface endpoint is the regular name, so it is covered too.
pub fn is_aws_bedrock_runtime_host(host: &str) -> bool {
    let is_service = |label: &str| matches!(label, "bedrock-runtime" | "bedrock-runtime-fips");
    let regional = |name: &str, suffixes: &[&str]| {
        suffixes.iter().any(|suffix| {
            name.strip_suffix(suffix).and_then(|rest| rest.strip_suffix('.')).is_some_and(|rest| {
                matches!(rest.split_once('.'), Some((service, region)) if is_service(service) && is_region(region))
            })
        })
    };
    if regional(host, AWS_DNS_SUFFIXES) {
        return true;
    }
    // `vpce-<id>[-<zone>].` before a regional name under `vpce.`.
    host.split_once('.').is_some_and(|(endpoint_id, rest)| {
        endpoint_id.strip_prefix("vpce-").is_some_and(|id| {
            !id.is_empty() && id.bytes().all(|byte| byte.is_ascii_lowercase() || byte.is_ascii_digit() || byte == b'-')
        }) && regional(rest, AWS_VPCE_SUFFIXES)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn keys(id: &str, token: Option<&str>) -> BedrockAuth {
        BedrockAuth::AccessKey {
            access_key_id: id.into(),
            secret_access_key: "secret".into(),
            session_token: token.map(Into::into),
        }
    }

    #[test]
    fn model_ids_are_percent_encoded_in_the_path() {
        let mut config = BedrockConfig::new("us-west-2", keys("AKIAIOSFODNN7EXAMPLE", None));
        config.model_id = "us.anthropic.claude-haiku-4-5-20251001-v1:0".into();
        assert_eq!(
            config.converse_url(),
            "https://bedrock-runtime.us-west-2.amazonaws.com/model/us.anthropic.claude-haiku-4-5-20251001-v1%3A0/converse"
        );
        let arn =
            "arn:aws:bedrock:eu-west-1:123456789012:inference-profile/eu.anthropic.claude-haiku-4-5-20251001-v1:0";
        assert_eq!(
            percent_encode(arn),
            "arn%3Aaws%3Abedrock%3Aeu-west-1%3A123456789012%3Ainference-profile%2Feu.anthropic.claude-haiku-4-5-20251001-v1%3A0"
        );
    }

    #[test]
    fn validation_explains_each_mistake() {
        let mut config = BedrockConfig::new("us-east-1", keys("AKIAIOSFODNN7EXAMPLE", None));
        assert!(config.validate().is_ok());
        config.region = "US East".into();
        assert!(config.validate().unwrap_err().to_string().contains("not an AWS region"));
        config.region = "eu-central-1".into();
        config.auth = keys("ASIAIOSFODNN7EXAMPLE", None);
        assert!(config.validate().unwrap_err().to_string().contains("session token"));
        config.auth = keys("my key", None);
        assert!(config.validate().unwrap_err().to_string().contains("access key id"));
        config.auth = BedrockAuth::ApiKey(" ".into());
        assert!(config.validate().is_err());
        config.auth = BedrockAuth::ApiKey("ABSKabc".into());
        config.endpoint = Some("ftp://example".into());
        assert!(config.validate().is_err());
    }

    #[test]
    fn credentials_go_only_to_aws_or_to_the_host_confirmed_on_this_device() {
        use crate::error::ErrorCode;
        let mut config = BedrockConfig::new("us-east-1", BedrockAuth::ApiKey("ABSK-secret-key".into()));
        for aws in [
            "https://bedrock-runtime.us-east-1.amazonaws.com",
            "https://bedrock-runtime-fips.us-gov-west-1.amazonaws.com/",
            "https://bedrock-runtime.cn-north-1.amazonaws.com.cn",
            "https://bedrock-runtime.eu-west-1.api.aws",
            "https://bedrock-runtime-fips.us-east-1.api.aws",
            "https://vpce-0a1b2c3d4e5f-abcd1234.bedrock-runtime.us-east-1.vpce.amazonaws.com",
            "https://vpce-0a1b2c3d4e5f-abcd1234-us-east-1a.bedrock-runtime.us-east-1.vpce.amazonaws.com",
            "https://BEDROCK-RUNTIME.US-WEST-2.AMAZONAWS.COM.:443",
        ] {
            config.endpoint = Some(aws.into());
            assert!(config.validate().is_ok(), "{aws}");
            assert_eq!(endpoint_trust(&endpoint_host(aws).unwrap(), None), EndpointTrust::Aws, "{aws}");
        }
        for foreign in [
            "https://bedrock.example.com",
            "https://bedrock-runtime.us-east-1.amazonaws.com.evil.example",
            "https://evil-bedrock-runtime.us-east-1.amazonaws.com",
            "https://bedrock-runtime.us-east-1.amazonaws.co",
            "https://bedrock-runtime.amazonaws.com",
            "https://x.bedrock-runtime.us-east-1.amazonaws.com",
            "https://vpce-1.bedrock-runtime.us-east-1.amazonaws.com",
            "https://vpce-.bedrock-runtime.us-east-1.vpce.amazonaws.com",
            "https://vpce-1.s3.us-east-1.vpce.amazonaws.com",
            "https://bedrock.us-east-1.amazonaws.com",
            "https://evil.example/bedrock-runtime.us-east-1.amazonaws.com",
            "https://evil.example\\.bedrock-runtime.us-east-1.amazonaws.com",
            "http://127.0.0.1:8080",
        ] {
            config.endpoint = Some(foreign.into());
            config.trusted_endpoint_host = None;
            let error = config.validate().unwrap_err();
            if foreign.contains('\\') {
                assert_eq!(error.code(), "llm.config", "{foreign}");
                continue;
            }
            assert_eq!(error.code(), "llm.endpoint_unconfirmed", "{foreign}");
            let host = endpoint_host(foreign).unwrap();
            assert!(error.to_string().contains(&host) && !error.to_string().contains("ABSK"), "{error}");
            config.trusted_endpoint_host = Some("another.example".into());
            assert_eq!(config.validate().unwrap_err().code(), "llm.endpoint_unconfirmed", "{foreign}");
            // Confirmed on this device, in the form a browser's URL parser gives the host.
            config.trusted_endpoint_host = Some(format!("{}.", host.to_ascii_uppercase()));
            assert!(config.validate().is_ok(), "{foreign} once confirmed");
        }
        assert_eq!(endpoint_host("http://LOCALHOST.:9000/x").unwrap(), "localhost");
        assert_eq!(endpoint_host("http://[::1]:4566").unwrap(), "[::1]");
    }

    #[test]
    fn debug_output_never_shows_secrets() {
        let shown = format!(
            "{:?} {:?}",
            keys("AKIAIOSFODNN7EXAMPLE", Some("token-123")),
            BedrockAuth::ApiKey("ABSK-secret".into())
        );
        assert!(
            !shown.contains("secret\"") && !shown.contains("token-123") && !shown.contains("ABSK-secret"),
            "{shown}"
        );
    }

    #[test]
    fn endpoints_are_parsed_not_prefixed() {
        for good in [
            "https://bedrock-runtime.us-east-1.amazonaws.com",
            "https://vpce-1.bedrock-runtime.us-east-1.vpce.amazonaws.com/",
            "http://127.0.0.1:8080",
            "http://localhost:9000/base",
            "http://[::1]:4566",
            "HTTP://LOCALHOST",
        ] {
            assert!(endpoint_host(good).is_ok(), "{good}");
        }
        for bad in [
            "http://127.0.0.1.evil.example",
            "http://127.0.0.1.evil.example:80/",
            "http://localhost@evil.example",
            "https://user:secret@bedrock.example",
            "http://evil.example/127.0.0.1",
            "http://10.0.0.1:8080",
            "ftp://127.0.0.1",
            "bedrock-runtime.us-east-1.amazonaws.com",
            "https://",
            "http://127.0.0.1:80x",
            "http://[::1",
        ] {
            assert!(endpoint_host(bad).is_err(), "{bad} should be refused");
        }
    }

    #[test]
    fn the_default_model_follows_the_region() {
        for (region, profile) in [
            ("us-west-2", "us."),
            ("eu-west-1", "eu."),
            ("eu-central-2", "eu."),
            ("ap-northeast-1", "jp."),
            ("ap-southeast-2", "au."),
            ("ap-south-1", "global."),
            ("sa-east-1", "global."),
            ("ca-central-1", "global."),
        ] {
            assert_eq!(default_model_for(region), format!("{profile}anthropic.claude-haiku-5-5"), "{region}");
            assert_eq!(
                previous_default_model_for(region),
                format!("{profile}anthropic.claude-haiku-4-5-20251001-v1:0"),
                "{region}"
            );
        }
        assert_eq!(default_model_for(DEFAULT_REGION), DEFAULT_MODEL_ID);
        assert!(BEDROCK_REGIONS.contains(&DEFAULT_REGION));
        assert!(BEDROCK_REGIONS.iter().all(|region| !region.starts_with("us-gov")), "GovCloud is not offered");
    }
}
