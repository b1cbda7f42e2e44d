// What the first-ingest benchmark prices calls at: the models it runs, their prices per million
// tokens through the `us.` profile (us-east-1's), Haiku 5.5's price tier by prompt size and its
// tokenizer's count of the same text.

import { PromptCache } from "../../tests/fake-bedrock/usage";

/** One answered call as the model server reports it (scripts/bench/model-server.ts --ingest). */
export type Call = [tool: string, chunks: number, input: number, output: number, cacheRead: number, cacheWrite: number, status: number | string];

/** US dollars per million tokens. */
export interface Prices {
	input: number;
	output: number;
	cacheWrite: number;
	cacheRead: number;
}

/**
 * A model as the bench prices it. The prices are those of the `us.` profile, the one us-east-1
 * calls (the bench's region), which costs 10% more than `global.` from the 4.5 generation on.
 */
export interface BenchModel {
	key: string;
	label: string;
	modelId: string;
	prices: Prices;
	/** Above this many prompt tokens (input + cache read + cache write) a call costs `longPrompt` for all of it. */
	tierTokens?: number;
	longPrompt?: Prices;
	/** The model's tokens for the fake's (which counts every model alike). */
	tokenFactor: number;
}

/**
 * Claude Haiku 4.5 through `us.`: src/llm/pricing.rs (the Amazon Bedrock pricing page, checked
 * 2026-12): $1 / $5 through `global.`, 10% more regionally; a cache write 1.25× the input price,
 * a read 0.1×.
 */
const HAIKU_4_5_US_PRICES: Prices = { input: 1.1, output: 5.5, cacheWrite: 1.375, cacheRead: 0.11 };

/**
 * PLACEHOLDERS for Claude Haiku 5.5 through `us.`, to switch at merge to the core's own table
 * (`crate::llm::models::model_spec`) once the facade exposes it. Anthropic's Haiku 5.5 overview
 * (https://platform.claude.com/docs/en/models/haiku-5-5/overview, pricing table): $0.10 / $0.50,
 * cache write $0.125, read $0.01 for prompts up to 100,000 tokens, and the whole request at
 * $0.50 / $2.50 (write $0.625, read $0.05) above; Bedrock's geographic profiles 10% more
 * ($0.11 / $0.55, a third-party price list "from the AWS pricing page, 2026-10-07"). Bedrock's
 * long-prompt rates are expected, not confirmed; whether cached tokens count toward the 100K
 * is not said, so they count here (the cautious reading).
 */
const HAIKU_5_5_US_PRICES: Prices = { input: 0.11, output: 0.55, cacheWrite: 0.1375, cacheRead: 0.011 };
const HAIKU_5_5_US_LONG_PROMPT_PRICES: Prices = { input: 0.55, output: 2.75, cacheWrite: 0.6875, cacheRead: 0.055 };
const HAIKU_5_5_PRICE_TIER_TOKENS = 100_000;
/**
 * Haiku 5.5 "uses the same newer tokenizer as Claude 4.7 and later models, so the same text
 * counts as approximately 30% more tokens than on Claude Haiku 4.5" (Anthropic's Haiku 5.5
 * overview, above).
 */
const HAIKU_5_5_TOKENS_PER_HAIKU_4_5_TOKEN = 1.3;

const HAIKU_4_5_ID = "us.anthropic.claude-haiku-4-5-20251001-v1:0";
const HAIKU_5_5_ID = "us.anthropic.claude-haiku-5-5";

/**
 * How many more tokens the fake already counts for Haiku 5.5 than for Haiku 4.5 on the same
 * request: 1 while it counts every model alike; if it learns the newer tokenizer, the bench
 * must not apply the factor twice.
 */
function fakeTokenizerRatio(): number {
	const json = { messages: [{ role: "user", content: [{ text: "A sentence of plain English text. ".repeat(400) }] }] };
	const body = JSON.stringify(json);
	const count = (modelId: string) => new PromptCache().usage(modelId, body, json, [{ text: "An answer." }], 0).inputTokens;
	return count(HAIKU_5_5_ID) / count(HAIKU_4_5_ID);
}

export const MODELS: BenchModel[] = [
	{ key: "haiku-4.5", label: "Claude Haiku 4.5", modelId: HAIKU_4_5_ID, prices: HAIKU_4_5_US_PRICES, tokenFactor: 1 },
	{
		key: "haiku-5.5",
		label: "Claude Haiku 5.5",
		modelId: HAIKU_5_5_ID,
		prices: HAIKU_5_5_US_PRICES,
		tierTokens: HAIKU_5_5_PRICE_TIER_TOKENS,
		longPrompt: HAIKU_5_5_US_LONG_PROMPT_PRICES,
		tokenFactor: HAIKU_5_5_TOKENS_PER_HAIKU_4_5_TOKEN / fakeTokenizerRatio(),
	},
];

/** Dollars for one call, in the model's tokens: the tier its prompt (input + cache) falls in prices all of it. */
export function callDollars(model: BenchModel, call: Call): { dollars: number; long: boolean } {
	const [input, output, cacheRead, cacheWrite] = [call[2], call[3], call[4], call[5]].map((tokens) => tokens * model.tokenFactor) as [number, number, number, number];
	const long = model.tierTokens !== undefined && model.longPrompt !== undefined && input + cacheRead + cacheWrite > model.tierTokens;
	const prices = long ? model.longPrompt! : model.prices;
	return { dollars: (input * prices.input + output * prices.output + cacheRead * prices.cacheRead + cacheWrite * prices.cacheWrite) / 1e6, long };
}
