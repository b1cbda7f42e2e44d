// The store session with the real core: new stores, corrupt and newer files, the migration from
// an older version's shared file.

import assert from "node:assert/strict";
import { test } from "node:test";
import type { StoreStatus } from "../../plugin/core/memory-core-api";
import { DatabaseFile } from "../../plugin/storage/database-file";
import { StoreSession, type StoreSessionDeps, StoreUnavailableError } from "../../plugin/storage/store-session";
import { loadFacade } from "../support/facade";
import { FakeTimers, drain } from "../support/fake-timers";
import { MemoryPort } from "../support/memory-port";
import { emptyDatabase, inProcessCore } from "../support/node-core";
import { beforeDeviceLog } from "../support/plugin-fixtures";
import { withMemories } from "../support/sqlite-fixtures";

const DB = "config/plugins/memory-agent/memory-device-a.db";
/** Where an older version kept the memory every device shared. */
const LEGACY = "config/plugins/memory-agent/memory.db";
const NOW = new Date(Date.UTC(2026, 10, 30, 7, 14, 0));

async function setup(port = new MemoryPort()) {
	const timers = new FakeTimers();
	const notices: string[] = [];
	const statuses: StoreStatus[] = [];
	const unavailable: string[] = [];
	const deps: StoreSessionDeps = {
		client: await inProcessCore(),
		file: new DatabaseFile(port, DB),
		timers,
		// The session's clock runs with its timers (the save policy measures quiet on it).
		now: () => new Date(NOW.getTime() + timers.now),
		notify: (message) => notices.push(message),
		onStatus: (status) => statuses.push(status),
		onUnavailable: (reason) => unavailable.push(reason),
	};
	return { port, timers, notices, statuses, unavailable, deps };
}

async function portWith(bytes: Uint8Array, path = DB): Promise<MemoryPort> {
	const port = new MemoryPort();
	await port.mkdir("config/plugins/memory-agent");
	await port.writeBinary(path, bytes.slice().buffer);
	return port;
}

test("a new store is written to a new file once 10 s pass without a change", async () => {
	const { port, timers, statuses, deps } = await setup();
	const session = await StoreSession.open(deps);
	assert.equal(statuses.at(-1)?.memories, 0);
	timers.advance(9_999);
	await drain();
	assert.equal(port.files.has(DB), false, "nothing written before the quiet");
	timers.advance(1);
	await drain();
	assert.ok(port.files.has(DB), "written after the quiet");
	const { facade, SQL } = await loadFacade();
	const reopened = facade.MemoryCore.open(SQL, port.files.get(DB)?.bytes.slice(), Date.now());
	assert.equal(reopened.status().schemaVersion, facade.supportedSchemaVersion());
	reopened.free();
	await session.close();
});

test("an existing database is opened with its counts", async () => {
	const { SQL } = await loadFacade();
	const { statuses, deps } = await setup(await portWith(withMemories(SQL, await emptyDatabase(), 3)));
	const session = await StoreSession.open(deps);
	assert.equal(statuses.at(-1)?.memories, 3);
	assert.equal((await deps.client.call("status")).memories, 3);
	await session.close();
});

test("a corrupt file is moved aside untouched and a new store takes its place", async () => {
	const garbage = new TextEncoder().encode("this is not an SQLite database ".repeat(200));
	const { port, notices, statuses, deps } = await setup(await portWith(garbage));
	const session = await StoreSession.open(deps);
	const aside = `${DB}.corrupt-20261130T071400Z`;
	assert.deepEqual(port.files.get(aside)?.bytes, garbage, "the original bytes are kept");
	assert.equal(notices.length, 1);
	assert.match(notices[0] ?? "", /rebuilding it from the logs/);
	assert.ok(notices[0]?.includes(aside), "the notice names the moved-aside file");
	assert.equal(statuses.at(-1)?.memories, 0);
	await session.flush();
	assert.ok(port.files.has(DB), "the new store was saved");
	assert.notDeepEqual(port.files.get(DB)?.bytes, garbage);
	await session.close();
});

test("a database from a newer Memory Agent is left untouched and the store is unavailable", async () => {
	const { SQL } = await loadFacade();
	const db = new SQL.Database(await emptyDatabase());
	db.run("PRAGMA user_version = 999");
	const newer = db.export();
	db.close();
	const { port, deps } = await setup(await portWith(newer));
	const before = [...port.files.keys()];
	await assert.rejects(StoreSession.open(deps), (error: unknown) => {
		assert.ok(error instanceof StoreUnavailableError);
		assert.match(error.message, /newer version of Memory Agent — update the plugin/);
		return true;
	});
	assert.deepEqual([...port.files.keys()], before, "no file was added, renamed or removed");
	assert.deepEqual(port.files.get(DB)?.bytes, newer, "the bytes are unchanged");
});

test("without a file of its own, the device opens the older version's shared file once and saves it as its own, leaving that file as it was", async () => {
	const { SQL } = await loadFacade();
	const shared = await beforeDeviceLog(withMemories(SQL, await emptyDatabase(), 3));
	const port = await portWith(shared, LEGACY);
	const { deps } = await setup(port);
	const session = await StoreSession.open({ ...deps, legacyFile: new DatabaseFile(port, LEGACY) });
	assert.equal((await deps.client.call("status")).memories, 3);
	await session.flush();
	assert.ok(port.files.has(DB), "saved as this device's own file");
	const own = new SQL.Database(port.files.get(DB)!.bytes);
	assert.deepEqual(own.exec("SELECT count(*) FROM memories")[0]?.values.flat(), [3]);
	own.close();
	assert.deepEqual(port.files.get(LEGACY)?.bytes, shared, "the older file is left as it was");
	// What it held goes to this device's log then (tests/plugin/two-devices.test.ts, with notes' records).
	await session.close();
});

test("a device with a file of its own never reads the older shared file again", async () => {
	const { SQL } = await loadFacade();
	const port = await portWith(withMemories(SQL, await emptyDatabase(), 1));
	await port.writeBinary(LEGACY, withMemories(SQL, await emptyDatabase(), 5).slice().buffer);
	const { deps } = await setup(port);
	const session = await StoreSession.open({ ...deps, legacyFile: new DatabaseFile(port, LEGACY) });
	assert.equal((await deps.client.call("status")).memories, 1);
	await session.close();
});

test("a damaged older shared file is left as it is, and the device starts a new memory", async () => {
	const damaged = new TextEncoder().encode("not a database at all, just bytes long enough to be read as a header".repeat(2));
	const port = await portWith(damaged, LEGACY);
	const { notices, deps } = await setup(port);
	const session = await StoreSession.open({ ...deps, legacyFile: new DatabaseFile(port, LEGACY) });
	assert.equal((await deps.client.call("status")).memories, 0);
	assert.deepEqual(port.files.get(LEGACY)?.bytes, damaged, "the older file is not moved or changed");
	assert.ok(notices.some((n) => /older version.*left as it is/.test(n)), JSON.stringify(notices));
	await session.close();
});

test("a failed write is shown and retried by the next flush", async () => {
	const { port, notices, deps } = await setup();
	const session = await StoreSession.open(deps);
	port.failOn("rename", { crash: false });
	await session.flush();
	assert.ok(notices.some((n) => /could not save/.test(n)), `notices: ${JSON.stringify(notices)}`);
	await session.flush();
	assert.ok(port.files.has(DB), "the retry wrote the file");
	await session.close();
});

test("damage the open did not see is found by the full check later, and handled like a corrupt file", async () => {
	const { SQL } = await loadFacade();
	const sound = withMemories(SQL, await emptyDatabase(), 300);
	const damaged = sound.slice();
	const pageSize = (damaged[16]! << 8) | damaged[17]!;
	damaged.fill(0xa5, pageSize * 3, pageSize * 4);
	const { port, timers, notices, statuses, deps } = await setup(await portWith(damaged));
	const session = await StoreSession.open({ ...deps, checkDelayMs: 5_000 });
	assert.equal(notices.length, 0, "the open reads only the header and the schema");
	timers.advance(5_000);
	await drain();
	await deps.client.call("status");
	await drain();
	// Moved aside 5 s after the start (the session's clock runs with its timers).
	const aside = `${DB}.corrupt-20261130T071405Z`;
	assert.deepEqual(port.files.get(aside)?.bytes, damaged, "the damaged file is kept as it was");
	assert.match(notices.at(-1) ?? "", /found damage in its database/);
	assert.equal(statuses.at(-1)?.memories, 0, "a new, empty store took its place");
	await session.flush();
	assert.ok(port.files.has(DB), "and it was saved");
	await session.close();
});

test("a database with triggers of its own is cleaned at open, told, saved, and no memory is lost", async () => {
	const { SQL } = await loadFacade();
	const planted = new SQL.Database(withMemories(SQL, await emptyDatabase(), 12));
	// The file: queueing a note emptied the memory; the second would hang every start.
	planted.run("CREATE TRIGGER wipe AFTER INSERT ON jobs BEGIN DELETE FROM memories; END");
	planted.run(
		`CREATE TRIGGER spin AFTER INSERT ON meta BEGIN
		   SELECT count(*) FROM (WITH RECURSIVE forever(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM forever) SELECT n FROM forever);
		 END`,
	);
	planted.run("CREATE VIEW peek AS SELECT summary FROM memories");
	const bytes = planted.export();
	planted.close();
	const { port, notices, statuses, deps } = await setup(await portWith(bytes));
	const session = await StoreSession.open(deps);
	assert.deepEqual(notices, [
		`Memory Agent removed 3 unknown database objects (triggers: spin, wipe; views: peek) from its database ${DB}. ` +
			"They were not made by Memory Agent; no memory was lost.",
	]);
	assert.equal(statuses.at(-1)?.memories, 12);
	await deps.client.call("enqueueNote", "a.md");
	assert.equal((await deps.client.call("status")).memories, 12, "no trigger ran");
	await session.flush();
	const saved = new SQL.Database(port.files.get(DB)!.bytes);
	assert.deepEqual(saved.exec("SELECT name FROM sqlite_master WHERE type IN ('trigger', 'view') AND name != 'memory_search'"), [], "the saved file is the schema's own");
	saved.close();
	await session.close();
});

/** The session's client, with `checkIntegrity` answered by `check`. */
function checkingWith(deps: StoreSessionDeps, check: () => Promise<unknown>): StoreSessionDeps {
	const client = deps.client;
	const call = ((method: string, ...args: unknown[]) =>
		method === "checkIntegrity" ? check() : (client.call as (m: string, ...a: unknown[]) => Promise<unknown>)(method, ...args)) as typeof client.call;
	return { ...deps, client: Object.assign(Object.create(client) as typeof client, { call }) };
}

test("a full check that could not finish, or could not run, is told and the store kept", async () => {
	const { SQL } = await loadFacade();
	for (const [check, expected] of [
		[async () => ({ repairedIndex: false, unfinished: "out of memory" }), /could not finish checking its database \(out of memory\)/],
		[async () => Promise.reject(Object.assign(new Error("disk I/O error"), { code: "store.sql" })), /could not check its database \(disk I\/O error\)/],
	] as const) {
		const { port, timers, notices, statuses, deps } = await setup(await portWith(withMemories(SQL, await emptyDatabase(), 3)));
		const session = await StoreSession.open({ ...checkingWith(deps, check), checkDelayMs: 5_000 });
		timers.advance(5_000);
		await drain();
		assert.equal(notices.length, 1, `notices: ${JSON.stringify(notices)}`);
		assert.match(notices[0] ?? "", expected);
		assert.match(notices[0] ?? "", /checks it again at the next start/);
		assert.equal(statuses.at(-1)?.memories, 3);
		assert.equal([...port.files.keys()].some((name) => name.includes(".corrupt-")), false, "nothing was moved aside");
		await session.close();
	}
});

/** The session's client, with the core's events also sent by the test (`emit`). */
function withEvents(deps: StoreSessionDeps) {
	const client = deps.client;
	const listeners = new Map<string, Array<(data: unknown) => void>>();
	const on = ((event: string, listener: (data: unknown) => void) => {
		listeners.set(event, [...(listeners.get(event) ?? []), listener]);
		return (client.on as (e: string, l: (data: unknown) => void) => () => void)(event, listener);
	}) as typeof client.on;
	const emit = (event: string, data: unknown) => {
		for (const listener of listeners.get(event) ?? []) listener(data);
	};
	return { deps: { ...deps, client: Object.assign(Object.create(client) as typeof client, { on }) }, emit };
}

test("a change while a job is left waits (the database is a cache of the log); the core's word that the work is over writes it once quiet", async () => {
	const { SQL } = await loadFacade();
	const original = withMemories(SQL, await emptyDatabase(), 3);
	const { port, timers, deps: plain } = await setup(await portWith(original));
	const { deps, emit } = withEvents(plain);
	const session = await StoreSession.open(deps);
	await deps.client.call("enqueueNote", "a.md");
	// The worker's status (queued: 1) follows the change a quarter of a second later, on its own clock.
	await new Promise((resolve) => setTimeout(resolve, 400));
	timers.advance(30_000);
	await drain();
	assert.deepEqual(port.files.get(DB)?.bytes, original, "30 s of quiet with a job queued: not written");
	// The job finished and nothing is left: 10 s of quiet, then the write.
	emit("progress", { finished: 1, queued: 0, running: 0, failed: 0, current: null, paused: null });
	timers.advance(9_999);
	await drain();
	assert.deepEqual(port.files.get(DB)?.bytes, original, "inside the quiet");
	timers.advance(1);
	await drain();
	await drain();
	assert.notDeepEqual(port.files.get(DB)?.bytes, original, "written once the work was over and quiet");
	await session.close();
});
