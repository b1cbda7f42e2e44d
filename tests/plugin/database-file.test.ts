// Unit tests of the crash-safe save protocol, with failures injected at every step.

import assert from "node:assert/strict";
import { test } from "node:test";
import { DatabaseFile, compactTimestamp } from "../../plugin/storage/database-file";
import { InjectedFault, MemoryPort } from "../support/memory-port";

const DB = ".obsidian/plugins/memory-agent/memory.db";
const TMP = `${DB}.tmp`;
const OLD = `${DB}.old`;
const bytes = (text: string) => new TextEncoder().encode(text);
const text = (data: Uint8Array | undefined) => (data === undefined ? undefined : new TextDecoder().decode(data));

/** A port holding a saved "old" database. */
async function withOldDatabase() {
	const port = new MemoryPort();
	await new DatabaseFile(port, DB).save(bytes("old database"));
	port.log.length = 0;
	return port;
}

test("save writes the temporary file, moves the old file aside, renames, then removes the old one", async () => {
	const port = await withOldDatabase();
	await new DatabaseFile(port, DB).save(bytes("new database"));
	const steps = port.log.filter((line) => /^(writeBinary|remove|rename)/.test(line));
	assert.deepEqual(steps, [`writeBinary ${TMP}`, `rename ${DB}`, `rename ${TMP}`, `remove ${OLD}`]);
	assert.equal(port.files.has(OLD), false);
	assert.equal(port.text(DB), "new database");
	assert.equal(port.files.has(TMP), false);
});

test("save creates the missing parent folder", async () => {
	const port = new MemoryPort();
	await new DatabaseFile(port, DB).save(bytes("first"));
	assert.ok(port.folders.has(".obsidian/plugins/memory-agent"));
	assert.equal(port.text(DB), "first");
});

test("load of a vault without a database returns undefined", async () => {
	assert.equal(await new DatabaseFile(new MemoryPort(), DB).load(), undefined);
});

test("save writes only the view's bytes, not the whole buffer behind it", async () => {
	const port = new MemoryPort();
	const buffer = bytes("xxHELLOxx");
	await new DatabaseFile(port, DB).save(buffer.subarray(2, 7));
	assert.equal(port.text(DB), "HELLO");
});

test("a crash while writing the temporary file keeps the previous database", async () => {
	const port = await withOldDatabase();
	port.failOn("writeBinary", { path: TMP, partial: true });
	await assert.rejects(new DatabaseFile(port, DB).save(bytes("new database, long enough to be cut")), InjectedFault);
	assert.ok(port.files.has(TMP), "a half-written temporary file is left behind");

	port.restart();
	const file = new DatabaseFile(port, DB);
	assert.equal(text(await file.load()), "old database");
	assert.equal(port.files.has(TMP), false, "the unfinished temporary file is removed");
});

test("a crash after writing the temporary file (before removing the old one) keeps the previous database", async () => {
	const port = await withOldDatabase();
	port.failOn("writeBinary", { path: TMP, after: true });
	await assert.rejects(new DatabaseFile(port, DB).save(bytes("new database")), InjectedFault);
	assert.equal(port.text(TMP), "new database");
	assert.equal(port.text(DB), "old database");

	port.restart();
	assert.equal(text(await new DatabaseFile(port, DB).load()), "old database");
	assert.equal(port.files.has(TMP), false);
});

test("a crash after moving the old file aside recovers the complete new database", async () => {
	const port = await withOldDatabase();
	port.failOn("rename", { path: DB, after: true });
	await assert.rejects(new DatabaseFile(port, DB).save(bytes("new database")), InjectedFault);
	assert.equal(port.files.has(DB), false, "the temporary file and the old one are left");

	port.restart();
	assert.equal(text(await new DatabaseFile(port, DB).load()), "new database");
	assert.equal(port.files.has(TMP), false, "the temporary file became the database");
	assert.equal(port.files.has(OLD), false, "the old one is gone");
});

test("a first save cut short is never opened as a database", async () => {
	// Issue 35: with no database yet, a half-written temporary file was promoted and opened.
	const port = new MemoryPort();
	port.failOn("writeBinary", { path: TMP, partial: true });
	await assert.rejects(new DatabaseFile(port, DB).save(bytes("the very first database, cut")), InjectedFault);
	port.restart();
	assert.equal(await new DatabaseFile(port, DB).load(), undefined, "no database: the logs rebuild it");
	assert.equal(port.files.has(TMP), false);
});

test("a crash after the new file took its place but before the old one went leaves the new one", async () => {
	const port = await withOldDatabase();
	port.failOn("remove", { path: OLD });
	await assert.rejects(new DatabaseFile(port, DB).save(bytes("new database")), InjectedFault);
	port.restart();
	assert.equal(text(await new DatabaseFile(port, DB).load()), "new database");
	assert.equal(port.files.has(OLD), false);
});

test("a crash right after the rename leaves the new database", async () => {
	const port = await withOldDatabase();
	port.failOn("rename", { path: TMP, after: true });
	await assert.rejects(new DatabaseFile(port, DB).save(bytes("new database")), InjectedFault);
	port.restart();
	assert.equal(text(await new DatabaseFile(port, DB).load()), "new database");
});

test("a failed rename (no crash) is reported and the next save succeeds", async () => {
	const port = await withOldDatabase();
	const file = new DatabaseFile(port, DB);
	port.failOn("rename", { crash: false });
	await assert.rejects(file.save(bytes("attempt 1")), InjectedFault);
	await file.save(bytes("attempt 2"));
	assert.equal(text(await file.load()), "attempt 2");
});

test("after any interrupted save, a later save and load work normally", async () => {
	for (const fault of [
		{ op: "writeBinary", partial: true },
		{ op: "writeBinary", after: true },
		{ op: "exists", path: DB },
		{ op: "rename", path: DB, after: true },
		{ op: "remove", path: OLD },
		{ op: "rename" },
	] as const) {
		const port = await withOldDatabase();
		port.failOn(fault.op, fault);
		await assert.rejects(new DatabaseFile(port, DB).save(bytes("interrupted")), InjectedFault);
		port.restart();
		const file = new DatabaseFile(port, DB);
		const loaded = text(await file.load());
		assert.ok(loaded === "old database" || loaded === "interrupted", `${JSON.stringify(fault)}: loaded ${loaded}`);
		await file.save(bytes("after recovery"));
		assert.equal(text(await new DatabaseFile(port, DB).load()), "after recovery", JSON.stringify(fault));
		assert.equal(port.files.has(TMP), false);
	}
});

test("moveAside renames to a timestamped name, never overwriting, keeping the bytes", async () => {
	const port = await withOldDatabase();
	const file = new DatabaseFile(port, DB);
	const when = new Date(Date.UTC(2026, 10, 30, 7, 14, 0, 123));
	const first = await file.moveAside(when);
	assert.equal(first, `${DB}.corrupt-20261130T071400Z`);
	assert.equal(port.text(first), "old database");
	assert.equal(port.files.has(DB), false);

	await file.save(bytes("second bad file"));
	const second = await file.moveAside(when);
	assert.equal(second, `${DB}.corrupt-20261130T071400Z-2`);
	assert.equal(port.text(first), "old database", "the first moved-aside file is untouched");
	assert.equal(port.text(second), "second bad file");
});

test("compactTimestamp is UTC, without separators or milliseconds", () => {
	assert.equal(compactTimestamp(new Date(Date.UTC(2026, 0, 2, 3, 4, 5, 999))), "20260102T030405Z");
});
