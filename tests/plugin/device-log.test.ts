// The device log's adapter over an in-memory vault: the core's own rules (which file is next,
// which names are log files, which folders are devices) through a real core, and the store's
// answers (what to append, what a replay found) scripted, to reach the cases a short session
// cannot: a migrated memory larger than a log file, a file shorter than its cursor, unreadable lines.

import assert from "node:assert/strict";
import { test } from "node:test";
import type { CoreClient } from "../../plugin/core/core-client";
import type { LogCompaction, LogCursor, ReplayReport } from "../../plugin/core/memory-core-api";
import { DeviceLog, splitLines } from "../../plugin/storage/device-log";
import { FakeTimers, drain } from "../support/fake-timers";
import { MemoryPort } from "../support/memory-port";
import { inProcessCore } from "../support/node-core";

const FOLDER = "Memory Agent";
/** The core's limit of a log file (`LOG_FILE_LIMIT`). */
const LOG_FILE_LIMIT = 1_000_000;

interface Scripted {
	outgoing?: { text: string; entries: number; upto: number };
	cursors?: LogCursor[];
	replay?: (device: string, file: string, offset: number, bytes: Uint8Array) => ReplayReport;
	compaction?: LogCompaction;
}

const merged = { notesAdopted: 0, memoriesAdded: 0, memoriesRemoved: 0, insightsAdded: 0, insightsRemoved: 0, theirsBehind: false };

/** A client whose store calls answer from `script` and whose rule calls go to a real core. */
async function scriptedClient(script: Scripted) {
	const core = await inProcessCore();
	const calls: Array<[string, unknown[]]> = [];
	const client = {
		call: async (method: string, ...args: unknown[]) => {
			calls.push([method, args]);
			switch (method) {
				case "outgoingLog":
					return script.outgoing ?? { text: "", entries: 0, upto: 0 };
				case "logAppended":
					return undefined;
				case "logCursors":
					return script.cursors ?? [];
				case "logCompaction":
					return script.compaction ?? null;
				case "replayLog": {
					const [device, file, offset, bytes] = args as [string, string, number, Uint8Array];
					return script.replay?.(device, file, offset, bytes) ?? { offset: offset + bytes.length, entries: 1, unreadable: 0, newer: false, merged };
				}
				default:
					return (core.call as (method: string, ...args: unknown[]) => Promise<unknown>)(method, ...args);
			}
		},
	} as unknown as Pick<CoreClient, "call">;
	return { client, calls, close: () => core.terminate() };
}

function deviceLog(port: MemoryPort, client: Pick<CoreClient, "call">, notices: string[] = [], timers = new FakeTimers()) {
	return new DeviceLog({ client, adapter: port, memoryFolder: () => FOLDER, device: "device-a", timers, notify: (message) => notices.push(message) });
}

test("splitLines keeps lines whole, each piece within the limit unless one line alone is longer", () => {
	const text = "aaaa\nbb\ncccccccc\nd\n";
	assert.deepEqual(splitLines(text, 8), ["aaaa\nbb\n", "cccccccc\n", "d\n"]);
	assert.deepEqual(splitLines(text, 100), [text]);
	assert.deepEqual(splitLines("", 8), []);
	assert.equal(splitLines(text, 3).join(""), text, "nothing lost or added");
});

test("a memory larger than a log file (an upgraded one) is appended across files, none over the core's limit, and acknowledged once", async () => {
	const line = `${JSON.stringify({ v: 1, at: 1, op: "note", text: "x".repeat(900) })}\n`;
	const text = line.repeat(3_000); // about 2.8 MB
	const script = await scriptedClient({ outgoing: { text, entries: 3_000, upto: 42 } });
	const port = new MemoryPort();
	await deviceLog(port, script.client).write();
	const files = [...port.files.keys()].filter((path) => path.startsWith(`${FOLDER}/device-a/`)).sort();
	assert.ok(files.length >= 3, files.join(", "));
	assert.deepEqual(files, files.map((_, n) => `${FOLDER}/device-a/${String(n + 1).padStart(6, "0")}.jsonl`), "numbered one after another");
	for (const path of files) assert.ok(port.files.get(path)!.bytes.length <= LOG_FILE_LIMIT, `${path} stays within the limit`);
	assert.equal(files.map((path) => port.text(path)).join(""), text, "every line, in order, once");
	const acks = script.calls.filter(([method]) => method === "logAppended");
	const last = files.at(-1)!;
	assert.deepEqual(acks, [["logAppended", [42, last.slice(last.lastIndexOf("/") + 1), port.files.get(last)!.bytes.length]]]);
	script.close();
});

test("nothing to append writes nothing", async () => {
	const script = await scriptedClient({});
	const port = new MemoryPort();
	await deviceLog(port, script.client).write();
	assert.equal(port.files.size, 0);
	assert.equal(port.folders.size, 0);
	script.close();
});

test("a conflict copy in the device's own folder is never appended to", async () => {
	const script = await scriptedClient({ outgoing: { text: "{\"v\":1}\n", entries: 1, upto: 1 } });
	const port = new MemoryPort();
	await port.mkdir(`${FOLDER}/device-a`);
	port.replaceExternally(`${FOLDER}/device-a/000001 2.jsonl`, new TextEncoder().encode("{\"v\":1}\n".repeat(3)));
	await deviceLog(port, script.client).write();
	assert.equal(port.text(`${FOLDER}/device-a/000001 2.jsonl`), "{\"v\":1}\n".repeat(3));
	assert.equal(port.text(`${FOLDER}/device-a/000001.jsonl`), "{\"v\":1}\n");
	script.close();
});

test("at the start every device's files are replayed from their cursors; one shorter than its cursor from its start; other folders are left", async () => {
	const replays: Array<[string, string, number, number]> = [];
	const script = await scriptedClient({
		cursors: [
			{ device: "device-b", file: "000001.jsonl", offset: 4 },
			{ device: "device-b", file: "000002.jsonl", offset: 500 },
			{ device: "device-a", file: "000001.jsonl", offset: 8 },
		],
		replay: (device, file, offset, bytes) => {
			replays.push([device, file, offset, bytes.length]);
			return { offset: offset + bytes.length, entries: 1, unreadable: 0, newer: false, merged };
		},
	});
	const port = new MemoryPort();
	const put = async (path: string, text: string) => {
		await port.mkdir(path.slice(0, path.lastIndexOf("/")));
		port.replaceExternally(path, new TextEncoder().encode(text));
	};
	await put(`${FOLDER}/device-b/000001.jsonl`, "{}\n{}\n{}\n");
	await put(`${FOLDER}/device-b/000002.jsonl`, "{}\n");
	await put(`${FOLDER}/device-b/000001 2.jsonl`, "{}\n");
	await put(`${FOLDER}/device-b/notes.md`, "not a log");
	await put(`${FOLDER}/device-a/000001.jsonl`, "{}\n{}\n{}\n{}\n");
	await put(`${FOLDER}/not a device!/000001.jsonl`, "{}\n");
	await deviceLog(port, script.client).replayAll();
	assert.deepEqual(replays, [
		["device-a", "000001.jsonl", 8, 4],
		["device-b", "000001 2.jsonl", 0, 3],
		["device-b", "000001.jsonl", 4, 5],
		["device-b", "000002.jsonl", 0, 3],
	]);
	script.close();
});

test("another device's changed file is read after its quiet time, once for many events; own and other files are not; unreadable lines are told once per file", async () => {
	let calls = 0;
	const script = await scriptedClient({
		replay: (_device, _file, offset, bytes) => {
			calls++;
			return { offset: offset + bytes.length, entries: 1, unreadable: 1, newer: false, merged };
		},
	});
	const port = new MemoryPort();
	await port.mkdir(`${FOLDER}/device-b`);
	port.replaceExternally(`${FOLDER}/device-b/000001.jsonl`, new TextEncoder().encode("{}\nbroken\n"));
	const timers = new FakeTimers();
	const notices: string[] = [];
	const log = deviceLog(port, script.client, notices, timers);
	for (const path of [`${FOLDER}/device-b/000001.jsonl`, `${FOLDER}/device-b/000001.jsonl`, `${FOLDER}/device-a/000001.jsonl`, "Notes/a.jsonl", `${FOLDER}/device-b/deeper/000001.jsonl`, `${FOLDER}/device-b/indexing.json`]) {
		log.fileChanged(path);
	}
	timers.advance(999);
	await drain();
	assert.equal(calls, 0, "not before its quiet time");
	timers.advance(1);
	await drain();
	await log.idle();
	assert.equal(calls, 1, "one replay for the events of one file");
	port.replaceExternally(`${FOLDER}/device-b/000001.jsonl`, new TextEncoder().encode("{}\nbroken\n{}\n"));
	log.fileChanged(`${FOLDER}/device-b/000001.jsonl`);
	await log.replayChanged();
	assert.equal(calls, 2, "read at once before paid work");
	assert.equal(notices.filter((notice) => /could not read a line of Memory Agent\/device-b\/000001\.jsonl/.test(notice)).length, 1, JSON.stringify(notices));
	log.stop();
	script.close();
});

test("an append a crash cut short is closed before the next one, which starts on a line of its own", async () => {
	const script = await scriptedClient({ outgoing: { text: '{"v":1,"at":2,"op":"removed","tombstone":"m-2"}\n', entries: 1, upto: 7 } });
	const port = new MemoryPort();
	const path = `${FOLDER}/device-a/000001.jsonl`;
	await port.mkdir(`${FOLDER}/device-a`);
	await port.write(path, '{"v":1,"at":1,"op":"removed","tombstone":"m-1"}\n{"v":1,"at":1,"op":"rem');
	await deviceLog(port, script.client).write();
	const lines = (port.text(path) ?? "").split("\n");
	assert.equal(lines[1], '{"v":1,"at":1,"op":"rem', "the cut line stays as it was (the core skips it as unreadable)");
	assert.equal(lines[2], '{"v":1,"at":2,"op":"removed","tombstone":"m-2"}', "the new entry is a whole line of its own");
	script.close();
});

test("a compaction the core asks for writes the snapshot's files, acknowledges the last, and only then removes this device's older files", async () => {
	const snapshot = '{"v":1,"at":9,"op":"removed","tombstone":"m-1"}\n';
	const script = await scriptedClient({
		outgoing: { text: '{"v":1,"at":8,"op":"removed","tombstone":"m-1"}\n', entries: 1, upto: 3 },
		compaction: { files: [["000003.jsonl", snapshot]], retire: ["000001.jsonl", "000002.jsonl"], upto: 3, bytesBefore: 5_000_000, bytesAfter: snapshot.length },
	});
	const port = new MemoryPort();
	await port.mkdir(`${FOLDER}/device-a`);
	await port.mkdir(`${FOLDER}/device-b`);
	await port.write(`${FOLDER}/device-a/000001.jsonl`, "old\n");
	await port.write(`${FOLDER}/device-a/000002.jsonl`, "old\n");
	await port.write(`${FOLDER}/device-b/000001.jsonl`, "theirs\n");
	await deviceLog(port, script.client).write();
	assert.equal(port.text(`${FOLDER}/device-a/000003.jsonl`), snapshot);
	assert.ok(!port.files.has(`${FOLDER}/device-a/000001.jsonl`) && !port.files.has(`${FOLDER}/device-a/000002.jsonl`), "its older files are retired");
	assert.equal(port.text(`${FOLDER}/device-b/000001.jsonl`), "theirs\n", "another device's files are never touched");
	const order = script.calls.map(([method]) => method).filter((method) => method === "logAppended" || method === "logCompaction");
	assert.deepEqual(order, ["logAppended", "logCompaction", "logAppended"]);
	assert.deepEqual(script.calls.filter(([method]) => method === "logAppended").at(-1), ["logAppended", [3, "000003.jsonl", snapshot.length]]);
	script.close();
});
