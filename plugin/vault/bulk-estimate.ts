// What queueing many notes at once will roughly cost: tokens from the files' sizes (chars/4,
// as the core estimates) plus the prompt sent with each note, priced as Claude Haiku 4.5.

/** Tokens of the ingest prompt and tool schema sent with every note (measured, rounded up). */
export const PROMPT_TOKENS_PER_NOTE = 700;
/** A `record_memory` answer is a few sentences and lists. */
export const OUTPUT_TOKENS_PER_NOTE = 200;
/** Claude Haiku 4.5 on Bedrock, US dollars per million tokens. */
export const INPUT_USD_PER_MILLION = 1;
export const OUTPUT_USD_PER_MILLION = 5;

export interface BulkEstimate {
	notes: number;
	inputTokens: number;
	outputTokens: number;
	costUsd: number;
}

export function estimateBulk(sizes: readonly number[]): BulkEstimate {
	const bytes = sizes.reduce((sum, size) => sum + size, 0);
	const inputTokens = Math.ceil(bytes / 4) + sizes.length * PROMPT_TOKENS_PER_NOTE;
	const outputTokens = sizes.length * OUTPUT_TOKENS_PER_NOTE;
	const costUsd = (inputTokens * INPUT_USD_PER_MILLION + outputTokens * OUTPUT_USD_PER_MILLION) / 1_000_000;
	return { notes: sizes.length, inputTokens, outputTokens, costUsd };
}

/** "$0.42", or "less than $0.01". */
export function formatUsd(amount: number): string {
	if (amount < 0.01) return "less than $0.01";
	return `$${amount.toFixed(2)}`;
}

/** The top-level folder of a path ("" for a note at the vault's root). */
export function topFolder(path: string): string {
	const slash = path.indexOf("/");
	return slash < 0 ? "" : path.slice(0, slash);
}
