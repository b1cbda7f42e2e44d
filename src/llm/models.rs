//! The models Memory Agent knows, as data: for each Claude model on Bedrock (3.x to 5.x) and
//! Amazon's Nova, what its id contains, its prices, limits, cache minimum, how its thinking
//! is set and whether it takes sampling parameters. Pricing, request bodies, budgets and cache
//! points all read this one table; a model missing from it is handled cautiously by each.
//!
//! Sources (stored copies, checked 2026-12-02, collected in the team's research notes):
//! - Anthropic's pricing page, platform.claude.com/docs/en/about-claude/pricing ("Anthropic
//!   list" below). Bedrock bills Claude at the same list price through a `global.` profile and
//!   10% more through a geographic profile or an in-Region id, from the 4.5 generation on
//!   (AWS, "Global cross-Region inference": "approximately 10% savings … compared to
//!   geographic cross-Region inference"; Amazon Bedrock pricing page, checked 2026-12).
//! - Context, output limit and thinking style: the AWS model cards
//!   (docs.aws.amazon.com/bedrock/latest/userguide/model-card-anthropic-*), e.g. Haiku 5.5's:
//!   "adaptive thinking is on by default and can be turned off; effort level configurable —
//!   low, medium, high, xhigh, max".
//! - Haiku 5.5's sampling rule, tokenizer and cache minimum: Anthropic's Haiku 5.5 overview and
//!   migration guide (platform.claude.com/docs/en/models/haiku-5-5/…): "If a request includes
//!   `temperature`, it must be `1`"; "approximately 30% more tokens"; 512-token minimum.
//! - Rejections seen from Bedrock (vercel/ai `packages/amazon-bedrock/src/__fixtures__`):
//!   Opus 5 "`temperature` is deprecated for this model."; Opus 5.5 "tool_choice: type \"tool\"
//!   and \"any\" are not supported for this model."

/// How a model thinks, and so what a request must say about it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Thinking {
    /// No extended thinking (Claude 3.5 and older, Nova).
    None,
    /// Off unless asked: `{"thinking":{"type":"enabled","budget_tokens":N}}` (3.7 to 4.5).
    Budget,
    /// Off unless asked: `{"thinking":{"type":"adaptive"}}` with an effort (Sonnet 4.6, Opus 4.6–4.8).
    AdaptiveOptional,
    /// On unless `{"thinking":{"type":"disabled"}}` is sent (Haiku 5.5, Sonnet 5, Opus 5). Anthropic's
    /// migration guide: disabled is accepted up to effort `high`.
    AdaptiveOnByDefault,
    /// Always on: `disabled` is refused, and so is a forced tool (Sonnet 5.5, Opus 5.5, Fable).
    AdaptiveAlways,
}

impl Thinking {
    /// Whether the model takes `{"thinking":{"type":"adaptive"}}` with `output_config.effort`.
    pub fn is_adaptive(self) -> bool {
        matches!(self, Thinking::AdaptiveOptional | Thinking::AdaptiveOnByDefault | Thinking::AdaptiveAlways)
    }
}

/// US dollars per million tokens.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Prices {
    pub input: f64,
    pub output: f64,
    pub cache_write: f64,
    pub cache_read: f64,
}

impl Prices {
    /// Anthropic's usual ratios: a five-minute cache write costs 1.25× the input price and a
    /// read 0.1× (Anthropic list, "Prompt caching").
    pub const fn anthropic(input: f64, output: f64) -> Self {
        Prices { input, output, cache_write: input * 1.25, cache_read: input * 0.1 }
    }

    /// Anthropic's ratios with a cache read of its own (Sonnet 5.5, Opus 5.5, Fable 5.1).
    const fn anthropic_read(input: f64, output: f64, cache_read: f64) -> Self {
        Prices { input, output, cache_write: input * 1.25, cache_read }
    }

    pub fn scaled(self, factor: f64) -> Self {
        Prices {
            input: self.input * factor,
            output: self.output * factor,
            cache_write: self.cache_write * factor,
            cache_read: self.cache_read * factor,
        }
    }
}

/// A second price for long prompts: a call whose prompt (input + cache read + cache write
/// tokens) is above `above_prompt_tokens` is billed at `prices` for all its tokens, output
/// included (Anthropic list, Haiku 5.5: "whole request … at the higher rate"). Whether cached
/// tokens count toward the threshold is not stated; counting them is the cautious reading.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LongPromptTier {
    pub above_prompt_tokens: u64,
    pub prices: Prices,
}

/// One model as Memory Agent treats it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ModelSpec {
    /// What a model id or inference profile id contains (`anthropic.claude-haiku-5-5` and
    /// `us.anthropic.claude-haiku-5-5` both contain `claude-haiku-5-5`).
    pub id_contains: &'static str,
    pub name: &'static str,
    /// `"4.5"`, `"5.5"`: the generation as Anthropic numbers it.
    pub generation: &'static str,
    /// Through a `global.` profile (or the only price, when `regional_premium` is false).
    pub prices: Prices,
    /// Geographic profiles and in-Region ids cost 10% more (Claude 4.5 and later).
    pub regional_premium: bool,
    pub long_prompt: Option<LongPromptTier>,
    pub context_window: u64,
    pub max_output_tokens: u64,
    /// The fewest tokens a prompt prefix needs before Bedrock caches it.
    pub cache_minimum_tokens: usize,
    pub thinking: Thinking,
    /// Effort levels `output_config.effort` takes (adaptive models), lowest first.
    pub effort_levels: &'static [&'static str],
    /// Whether `temperature` may be sent. Haiku 5.5 accepts only 1 (its default) and the 5.x
    /// models answer "`temperature` is deprecated for this model."; omitting it is always safe.
    pub accepts_temperature: bool,
    /// Tokens this model's tokenizer counts for what the core's estimate (`tokens`) counts as
    /// one: Claude 4.7 and later use a tokenizer that counts about 30% more.
    pub tokenizer_factor: f64,
}

const NO_EFFORT: &[&str] = &[];
/// Opus 4.6 to 4.8 and Sonnet 4.6 (Anthropic's effort page).
const EFFORT_4: &[&str] = &["low", "medium", "high", "max"];
/// The 5.x models (Haiku 5.5's AWS card: "low, medium, high, xhigh, max").
const EFFORT_5: &[&str] = &["low", "medium", "high", "xhigh", "max"];

/// Claude 3.5 and 3: no thinking, old tokenizer, no regional premium.
const fn claude_3(id_contains: &'static str, name: &'static str, prices: Prices, max_output: u64) -> ModelSpec {
    ModelSpec {
        id_contains,
        name,
        generation: "3",
        prices,
        regional_premium: false,
        long_prompt: None,
        context_window: 200_000,
        max_output_tokens: max_output,
        cache_minimum_tokens: 1_024,
        thinking: Thinking::None,
        effort_levels: NO_EFFORT,
        accepts_temperature: true,
        tokenizer_factor: 1.0,
    }
}

/// Claude 3.7 to 4.5: thinking with a token budget, sampling parameters accepted.
const fn budget_thinker(
    id_contains: &'static str,
    name: &'static str,
    generation: &'static str,
    prices: Prices,
    regional_premium: bool,
    max_output: u64,
    cache_minimum: usize,
) -> ModelSpec {
    ModelSpec {
        id_contains,
        name,
        generation,
        prices,
        regional_premium,
        long_prompt: None,
        context_window: 200_000,
        max_output_tokens: max_output,
        cache_minimum_tokens: cache_minimum,
        thinking: Thinking::Budget,
        effort_levels: NO_EFFORT,
        accepts_temperature: true,
        tokenizer_factor: 1.0,
    }
}

/// Claude 4.6 and later: a 1M-token window, adaptive thinking, a regional premium.
const fn adaptive(
    id_contains: &'static str,
    name: &'static str,
    generation: &'static str,
    prices: Prices,
    thinking: Thinking,
    max_output: u64,
    cache_minimum: usize,
) -> ModelSpec {
    let new_tokenizer = !matches!(generation.as_bytes(), b"4.6");
    let fifth = matches!(generation.as_bytes(), [b'5', ..]);
    ModelSpec {
        id_contains,
        name,
        generation,
        prices,
        regional_premium: true,
        long_prompt: None,
        context_window: 1_000_000,
        max_output_tokens: max_output,
        // The 5.x Bedrock model cards give 512 tokens a cache checkpoint (research notes §9; the
        // Claude API says so for Haiku 5.5): the row's own minimum is for the 4.x models.
        cache_minimum_tokens: if fifth { 512 } else { cache_minimum },
        thinking,
        effort_levels: if matches!(generation.as_bytes(), b"4.6" | b"4.7" | b"4.8") { EFFORT_4 } else { EFFORT_5 },
        // 4.6 still takes sampling parameters; from 4.7 on they are refused unless default
        // (Opus 5's "`temperature` is deprecated for this model."), so none are sent.
        accepts_temperature: !new_tokenizer,
        tokenizer_factor: if new_tokenizer { 1.3 } else { 1.0 },
    }
}

/// Amazon Nova (Bedrock pricing page, checked 2026-12): cache writes cost the input price.
const fn nova(id_contains: &'static str, name: &'static str, prices: Prices) -> ModelSpec {
    ModelSpec {
        id_contains,
        name,
        generation: "1",
        prices,
        regional_premium: false,
        long_prompt: None,
        context_window: 300_000,
        max_output_tokens: 10_000,
        cache_minimum_tokens: 1_000,
        thinking: Thinking::None,
        effort_levels: NO_EFFORT,
        accepts_temperature: true,
        tokenizer_factor: 1.0,
    }
}

/// Every model Memory Agent knows, most specific fragment first: `claude-sonnet-5-5` before
/// `claude-sonnet-5`, `claude-opus-4-8` before `claude-opus-4` (the first match wins; a test
/// checks that no fragment hides a later one).
pub const MODELS: &[ModelSpec] = &[
    // Haiku 5.5: Anthropic list 2026-10-07: $0.10/$0.50 up to 100K prompt tokens, $0.50/$2.50
    // above (cache write $0.125 → $0.625, read $0.01 → $0.05). AWS card 2026-10-10: 1M window,
    // 128K output, adaptive thinking on by default. Cache minimum 512 (Anthropic overview;
    // the Bedrock card does not say otherwise).
    ModelSpec {
        id_contains: "claude-haiku-5-5",
        name: "Claude Haiku 5.5",
        generation: "5.5",
        prices: Prices::anthropic(0.10, 0.50),
        regional_premium: true,
        long_prompt: Some(LongPromptTier { above_prompt_tokens: 100_000, prices: Prices::anthropic(0.50, 2.50) }),
        context_window: 1_000_000,
        max_output_tokens: 128_000,
        cache_minimum_tokens: 512,
        thinking: Thinking::AdaptiveOnByDefault,
        effort_levels: EFFORT_5,
        accepts_temperature: false,
        tokenizer_factor: 1.3,
    },
    // Haiku 4.5: Bedrock pricing page 2026-12, $1/$5 global; AWS card: 200K, 64K, 4,096 cache minimum.
    budget_thinker("claude-haiku-4-5", "Claude Haiku 4.5", "4.5", Prices::anthropic(1.0, 5.0), true, 64_000, 4_096),
    // Claude 3.5 Haiku $0.80/$4, Claude 3 Haiku $0.25/$1.25 (Bedrock pricing page 2026-12; both retired).
    ModelSpec {
        cache_minimum_tokens: 2_048,
        ..claude_3("claude-3-5-haiku", "Claude 3.5 Haiku", Prices::anthropic(0.8, 4.0), 8_192)
    },
    ModelSpec {
        cache_minimum_tokens: 2_048,
        ..claude_3("claude-3-haiku", "Claude 3 Haiku", Prices::anthropic(0.25, 1.25), 4_096)
    },
    // Sonnet 5.5: Anthropic list 2026-10-07, $2/$10, cache read cut to $0.10; thinking always on
    // ("disabled returns 400").
    adaptive(
        "claude-sonnet-5-5",
        "Claude Sonnet 5.5",
        "5.5",
        Prices::anthropic_read(2.0, 10.0, 0.10),
        Thinking::AdaptiveAlways,
        128_000,
        1_024,
    ),
    // Sonnet 5: Anthropic list, $2/$10.
    adaptive(
        "claude-sonnet-5",
        "Claude Sonnet 5",
        "5",
        Prices::anthropic(2.0, 10.0),
        Thinking::AdaptiveOnByDefault,
        128_000,
        1_024,
    ),
    // Sonnet 4.6: Bedrock pricing page 2026-12, $3/$15; 1M window, 64K output.
    adaptive(
        "claude-sonnet-4-6",
        "Claude Sonnet 4.6",
        "4.6",
        Prices::anthropic(3.0, 15.0),
        Thinking::AdaptiveOptional,
        64_000,
        1_024,
    ),
    // Sonnet 4.5 $3/$15 with the regional premium; Sonnet 4 $3/$15 without (Bedrock pricing page 2026-12).
    budget_thinker("claude-sonnet-4-5", "Claude Sonnet 4.5", "4.5", Prices::anthropic(3.0, 15.0), true, 64_000, 1_024),
    budget_thinker("claude-sonnet-4", "Claude Sonnet 4", "4", Prices::anthropic(3.0, 15.0), false, 64_000, 1_024),
    budget_thinker("claude-3-7-sonnet", "Claude 3.7 Sonnet", "3.7", Prices::anthropic(3.0, 15.0), false, 64_000, 1_024),
    claude_3("claude-3-5-sonnet", "Claude 3.5 Sonnet", Prices::anthropic(3.0, 15.0), 8_192),
    // Opus 5.5: Anthropic list, $4/$20, cache read $0.20; thinking always on, a forced tool refused.
    adaptive(
        "claude-opus-5-5",
        "Claude Opus 5.5",
        "5.5",
        Prices::anthropic_read(4.0, 20.0, 0.20),
        Thinking::AdaptiveAlways,
        128_000,
        4_096,
    ),
    // Opus 5, 4.8, 4.7, 4.6: Anthropic list, $5/$25 (Bedrock pricing page 2026-12 for 4.6 and 4.7).
    adaptive(
        "claude-opus-5",
        "Claude Opus 5",
        "5",
        Prices::anthropic(5.0, 25.0),
        Thinking::AdaptiveOnByDefault,
        128_000,
        4_096,
    ),
    adaptive(
        "claude-opus-4-8",
        "Claude Opus 4.8",
        "4.8",
        Prices::anthropic(5.0, 25.0),
        Thinking::AdaptiveOptional,
        128_000,
        4_096,
    ),
    adaptive(
        "claude-opus-4-7",
        "Claude Opus 4.7",
        "4.7",
        Prices::anthropic(5.0, 25.0),
        Thinking::AdaptiveOptional,
        128_000,
        4_096,
    ),
    adaptive(
        "claude-opus-4-6",
        "Claude Opus 4.6",
        "4.6",
        Prices::anthropic(5.0, 25.0),
        Thinking::AdaptiveOptional,
        128_000,
        4_096,
    ),
    // Opus 4.5 $5/$25 with the premium; Opus 4.1 and 4 $15/$75 without (Bedrock pricing page 2026-12).
    budget_thinker("claude-opus-4-5", "Claude Opus 4.5", "4.5", Prices::anthropic(5.0, 25.0), true, 64_000, 4_096),
    budget_thinker("claude-opus-4-1", "Claude Opus 4.1", "4.1", Prices::anthropic(15.0, 75.0), false, 32_000, 1_024),
    budget_thinker("claude-opus-4", "Claude Opus 4", "4", Prices::anthropic(15.0, 75.0), false, 32_000, 1_024),
    claude_3("claude-3-opus", "Claude 3 Opus", Prices::anthropic(15.0, 75.0), 4_096),
    // Fable and Mythos (gated on Bedrock: "The provided model identifier is invalid" without
    // access): Anthropic list, $10/$50; 5.1 reads the cache at $0.25, 5 at $1.
    adaptive(
        "claude-fable-5-1",
        "Claude Fable 5.1",
        "5.1",
        Prices::anthropic_read(10.0, 50.0, 0.25),
        Thinking::AdaptiveAlways,
        128_000,
        4_096,
    ),
    adaptive(
        "claude-fable-5",
        "Claude Fable 5",
        "5",
        Prices::anthropic(10.0, 50.0),
        Thinking::AdaptiveAlways,
        128_000,
        4_096,
    ),
    adaptive(
        "claude-mythos-5-1",
        "Claude Mythos 5.1",
        "5.1",
        Prices::anthropic_read(10.0, 50.0, 0.25),
        Thinking::AdaptiveAlways,
        128_000,
        4_096,
    ),
    adaptive(
        "claude-mythos-5",
        "Claude Mythos 5",
        "5",
        Prices::anthropic(10.0, 50.0),
        Thinking::AdaptiveAlways,
        128_000,
        4_096,
    ),
    nova(
        "nova-micro",
        "Amazon Nova Micro",
        Prices { input: 0.035, output: 0.14, cache_write: 0.035, cache_read: 0.00875 },
    ),
    nova("nova-lite", "Amazon Nova Lite", Prices { input: 0.06, output: 0.24, cache_write: 0.06, cache_read: 0.015 }),
    nova("nova-pro", "Amazon Nova Pro", Prices { input: 0.8, output: 3.2, cache_write: 0.8, cache_read: 0.2 }),
];

/// Tokens of a question's prompt besides its memories and passages: instructions, the question,
/// earlier turns (the engine's estimate of them is 3,000; this leaves a margin).
const PROMPT_ROOM_TOKENS: u64 = 10_000;

impl ModelSpec {
    /// The largest context budget (in the core's estimated tokens) a question on this model
    /// can have: its window less the answer (`answer_tokens`, thinking included) and the rest
    /// of the prompt, counted as its tokenizer counts.
    pub fn largest_context_budget(&self, answer_tokens: u64) -> u64 {
        let room = self.context_window.saturating_sub(answer_tokens + PROMPT_ROOM_TOKENS);
        debug_assert!(self.tokenizer_factor >= 1.0, "a tokenizer factor never shrinks the estimate");
        (room as f64 / self.tokenizer_factor) as u64
    }
}

/// The model `model_id` (a base id, an inference profile id or its ARN) is, if it is known.
pub fn model_spec(model_id: &str) -> Option<&'static ModelSpec> {
    let id = model_id.to_ascii_lowercase();
    MODELS.iter().find(|spec| contains_fragment(&id, spec.id_contains))
}

/// `fragment` in `id`, not followed by another version digit: `claude-sonnet-5` is not in
/// `claude-sonnet-5-5`, `claude-opus-4` is not in `claude-opus-4-8` — but `claude-opus-4` is
/// in `claude-opus-4-20250514-v1:0` (a date, eight digits, is no version).
fn contains_fragment(id: &str, fragment: &str) -> bool {
    id.match_indices(fragment).any(|(at, _)| {
        let rest = &id[at + fragment.len()..];
        let Some(after_dash) = rest.strip_prefix('-') else { return true };
        let digits = after_dash.bytes().take_while(u8::is_ascii_digit).count();
        digits == 0 || digits >= 8 || !matches!(after_dash.as_bytes().get(digits), None | Some(b'-' | b':' | b'.'))
    })
}

/// Whether `model_id` is called through a `global.` inference profile.
pub fn is_global_profile(model_id: &str) -> bool {
    let id = model_id.to_ascii_lowercase();
    id.starts_with("global.") || id.contains(":inference-profile/global.")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_id_finds_its_own_model_not_a_shorter_one() {
        let name = |id: &str| model_spec(id).map(|spec| spec.name);
        assert_eq!(name("us.anthropic.claude-haiku-5-5"), Some("Claude Haiku 5.5"));
        assert_eq!(name("global.anthropic.claude-haiku-5-5"), Some("Claude Haiku 5.5"));
        assert_eq!(name("anthropic.claude-haiku-4-5-20251001-v1:0"), Some("Claude Haiku 4.5"));
        assert_eq!(name("anthropic.claude-sonnet-5"), Some("Claude Sonnet 5"));
        assert_eq!(name("eu.anthropic.claude-sonnet-5-5"), Some("Claude Sonnet 5.5"));
        assert_eq!(name("anthropic.claude-sonnet-4-20250514-v1:0"), Some("Claude Sonnet 4"));
        assert_eq!(name("anthropic.claude-opus-4-20250514-v1:0"), Some("Claude Opus 4"));
        assert_eq!(name("anthropic.claude-opus-4-8"), Some("Claude Opus 4.8"));
        assert_eq!(name("anthropic.claude-opus-4-6-v1"), Some("Claude Opus 4.6"));
        assert_eq!(name("anthropic.claude-opus-4-1-20250805-v1:0"), Some("Claude Opus 4.1"));
        assert_eq!(name("anthropic.claude-fable-5-1"), Some("Claude Fable 5.1"));
        assert_eq!(
            name("arn:aws:bedrock:us-east-1:123456789012:inference-profile/global.anthropic.claude-opus-5-5"),
            Some("Claude Opus 5.5")
        );
        assert_eq!(name("us.amazon.nova-lite-v1:0"), Some("Amazon Nova Lite"));
        assert_eq!(name("anthropic.claude-haiku-6"), None, "a model not in the table is unknown");
        assert_eq!(name("meta.llama3-70b-instruct-v1:0"), None);
    }

    #[test]
    fn no_fragment_is_hidden_behind_an_earlier_one() {
        for (index, spec) in MODELS.iter().enumerate() {
            let id = format!("us.anthropic.{}", spec.id_contains);
            assert_eq!(model_spec(&id).map(|found| found.name), Some(spec.name), "row {index}");
        }
    }

    #[test]
    fn haiku_5_5_is_as_anthropic_and_aws_describe_it() {
        let haiku = model_spec("us.anthropic.claude-haiku-5-5").unwrap();
        assert_eq!(haiku.cache_minimum_tokens, 512);
        assert_eq!(haiku.thinking, Thinking::AdaptiveOnByDefault);
        assert!(!haiku.accepts_temperature);
        assert!((haiku.tokenizer_factor - 1.3).abs() < 1e-9);
        assert_eq!(haiku.long_prompt.unwrap().above_prompt_tokens, 100_000);
        assert!((haiku.long_prompt.unwrap().prices.output - 2.5).abs() < 1e-9);
        assert_eq!((haiku.context_window, haiku.max_output_tokens), (1_000_000, 128_000));
    }

    #[test]
    fn the_largest_budget_follows_the_window_and_the_tokenizer() {
        let haiku_4_5 = model_spec("anthropic.claude-haiku-4-5-20251001-v1:0").unwrap();
        assert_eq!(haiku_4_5.largest_context_budget(3_000), 187_000);
        let haiku_5_5 = model_spec("us.anthropic.claude-haiku-5-5").unwrap();
        assert_eq!(haiku_5_5.largest_context_budget(3_000), 759_230, "(1M − 13K) / 1.3");
    }

    #[test]
    fn the_4_6_models_keep_the_old_tokenizer_and_sampling_and_4_7_on_do_not() {
        let opus_4_6 = model_spec("anthropic.claude-opus-4-6-v1").unwrap();
        assert!(opus_4_6.accepts_temperature && opus_4_6.tokenizer_factor == 1.0);
        let opus_4_7 = model_spec("anthropic.claude-opus-4-7").unwrap();
        assert!(!opus_4_7.accepts_temperature && opus_4_7.tokenizer_factor > 1.0);
        assert!(model_spec("anthropic.claude-haiku-4-5-20251001-v1:0").unwrap().accepts_temperature);
    }
}
