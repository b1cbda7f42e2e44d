// The built main.js in the headless host: lazy start, status bar, command, flush on unload, config folder.

import assert from "node:assert/strict";
import fs from "node:fs/promises";
import { afterEach, test } from "node:test";
import { type Host, startHost } from "../host/host";
import { loadFacade } from "../support/facade";
import { databasePath, databaseWithMemories, filesIn, inspectDatabase, readDatabase, writeDatabase } from "../support/plugin-fixtures";
import { statusBarLabel } from "../support/vault-host";

let host: Host | undefined;
afterEach(async () => {
	await host?.stop();
	host = undefined;
});

test("onload returns before the core starts; the core starts after layout-ready", async () => {
	host = await startHost();
	await host.loadPlugin({ layoutReady: false });
	assert.equal(host.statusBarText(), "Memory: starting…");
	await host.settle();
	await new Promise((resolve) => setTimeout(resolve, 200));
	assert.equal(host.statusBarText(), "Memory: starting…", "nothing starts before the layout is ready");
	assert.ok(
		host.adapter.calls.every((call) => !call.args.some((arg) => arg.endsWith(".db"))),
		"the database is not touched during onload",
	);

	host.fireLayoutReady();
	assert.equal(host.statusBarText(), "Memory: starting…", "the start is asynchronous");
	assert.equal(await host.waitForCore(), "Memory: 0/0 notes");
	assert.match(statusBarLabel(host), /0 memories, 0 insights, 0 queued/);
});

test("the status bar shows the counts of an existing database", async () => {
	host = await startHost();
	await writeDatabase(host, await databaseWithMemories(1234));
	await host.loadPlugin();
	// The planted memories are unconsolidated, so the at-start consolidation is queued (and
	// waits: no connection is set up in this test).
	// No note in the vault; the consolidation the planted memories queued waits for keys, so the engine paused.
	assert.equal(await host.waitForCore(), "Memory: 0/0 notes · paused");
	assert.match(statusBarLabel(host), new RegExp(`${(1234).toLocaleString()} memories, 0 insights, 1 queued`));
	const item = host.statusBarEl.querySelector<HTMLElement>(".plugin-memory-agent");
	assert.ok(item !== null && item.classList.contains("memory-agent-status"), "the item has the plugin's CSS class");
	// A button for keyboards and screen readers: Enter opens the status view.
	assert.equal(item.getAttribute("role"), "button");
	assert.equal(item.getAttribute("tabindex"), "0");
	const started = host;
	const { KeyboardEvent } = started.dom.window;
	item.dispatchEvent(new KeyboardEvent("keydown", { key: "Enter", bubbles: true, cancelable: true }) as unknown as Event);
	await started.waitFor(() => started.workspaceEl.querySelector(".memory-agent-status-view") !== null, { message: "the status view" });
});

test("'Show memory status' shows counts, schema version and database path", async () => {
	host = await startHost();
	await writeDatabase(host, await databaseWithMemories(3));
	await host.loadPlugin();
	await host.waitForCore();
	assert.ok(host.commands.has("memory-agent:show-memory-status"));
	assert.equal(host.commands.get("memory-agent:show-memory-status")?.hotkeys, undefined, "no default hotkey");
	await host.runCommand("show-memory-status");
	await host.settle();
	// The command opens the status view.
	const notice = host.workspaceEl.querySelector(".memory-agent-status-view")?.textContent ?? "";
	const { facade } = await loadFacade();
	assert.match(notice, /3 memories, 0 insights/);
	assert.match(notice, /1 queued, 0 running, 0 failed/, "the at-start consolidation waits for a connection");
	assert.match(notice, new RegExp(`Schema version ${facade.supportedSchemaVersion()}`));
	assert.ok(notice.includes(databasePath(host)), notice);
});

test("the command answers while the core is still starting", async () => {
	host = await startHost();
	await host.loadPlugin({ layoutReady: false });
	await host.runCommand("show-memory-status");
	assert.match(host.notices.at(-1) ?? "", /starting/);
});

test("unload flushes a new database to disk, and the next load reads it back", async () => {
	host = await startHost();
	await host.loadPlugin();
	await host.waitForCore();
	assert.equal(await readDatabase(host), undefined, "not yet written: the save is debounced");
	await host.unloadPlugin();
	const { facade } = await loadFacade();
	assert.deepEqual(await inspectDatabase(host), { version: facade.supportedSchemaVersion(), memories: 0 });
	assert.deepEqual(await filesIn(host, host.pluginDir), ["main.js", `memory-${host.deviceId}.db`], "no temporary file left, and the heartbeat is removed");
	assert.equal(host.statusBarText(), "", "the status bar item is removed");
	assert.equal(host.commands.size, 0, "the command is removed");

	await host.loadPlugin();
	assert.equal(await host.waitForCore(), "Memory: 0/0 notes");
});

test("memories survive unload and reload", async () => {
	host = await startHost();
	await writeDatabase(host, await databaseWithMemories(7));
	await host.loadPlugin();
	await host.waitForCore();
	assert.match(statusBarLabel(host), /7 memories/);
	await host.unloadPlugin();
	assert.equal((await inspectDatabase(host)).memories, 7);
	await host.loadPlugin();
	await host.waitForCore();
	assert.match(statusBarLabel(host), /7 memories/);
});

test("unloading before the core started leaves the vault untouched", async () => {
	host = await startHost();
	await host.loadPlugin({ layoutReady: false });
	await host.unloadPlugin();
	assert.equal(await readDatabase(host), undefined);
	assert.equal(host.timers.pending, 0, "no timer left running");
});

test("a layout-ready that comes after unload does not start the core", async () => {
	host = await startHost();
	await host.loadPlugin({ layoutReady: false });
	await host.unloadPlugin();
	host.fireLayoutReady();
	await new Promise((resolve) => setTimeout(resolve, 300));
	await host.settle();
	assert.equal(await readDatabase(host), undefined, "no database was opened or written");
	assert.equal(host.timers.pending, 0);
	assert.equal(host.notices.length, 0);
});

test("the default database path follows the vault's config folder", async () => {
	host = await startHost({ configDir: ".my-config" });
	await host.loadPlugin();
	await host.waitForCore();
	await host.runCommand("show-memory-status");
	await host.settle();
	const view = host.workspaceEl.querySelector(".memory-agent-status-view")?.textContent ?? "";
	assert.ok(view.includes(`.my-config/plugins/memory-agent/memory-${host.deviceId}.db`), view);
	await host.unloadPlugin();
	assert.ok(await readDatabase(host), "this device's database is in .my-config/plugins/memory-agent");
	assert.equal(databasePath(host), `.my-config/plugins/memory-agent/memory-${host.deviceId}.db`);
});

test("an older version's database at the settings' path is read once: its memories become this device's own file, and it is left as it was", async () => {
	host = await startHost();
	const older = await databaseWithMemories(7);
	await fs.mkdir(host.diskPath("Memory"), { recursive: true });
	await fs.writeFile(host.diskPath("Memory/agent.db"), older);
	await fs.mkdir(host.diskPath(host.pluginDir), { recursive: true });
	await host.vault.adapter.write(`${host.pluginDir}/data.json`, JSON.stringify({ databasePath: "Memory/agent.db" }));
	await host.loadPlugin();
	await host.waitForCore();
	assert.match(statusBarLabel(host), /7 memories/);
	await host.unloadPlugin();
	assert.equal((await inspectDatabase(host)).memories, 7, "saved as this device's own database");
	assert.deepEqual(new Uint8Array(await fs.readFile(host.diskPath("Memory/agent.db"))), older, "the older file is left as it was");
});

test("the settings tab checks the memory folder with the core's rule and saves a valid one", async () => {
	host = await startHost();
	await host.loadPlugin();
	await host.waitForCore();
	const tab = host.settingTabs[0];
	assert.ok(tab, "a settings tab is registered");
	tab.display();
	// The tab has many groups now; this test looks only at the memory folder's row.
	const row = [...tab.containerEl.querySelectorAll(".setting-item")].find((el) => el.querySelector(".setting-item-name")?.textContent === "Memory folder");
	const input = row?.querySelector("input");
	assert.ok(row && input, "the tab has a memory folder field");
	assert.equal(input.value, "Memory Agent");
	const type = async (value: string) => {
		input.value = value;
		input.dispatchEvent(new host!.dom.window.Event("input") as unknown as Event);
		await host!.settle();
	};
	const error = () => row.querySelector(".memory-agent-setting-error")?.textContent ?? "";

	await type("../outside");
	assert.match(error(), /inside the vault/);
	assert.equal(await host.adapter.exists(`${host.pluginDir}/data.json`), false, "invalid values are not saved");

	await type("/Shared/Memory/");
	assert.equal(error(), "");
	const saved = JSON.parse(await host.adapter.read(`${host.pluginDir}/data.json`)) as unknown;
	assert.deepEqual(saved, { memoryFolder: "Shared/Memory" });
});
