// Claude Haiku 5.5 through the built main.js and the fake Bedrock, which refuses what Bedrock refuses for it
// (a temperature, thinking with the wrong fields…): chosen by id, as the default in us-east-1, the fallback to
// Haiku 4.5 when the account may not call it, and each answer priced at its own model's price.

import assert from "node:assert/strict";
import { afterEach, test } from "node:test";
import type { FakeBedrock, RecordedRequest } from "../fake-bedrock/index";
import type { Host } from "../host/host";
import { SettingsTabDriver } from "../support/settings-tab-driver";
import { ingestedChunks, ingestRequests, startAnsweringFake, startVaultHost, storeOf, waitForIdle, writeNotes, writeSettings } from "../support/vault-host";

const HAIKU_5_5 = "us.anthropic.claude-haiku-5-5";
const HAIKU_4_5 = "us.anthropic.claude-haiku-4-5-20251001-v1:0";

const NOTES: Record<string, string> = {
	"Meetings/Budget.md": "# Q3 budget\nAlice wants to cut the Q3 budget by 10% to fund hiring.\n",
	"Daily/2026-11-02.md": "Ran 5 km in the park. Felt good.\n",
	"Projects/Apollo.md": "# Apollo\nThe Apollo launch moves to January.\n",
};

let host: Host | undefined;
let fake: FakeBedrock | undefined;
afterEach(async () => {
	await host?.stop();
	await fake?.close();
	host = undefined;
	fake = undefined;
});

async function start(settings: Record<string, unknown>, deniedModels: string[] = []): Promise<{ host: Host; fake: FakeBedrock }> {
	fake = await startAnsweringFake();
	for (const id of deniedModels) fake.deniedModels.add(id);
	host = await startVaultHost();
	await writeNotes(host, NOTES);
	await writeSettings(host, fake, { region: "us-east-1", bulkConfirmThreshold: 1000, ...settings });
	await host.loadPlugin();
	await host.waitForCore();
	return { host, fake };
}

/** Every Converse request the fake refused (4xx), as "status model: message" for the assertion's text. */
function refused(requests: readonly RecordedRequest[]): string[] {
	return requests
		.filter((request) => typeof request.response?.status === "number" && request.response.status >= 400)
		.map((request) => `${String(request.response?.status)} ${request.modelId ?? request.path}: ${request.response?.body ?? ""}`);
}

test("Claude Haiku 5.5 chosen by id remembers notes and answers a question with no rejected request", { timeout: 60_000 }, async () => {
	const { host, fake } = await start({ modelId: HAIKU_5_5 });
	await waitForIdle(host, "the notes to be remembered with Haiku 5.5");
	const store = storeOf(host);
	const status = await store.status();
	assert.deepEqual(refused(fake.requests), [], "Bedrock would have refused none of these requests");
	assert.equal(status.failed, 0);
	assert.equal(status.memories, Object.keys(NOTES).length);
	assert.ok(ingestedChunks(fake) >= Object.keys(NOTES).length);
	const answer = await store.ask("What did Alice say about the Q3 budget?");
	assert.ok(answer.askedModel);
	assert.deepEqual(refused(fake.requests), []);
	assert.ok(fake.requests.every((request) => request.modelId === HAIKU_5_5));
	assert.ok(!answer.answer.includes("The user asks something"), "the thinking text is never the answer");
});

test("the default in us-east-1 is Claude Haiku 5.5: Test connection names it", { timeout: 60_000 }, async () => {
	const { host, fake } = await start({});
	const check = await SettingsTabDriver.open(host).testConnection();
	assert.equal(check.ok, true, check.text);
	assert.match(check.text, /^Connected to us\.anthropic\.claude-haiku-5-5 in us-east-1 in [\d,]+ ms\.$/);
	assert.equal(fake.requests.at(-1)?.modelId, HAIKU_5_5);
	assert.equal((await storeOf(host).status()).modelFallback, null);
});

test("Test connection pressed while the memory is still starting waits for it and connects", { timeout: 60_000 }, async () => {
	fake = await startAnsweringFake();
	host = await startVaultHost();
	await writeNotes(host, NOTES);
	await writeSettings(host, fake, { region: "us-east-1", bulkConfirmThreshold: 1000 });
	await host.loadPlugin();
	const plugin = host.plugin as unknown as { runtime: { store(): unknown } };
	assert.equal(plugin.runtime.store(), undefined, "pressed before the store opened");
	const check = await SettingsTabDriver.open(host).testConnection();
	assert.equal(check.ok, true, check.text);
	assert.match(check.text, /^Connected to us\.anthropic\.claude-haiku-5-5 in us-east-1/);
});

test("the default in us-east-1 remembers notes with Claude Haiku 5.5 and no rejected request", { timeout: 60_000 }, async () => {
	const { host, fake } = await start({});
	await waitForIdle(host, "the notes to be remembered with the default model");
	assert.deepEqual(refused(fake.requests), []);
	assert.ok(ingestRequests(fake).every((request) => request.modelId === HAIKU_5_5));
	assert.equal((await storeOf(host).status()).memories, Object.keys(NOTES).length);
});

test("without access to Claude Haiku 5.5 the default falls back to Haiku 4.5 once, with one message, and Test connection says so", { timeout: 60_000 }, async () => {
	const { host, fake } = await start({}, ["anthropic.claude-haiku-5-5"]);
	await waitForIdle(host, "the notes to be remembered after the fallback");
	const status = await storeOf(host).status();
	assert.equal(status.failed, 0);
	assert.equal(status.paused, null, "a denied default is not a settings error");
	assert.equal(status.memories, Object.keys(NOTES).length);
	// Only the calls sent before the client read the first denial asked the default (at most the 4 it sends at
	// once), all before the first call to Haiku 4.5; every other call went to Haiku 4.5 and was answered.
	const denied = fake.requests.filter((request) => request.modelId === HAIKU_5_5);
	assert.ok(denied.length >= 1 && denied.length <= 4, `${denied.length} calls to the default`);
	const lastDenied = Math.max(...fake.requests.map((request, index) => (request.modelId === HAIKU_5_5 ? index : -1)));
	assert.ok(lastDenied < fake.requests.findIndex((request) => request.modelId === HAIKU_4_5), "no call to the default after the fallback");
	assert.ok(denied.every((request) => request.response?.status === 403), JSON.stringify(refused(fake.requests)));
	const fellBack = fake.requests.filter((request) => request.modelId !== HAIKU_5_5);
	// The notes' chunks share batched calls: every chunk reached Haiku 4.5, each call answered.
	assert.ok(fellBack.length >= 1 && fellBack.every((request) => request.modelId === HAIKU_4_5 && request.response?.status === 200));
	assert.ok(ingestedChunks({ requests: fellBack }) >= Object.keys(NOTES).length);
	assert.match(status.modelFallback ?? "", /uses us\.anthropic\.claude-haiku-4-5-20251001-v1:0 because this AWS account has no access to the default model us\.anthropic\.claude-haiku-5-5 in us-east-1/);
	const told = host.notices.filter((notice) => notice.includes("no access to the default model"));
	assert.equal(told.length, 1, JSON.stringify(host.notices));

	const sentBefore = fake.requests.length;
	const check = await SettingsTabDriver.open(host).testConnection();
	assert.equal(check.ok, true, check.text);
	assert.match(check.text, /^Connected to us\.anthropic\.claude-haiku-4-5-20251001-v1:0 in us-east-1 in [\d,]+ ms\. Memory Agent uses .* no access to the default model us\.anthropic\.claude-haiku-5-5/);
	assert.deepEqual(
		fake.requests.slice(sentBefore).map((request) => request.modelId),
		[HAIKU_4_5],
		"the same connection does not ask the denied default again",
	);
	assert.equal(host.notices.filter((notice) => notice.includes("no access to the default model")).length, 1, "told once");
});

test("a typed Claude Haiku 5.5 that is denied stays a clear error, never replaced", { timeout: 60_000 }, async () => {
	const { host, fake } = await start({ modelId: HAIKU_5_5 }, ["anthropic.claude-haiku-5-5"]);
	const check = await SettingsTabDriver.open(host).testConnection();
	assert.equal(check.ok, false);
	assert.match(check.text, /access/i);
	assert.ok(fake.requests.every((request) => request.modelId === HAIKU_5_5), "no other model was called");
	assert.equal((await storeOf(host).status()).modelFallback, null);
});

test("an answer's cost is priced at its own model's price: Haiku 4.5 and Haiku 5.5 differ for the same question", { timeout: 90_000 }, async () => {
	const { host, fake } = await start({ modelId: HAIKU_4_5 });
	await waitForIdle(host, "the notes to be remembered");
	const store = storeOf(host);
	const question = "What did Alice say about the Q3 budget?";
	const older = await store.ask(question);
	const tab = SettingsTabDriver.open(host);
	await tab.type("Model ID", HAIKU_5_5);
	const newer = await store.ask(question);
	assert.deepEqual(refused(fake.requests), []);
	assert.equal(fake.requests.at(-1)?.modelId, HAIKU_5_5);
	assert.ok(older.cost !== null && newer.cost !== null);
	assert.ok(older.cost.priceKnown && newer.cost.priceKnown, "both models have their own prices");
	// Haiku 5.5 lists at about a tenth of Haiku 4.5's price (issue 23): the same question costs far less.
	assert.ok(newer.cost.usd < older.cost.usd / 4, `Haiku 5.5 $${newer.cost.usd} vs Haiku 4.5 $${older.cost.usd}`);
});
