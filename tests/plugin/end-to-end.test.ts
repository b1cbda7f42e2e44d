// The whole product in the headless host: a small vault is remembered, consolidated and asked
// about through the built main.js and the fake Bedrock; then again with 30% of calls failing.

import assert from "node:assert/strict";
import { afterEach, test } from "node:test";
import type { RecordedRequest, Reply } from "../fake-bedrock/index";
import { asRecord, requestedToolName } from "../fake-bedrock/replies";
import type { Host } from "../host/host";
import { batchedMemories } from "../support/batched-ingest";
import { allMemories, startAnsweringFake, startVaultHost, statusOf, storeOf, waitForIdle, writeNotes, writeSettings } from "../support/vault-host";

let host: Host | undefined;
let closeFake: (() => Promise<void>) | undefined;

afterEach(async () => {
	await host?.stop();
	await closeFake?.();
	host = undefined;
	closeFake = undefined;
});

const NOTES: Record<string, string> = {
	"Meetings/Alice budget.md": "# Q3 budget\nAlice wants to cut the Q3 budget by 10% to fund hiring.\n",
	"Meetings/Bob budget.md": "# Q3 budget\nBob disagrees with Alice: the Q3 budget cut would delay the launch.\n",
	"Daily/2026-11-02.md": "Ran 5 km in the park. Felt good.\n",
	"Projects/Apollo.md": "# Apollo\nThe Apollo launch moves to January.\n",
	"Recipes/Soup.md": "Leek and potato soup: leeks, potatoes, stock, cream.\n",
	"Reading/Books.md": "Finished reading a book about habits.\n",
};

/** The text of every user message in a Converse request. */
function userText(request: RecordedRequest): string {
	const messages = (asRecord(request.json)?.messages as Array<{ content: Array<{ text?: string }> }> | undefined) ?? [];
	return messages.flatMap((message) => message.content.map((block) => block.text ?? "")).join("\n");
}

/** A memory of a fenced piece: its first line that is not a heading, and the people it names. */
function memoryOf(fenced: string): Record<string, unknown> {
	// The fence opens with the note's file name, section and properties, then a blank line.
	const note = fenced.replace(/^(?:(?:File|Section|Properties): .*\n)+\n/, "").trim();
	const line = note.split("\n").find((candidate) => !candidate.startsWith("#")) ?? note;
	const people = ["Alice", "Bob"].filter((name) => note.includes(name)).map((name) => ({ name, kind: "person" }));
	return { nothing_to_remember: false, summary: line, entities: people, topics: ["notes"], importance: 0.5, happened_on: [] };
}

/** A model that summarises the first line, links all memories, and answers budget questions from the budget memories. */
function model(request: RecordedRequest): Reply {
	const tool = requestedToolName(asRecord(request.json) ?? {});
	const text = userText(request);
	if (tool === "record_memory") return { toolUse: { name: "record_memory", input: memoryOf(text.slice(text.indexOf("<note>") + 7, text.lastIndexOf("</note>"))) } };
	if (tool === "record_memories") return { toolUse: { name: "record_memories", input: batchedMemories(text, memoryOf) } };
	if (tool === "record_insights") {
		// The consolidation prompt lists memories as "[m-0123456789] date · source · summary".
		const all = [...new Set([...text.matchAll(/\[(m-[0-9a-f]{10})\]/g)].map((match) => match[1]))];
		return { toolUse: { name: "record_insights", input: { insights: all.length < 2 ? [] : [{ insight: "These notes were written in the same season.", memory_ids: all, connections: [] }] } } };
	}
	const ids = [...text.matchAll(/\[memory:(m-[0-9a-f]{10})\][^\n]*/g)];
	const budget = ids.filter((match) => /budget/i.test(match[0])).map((match) => `[memory:${match[1]}]`);
	return { text: budget.length > 0 ? `Alice wants a 10% cut ${budget[0]}, and Bob disagrees ${budget[1] ?? ""}.` : "That is not in your memories." };
}

async function start(failureRate: number) {
	const fake = await startAnsweringFake();
	closeFake = () => fake.close();
	fake.respond = model;
	if (failureRate > 0) fake.failRandomly(failureRate, 7);
	host = await startVaultHost();
	await writeNotes(host, NOTES);
	await writeSettings(host, fake, { consolidationThreshold: 5, bulkConfirmThreshold: 1000 });
	await host.loadPlugin();
	await host.waitForCore();
	return { fake, host };
}

test("a small vault is remembered, consolidated, and a question that needs two notes is answered with citations to them", { timeout: 60_000 }, async () => {
	const { host } = await start(0);
	await waitForIdle(host, "the vault to be remembered and consolidated");
	const store = storeOf(host);
	const status = await store.status();
	assert.equal(status.memories, Object.keys(NOTES).length);
	assert.equal(status.insights, 1, "five or more new memories were consolidated");
	const answer = await store.ask("What did Alice and Bob say about the Q3 budget?");
	assert.ok(answer.askedModel);
	// Copied out of the plugin's realm, whose arrays have another prototype.
	const cited = Array.from(answer.citations, (citation) => citation.sourcePath).sort();
	assert.deepEqual(cited, ["Meetings/Alice budget.md", "Meetings/Bob budget.md"]);
	assert.ok(answer.citations.every((citation) => citation.heading === "Q3 budget"), "each citation knows its heading");
	assert.equal(answer.unknownCitations.length, 0);
});

test("with 30% of model calls failing at random, every note still ends up remembered exactly once", { timeout: 120_000 }, async () => {
	const { fake, host } = await start(0.3);
	// The client retries each call up to five times with backoff, so the work completes
	// despite the faults; wait for it (real time: the backoffs are short).
	await host.waitFor(
		async () => {
			const status = await statusOf(host);
			return status.queued === 0 && status.running === 0 && status.memories === Object.keys(NOTES).length;
		},
		{ timeoutMs: 90_000, message: "every note to be remembered despite the faults" },
	);
	assert.equal((await statusOf(host)).failed, 0);
	assert.ok(fake.requests.some((request) => request.injected), "faults were injected");
	const memories = await allMemories(host);
	const perNote = new Map<string, number>();
	for (const memory of memories) perNote.set(memory.source_path, (perNote.get(memory.source_path) ?? 0) + 1);
	assert.deepEqual([...perNote.keys()].sort(), Object.keys(NOTES).sort());
	assert.ok([...perNote.values()].every((count) => count === 1), JSON.stringify([...perNote]));
});
