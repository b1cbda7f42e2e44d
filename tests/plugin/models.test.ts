// Claude Haiku 5.5 chosen by id, through main.js against the fake Bedrock that refuses what 5.x
// refuses (a temperature, a forced tool while thinking): notes are remembered and questions
// answered with no rejected request, and an answer's cost is Haiku 5.5's own price.

import assert from "node:assert/strict";
import { afterEach, test } from "node:test";
import { usd } from "../../plugin/views/considered-text";
import { type UiHost, askInPanel, rememberNotes, startUiHost, waitForMemories } from "./views-fixture";

let ui: UiHost | undefined;
afterEach(async () => {
	await ui?.close();
	ui = undefined;
});

const HAIKU_5_5 = "us.anthropic.claude-haiku-5-5";

/** Haiku 5.5 through a US profile (10% over global): dollars per million tokens. */
const PRICES = { input: 0.11, output: 0.55, cacheRead: 0.011, cacheWrite: 0.1375 };

interface Usage {
	inputTokens: number;
	outputTokens: number;
	cacheReadInputTokens: number;
	cacheWriteInputTokens: number;
}

for (const thinking of ["off", "low"] as const) {
	test(`Haiku 5.5 chosen by id remembers and answers with no rejected request (thinking for answers: ${thinking})`, async () => {
		ui = await startUiHost({ settings: { dailyConsolidation: false, modelId: HAIKU_5_5, answerThinking: thinking } });
		const { host, fake } = ui;
		await rememberNotes(host);
		await waitForMemories(host, 3);
		const exchange = await askInPanel(host, "When do we fly to Lisbon?");
		const converse = fake.requests.filter((request) => request.path.endsWith("/converse"));
		assert.deepEqual(converse.map((request) => request.response?.status), converse.map(() => 200), "no request was refused");
		for (const request of converse) {
			const json = request.json as { inferenceConfig: Record<string, unknown>; toolConfig?: { toolChoice?: Record<string, unknown> } };
			assert.equal(json.inferenceConfig.temperature, undefined);
		}
		const question = converse[converse.length - 1]!;
		const reply = JSON.parse(question.response!.body) as { usage: Usage; output: { message: { content: Array<Record<string, unknown>> } } };
		assert.equal("reasoningContent" in reply.output.message.content[0]!, thinking === "low", "it thinks only when asked to");
		const text = exchange.textContent ?? "";
		assert.ok(!text.includes("ZmFrZS10aGlua2luZw"), "thinking is never shown");
		// The cost line: this call's tokens at Haiku 5.5's price, its thinking included in the output.
		const { usage } = reply;
		const dollars =
			(usage.inputTokens * PRICES.input + usage.outputTokens * PRICES.output + usage.cacheReadInputTokens * PRICES.cacheRead + usage.cacheWriteInputTokens * PRICES.cacheWrite) / 1e6;
		const cost = exchange.querySelector(".memory-agent-cost")?.textContent ?? "";
		assert.ok(cost.endsWith(`${usage.outputTokens.toLocaleString()} out · about ${usd(dollars)}`), `${cost} at ${usd(dollars)}`);
	});
}
