// Files the core cannot use are refused with a real Error carrying a stable code.

import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { test } from "node:test";
import type { SqlJsStatic } from "sql.js";
import { type Facade, loadFacade } from "../support/facade";

const NOW = Date.UTC(2026, 10, 30, 7, 14);

function openError(facade: Facade, SQL: SqlJsStatic, bytes: Uint8Array): Error & { code?: unknown } {
	try {
		facade.MemoryCore.open(SQL, bytes, NOW).free();
	} catch (error) {
		assert.ok(error instanceof Error, `threw a real Error, got ${Object.prototype.toString.call(error)}`);
		assert.ok(error.message.length > 0, "the error has a message");
		return error as Error & { code?: unknown };
	}
	assert.fail("open() accepted bytes it should refuse");
}

function emptyStoreBytes(facade: Facade, SQL: SqlJsStatic): Uint8Array {
	const core = facade.MemoryCore.open(SQL, undefined, NOW);
	const bytes = core.exportDatabase();
	core.free();
	return bytes;
}

test("garbage bytes are store.corrupt", async () => {
	const { facade, SQL } = await loadFacade();
	const inputs = [
		new TextEncoder().encode("# My note\n\nNot a database at all.\n"),
		new Uint8Array(randomBytes(4096)),
		new Uint8Array(randomBytes(100_000)),
		new Uint8Array(4096),
	];
	for (const bytes of inputs) assert.equal(openError(facade, SQL, bytes).code, "store.corrupt");
});

test("a truncated database is store.corrupt", async () => {
	const { facade, SQL } = await loadFacade();
	const whole = emptyStoreBytes(facade, SQL);
	assert.ok(whole.length >= 2 * 512, "the empty store spans several pages");
	for (const length of [50, 100, 1000, whole.length >> 1, whole.length - 1]) {
		const error = openError(facade, SQL, whole.slice(0, length));
		assert.equal(error.code, "store.corrupt", `cut to ${length} of ${whole.length} bytes: ${error.message}`);
	}
});

test("a database cut at a page boundary is store.corrupt", async () => {
	const { facade, SQL } = await loadFacade();
	const whole = emptyStoreBytes(facade, SQL);
	const pageSize = new DataView(whole.buffer, whole.byteOffset).getUint16(16);
	assert.ok(whole.length > pageSize, "more than one page");
	const error = openError(facade, SQL, whole.slice(0, whole.length - pageSize));
	assert.equal(error.code, "store.corrupt", error.message);
});

test("an SQLite file that is not a Memory Agent database is store.corrupt", async () => {
	const { facade, SQL } = await loadFacade();
	const db = new SQL.Database();
	db.run("CREATE TABLE shopping (item TEXT); INSERT INTO shopping VALUES ('milk');");
	db.run(`PRAGMA user_version = ${facade.supportedSchemaVersion()}`);
	const bytes = db.export();
	db.close();
	assert.equal(openError(facade, SQL, bytes).code, "store.corrupt");
});

test("a database from a newer schema is store.newer_schema", async () => {
	const { facade, SQL } = await loadFacade();
	const db = new SQL.Database(emptyStoreBytes(facade, SQL));
	db.run(`PRAGMA user_version = ${facade.supportedSchemaVersion() + 1}`);
	const bytes = db.export();
	db.close();
	const error = openError(facade, SQL, bytes);
	assert.equal(error.code, "store.newer_schema", error.message);
});

test("damage met by a later statement is store.corrupt, told by SQLite's result code", async () => {
	const { facade, SQL } = await loadFacade();
	const bytes = emptyStoreBytes(facade, SQL);
	const db = new SQL.Database(bytes);
	// The memories table and its indexes: the status counts them.
	const roots = (db.exec("SELECT rootpage FROM sqlite_master WHERE tbl_name = 'memories' AND rootpage > 0")[0]?.values ?? []).map((row) => Number(row[0]));
	db.close();
	const pageSize = (bytes[16]! << 8) | bytes[17]!;
	const damaged = bytes.slice();
	for (const root of roots) damaged.fill(0xa5, pageSize * (root - 1), pageSize * root);
	const core = facade.MemoryCore.open(SQL, damaged, NOW);
	try {
		assert.throws(
			() => core.status(),
			(error: Error & { code?: unknown }) => {
				assert.equal(error.code, "store.corrupt");
				return true;
			},
		);
	} finally {
		core.free();
	}
});
