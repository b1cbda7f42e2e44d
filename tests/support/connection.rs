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
    // Pinned: the engine tests' prices, cache minimums and snapshots are Claude Haiku 4.5's,
    // whatever the default model becomes.
    config.model_id = "us.anthropic.claude-haiku-4-5-20251001-v1:0".into();
    config.retry = retry;
    config
}

/// An engine over `store` at `now`, connected with the test keys (one attempt per call), whose
/// questions carry at most `budget_tokens` of memories: what the query tests ask.
pub fn answering_engine(
    store: memory_agent::store::Store<memory_agent::store::rusqlite_driver::RusqliteDriver>,
    now: memory_agent::domain::Millis,
    budget_tokens: usize,
) -> memory_agent::engine::Engine<memory_agent::store::rusqlite_driver::RusqliteDriver> {
    let engine = memory_agent::engine::Engine::new(store, 42, now).unwrap();
    let config = test_connection(RetryPolicy { max_attempts: 1, base_delay_ms: 100, max_delay_ms: 1_000 });
    engine.configure_connection(Some(config), 7).unwrap();
    let mut settings = engine.settings();
    settings.query_budget_tokens = budget_tokens;
    engine.set_settings(settings);
    engine
}
