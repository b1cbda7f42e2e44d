// The built main.js when the core's worker stops answering: noticed, told, ended and started
// again from the saved database, with the work carried on.

import assert from "node:assert/strict";
import { afterEach, test } from "node:test";
import type { FakeBedrock } from "../fake-bedrock/index";
import type { Host } from "../host/host";
import { rememberedPaths, replyByTool, startAnsweringFake, startVaultHost, storeOf, waitForIdle, writeNotes, writeSettings } from "../support/vault-host";

let host: Host | undefined;
let fake: FakeBedrock | undefined;
afterEach(async () => {
	await host?.stop();
	await fake?.close();
	host = undefined;
	fake = undefined;
});

/** The plugin's watchdog waits 30 s for a ping; here its timers run this many times faster. */
const TIME_SCALE = 10;

test("a worker that stops answering is reported, ended and restarted, and the work goes on from the saved database", async () => {
	fake = await startAnsweringFake();
	host = await startVaultHost();
	const started = host;
	await writeSettings(host, fake);
	await writeNotes(host, { "Trips/Lisbon.md": "# Lisbon\n\nAna booked the tram tour for 12 May.\n" });
	await host.loadPlugin();
	await host.waitForCore();
	await waitForIdle(host);
	assert.deepEqual(await rememberedPaths(host), ["Trips/Lisbon.md"]);
	const [first] = host.workers.started;
	assert.ok(first !== undefined && host.workers.started.length === 1);

	// The core gets stuck in a computation at the next call (as on a pathological note).
	host.timers.timeScale = TIME_SCALE;
	first.getStuckAtNextCall();
	const waiting = storeOf(host).status();
	await host.vault.create("Trips/Porto.md", "# Porto\n\nBruno recommended the Livraria Lello.\n");

	await assert.rejects(waiting, (error: { code?: unknown }) => error.code === "worker.unresponsive", "the waiting call fails with a stable code");
	await host.waitFor(() => started.notices.some((notice) => notice === "Memory Agent's worker stopped answering; restarting it."), {
		message: "the notice",
	});
	host.timers.timeScale = 1;
	assert.ok(first.isTerminated, "the stuck worker was ended");

	// A new worker opens the saved database; the note typed meanwhile is remembered too.
	await host.waitForCore();
	assert.equal(host.workers.started.length, 2, "one new worker");
	await host.waitFor(async () => (await rememberedPaths(started).catch((): string[] => [])).includes("Trips/Porto.md"), { message: "the new note" });
	await waitForIdle(host);
	assert.deepEqual(await rememberedPaths(host), ["Trips/Lisbon.md", "Trips/Porto.md"]);
	assert.equal(host.notices.filter((notice) => /stopped answering/.test(notice)).length, 1, `told once (notices: ${JSON.stringify(host.notices)})`);
});

test("a call that waits on the network is not taken for a stuck worker: the worker answers pings meanwhile", async () => {
	fake = await startAnsweringFake();
	// Every model answer comes later than the (scaled) watchdog's deadline.
	const answerAfterMs = (3 * 30_000) / TIME_SCALE;
	fake.respond = (request) => ({ slow: answerAfterMs, then: replyByTool(request) });
	host = await startVaultHost();
	await writeSettings(host, fake);
	await host.loadPlugin();
	await host.waitForCore();
	host.timers.timeScale = TIME_SCALE;
	await host.vault.create("Trips/Faro.md", "# Faro\n\nThe ferry to Ilha Deserta leaves at 10:00.\n");

	const started = host;
	await host.waitFor(async () => (await rememberedPaths(started).catch((): string[] => [])).includes("Trips/Faro.md"), {
		message: "the slow note",
		timeoutMs: 30_000,
	});
	assert.ok(fake.requests.length > 0 && host.workers.started.length === 1, "the same worker did the work");
	assert.ok(!host.notices.some((notice) => /stopped answering/.test(notice)), JSON.stringify(host.notices));
});
