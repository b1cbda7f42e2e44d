// The short line under an answer saying what the model was given (no Obsidian imports).

import type { QueryAnswer } from "../core/memory-core-api";

/** `41k tokens`, `850 tokens`. */
export function tokenCount(tokens: number): string {
	if (tokens < 1_000) return `${tokens.toLocaleString()} tokens`;
	return `${Math.round(tokens / 1_000).toLocaleString()}k tokens`;
}

/** "Considered 2,104 memories, packed 612, 41k tokens" (and the insights, when there are any); "" when no model was asked. */
export function consideredText(answer: Pick<QueryAnswer, "considered" | "askedModel">): string {
	if (!answer.askedModel) return "";
	const { memoriesTotal, memoriesPacked, insightsTotal, insightsPacked, tokensPacked } = answer.considered;
	const memories = `Considered ${memoriesTotal.toLocaleString()} ${memoriesTotal === 1 ? "memory" : "memories"}, packed ${memoriesPacked.toLocaleString()}`;
	const insights = insightsTotal > 0 ? ` and ${insightsPacked.toLocaleString()} of ${insightsTotal.toLocaleString()} ${insightsTotal === 1 ? "insight" : "insights"}` : "";
	return `${memories}${insights}, ${tokenCount(tokensPacked)}`;
}
