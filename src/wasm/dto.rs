//! Shapes that cross the JS boundary, converted with serde: settings coming in.

use serde::Deserialize;

use crate::engine::EngineSettings;
use crate::llm::{default_model_for, previous_default_model_for, BedrockAuth, BedrockConfig};

/// `{ engine?, connection? }` from the plugin's settings and secret storage.
/// No `Debug`: it carries secrets.
#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase")]
pub struct SettingsDto {
    #[serde(default)]
    pub engine: Option<EngineSettings>,
    #[serde(default)]
    pub connection: Option<ConnectionDto>,
    /// This device's id, for counting its calls apart from other devices'.
    #[serde(default)]
    pub device: Option<String>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ConnectionDto {
    pub region: String,
    #[serde(default)]
    pub model_id: Option<String>,
    pub auth: AuthDto,
    #[serde(default)]
    pub endpoint: Option<String>,
    /// The endpoint host this device's user confirmed (kept in the device's local storage,
    /// never in the synced settings); credentials go nowhere else outside AWS.
    #[serde(default)]
    pub trusted_endpoint_host: Option<String>,
    #[serde(default)]
    pub timeout_ms: Option<u64>,
    #[serde(default)]
    pub max_concurrency: Option<u32>,
}

/// `{kind: "accessKey", accessKeyId, secretAccessKey, sessionToken?}` or `{kind: "apiKey",
/// apiKey}`, read as one object and told apart by `kind` (`AuthFields`): serde's tagged enum
/// buffered the object in its generic `Content` tree, whose code (made once per deserializer)
/// cost 3 KB of `main.js`.
#[derive(Deserialize)]
#[serde(try_from = "AuthFields")]
pub enum AuthDto {
    AccessKey { access_key_id: String, secret_access_key: String, session_token: Option<String> },
    ApiKey { api_key: String },
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct AuthFields {
    kind: String,
    #[serde(default)]
    access_key_id: Option<String>,
    #[serde(default)]
    secret_access_key: Option<String>,
    #[serde(default)]
    session_token: Option<String>,
    #[serde(default)]
    api_key: Option<String>,
}

impl TryFrom<AuthFields> for AuthDto {
    type Error = String;

    fn try_from(fields: AuthFields) -> Result<Self, String> {
        let AuthFields { kind, access_key_id, secret_access_key, session_token, api_key } = fields;
        match (kind.as_str(), access_key_id, secret_access_key, api_key) {
            ("accessKey", Some(access_key_id), Some(secret_access_key), _) => {
                Ok(AuthDto::AccessKey { access_key_id, secret_access_key, session_token })
            }
            ("apiKey", _, _, Some(api_key)) => Ok(AuthDto::ApiKey { api_key }),
            ("accessKey", ..) => Err("an access key needs `accessKeyId` and `secretAccessKey`".into()),
            ("apiKey", ..) => Err("an API key needs `apiKey`".into()),
            _ => Err("`kind` must be `accessKey` or `apiKey`".into()),
        }
    }
}

impl ConnectionDto {
    pub fn into_config(self) -> BedrockConfig {
        let auth = match self.auth {
            AuthDto::AccessKey { access_key_id, secret_access_key, session_token } => BedrockAuth::AccessKey {
                access_key_id: access_key_id.trim().to_owned(),
                secret_access_key: secret_access_key.trim().to_owned(),
                session_token: session_token.map(|token| token.trim().to_owned()).filter(|token| !token.is_empty()),
            },
            AuthDto::ApiKey { api_key } => BedrockAuth::ApiKey(api_key.trim().to_owned()),
        };
        let mut config = BedrockConfig::new(self.region.trim(), auth);
        // No model chosen: the current Haiku this region can call, and the previous one if the
        // account may not call it. A typed model is used as it is, never replaced.
        match self.model_id.map(|id| id.trim().to_owned()).filter(|id| !id.is_empty()) {
            Some(typed) => config.model_id = typed,
            None => {
                config.model_id = default_model_for(&config.region);
                config.fallback_model_id = Some(previous_default_model_for(&config.region));
            }
        }
        config.endpoint = self.endpoint.map(|url| url.trim().to_owned()).filter(|url| !url.is_empty());
        config.trusted_endpoint_host = self.trusted_endpoint_host.filter(|host| !host.trim().is_empty());
        if let Some(timeout) = self.timeout_ms {
            config.timeout_ms = timeout;
        }
        if let Some(limit) = self.max_concurrency {
            config.max_concurrency = limit;
        }
        config
    }
}
