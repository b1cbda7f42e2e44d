// The device log's scheduler, and the core's log runtime through the main thread's file
// operations. The scheduler holds no rule of the log: it calls `syncLog` within 2 s of a change,
// `replayLogs` at the start and for another device's files (which the core names), one call at a
// time, and tells the user about files a replay could not read whole — tested over a scripted
// client. Then the real core in this process writes and replays log files in an in-memory vault
// through `vaultFileHandlers`, as it does in Obsidian.

import assert from "node:assert/strict";
import { test } from "node:test";
import type { CoreClient } from "../../plugin/core/core-client";
import type { LogReplay, LogSync, ReplayProblem } from "../../plugin/core/memory-core-api";
import { vaultFileHandlers } from "../../plugin/host/vault-files";
import { DeviceLog } from "../../plugin/storage/device-log";
import { FakeTimers, drain } from "../support/fake-timers";
import { MemoryPort } from "../support/memory-port";
import { inProcessCore } from "../support/node-core";
import { upgradedWithTypedMemories } from "../support/plugin-fixtures";

const FOLDER = "Memory Agent";
/** The core's seal of a log file (`device::layout::SEAL_AT`). */
const SEAL_AT = 64 * 1024;

const NO_SYNC: LogSync = { appended: 0, appendedBytes: 0, purgedFiles: 0, compactedFiles: 0, compactedBytesBefore: 0, compactedBytesAfter: 0, filesWritten: 0, largestWritten: 0 };
const NO_REPLAY: LogReplay = { files: 0, entries: 0, merged: 0, fromOthers: 0, problems: [] };

/** A client whose log calls are recorded and answered from `replies`; the rest (the core's `isOtherDeviceLogFile`) go to a real core. */
async function scriptedClient(replies: { replay?: (paths: string[] | null) => LogReplay | Promise<LogReplay>; sync?: () => LogSync | Promise<LogSync> } = {}) {
	const core = await inProcessCore();
	const calls: Array<[string, unknown[]]> = [];
	const client = {
		call: async (method: string, ...args: unknown[]) => {
			switch (method) {
				case "syncLog":
					calls.push([method, args]);
					return (await replies.sync?.()) ?? NO_SYNC;
				case "replayLogs":
					calls.push([method, args]);
					return (await replies.replay?.(args[1] as string[] | null)) ?? NO_REPLAY;
				default:
					return (core.call as (method: string, ...args: unknown[]) => Promise<unknown>)(method, ...args);
			}
		},
	} as unknown as Pick<CoreClient, "call">;
	return { client, calls, close: () => core.terminate() };
}

function deviceLog(client: Pick<CoreClient, "call">, { notices = [] as string[], timers = new FakeTimers(), replayed = [] as LogReplay[] } = {}) {
	return new DeviceLog({
		client,
		memoryFolder: () => FOLDER,
		device: "device-a",
		timers,
		notify: (message) => notices.push(message),
		onReplayed: (replay) => replayed.push(replay),
	});
}

test("changes are written 2 s after the first one, in one sync; write() syncs at once, also after stop (the last save)", async () => {
	const script = await scriptedClient();
	const timers = new FakeTimers();
	const log = deviceLog(script.client, { timers });
	log.changed();
	timers.advance(1_000);
	log.changed();
	log.changed();
	timers.advance(999);
	await drain();
	assert.deepEqual(script.calls, [], "not before 2 s");
	timers.advance(1);
	await drain();
	await log.idle();
	assert.deepEqual(script.calls, [["syncLog", [FOLDER]]], "one sync for the three changes");
	log.changed();
	await log.write();
	assert.equal(script.calls.length, 2, "written at once");
	assert.equal(timers.pending, 0, "the waiting write was taken by it");
	log.stop();
	log.changed();
	assert.equal(timers.pending, 0, "no timer after stop");
	await log.write();
	assert.equal(script.calls.length, 3, "the last write before the last save still runs");
	script.close();
});

test("only another device's log files (as the core tells them) are replayed, after their quiet time, once for many events", async () => {
	const script = await scriptedClient();
	const timers = new FakeTimers();
	const log = deviceLog(script.client, { timers });
	const theirs = `${FOLDER}/device-b/000001.jsonl`;
	const conflictCopy = `${FOLDER}/device-b/000001 2.jsonl`;
	for (const path of [theirs, theirs, `${FOLDER}/device-a/000001.jsonl`, "Notes/a.jsonl", `${FOLDER}/device-b/deeper/000001.jsonl`, `${FOLDER}/device-b/indexing.json`, conflictCopy]) {
		log.fileChanged(path);
	}
	await drain();
	timers.advance(999);
	await drain();
	assert.deepEqual(script.calls, [], "not before its quiet time");
	timers.advance(1);
	await drain();
	await log.idle();
	assert.deepEqual(script.calls, [["replayLogs", [FOLDER, [conflictCopy, theirs]]]], "its files, in one replay");

	// Before paid work the changed files are read at once, even while the core is still asked about one.
	log.fileChanged(theirs);
	await log.replayChanged();
	assert.deepEqual(script.calls.at(-1), ["replayLogs", [FOLDER, [theirs]]]);
	assert.equal(timers.pending, 0);
	await log.replayAll();
	assert.deepEqual(script.calls.at(-1), ["replayLogs", [FOLDER, null]], "at the start: every device's files");
	log.stop();
	log.fileChanged(theirs);
	await drain();
	assert.equal(timers.pending, 0, "nothing is scheduled after stop");
	script.close();
});

test("a sync and a replay never overlap: each waits for the one before", async () => {
	let releaseReplay: () => void = () => undefined;
	const events: string[] = [];
	const script = await scriptedClient({
		replay: () =>
			new Promise((resolve) => {
				events.push("replay started");
				releaseReplay = () => {
					events.push("replay ended");
					resolve(NO_REPLAY);
				};
			}),
		sync: () => {
			events.push("sync");
			return NO_SYNC;
		},
	});
	const log = deviceLog(script.client);
	const replayed = log.replayAll();
	const written = log.write();
	await drain();
	assert.deepEqual(events, ["replay started"]);
	releaseReplay();
	await Promise.all([replayed, written]);
	assert.deepEqual(events, ["replay started", "replay ended", "sync"]);
	script.close();
});

test("what a replay could not read is told once per file and kind, naming the file; onReplayed only when another device changed something", async () => {
	const problems: ReplayProblem[] = [
		{ path: `${FOLDER}/device-b/000001.jsonl`, unreadable: 2, firstSkipped: { byte: 812, line: 4, reason: "memory m-1: importance 1.5 is outside 0..1" }, newer: false, error: null },
		{ path: `${FOLDER}/device-c/000003.jsonl`, unreadable: 0, firstSkipped: null, newer: true, error: null },
		{ path: `${FOLDER}/device-d/000001.jsonl`, unreadable: 0, firstSkipped: null, newer: false, error: "the vault refused to read it" },
	];
	let fromOthers = 0;
	const script = await scriptedClient({ replay: () => ({ ...NO_REPLAY, files: 3, entries: 5, merged: 5, fromOthers, problems }) });
	const notices: string[] = [];
	const replayed: LogReplay[] = [];
	const log = deviceLog(script.client, { notices, replayed });
	await log.replayAll();
	await log.replayAll();
	assert.equal(notices.length, 3, JSON.stringify(notices));
	assert.match(notices[0]!, /could not read or did not accept 2 lines of Memory Agent\/device-b\/000001\.jsonl, a device's log, and skipped them \(the first at line 4: memory m-1: importance 1\.5 is outside 0\.\.1\)/);
	assert.match(notices[1]!, /Memory Agent\/device-c\/000003\.jsonl written by a newer version of Memory Agent; they are kept for it/);
	assert.match(notices[2]!, /could not read Memory Agent\/device-d\/000001\.jsonl.*the vault refused to read it/);
	assert.deepEqual(replayed, [], "only this device's own entries (or nothing new) changed something");
	fromOthers = 2;
	await log.replayAll();
	assert.equal(replayed.length, 1);
	assert.equal(notices.length, 3, "still told once");
	script.close();
});

test("a failed sync is told, and the next one runs", async () => {
	let fail = true;
	const script = await scriptedClient({
		sync: () => {
			if (fail) throw new Error("the disk is full");
			return NO_SYNC;
		},
	});
	const notices: string[] = [];
	const log = deviceLog(script.client, { notices });
	await log.write();
	assert.deepEqual(notices, ["Memory Agent could not write its log: the disk is full"]);
	fail = false;
	await log.write();
	assert.equal(script.calls.length, 2);
	script.close();
});

/** A real core in this process over `port`, as `device`, with `bytes` (or a new database) open. */
async function coreOver(port: MemoryPort, device: string, bytes: Uint8Array | null = null) {
	const client = await inProcessCore(vaultFileHandlers(port));
	await client.call("open", bytes, Date.now());
	await client.call("configure", { device });
	return client;
}

/** Files of `folder` in the in-memory vault, by name, with their text. */
function filesOf(port: MemoryPort, folder: string): Map<string, string> {
	return new Map(
		[...port.files.keys()]
			.filter((path) => path.startsWith(`${folder}/`) && !path.slice(folder.length + 1).includes("/"))
			.sort()
			.map((path) => [path.slice(folder.length + 1), port.text(path) ?? ""]),
	);
}

test("the core writes an upgraded memory through the host's file operations in sealed files of at most 64 KB, and another device replays them", async () => {
	const port = new MemoryPort();
	const a = await coreOver(port, "device-a", await upgradedWithTypedMemories(150));
	const sync = await a.call("syncLog", FOLDER);
	assert.equal(sync.appended, 150, JSON.stringify(sync));
	const own = filesOf(port, `${FOLDER}/device-a`);
	assert.ok(own.size >= 2, [...own.keys()].join(", "));
	assert.deepEqual([...own.keys()], [...own.keys()].map((_, n) => `${String(n + 1).padStart(6, "0")}.jsonl`), "numbered one after another");
	for (const [name, text] of own) assert.ok(new TextEncoder().encode(text).length <= SEAL_AT, `${name} is within 64 KB`);
	assert.equal([...own.values()].join("").split("\n").length - 1, 150, "every entry once, a line each");
	assert.deepEqual(await a.call("syncLog", FOLDER), NO_SYNC, "nothing more to write");

	// Another device over the same vault takes every entry, counted as from another device.
	const b = await coreOver(port, "device-b");
	const replay = await b.call("replayLogs", FOLDER, null);
	assert.equal(replay.entries, 150);
	assert.equal(replay.fromOthers, 150);
	assert.deepEqual(replay.problems, []);
	assert.equal((await b.call("status")).memories, 150);
	const progress = await b.call("replayProgress");
	assert.ok(progress.totalBytes > SEAL_AT && progress.doneBytes === progress.totalBytes && !progress.running, JSON.stringify(progress));
	assert.equal((await b.call("replayLogs", FOLDER, null)).entries, 0, "read from their cursors: nothing new");
	a.terminate();
	b.terminate();
});

test("through the host's operations: an own conflict copy is never appended to; a line cut by a crash is closed before the next append; a damaged line is reported with its file", async () => {
	const port = new MemoryPort();
	const a = await coreOver(port, "device-a", await upgradedWithTypedMemories(3));
	await a.call("syncLog", FOLDER);
	const path = `${FOLDER}/device-a/000001.jsonl`;
	const written = port.text(path)!;
	port.replaceExternally(`${FOLDER}/device-a/000001 2.jsonl`, new TextEncoder().encode(written));
	// A crash cut the last append: half a line at the end.
	port.replaceExternally(path, new TextEncoder().encode(`${written}{"v":1,"at":1,"op":"rem`));
	a.terminate();

	const again = await coreOver(port, "device-a", await upgradedWithTypedMemories(4));
	await again.call("syncLog", FOLDER);
	// Its lines are this device's own: the core may remove it once replayed, never append to it.
	const copy = port.text(`${FOLDER}/device-a/000001 2.jsonl`);
	assert.ok(copy === undefined || copy === written, "the conflict copy is not appended to");
	const lines = port.text(path)!.split("\n");
	assert.equal(lines[3], '{"v":1,"at":1,"op":"rem', "the cut line stays as it was");
	assert.ok(lines.slice(4, -1).every((line) => line.startsWith("{") && line.endsWith("}")), "the new entries start on lines of their own");
	again.terminate();

	const b = await coreOver(port, "device-b");
	const replay = await b.call("replayLogs", FOLDER, null);
	assert.deepEqual(
		replay.problems.map((problem) => [problem.path, problem.unreadable, problem.firstSkipped?.line, problem.newer, problem.error]),
		[[path, 1, 4, false, null]],
		"the cut line is the one damaged line",
	);
	assert.equal((await b.call("status")).memories, 4);
	b.terminate();
});

test("the worker reports a sync as a change only when it wrote something: a sync with nothing to write schedules no other", async () => {
	const port = new MemoryPort();
	const a = await coreOver(port, "device-a", await upgradedWithTypedMemories(3));
	let changes = 0;
	a.on("changed", () => changes++);
	assert.equal((await a.call("syncLog", FOLDER)).appended, 3);
	assert.equal(changes, 1, "what it wrote is a change to save");
	// The database is still unsaved: a sync with nothing to write is no change all the same.
	assert.deepEqual(await a.call("syncLog", FOLDER), NO_SYNC);
	assert.equal(changes, 1);

	// Through the scheduler, the store session's "changed" → log.changed() loop ends after one look.
	const timers = new FakeTimers();
	const log = new DeviceLog({ client: a, memoryFolder: () => FOLDER, device: "device-a", timers, notify: (message) => assert.fail(message) });
	a.on("changed", () => log.changed());
	await a.call("forgetMemory", "typed-1");
	await drain();
	let syncs = 0;
	for (let round = 0; round < 5 && timers.pending > 0; round++) {
		timers.advance(2_000);
		await drain();
		await log.idle();
		await drain();
		syncs++;
	}
	assert.equal(timers.pending, 0, "no sync left scheduled");
	assert.equal(syncs, 2, "the forget's sync, then one look that finds nothing");
	const own = [...filesOf(port, `${FOLDER}/device-a`).values()];
	assert.ok(own.some((text) => text.includes("Typed note 2:")), "the log holds the other memories");
	assert.ok(!own.some((text) => text.includes("Typed note 1:")), "and the forgotten one's text is purged from it");
	a.terminate();
});
