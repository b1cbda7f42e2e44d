// The per-device log through the built main.js in the headless host, its worker in a real thread
// and its files on a real vault folder: what the core's log runtime does as the plugin schedules
// it and the main thread carries out its file operations. A forgotten typed text leaves no byte
// in the memory folder within a minute; one edited note makes one small upload (the file
// appended to is at most 64 KB); a device that joins replays another device's large log in
// slices, answering calls (the status, a question) between them.

import assert from "node:assert/strict";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, test } from "node:test";
import type { MemoryStore } from "../../plugin/core/memory-core-api";
import { vaultFileHandlers } from "../../plugin/host/vault-files";
import { HostDataAdapter } from "../host/data-adapter";
import type { Host } from "../host/host";
import { inProcessCore } from "../support/node-core";
import { upgradedWithTypedMemories } from "../support/plugin-fixtures";
import { waitForIdle } from "../support/vault-host";
import { NOTES, type UiHost, startUiHost, waitForMemories } from "./views-fixture";

const MEMORY_FOLDER = "Memory Agent";
/** The core's seal of a log file (`device::layout::SEAL_AT`): one edit uploads at most this much. */
const SEAL_AT = 64 * 1024;

let ui: UiHost | undefined;
const folders: string[] = [];
afterEach(async () => {
	await ui?.close();
	ui = undefined;
	for (const folder of folders.splice(0)) await fs.rm(folder, { recursive: true, force: true });
});

async function vaultFolder(name: string): Promise<string> {
	const dir = await fs.mkdtemp(path.join(os.tmpdir(), `memory-agent-${name}-`));
	folders.push(dir);
	return dir;
}

/** Every file under the memory folder, by vault path, with its bytes. */
async function memoryFolderFiles(host: Host): Promise<Map<string, Buffer>> {
	const found = new Map<string, Buffer>();
	const walk = async (relative: string) => {
		const entries = await fs.readdir(host.diskPath(relative), { withFileTypes: true }).catch(() => []);
		for (const entry of entries) {
			const child = `${relative}/${entry.name}`;
			if (entry.isDirectory()) await walk(child);
			else if (entry.isFile()) found.set(child, await fs.readFile(host.diskPath(child)));
		}
	};
	await walk(MEMORY_FOLDER);
	return found;
}

/** The files under the memory folder that hold `text` (as UTF-8 bytes). */
async function filesHolding(host: Host, text: string): Promise<string[]> {
	return [...(await memoryFolderFiles(host))].filter(([, bytes]) => bytes.includes(Buffer.from(text))).map(([vaultPath]) => vaultPath);
}

type Runtime = { flush(): Promise<void>; store(): MemoryStore | undefined };
const runtimeOf = (host: Host) => (host.plugin as unknown as { runtime: Runtime }).runtime;

test("a forgotten typed text leaves no byte of it in any file of the memory folder within a minute", { timeout: 120_000 }, async () => {
	ui = await startUiHost({ notes: {} });
	const { host } = ui;
	const secret = "QX-4471-ZZ";
	await host.runCommand("remember-text");
	const modal = host.dom.document.querySelector<HTMLElement>(".modal-container .memory-agent-remember-modal")!;
	modal.querySelector<HTMLTextAreaElement>("textarea")!.value = `Zebulon's passport number is ${secret}.`;
	modal.querySelector<HTMLButtonElement>("button.mod-cta")!.click();
	await waitForMemories(host, 1);
	// Written to this device's log (the text of typed text is kept: it has no note to come from).
	await host.waitFor(async () => (await filesHolding(host, secret)).length > 0, { message: "the typed text in the log" });

	// Nothing of it is waiting any more (the write's own report schedules one more look, which finds nothing).
	await host.waitFor(() => !host.timers.dueWithin(3_000), { message: "the plugin's timers to be quiet" });
	// From now on the plugin's timers run ten times faster: six seconds here are its minute.
	const TIME_SCALE = 10;
	host.timers.timeScale = TIME_SCALE;
	const [card] = await waitForMemories(host, 1);
	card!.querySelector<HTMLButtonElement>(".memory-agent-forget")!.click();
	host.dom.document.querySelector<HTMLButtonElement>(".modal-container .memory-agent-confirm")!.click();
	const forgotten = Date.now();
	await waitForMemories(host, 0);
	await host.waitFor(async () => (await filesHolding(host, secret)).length === 0 && (await filesHolding(host, "Zebulon")).length === 0, {
		timeoutMs: 60_000 / TIME_SCALE,
		message: "the log files rewritten without the forgotten text",
	});
	const took = (Date.now() - forgotten) * TIME_SCALE;
	host.timers.timeScale = 1;
	await host.settle();
	const files = await memoryFolderFiles(host);
	assert.ok(files.size > 0, "the log still holds the removal");
	for (const [vaultPath, bytes] of files) {
		for (const word of [secret, "Zebulon", "zebulon", "passport number"]) assert.ok(!bytes.includes(Buffer.from(word)), `${vaultPath} holds "${word}"`);
	}
	assert.ok(took <= 60_000, `purged after ${took} ms of the plugin's time`);
});

test("one edited note appends at most 64 KB, to a log file of at most 64 KB, while the log is larger", { timeout: 120_000 }, async () => {
	// A device whose memory (an upgrade: 150 typed memories, about 130 KB of log) is written at its start.
	const dir = await vaultFolder("sealed");
	const plugin = path.join(dir, ".obsidian/plugins/memory-agent");
	await fs.mkdir(plugin, { recursive: true });
	await fs.writeFile(path.join(plugin, "memory-test-device.db"), await upgradedWithTypedMemories(150, 700));
	ui = await startUiHost({ vaultDir: dir, deviceId: "test-device", settings: { quietDelaySeconds: 0 } });
	const { host } = ui;
	const own = `${MEMORY_FOLDER}/test-device`;
	const sizes = async () => new Map([...(await memoryFolderFiles(host))].filter(([vaultPath]) => vaultPath.startsWith(`${own}/`)).map(([vaultPath, bytes]) => [vaultPath, bytes.length]));
	await waitForIdle(host);
	await runtimeOf(host).flush();
	const before = await sizes();
	const total = [...before.values()].reduce((sum, size) => sum + size, 0);
	assert.ok(total > 2 * SEAL_AT, `the log holds ${total} bytes`);
	for (const [vaultPath, size] of before) assert.ok(size <= SEAL_AT, `${vaultPath}: ${size} bytes`);

	const appendsBefore = host.adapter.calls.length;
	await host.vault.modify(host.vault.getFileByPath("Work/Budget.md")!, "# Q3 budget\n\nThe Q3 marketing budget is 45k euros, approved by Marco and Lena.\n");
	await host.waitFor(async () => (await sizes()).size !== before.size || [...(await sizes())].some(([vaultPath, size]) => before.get(vaultPath) !== size), {
		message: "the edit appended to the log",
	});
	await waitForIdle(host);
	await runtimeOf(host).flush();
	const after = await sizes();
	const grown = [...after].filter(([vaultPath, size]) => size !== (before.get(vaultPath) ?? 0));
	assert.ok(grown.length >= 1 && grown.length <= 2, `files changed by the edit: ${JSON.stringify(grown)}`);
	const appended = grown.reduce((sum, [vaultPath, size]) => sum + size - (before.get(vaultPath) ?? 0), 0);
	assert.ok(appended > 0 && appended <= SEAL_AT, `the edit appended ${appended} bytes`);
	for (const [vaultPath, size] of grown) assert.ok(size <= SEAL_AT, `${vaultPath}, appended to, is ${size} bytes`);
	const edits = host.adapter.calls.slice(appendsBefore).filter((call) => ["append", "write"].includes(call.method) && call.args[0]!.startsWith(`${MEMORY_FOLDER}/`));
	assert.ok(edits.every((call) => call.method === "append" || !before.has(call.args[0]!)), "no log file is rewritten in place");
});

test("a device joining replays another device's large log in slices, answering the status and a question between them", { timeout: 240_000 }, async () => {
	// Device A's log, written by the core through the same file operations: about 3 MB of typed memories.
	const dir = await vaultFolder("joining");
	const a = await inProcessCore(vaultFileHandlers(new HostDataAdapter(dir)));
	await a.call("open", await upgradedWithTypedMemories(2_500, 1_000), Date.now());
	await a.call("configure", { device: "device-a" });
	const written = await a.call("syncLog", MEMORY_FOLDER);
	a.terminate();
	assert.equal(written.appended, 2_500);
	const logFiles = await fs.readdir(path.join(dir, MEMORY_FOLDER, "device-a"));
	assert.ok(logFiles.length > 0);

	ui = await startUiHost({ vaultDir: dir, deviceId: "device-b", notes: NOTES, waitForCore: false });
	const { host } = ui;
	const runtime = () => (host.plugin as unknown as { runtime: Runtime } | undefined)?.runtime;
	await host.waitFor(() => runtime()?.store() !== undefined, { message: "B's store to open", timeoutMs: 30_000 });
	const store = runtime()!.store()!;
	// Calls made while the replay runs: each answered with the replay part done.
	const answeredDuring: string[] = [];
	let question: Promise<void> | undefined;
	for (;;) {
		const progress = await store.replayProgress();
		const status = await store.status();
		const after = await store.replayProgress();
		if (after.totalBytes > 0 && !after.running) break;
		if (progress.doneBytes > 0 && after.doneBytes < after.totalBytes) {
			answeredDuring.push(`status with ${status.memories} memories at ${progress.doneBytes}/${progress.totalBytes} bytes`);
			question ??= store.ask("When is the harbour survey?").then(async (answer) => {
				const now = await store.replayProgress();
				assert.ok(answer.pieces.length > 0, "an answer");
				answeredDuring.push(`a question at ${now.doneBytes}/${now.totalBytes} bytes`);
			});
		}
		await new Promise((resolve) => setTimeout(resolve, 5));
	}
	await question;
	const statuses = answeredDuring.filter((line) => line.startsWith("status"));
	assert.ok(statuses.length >= 2, `the status was answered between slices: ${JSON.stringify(answeredDuring)}`);
	const memoriesSeen = statuses.map((line) => Number(/with (\d+) memories/.exec(line)?.[1]));
	assert.ok(memoriesSeen.some((count) => count > 0 && count < 2_500), `the replay's slices were seen landing: ${memoriesSeen.join(", ")}`);
	const asked = answeredDuring.find((line) => line.startsWith("a question"));
	assert.ok(asked !== undefined, "the question was answered");
	const [done, total] = /at (\d+)\/(\d+)/.exec(asked)!.slice(1).map(Number);
	assert.ok(done! < total!, `the question was answered while the replay ran (${asked})`);

	await host.waitForCore({ timeoutMs: 60_000 });
	await waitForIdle(host);
	assert.equal((await store.status()).memories >= 2_500, true, "B has every memory of A's log");
});

test("what changed just before unload is in the log after it (the last write before the last save)", { timeout: 120_000 }, async () => {
	ui = await startUiHost({ notes: {} });
	const { host } = ui;
	await host.runCommand("remember-text");
	const modal = host.dom.document.querySelector<HTMLElement>(".modal-container .memory-agent-remember-modal")!;
	modal.querySelector<HTMLTextAreaElement>("textarea")!.value = "The lighthouse keeper retires on 3 May.";
	modal.querySelector<HTMLButtonElement>("button.mod-cta")!.click();
	await waitForMemories(host, 1);
	const written = host.adapter.calls.filter((call) => call.args[0]?.startsWith(`${MEMORY_FOLDER}/`)).length;
	await host.unloadPlugin();
	assert.ok((await filesHolding(host, "The lighthouse keeper retires on 3 May.")).length > 0, `the log holds the typed text (${written} log operations before the unload)`);
});
