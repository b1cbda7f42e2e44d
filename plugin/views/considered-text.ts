// The short line under an answer saying what the model was given (no Obsidian imports).

import type { QueryAnswer } from "../core/memory-core-api";

/** `41k tokens`, `850 tokens`. */
export function tokenCount(tokens: number): string {
	if (tokens < 1_000) return `${tokens.toLocaleString()} tokens`;
	return `${Math.round(tokens / 1_000).toLocaleString()}k tokens`;
}

/** "Considered 2,104 memories, packed 612, 41k tokens" (and the insights, when there are any; "… memories in scope" for a scoped question); "" when no model was asked. */
export function consideredText(answer: Pick<QueryAnswer, "considered" | "askedModel">): string {
	if (!answer.askedModel) return "";
	const { memoriesTotal, memoriesPacked, insightsTotal, insightsPacked, tokensPacked } = answer.considered;
	const inScope = answer.considered.scoped ? " in scope" : "";
	const memories = `Considered ${memoriesTotal.toLocaleString()} ${memoriesTotal === 1 ? "memory" : "memories"}${inScope}, packed ${memoriesPacked.toLocaleString()}`;
	const insights = insightsTotal > 0 ? ` and ${insightsPacked.toLocaleString()} of ${insightsTotal.toLocaleString()} ${insightsTotal === 1 ? "insight" : "insights"}` : "";
	return `${memories}${insights}, ${tokenCount(tokensPacked)}`;
}

/** "Also searched for: hiking, camping, tent" when a planning call added words; "" otherwise. */
export function plannedText(answer: Pick<QueryAnswer, "considered">): string {
	const words = answer.considered.plannedKeywords ?? [];
	return words.length === 0 ? "" : `Also searched for: ${words.join(", ")}`;
}

/** Dollars with two significant digits below a cent: "$0.0031", "$0.42". */
export function usd(amount: number): string {
	if (amount >= 0.01) return `$${amount.toFixed(2)}`;
	return `$${amount.toPrecision(2)}`;
}

/** "2,104 tokens in, 180 out · about $0.0031"; "" when no model was asked. */
export function answerCostText(answer: Pick<QueryAnswer, "cost">): string {
	const cost = answer.cost;
	if (cost === null) return "";
	const input = cost.usage.inputTokens + cost.usage.cacheReadTokens + cost.usage.cacheWriteTokens;
	const price = cost.priceKnown ? "" : " (the model's price is unknown: at the highest Claude price)";
	const calls = cost.longPromptCalls;
	const long = calls === 0 ? "" : ` (${calls === 1 ? "one call" : `${calls} calls`} above the model's long-prompt price: a smaller context budget keeps questions below it)`;
	return `${input.toLocaleString()} tokens in, ${cost.usage.outputTokens.toLocaleString()} out · about ${usd(cost.usd)}${price}${long}`;
}

/** "1 citation left out: the model cited a memory it was not given" (the core drops those); "" when none was. */
export function droppedCitationsText(answer: Pick<QueryAnswer, "unknownCitations">): string {
	const count = answer.unknownCitations.length;
	if (count === 0) return "";
	return count === 1 ? "1 citation left out: the model cited a memory it was not given" : `${count} citations left out: the model cited memories it was not given`;
}
