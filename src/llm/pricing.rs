//! What tokens cost: Bedrock's on-demand prices in US dollars per million tokens, by model,
//! for the status view, the cost under each answer and the spending limits.
//!
//! Prices as published on the Amazon Bedrock pricing page (checked 2026-12): a cache write
//! costs 1.25× the input price and a cache read 0.1×. From the 4.5 generation on, Anthropic's
//! models cost 10% more through a regional or geographic profile (`us.`, `eu.`, …, or a bare
//! in-region id) than through `global.`. A model missing from the table is priced at the
//! highest price here (`priced: false`), so a spending limit is never reached later than it
//! should be, and the views say the price is unknown.

use crate::domain::TokenUsage;

/// US dollars per million tokens.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Prices {
    pub input: f64,
    pub output: f64,
    pub cache_write: f64,
    pub cache_read: f64,
}

impl Prices {
    const fn anthropic(input: f64, output: f64) -> Self {
        Prices { input, output, cache_write: input * 1.25, cache_read: input * 0.1 }
    }

    fn scaled(self, factor: f64) -> Self {
        Prices {
            input: self.input * factor,
            output: self.output * factor,
            cache_write: self.cache_write * factor,
            cache_read: self.cache_read * factor,
        }
    }
}

/// A model family: what its id contains, its global price, whether regional profiles cost
/// 10% more, and the fewest tokens a cached prompt prefix must have (shorter prefixes are
/// not cached, and a cache point on them only costs the write).
struct Family {
    id_contains: &'static str,
    prices: Prices,
    regional_premium: bool,
    cache_minimum: usize,
}

/// Most specific first (`opus-4-5` before `opus-4`).
const FAMILIES: &[Family] = &[
    Family {
        id_contains: "claude-haiku-4-5",
        prices: Prices::anthropic(1.0, 5.0),
        regional_premium: true,
        cache_minimum: 4096,
    },
    Family {
        id_contains: "claude-sonnet-4-5",
        prices: Prices::anthropic(3.0, 15.0),
        regional_premium: true,
        cache_minimum: 1024,
    },
    Family {
        id_contains: "claude-sonnet-4-6",
        prices: Prices::anthropic(3.0, 15.0),
        regional_premium: true,
        cache_minimum: 1024,
    },
    Family {
        id_contains: "claude-opus-4-5",
        prices: Prices::anthropic(5.0, 25.0),
        regional_premium: true,
        cache_minimum: 4096,
    },
    Family {
        id_contains: "claude-opus-4-6",
        prices: Prices::anthropic(5.0, 25.0),
        regional_premium: true,
        cache_minimum: 4096,
    },
    Family {
        id_contains: "claude-opus-4-7",
        prices: Prices::anthropic(5.0, 25.0),
        regional_premium: true,
        cache_minimum: 4096,
    },
    Family {
        id_contains: "claude-sonnet-4",
        prices: Prices::anthropic(3.0, 15.0),
        regional_premium: false,
        cache_minimum: 1024,
    },
    Family {
        id_contains: "claude-opus-4",
        prices: Prices::anthropic(15.0, 75.0),
        regional_premium: false,
        cache_minimum: 1024,
    },
    Family {
        id_contains: "claude-3-7-sonnet",
        prices: Prices::anthropic(3.0, 15.0),
        regional_premium: false,
        cache_minimum: 1024,
    },
    Family {
        id_contains: "claude-3-5-sonnet",
        prices: Prices::anthropic(3.0, 15.0),
        regional_premium: false,
        cache_minimum: 1024,
    },
    Family {
        id_contains: "claude-3-5-haiku",
        prices: Prices::anthropic(0.8, 4.0),
        regional_premium: false,
        cache_minimum: 2048,
    },
    Family {
        id_contains: "claude-3-haiku",
        prices: Prices::anthropic(0.25, 1.25),
        regional_premium: false,
        cache_minimum: 2048,
    },
    Family {
        id_contains: "nova-micro",
        prices: Prices { input: 0.035, output: 0.14, cache_write: 0.035, cache_read: 0.00875 },
        regional_premium: false,
        cache_minimum: 1000,
    },
    Family {
        id_contains: "nova-lite",
        prices: Prices { input: 0.06, output: 0.24, cache_write: 0.06, cache_read: 0.015 },
        regional_premium: false,
        cache_minimum: 1000,
    },
    Family {
        id_contains: "nova-pro",
        prices: Prices { input: 0.8, output: 3.2, cache_write: 0.8, cache_read: 0.2 },
        regional_premium: false,
        cache_minimum: 1000,
    },
];

/// The highest price in the table, for models it does not know.
const UNKNOWN: Prices = Prices::anthropic(15.0, 75.0);

/// A model's prices, and whether they are its own (`false`: the model is not in the table).
pub fn prices(model_id: &str) -> (Prices, bool) {
    let id = model_id.to_ascii_lowercase();
    let Some(family) = FAMILIES.iter().find(|family| id.contains(family.id_contains)) else {
        return (UNKNOWN, false);
    };
    let global = id.starts_with("global.") || id.contains(":inference-profile/global.");
    let factor = if family.regional_premium && !global { 1.1 } else { 1.0 };
    (family.prices.scaled(factor), true)
}

/// The fewest tokens a prompt prefix needs before Bedrock caches it for `model_id` (Bedrock's
/// prompt-caching table, checked 2026-12; unknown models: the highest minimum, 4,096).
pub fn cache_minimum_tokens(model_id: &str) -> usize {
    let id = model_id.to_ascii_lowercase();
    FAMILIES.iter().find(|family| id.contains(family.id_contains)).map_or(4_096, |family| family.cache_minimum)
}

/// Whether `model_id`'s price is known (else estimates use the highest price).
pub fn price_known(model_id: &str) -> bool {
    prices(model_id).1
}

/// Estimated cost in US dollars of `usage` on `model_id`.
pub fn estimate_cost_usd(model_id: &str, usage: &TokenUsage) -> f64 {
    let (prices, _) = prices(model_id);
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
        let global = estimate_cost_usd("global.anthropic.claude-haiku-4-5-20251001-v1:0", &million_each());
        assert!((global - 6.10).abs() < 1e-9, "{global}");
        let regional = estimate_cost_usd("us.anthropic.claude-haiku-4-5-20251001-v1:0", &million_each());
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
    }

    #[test]
    fn an_unknown_model_is_priced_high_and_said_to_be_unknown() {
        assert!(!price_known("meta.llama3-70b-instruct-v1:0"));
        let unknown = estimate_cost_usd("meta.llama3-70b-instruct-v1:0", &million_each());
        let haiku = estimate_cost_usd("global.anthropic.claude-haiku-4-5-20251001-v1:0", &million_each());
        assert!(unknown > 10.0 * haiku, "never cheaper than it may be: {unknown}");
    }
}
