// The plugin and the `memory-agent` command keep out of each other's paid work: the plugin's
// heartbeat while it is loaded, its look at the command's `indexing.json`, and the work runner
// holding its run back while the command indexes.

import assert from "node:assert/strict";
import { test } from "node:test";
import type { MemoryStore, RunReport } from "../../plugin/core/memory-core-api";
import { WorkRunner } from "../../plugin/engine/work-runner";
import { COMMAND_INDEXING_FRESH_MS, CommandIndexingWatch, HEARTBEAT_MS, Heartbeat, INDEXING_CHECK_MS, heartbeatPath } from "../../plugin/storage/device-presence";
import { FakeTimers, drain } from "../support/fake-timers";
import { MemoryPort } from "../support/memory-port";

const PLUGIN = ".obsidian/plugins/memory-agent";

test("the heartbeat is written at the start, rewritten every minute, and removed at unload", async () => {
	const port = new MemoryPort();
	const timers = new FakeTimers();
	let now = 1_000;
	const path = heartbeatPath(PLUGIN, "device-a");
	assert.equal(path, `${PLUGIN}/running-device-a.json`);
	const heartbeat = new Heartbeat({ adapter: port, path, device: "device-a", timers, now: () => now });
	await heartbeat.start();
	assert.deepEqual(JSON.parse(port.text(path) ?? ""), { device: "device-a", at: 1_000 });
	now += HEARTBEAT_MS;
	timers.advance(HEARTBEAT_MS);
	await drain();
	assert.deepEqual(JSON.parse(port.text(path) ?? ""), { device: "device-a", at: 1_000 + HEARTBEAT_MS });
	await heartbeat.stop();
	assert.equal(port.files.has(path), false, "removed: the command may run at once");
	assert.equal(timers.pending, 0, "no beat left waiting");
});

test("the command's indexing.json in any device's folder holds paid work back while it is fresh, looked at once every 10 s", async () => {
	const port = new MemoryPort();
	let now = 0;
	const watch = new CommandIndexingWatch({ adapter: port, memoryFolder: () => "Memory Agent", now: () => now });
	assert.equal(await watch.isIndexing(), false, "no memory folder yet");
	await port.mkdir("Memory Agent/device-a");
	await port.mkdir("Memory Agent/laptop-command");
	port.replaceExternally("Memory Agent/laptop-command/indexing.json", new TextEncoder().encode('{"device":"laptop-command","at":0}'));
	const writtenAt = (await port.stat("Memory Agent/laptop-command/indexing.json"))!.mtime;
	now = writtenAt + 1_000;
	assert.equal(await watch.isIndexing(), false, "the last look is younger than 10 s: its answer stands");
	now += INDEXING_CHECK_MS;
	const looks = port.log.filter((entry) => entry.startsWith("stat")).length;
	assert.equal(await watch.isIndexing(), true, "a fresh indexing.json");
	assert.equal(await watch.isIndexing(), true);
	assert.equal(port.log.filter((entry) => entry.startsWith("stat")).length, looks + 2, "one stat per device folder, once");
	now = writtenAt + COMMAND_INDEXING_FRESH_MS + INDEXING_CHECK_MS;
	assert.equal(await watch.isIndexing(), false, "older than 90 s: the command ended without removing it");
});

test("the work runner holds its run back while told to, and looks again after a while", async () => {
	const timers = new FakeTimers();
	let runs = 0;
	let held = true;
	const report = { done: 0, skipped: 0, failed: 0, paused: null, nextDueAt: null } as unknown as RunReport;
	const store = {
		runDueWork: async () => {
			runs++;
			return report;
		},
	} as unknown as MemoryStore;
	const runner = new WorkRunner({
		store: () => store,
		onReport: () => undefined,
		beforeRun: async () => !held,
		onError: (error) => assert.fail(String(error)),
		timers,
		now: () => timers.now,
	});
	runner.kick();
	await runner.idle();
	assert.equal(runs, 0, "no paid work while the command indexes");
	held = false;
	timers.advance(10_000);
	await drain();
	await runner.idle();
	assert.equal(runs, 1, "the run comes once the command is done");
	runner.stop();
});
