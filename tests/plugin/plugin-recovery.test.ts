// The built main.js facing bad database files: corrupt, truncated, newer schema.

import assert from "node:assert/strict";
import fs from "node:fs/promises";
import path from "node:path";
import { afterEach, test } from "node:test";
import { type Host, startHost } from "../host/host";
import { loadFacade } from "../support/facade";
import { emptyDatabase } from "../support/node-core";
import { databasePath, databaseWithMemories, filesIn, inspectDatabase, readDatabase, writeDatabase } from "../support/plugin-fixtures";

let host: Host | undefined;
afterEach(async () => {
	await host?.stop();
	host = undefined;
});

test("a corrupt database is moved aside with its bytes intact, and a new store starts", async () => {
	host = await startHost({ configDir: ".config" });
	const garbage = new TextEncoder().encode("# Shopping\n\n- milk\n".repeat(300));
	await writeDatabase(host, garbage);
	await host.loadPlugin();
	assert.equal(await host.waitForCore(), "Memory: 0/0 notes");

	const files = await filesIn(host, host.pluginDir);
	const aside = files.filter((name) => /^memory-[\w-]+\.db\.corrupt-\d{8}T\d{6}Z$/.test(name));
	assert.equal(aside.length, 1, `one moved-aside file (found ${files.join(", ")})`);
	const moved = await fs.readFile(host.diskPath(`${host.pluginDir}/${aside[0]}`));
	assert.deepEqual(new Uint8Array(moved), garbage, "the original bytes are intact");

	const notice = host.notices.find((n) => n.includes(aside[0] ?? "?"));
	assert.ok(notice, `a notice names the moved-aside file (notices: ${JSON.stringify(host.notices)})`);
	assert.match(notice, /rebuilding it from the logs in the memory folder \(no model call\)/);

	await host.unloadPlugin();
	const { facade } = await loadFacade();
	assert.deepEqual(await inspectDatabase(host), { version: facade.supportedSchemaVersion(), memories: 0 });
});

test("a truncated database is treated as corrupt, not silently emptied", async () => {
	host = await startHost();
	const whole = await databaseWithMemories(50);
	await writeDatabase(host, whole.slice(0, whole.length - 1000));
	await host.loadPlugin();
	await host.waitForCore();
	const files = await filesIn(host, host.pluginDir);
	assert.ok(files.some((name) => name.startsWith(`${path.basename(databasePath(host!))}.corrupt-`)), files.join(", "));
});

test("a database written by a newer version is left untouched and the memory is unavailable", async () => {
	host = await startHost();
	const { SQL } = await loadFacade();
	const db = new SQL.Database(await emptyDatabase());
	db.run("PRAGMA user_version = 4242");
	const newer = db.export();
	db.close();
	await writeDatabase(host, newer);
	const before = await fs.stat(host.diskPath(databasePath(host)));

	await host.loadPlugin();
	assert.equal(await host.waitForCore(), "Memory: unavailable");
	assert.ok(
		host.notices.some((n) => /newer version of Memory Agent — update the plugin/.test(n)),
		JSON.stringify(host.notices),
	);
	await host.runCommand("show-memory-status");
	assert.match(host.notices.at(-1) ?? "", /unavailable/);

	await host.unloadPlugin();
	assert.deepEqual(await readDatabase(host), newer, "the bytes are unchanged");
	assert.equal((await fs.stat(host.diskPath(databasePath(host)))).mtimeMs, before.mtimeMs, "the file was not rewritten");
	assert.deepEqual(await filesIn(host, host.pluginDir), ["main.js", path.basename(databasePath(host))], "nothing added or moved");
	assert.ok(
		host.adapter.calls.every((call) => call.method !== "writeBinary" && call.method !== "rename" && call.method !== "remove"),
		"no write, rename or remove was attempted",
	);
});
