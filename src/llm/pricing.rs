//! An estimate of what tokens cost, for the status view. Prices are Bedrock's on-demand
//! prices in US dollars per million tokens; unknown models are priced as Haiku 4.5 and
//! the status view says "estimated".

use crate::domain::TokenUsage;

/// US dollars per million tokens: input, output, cache write, cache read.
struct Prices {
    input: f64,
    output: f64,
    cache_write: f64,
    cache_read: f64,
}

const HAIKU_4_5: Prices = Prices { input: 1.0, output: 5.0, cache_write: 1.25, cache_read: 0.10 };
const SONNET_4_5: Prices = Prices { input: 3.0, output: 15.0, cache_write: 3.75, cache_read: 0.30 };

fn prices(model_id: &str) -> &'static Prices {
    if model_id.contains("sonnet") {
        &SONNET_4_5
    } else {
        &HAIKU_4_5
    }
}

/// Estimated cost in US dollars of `usage` on `model_id`.
pub fn estimate_cost_usd(model_id: &str, usage: &TokenUsage) -> f64 {
    let prices = prices(model_id);
    let per_token = |tokens: u64, dollars_per_million: f64| tokens as f64 * dollars_per_million / 1_000_000.0;
    per_token(usage.input_tokens, prices.input)
        + per_token(usage.output_tokens, prices.output)
        + per_token(usage.cache_write_tokens, prices.cache_write)
        + per_token(usage.cache_read_tokens, prices.cache_read)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn haiku_prices_a_million_of_each() {
        let usage = TokenUsage {
            input_tokens: 1_000_000,
            output_tokens: 1_000_000,
            cache_read_tokens: 1_000_000,
            cache_write_tokens: 0,
        };
        let cost = estimate_cost_usd("us.anthropic.claude-haiku-4-5-20251001-v1:0", &usage);
        assert!((cost - 6.10).abs() < 1e-9, "{cost}");
    }
}
