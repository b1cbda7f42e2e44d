// Bedrock as real accounts meet it, through the built main.js and the fake Bedrock: the
// default model follows the region (a geographic profile only works from its geography), a
// skewed clock is corrected from AWS's `Date` header, and a refused note costs two calls.

import assert from "node:assert/strict";
import { afterEach, test } from "node:test";
import { type FakeBedrock, startFakeBedrock } from "../fake-bedrock/index";
import { virtualClock } from "../host/clock";
import type { Host } from "../host/host";
import { ingestRequests, rememberedPaths, replyByTool, sourcesOf, startVaultHost, waitForIdle, writeNotes, writeSettings } from "../support/vault-host";

let host: Host | undefined;
let fake: FakeBedrock | undefined;
afterEach(async () => {
	await host?.stop();
	await fake?.close();
	host = undefined;
	fake = undefined;
});

async function start(options: { region: string; awsAheadMs?: number }): Promise<{ host: Host; fake: FakeBedrock }> {
	const ahead = options.awsAheadMs ?? 0;
	fake = await startFakeBedrock({ region: options.region, now: () => Date.now() + ahead });
	fake.respond = replyByTool;
	host = await startVaultHost();
	// Default settings but the region: no model chosen.
	await writeSettings(host, fake, { region: options.region });
	await writeNotes(host, { "trip.md": "# Trip\n\nWe fly to Lisbon on Friday.\n" });
	await host.loadPlugin();
	await host.waitForCore();
	await waitForIdle(host, "the note to be remembered");
	return { host, fake };
}

for (const [region, profile] of [
	["eu-west-1", "eu."],
	["ap-northeast-1", "jp."],
	["us-west-2", "us."],
] as const) {
	test(`a fresh install in ${region} with default settings remembers a note (through the ${profile} profile)`, async () => {
		const { host, fake } = await start({ region });
		assert.deepEqual(await rememberedPaths(host), ["trip.md"], JSON.stringify(host.notices));
		const calls = ingestRequests(fake);
		assert.equal(calls.length, 1);
		assert.ok(calls[0]?.modelId?.startsWith(profile), calls[0]?.modelId);
	});
}

test("the fake refuses a profile outside its geography, as AWS does", async () => {
	fake = await startFakeBedrock({ region: "eu-west-1" });
	fake.respond = replyByTool;
	host = await startVaultHost();
	await writeSettings(host, fake, { region: "eu-west-1", modelId: "us.anthropic.claude-haiku-4-5-20251001-v1:0" });
	await writeNotes(host, { "trip.md": "# Trip\n\nWe fly to Lisbon on Friday.\n" });
	await host.loadPlugin();
	await host.waitForCore();
	await host.waitFor(() => host?.notices.some((notice) => /does not know the model/.test(notice)) ?? false, { message: "the unknown-model notice" });
	assert.deepEqual(await rememberedPaths(host), []);
});

for (const [what, ahead] of [
	["ten minutes fast", -10 * 60_000],
	["ten minutes slow", 10 * 60_000],
] as const) {
	test(`a device clock ${what} still works, with at most one extra call`, async () => {
		const { host, fake } = await start({ region: "us-east-1", awsAheadMs: ahead });
		assert.deepEqual(await rememberedPaths(host), ["trip.md"], JSON.stringify(host.notices));
		assert.ok(fake.requests.length <= 2, `${fake.requests.length} requests`);
		assert.equal(fake.requests.at(-1)?.auth.ok, true, "the last request was signed with AWS's time");
	});
}

test("a note the model refuses costs at most two calls and shows its reason", async () => {
	fake = await startFakeBedrock();
	fake.respond = (request) => (request.body.includes("Lisbon") ? { refused: "content_filtered" } : replyByTool(request));
	host = await startVaultHost();
	await writeSettings(host, fake);
	await writeNotes(host, { "trip.md": "# Trip\n\nWe fly to Lisbon on Friday.\n" });
	await host.loadPlugin();
	await host.waitForCore();
	await waitForIdle(host, "the refused note to settle");
	assert.equal(ingestRequests(fake).length, 2, "one try and one retry");
	const source = (await sourcesOf(host)).find((item) => item.path === "trip.md");
	assert.match(source?.skipped ?? "", /declined it \(content_filtered\)/);
	// The memory browser says so too, not only the status view.
	await host.runCommand("open-memory-browser");
	await host.settle();
	const current = host;
	await host.waitFor(() => current.workspaceEl.querySelector(".memory-agent-skipped-note") !== null, { message: "the skipped line" });
	assert.match(host.workspaceEl.querySelector(".memory-agent-skipped-note")?.textContent ?? "", /1 note is not remembered: trip\.md \(the model declined it \(content_filtered\)\)/);
});

test("90 s of throttling loses no note and sends at most one request every few seconds while it lasts", async () => {
	// On a virtual clock 30 times faster (the realm, the worker and the fake): 90 s in 3 s.
	const clock = virtualClock(30);
	fake = await startFakeBedrock({ now: clock.now });
	const throttledUntil = clock.now() + 90_000;
	fake.respond = (request) => (request.receivedAt < throttledUntil ? "throttle" : replyByTool(request));
	host = await startVaultHost({ clock });
	await writeSettings(host, fake);
	await writeNotes(host, { "a.md": "# A\n\nAna plans the trip.\n", "b.md": "# B\n\nBruno books the hotel.\n", "c.md": "# C\n\nCarla buys the tickets.\n" });
	await host.loadPlugin();
	await host.waitForCore();
	const current = host;
	await host.waitFor(async () => (await rememberedPaths(current)).length === 3, { timeoutMs: 60_000, message: "every note remembered after the throttling" });
	const duringThrottling = fake.requests.filter((request) => request.receivedAt < throttledUntil);
	assert.ok(duringThrottling.length >= 3, `${duringThrottling.length} requests while throttled: the throttling was met`);
	assert.ok(duringThrottling.length <= 30, `${duringThrottling.length} requests in 90 s of throttling`);
	assert.ok(fake.requests.every((request) => request.auth.ok), "every request was signed within AWS's 5 minutes, on the virtual clock");
	assert.deepEqual(await rememberedPaths(host), ["a.md", "b.md", "c.md"], "no note lost");
});
