// The first-ingest benchmark's model (scripts/bench/ingest-model.ts) and prices
// (scripts/bench/ingest-prices.ts): a batched answer keys each memory to its own chunk, facts
// scale with the text within the core's limit, and a call is priced by its prompt's tier.

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { chunksIn, ingestModel } from "../../scripts/bench/ingest-model";
import { MODELS, callDollars } from "../../scripts/bench/ingest-prices";
import type { RecordedRequest } from "./index";

function forced(tool: string, message: string): RecordedRequest {
	const json = {
		messages: [{ role: "user", content: [{ text: message }] }],
		toolConfig: { tools: [{ toolSpec: { name: tool } }], toolChoice: { tool: { name: tool } } },
	};
	return { json } as unknown as RecordedRequest;
}

/** `words` words of distinct prose about `topic`, in sentences of ten words. */
function prose(topic: string, words: number): string {
	const sentences: string[] = [];
	for (let i = 0; i < words / 10; i++) sentences.push(`The ${topic} plan number ${i} needs review by the team before Friday.`);
	return sentences.join(" ");
}

type Memory = { chunk?: string; summary: string; facts: string[] };

describe("the ingest bench model", () => {
	it("answers a batch with one memory per chunk, each made from its own chunk only", () => {
		const message =
			`Note date: 2026-12-02 (Wednesday)\n\n<note id="c1">\nFile: a.md\n\n${prose("apollo", 120)}\n</note>\n\n` +
			`<note id="c2">\nFile: b.md\nSection: Budget\n\n${prose("cedar", 400)}\n</note>`;
		const request = forced("record_memories", message);
		const reply = ingestModel(request) as { toolUse: { name: string; input: { memories: Memory[] } } };
		assert.equal(reply.toolUse.name, "record_memories");
		const [first, second] = reply.toolUse.input.memories;
		assert.deepEqual([first?.chunk, second?.chunk], ["c1", "c2"]);
		assert.ok([first!.summary, ...first!.facts].every((text) => text.includes("apollo") && !text.includes("cedar")));
		assert.ok([second!.summary, ...second!.facts].every((text) => text.includes("cedar") && !text.includes("apollo")));
		assert.equal(chunksIn(request), 2);
	});

	it("writes about a fact per 40 words, never more than the core's limit", () => {
		const factsFor = (words: number) => {
			const reply = ingestModel(forced("record_memory", `Facts: at most 30 for this text.\n\n<note>\nFile: n.md\n\n${prose("kestrel", words)}\n</note>`));
			return (reply as { toolUse: { input: Memory } }).toolUse.input.facts.length;
		};
		assert.equal(factsFor(30), 1);
		// 400 words by the core's count (¾ of a token a word at ≈ 4 characters a token) is about 12.
		assert.ok(factsFor(400) >= 9 && factsFor(400) <= 14, `${factsFor(400)}`);
		assert.ok(factsFor(4_000) <= 30);
	});
});

describe("the ingest bench prices", () => {
	const haiku55 = MODELS.find((model) => model.key === "haiku-5.5")!;
	const haiku45 = MODELS.find((model) => model.key === "haiku-4.5")!;

	it("prices a Haiku 4.5 call at its regional price, cache reads and writes apart", () => {
		const { dollars } = callDollars(haiku45, ["record_memory", 1, 1_000_000, 100_000, 1_000_000, 1_000_000, 200]);
		assert.equal(dollars.toFixed(4), (1.1 + 0.55 + 0.11 + 1.375).toFixed(4));
	});

	it("prices a whole Haiku 5.5 call at the long-prompt rate once its prompt passes 100,000 of its tokens", () => {
		const fakeTokens = (modelTokens: number) => Math.floor(modelTokens / haiku55.tokenFactor);
		const short = callDollars(haiku55, ["answer", 0, fakeTokens(99_000), 1_000, 0, 0, 200]);
		const long = callDollars(haiku55, ["answer", 0, fakeTokens(90_000), 1_000, fakeTokens(12_000), 0, 200]);
		assert.equal(short.long, false);
		assert.equal(long.long, true);
		assert.ok(long.dollars > 4 * short.dollars, `${long.dollars} vs ${short.dollars}`);
	});
});
