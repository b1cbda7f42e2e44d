//! What tokens cost: Bedrock's on-demand prices in US dollars per million tokens, read from the
//! model table (`models.rs`, where each price's source and date are), for the status view, the
//! cost under each answer and the spending limits.
//!
//! A model with a second price for long prompts (Haiku 5.5) is priced per call: a call's tier
//! is chosen by that call's prompt, so usage summed over calls is priced with the tier its
//! calls had (`estimate_cost_usd_in`), never by the size of the sum. A model missing from the
//! table is priced at the highest price here (`priced: false`), so a spending limit is never
//! reached later than it should be, and the views say the price is unknown.

pub use super::models::Prices;
use super::models::{is_global_profile, model_spec, ModelSpec};
use crate::domain::TokenUsage;

/// Which of a model's prices a call is billed at.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PriceTier {
    /// The model's usual price.
    Base,
    /// The price above a long-prompt threshold (only models with `long_prompt` have one).
    LongPrompt,
}

/// The highest price in the table, for models it does not know.
const UNKNOWN: Prices = Prices::anthropic(15.0, 75.0);

/// The factor a regional or geographic profile costs over `global.` (Claude 4.5 on).
const REGIONAL_PREMIUM: f64 = 1.1;

/// A model's prices in `tier`, and whether they are its own (`false`: the model is not in the
/// table). A model without a long-prompt tier has one price in both tiers.
pub fn prices_in(model_id: &str, tier: PriceTier) -> (Prices, bool) {
    let Some(spec) = model_spec(model_id) else { return (UNKNOWN, false) };
    let base = match (tier, spec.long_prompt) {
        (PriceTier::LongPrompt, Some(long)) => long.prices,
        _ => spec.prices,
    };
    let factor = if spec.regional_premium && !is_global_profile(model_id) { REGIONAL_PREMIUM } else { 1.0 };
    (base.scaled(factor), true)
}

/// A model's usual prices, and whether they are its own.
pub fn prices(model_id: &str) -> (Prices, bool) {
    prices_in(model_id, PriceTier::Base)
}

/// The tier one call with `usage` is billed at: its prompt is its input, cache read and cache
/// write tokens (the cautious reading of "prompt length": see `LongPromptTier`).
pub fn tier_of_call(model_id: &str, usage: &TokenUsage) -> PriceTier {
    match model_spec(model_id).and_then(|spec: &ModelSpec| spec.long_prompt) {
        Some(long) if prompt_tokens(usage) > long.above_prompt_tokens => PriceTier::LongPrompt,
        _ => PriceTier::Base,
    }
}

/// The prompt tokens of a call, as a long-prompt threshold counts them.
pub fn prompt_tokens(usage: &TokenUsage) -> u64 {
    usage.input_tokens + usage.cache_read_tokens + usage.cache_write_tokens
}

/// The most prompt tokens a call on `model_id` may have at its usual price (`None`: no limit).
pub fn long_prompt_threshold(model_id: &str) -> Option<u64> {
    model_spec(model_id).and_then(|spec| spec.long_prompt).map(|long| long.above_prompt_tokens)
}

/// The fewest tokens a prompt prefix needs before Bedrock caches it for `model_id` (the model
/// table; unknown models: the highest minimum, 4,096).
pub fn cache_minimum_tokens(model_id: &str) -> usize {
    model_spec(model_id).map_or(4_096, |spec| spec.cache_minimum_tokens)
}

/// Whether `model_id`'s price is known (else estimates use the highest price).
pub fn price_known(model_id: &str) -> bool {
    model_spec(model_id).is_some()
}

/// Estimated cost in US dollars of ONE call's `usage` on `model_id`, at the tier its prompt falls in.
pub fn estimate_cost_usd(model_id: &str, usage: &TokenUsage) -> f64 {
    estimate_cost_usd_in(model_id, usage, tier_of_call(model_id, usage))
}

/// Estimated cost of `usage` at `tier`: for sums of calls that were all billed at that tier.
pub fn estimate_cost_usd_in(model_id: &str, usage: &TokenUsage, tier: PriceTier) -> f64 {
    let (prices, _) = prices_in(model_id, tier);
    let per_token = |tokens: u64, dollars_per_million: f64| tokens as f64 * dollars_per_million / 1_000_000.0;
    per_token(usage.input_tokens, prices.input)
        + per_token(usage.output_tokens, prices.output)
        + per_token(usage.cache_write_tokens, prices.cache_write)
        + per_token(usage.cache_read_tokens, prices.cache_read)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn million_each() -> TokenUsage {
        TokenUsage {
            input_tokens: 1_000_000,
            output_tokens: 1_000_000,
            cache_read_tokens: 1_000_000,
            cache_write_tokens: 0,
        }
    }

    #[test]
    fn haiku_costs_ten_percent_more_through_a_regional_profile() {
        let global =
            estimate_cost_usd_in("global.anthropic.claude-haiku-4-5-20251001-v1:0", &million_each(), PriceTier::Base);
        assert!((global - 6.10).abs() < 1e-9, "{global}");
        let regional =
            estimate_cost_usd_in("us.anthropic.claude-haiku-4-5-20251001-v1:0", &million_each(), PriceTier::Base);
        assert!((regional - 6.71).abs() < 1e-9, "{regional}");
    }

    #[test]
    fn each_model_has_its_own_price() {
        let cost = |model: &str| estimate_cost_usd(model, &million_each());
        assert!((cost("us.anthropic.claude-sonnet-4-5-20250929-v1:0") - 3.3 * 6.1).abs() < 1e-6);
        assert!((cost("anthropic.claude-opus-4-1-20250805-v1:0") - 91.5).abs() < 1e-6, "Opus 4.1");
        assert!((cost("us.anthropic.claude-3-5-haiku-20241022-v1:0") - 4.88).abs() < 1e-6);
        assert!((cost("us.amazon.nova-lite-v1:0") - 0.315).abs() < 1e-6);
        assert!(price_known("eu.anthropic.claude-sonnet-4-20250514-v1:0"));
        // Opus 5.5's cache read is its own ($0.20, not 0.1 × $4).
        let (opus, _) = prices("global.anthropic.claude-opus-5-5");
        assert!((opus.cache_read - 0.20).abs() < 1e-9 && (opus.input - 4.0).abs() < 1e-9);
    }

    #[test]
    fn haiku_5_5_is_priced_per_call_by_the_prompt_of_that_call() {
        let model = "global.anthropic.claude-haiku-5-5";
        let call = |input: u64, cache_read: u64| TokenUsage {
            input_tokens: input,
            output_tokens: 1_000,
            cache_read_tokens: cache_read,
            cache_write_tokens: 0,
        };
        // 100K prompt tokens: the usual price, $0.10 and $0.50 a million.
        let at_threshold = estimate_cost_usd(model, &call(100_000, 0));
        assert!((at_threshold - (0.01 + 0.0005)).abs() < 1e-9, "{at_threshold}");
        // One more token, counting cache reads: every token at $0.50 / $2.50.
        let above = estimate_cost_usd(model, &call(90_000, 10_001));
        assert!((above - (0.045 + 10_001.0 * 0.05 / 1e6 + 0.0025)).abs() < 1e-9, "{above}");
        assert_eq!(tier_of_call(model, &call(50_000, 50_001)), PriceTier::LongPrompt);
        // Two calls of 60K summed are 120K, yet each was billed at the usual price.
        let sum = TokenUsage { input_tokens: 120_000, output_tokens: 2_000, ..TokenUsage::default() };
        let priced_as_calls = estimate_cost_usd_in(model, &sum, PriceTier::Base);
        assert!((priced_as_calls - 2.0 * estimate_cost_usd(model, &call(60_000, 0))).abs() < 1e-12);
        // A geographic profile: 10% more, in both tiers.
        let regional = estimate_cost_usd("us.anthropic.claude-haiku-5-5", &call(90_000, 10_001));
        assert!((regional - 1.1 * above).abs() < 1e-9);
        assert_eq!(long_prompt_threshold(model), Some(100_000));
        assert_eq!(long_prompt_threshold("us.anthropic.claude-haiku-4-5-20251001-v1:0"), None);
    }

    #[test]
    fn an_unknown_model_is_priced_high_and_said_to_be_unknown() {
        assert!(!price_known("meta.llama3-70b-instruct-v1:0"));
        let unknown = estimate_cost_usd("meta.llama3-70b-instruct-v1:0", &million_each());
        let haiku = estimate_cost_usd("global.anthropic.claude-haiku-4-5-20251001-v1:0", &million_each());
        assert!(unknown > 10.0 * haiku, "never cheaper than it may be: {unknown}");
        assert_eq!(cache_minimum_tokens("meta.llama3-70b-instruct-v1:0"), 4_096);
        // Never below a known model's price, through any profile, in any tier.
        for spec in super::super::models::MODELS {
            for profile in ["global.", "us."] {
                let id = format!("{profile}anthropic.{}", spec.id_contains);
                for tier in [PriceTier::Base, PriceTier::LongPrompt] {
                    let (known, _) = prices_in(&id, tier);
                    assert!(UNKNOWN.input >= known.input && UNKNOWN.output >= known.output, "{id}");
                }
            }
        }
        assert_eq!(cache_minimum_tokens("us.anthropic.claude-haiku-5-5"), 512);
    }
}
