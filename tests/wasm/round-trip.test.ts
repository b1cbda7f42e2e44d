// Database bytes survive export → reopen, and plain sql.js sees our schema and can add rows we read back.

import assert from "node:assert/strict";
import { test } from "node:test";
import { loadFacade } from "../support/facade";
import { columnsOf, tableNames, userVersion, withMemories } from "../support/sqlite-fixtures";

const NOW = Date.UTC(2026, 10, 30, 7, 14);
const TABLES = ["memories", "consolidations", "sources", "jobs", "meta"];

/** The status fields of the facade contract (the facade may add more). */
function contractStatus(status: Record<string, unknown>) {
	const { memories, insights, queued, running, failed, schemaVersion } = status;
	return { memories, insights, queued, running, failed, schemaVersion };
}

test("a new store is empty and exports a database that reopens with the same status", async () => {
	const { facade, SQL } = await loadFacade();
	const core = facade.MemoryCore.open(SQL, undefined, NOW);
	const status = core.status();
	assert.deepEqual(contractStatus({ ...status }), {
		memories: 0,
		insights: 0,
		queued: 0,
		running: 0,
		failed: 0,
		schemaVersion: facade.supportedSchemaVersion(),
	});
	const bytes = core.exportDatabase();
	assert.ok(bytes instanceof Uint8Array && bytes.length > 0);
	assert.equal(core.isDirty(), false, "exportBytes clears the dirty flag");
	core.free();

	const reopened = facade.MemoryCore.open(SQL, bytes, NOW + 1000);
	assert.deepEqual({ ...reopened.status() }, { ...status }, "the whole status is the same after reopening");
	assert.equal(reopened.isDirty(), false, "opening an up-to-date file changes nothing");
	reopened.free();
});

test("empty bytes open as a new store", async () => {
	const { facade, SQL } = await loadFacade();
	const core = facade.MemoryCore.open(SQL, new Uint8Array(0), NOW);
	assert.equal(core.status().memories, 0);
	core.free();
});

test("plain sql.js sees the schema version and our tables in the exported file", async () => {
	const { facade, SQL } = await loadFacade();
	const core = facade.MemoryCore.open(SQL, undefined, NOW);
	const db = new SQL.Database(core.exportDatabase());
	core.free();
	try {
		assert.equal(userVersion(db), facade.supportedSchemaVersion());
		const tables = tableNames(db);
		for (const table of TABLES) assert.ok(tables.includes(table), `table ${table} exists (found ${tables.join(", ")})`);
		// The full-text index's view calls the core's `memory_terms`: with it, the whole file checks out.
		db.create_function("memory_terms", (kind: unknown, text: unknown, names: unknown) => facade.memoryTerms(String(kind), String(text ?? ""), String(names ?? "")));
		assert.equal(db.exec("PRAGMA integrity_check")[0]?.values[0]?.[0], "ok");
	} finally {
		db.close();
	}
});

test("a memory inserted with plain sql.js is counted after reopening", async () => {
	const { facade, SQL } = await loadFacade();
	const core = facade.MemoryCore.open(SQL, undefined, NOW);
	const db = new SQL.Database(core.exportDatabase());
	const columns = columnsOf(db, "memories").map((c) => c.name);
	db.close();
	assert.ok(columns.length > 1, `memories has columns (${columns.join(", ")})`);
	const planted = withMemories(SQL, core.exportDatabase(), 1);
	core.free();

	const reopened = facade.MemoryCore.open(SQL, planted, NOW);
	assert.equal(reopened.status().memories, 1);
	// And the row survives the next export.
	const again = facade.MemoryCore.open(SQL, reopened.exportDatabase(), NOW);
	assert.equal(again.status().memories, 1);
	reopened.free();
	again.free();
});

test("many planted memories are all counted", async () => {
	const { facade, SQL } = await loadFacade();
	const core = facade.MemoryCore.open(SQL, undefined, NOW);
	const bytes = withMemories(SQL, core.exportDatabase(), 250);
	core.free();
	const reopened = facade.MemoryCore.open(SQL, bytes, NOW);
	assert.equal(reopened.status().memories, 250);
	reopened.free();
});
