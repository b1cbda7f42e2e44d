//! The Bedrock connection every engine test uses: test keys in us-east-1, the retry policy
//! the test chooses.

use memory_agent::llm::{BedrockAuth, BedrockConfig, RetryPolicy};

pub fn test_connection(retry: RetryPolicy) -> BedrockConfig {
    let mut config = BedrockConfig::new(
        "us-east-1",
        BedrockAuth::AccessKey {
            access_key_id: "AKIDMEMORYAGENTTEST".into(),
            secret_access_key: "secret".into(),
            session_token: None,
        },
    );
    config.retry = retry;
    config
}
