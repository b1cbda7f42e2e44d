//! Credentials, region and endpoint the way AWS users already have them, through AWS's own
//! chain (`aws-config`): a Bedrock API key in `AWS_BEARER_TOKEN_BEDROCK` (as the AWS SDKs read
//! it), else the environment's keys, the shared `config` and `credentials` files with profiles
//! (`--profile` or `AWS_PROFILE`), SSO, web identity, the container and instance roles. The
//! region: `--region`, else the chain's (`AWS_REGION`, the profile's), else the plugin's.
//!
//! The endpoint comes only from where AWS tools take it — `AWS_ENDPOINT_URL_BEDROCK_RUNTIME`,
//! then `AWS_ENDPOINT_URL`, then the chosen profile's `endpoint_url` (its `services` section
//! first), unless `AWS_IGNORE_CONFIGURED_ENDPOINT_URLS` — never from the vault's synced
//! `data.json`: anyone who can write a shared vault could name a host that collects the keys.

use aws_config::{BehaviorVersion, SdkConfig};
use aws_credential_types::provider::ProvideCredentials;
use aws_types::service_config::ServiceConfigKey;

use crate::llm::{endpoint_host, BedrockAuth, BedrockConfig};

/// The environment variable the AWS SDKs read a Bedrock API key from.
pub const BEARER_TOKEN_VARIABLE: &str = "AWS_BEARER_TOKEN_BEDROCK";
/// Bedrock Runtime's service id, which names its own endpoint settings
/// (`AWS_ENDPOINT_URL_BEDROCK_RUNTIME`, `bedrock_runtime =` in a profile's services section).
const SERVICE_ID: &str = "Bedrock Runtime";

#[derive(Debug, Clone, Default)]
pub struct CredentialOptions {
    pub profile: Option<String>,
    pub region: Option<String>,
}

/// What AWS's chain gave: how to sign in, where, and the endpoint the user configured.
#[derive(Debug, Clone)]
pub struct AwsSetup {
    pub auth: BedrockAuth,
    pub region: String,
    /// From the environment or the profile only; `None` for AWS's own endpoint.
    pub endpoint: Option<String>,
}

impl AwsSetup {
    /// The connection for `model_id`. An endpoint the user configured in their own environment
    /// or profile is theirs, decided on this machine: it is the one host trusted besides AWS's.
    pub fn bedrock_config(self, model_id: String) -> Result<BedrockConfig, String> {
        let mut config = BedrockConfig::new(&self.region, self.auth);
        config.model_id = model_id;
        if let Some(endpoint) = self.endpoint {
            config.trusted_endpoint_host = Some(endpoint_host(&endpoint)?);
            config.endpoint = Some(endpoint);
        }
        Ok(config)
    }
}

/// The auth, region and endpoint to call Bedrock with (`fallback_region`: the plugin's
/// setting). Errors say what to set up; they never carry a secret.
pub async fn aws_setup(options: &CredentialOptions, fallback_region: &str) -> Result<AwsSetup, String> {
    let mut loader = aws_config::defaults(BehaviorVersion::latest());
    if let Some(profile) = options.profile.as_deref() {
        loader = loader.profile_name(profile);
    }
    let config = loader.load().await;
    let region = options
        .region
        .clone()
        .filter(|region| !region.trim().is_empty())
        .or_else(|| config.region().map(|region| region.to_string()))
        .or_else(|| Some(fallback_region.to_owned()).filter(|region| !region.trim().is_empty()))
        .unwrap_or_else(|| "us-east-1".to_owned());
    let endpoint = configured_endpoint(&config);
    if let Some(key) = std::env::var(BEARER_TOKEN_VARIABLE).ok().filter(|key| !key.trim().is_empty()) {
        return Ok(AwsSetup { auth: BedrockAuth::ApiKey(key.trim().to_owned()), region, endpoint });
    }
    let provider = config.credentials_provider().ok_or_else(no_credentials)?;
    let credentials = provider.provide_credentials().await.map_err(|error| {
        // The chain's message names the providers it tried, never a key.
        format!("{} ({error})", no_credentials())
    })?;
    let auth = BedrockAuth::AccessKey {
        access_key_id: credentials.access_key_id().to_owned(),
        secret_access_key: credentials.secret_access_key().to_owned(),
        session_token: credentials.session_token().map(str::to_owned),
    };
    Ok(AwsSetup { auth, region, endpoint })
}

/// The endpoint the way the generated AWS SDK clients resolve it: the service's own setting
/// (environment, then profile), else the global one (`SdkConfig::endpoint_url`).
fn configured_endpoint(config: &SdkConfig) -> Option<String> {
    let service_specific = || {
        let key = ServiceConfigKey::builder().service_id(SERVICE_ID).env("AWS_ENDPOINT_URL").profile("endpoint_url");
        config.service_config()?.load_config(key.build().ok()?)
    };
    service_specific()
        .or_else(|| config.endpoint_url().map(str::to_owned))
        .map(|endpoint| endpoint.trim().to_owned())
        .filter(|endpoint| !endpoint.is_empty())
}

fn no_credentials() -> String {
    format!(
        "No AWS credentials found: set {BEARER_TOKEN_VARIABLE} to a Bedrock API key, or AWS_ACCESS_KEY_ID and \
AWS_SECRET_ACCESS_KEY, or configure a profile (aws configure) and pass --profile or set AWS_PROFILE"
    )
}
