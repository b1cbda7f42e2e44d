//! Credentials and region the way AWS users already have them, through AWS's own chain
//! (`aws-config`): a Bedrock API key in `AWS_BEARER_TOKEN_BEDROCK` (as the AWS SDKs read it),
//! else the environment's keys, the shared `config` and `credentials` files with profiles
//! (`--profile` or `AWS_PROFILE`), SSO, web identity, the container and instance roles. The
//! region: `--region`, else the chain's (`AWS_REGION`, the profile's), else the plugin's.

use aws_config::BehaviorVersion;
use aws_credential_types::provider::ProvideCredentials;

use crate::llm::BedrockAuth;

/// The environment variable the AWS SDKs read a Bedrock API key from.
pub const BEARER_TOKEN_VARIABLE: &str = "AWS_BEARER_TOKEN_BEDROCK";

#[derive(Debug, Clone, Default)]
pub struct CredentialOptions {
    pub profile: Option<String>,
    pub region: Option<String>,
}

/// The auth and the region to call Bedrock with (`fallback_region`: the plugin's setting).
/// Errors say what to set up; they never carry a secret.
pub async fn bedrock_auth(options: &CredentialOptions, fallback_region: &str) -> Result<(BedrockAuth, String), String> {
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
    if let Some(key) = std::env::var(BEARER_TOKEN_VARIABLE).ok().filter(|key| !key.trim().is_empty()) {
        return Ok((BedrockAuth::ApiKey(key.trim().to_owned()), region));
    }
    let provider = config.credentials_provider().ok_or_else(no_credentials)?;
    let credentials = provider.provide_credentials().await.map_err(|error| {
        // The chain's message names the providers it tried, never a key.
        format!("{} ({error})", no_credentials())
    })?;
    Ok((
        BedrockAuth::AccessKey {
            access_key_id: credentials.access_key_id().to_owned(),
            secret_access_key: credentials.secret_access_key().to_owned(),
            session_token: credentials.session_token().map(str::to_owned),
        },
        region,
    ))
}

fn no_credentials() -> String {
    format!(
        "No AWS credentials found: set {BEARER_TOKEN_VARIABLE} to a Bedrock API key, or AWS_ACCESS_KEY_ID and \
AWS_SECRET_ACCESS_KEY, or configure a profile (aws configure) and pass --profile or set AWS_PROFILE"
    )
}
