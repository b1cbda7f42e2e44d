// The store session with the real core: new stores, corrupt and newer files, files changed on disk.

import assert from "node:assert/strict";
import { test } from "node:test";
import type { StoreStatus } from "../../plugin/core/memory-core-api";
import { DatabaseFile } from "../../plugin/storage/database-file";
import { StoreSession, type StoreSessionDeps, StoreUnavailableError } from "../../plugin/storage/store-session";
import { loadFacade } from "../support/facade";
import { FakeTimers, drain } from "../support/fake-timers";
import { MemoryPort } from "../support/memory-port";
import { emptyDatabase, inProcessCore } from "../support/node-core";
import { withMemories } from "../support/sqlite-fixtures";

const DB = "config/plugins/memory-agent/memory.db";
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
		now: () => NOW,
		notify: (message) => notices.push(message),
		onStatus: (status) => statuses.push(status),
		onUnavailable: (reason) => unavailable.push(reason),
	};
	return { port, timers, notices, statuses, unavailable, deps };
}

async function portWith(bytes: Uint8Array): Promise<MemoryPort> {
	const port = new MemoryPort();
	await port.mkdir("config/plugins/memory-agent");
	await port.writeBinary(DB, bytes.slice().buffer);
	return port;
}

test("a new store is written to a new file after the save delay", async () => {
	const { port, timers, statuses, deps } = await setup();
	const session = await StoreSession.open(deps);
	assert.equal(statuses.at(-1)?.memories, 0);
	assert.equal(port.files.has(DB), false, "nothing written before the delay");
	timers.advance(2000);
	await drain();
	assert.ok(port.files.has(DB), "written after the delay");
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
	assert.match(notices[0] ?? "", /new, empty one/);
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

test("another device's copy brought by a sync tool is merged with ours, and what we forgot stays forgotten", async () => {
	const { SQL } = await loadFacade();
	const ours = withMemories(SQL, await emptyDatabase(), 2);
	const { port, notices, deps } = await setup(await portWith(ours));
	const session = await StoreSession.open(deps);
	// Not yet saved here: test-1 forgotten.
	await deps.client.call("forgetMemory", "test-1");
	// The other device still has test-1, and remembered test-2..4.
	const theirs = withMemories(SQL, withMemories(SQL, await emptyDatabase(), 2), 3, 2);
	port.replaceExternally(DB, theirs);

	await session.flush();
	const ids = async () => (await deps.client.call("getMemories", ["test-0", "test-1", "test-2", "test-3", "test-4"])).map((memory) => memory.id);
	assert.deepEqual(await ids(), ["test-0", "test-2", "test-3", "test-4"], "both sides' work, without what was forgotten here");
	assert.ok(notices.some((n) => /merged it with its own: 3 added/.test(n)), `notices: ${JSON.stringify(notices)}`);
	// The merged memory is what the file holds now.
	const saved = new SQL.Database(port.files.get(DB)!.bytes);
	assert.deepEqual(saved.exec("SELECT id FROM memories ORDER BY id")[0]?.values.flat(), ["test-0", "test-2", "test-3", "test-4"]);
	assert.deepEqual(saved.exec("SELECT id FROM tombstones ORDER BY id")[0]?.values.flat(), ["test-1", "test-1@planted.md"], "the forget travels with the file");
	saved.close();

	// The other device merges ours and its copy comes back, alike: it is merged, not saved
	// again (the sync tool would carry the file back and forth for ever).
	const alike = port.files.get(DB)!.bytes;
	port.replaceExternally(DB, alike);
	const replacedAt = port.files.get(DB)!.mtime;
	await session.mergeIfChanged();
	await session.flush();
	assert.equal(port.files.get(DB)!.mtime, replacedAt, "an alike copy is not written back");
	// A change of ours after it is saved as usual.
	await deps.client.call("forgetMemory", "test-0");
	session.requestSave();
	await session.flush();
	assert.notEqual(port.files.get(DB)!.mtime, replacedAt, "our own change is saved");
	await session.close();
});

test("sync tools' conflict copies beside the file are merged, ours saved, then they go to the trash; a damaged one stays", async () => {
	const { SQL } = await loadFacade();
	const ours = withMemories(SQL, await emptyDatabase(), 2);
	const port = await portWith(ours);
	// Syncthing kept the other device's version (test-2, test-3) beside ours; a damaged copy too.
	const folder = DB.slice(0, DB.lastIndexOf("/"));
	port.replaceExternally(`${folder}/memory.sync-conflict-20261201-192231-ABCDEF7.db`, withMemories(SQL, withMemories(SQL, await emptyDatabase(), 2), 2, 2));
	port.replaceExternally(`${folder}/memory 2.db`, new TextEncoder().encode("not a database at all, just bytes long enough to be read as a header".repeat(2)));
	port.replaceExternally(`${folder}/notes.db`, withMemories(SQL, await emptyDatabase(), 1, 9));
	const { notices, deps } = await setup(port);
	const session = await StoreSession.open(deps);
	await session.mergeConflictCopies();

	const saved = new SQL.Database(port.files.get(DB)!.bytes);
	assert.deepEqual(saved.exec("SELECT id FROM memories ORDER BY id")[0]?.values.flat(), ["test-0", "test-1", "test-2", "test-3"], "ours, with the copy's work, is on disk");
	saved.close();
	assert.deepEqual(port.trashed, [`${folder}/memory.sync-conflict-20261201-192231-ABCDEF7.db`], "the merged copy went to the trash, nothing else");
	assert.ok(port.files.has(`${folder}/memory 2.db`), "the damaged copy is left as it is");
	assert.ok(port.files.has(`${folder}/notes.db`), "a file that is no copy of ours is not touched");
	assert.ok(notices.some((n) => /merged memory\.sync-conflict-.*2 added.*moved it to the trash/.test(n)), JSON.stringify(notices));
	assert.equal(notices.filter((n) => /found memory 2\.db.*could not merge it/.test(n)).length, 1, JSON.stringify(notices));
	assert.equal((await deps.client.call("status")).shared, true, "the memory is shared from now on");
	await session.close();
});

test("a copy from a newer Memory Agent on another device is loaded, not merged or overwritten", async () => {
	const { SQL } = await loadFacade();
	const { port, unavailable, deps } = await setup();
	const session = await StoreSession.open(deps);
	const newer = new SQL.Database(withMemories(SQL, await emptyDatabase(), 1));
	newer.run("PRAGMA user_version = 999");
	const synced = newer.export();
	newer.close();
	await port.mkdir("config/plugins/memory-agent");
	port.replaceExternally(DB, synced);
	await session.flush().catch(() => undefined);
	assert.deepEqual(port.files.get(DB)?.bytes, synced, "the newer file was not overwritten");
	assert.equal(unavailable.length, 1, "the store is unavailable until Memory Agent is updated");
	assert.match(unavailable[0] ?? "", /newer version/);
	await session.close().catch(() => undefined);
	assert.deepEqual(port.files.get(DB)?.bytes, synced, "closing does not overwrite it either");
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
	const aside = `${DB}.corrupt-20261130T071400Z`;
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
