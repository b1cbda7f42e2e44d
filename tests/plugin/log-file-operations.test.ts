// The device log's file operations as the main thread carries them out for the core
// (plugin/host/vault-files.ts), over the headless host's DataAdapter on a real temporary folder:
// names and sizes listed, reads from an offset, appends that make their folders and answer the
// size, new files that never overwrite, removals of what is already gone.

import assert from "node:assert/strict";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, test } from "node:test";
import { vaultFileHandlers } from "../../plugin/host/vault-files";
import { HostDataAdapter } from "../host/data-adapter";

const folders: string[] = [];
afterEach(async () => {
	for (const folder of folders.splice(0)) await fs.rm(folder, { recursive: true, force: true });
});

async function vault() {
	const dir = await fs.mkdtemp(path.join(os.tmpdir(), "memory-agent-log-ops-"));
	folders.push(dir);
	const adapter = new HostDataAdapter(dir);
	return { dir, adapter, files: vaultFileHandlers(adapter) };
}

const text = (bytes: Uint8Array | null) => (bytes === null ? null : new TextDecoder().decode(bytes));

test("appendText makes the file and its folders, appends, and answers the size in bytes", async () => {
	const { dir, adapter, files } = await vault();
	assert.equal(await files.appendText("Memory Agent/device-a/000001.jsonl", "{\"a\":1}\n"), 8);
	assert.equal(await files.appendText("Memory Agent/device-a/000001.jsonl", "{\"é\":2}\n"), 17, "bytes, not characters");
	assert.equal(await fs.readFile(path.join(dir, "Memory Agent/device-a/000001.jsonl"), "utf8"), "{\"a\":1}\n{\"é\":2}\n");
	const made = adapter.calls.filter((call) => call.method === "mkdir").map((call) => call.args[0]);
	assert.deepEqual(made, ["Memory Agent", "Memory Agent/device-a"], "each missing folder, from the top");
});

test("createFile writes a new file whole and refuses one that exists, leaving it as it was", async () => {
	const { dir, files } = await vault();
	await files.createFile("Memory Agent/device-a/000002.jsonl", "new\n");
	assert.equal(await fs.readFile(path.join(dir, "Memory Agent/device-a/000002.jsonl"), "utf8"), "new\n");
	await assert.rejects(files.createFile("Memory Agent/device-a/000002.jsonl", "other\n"), /already exists/);
	assert.equal(await fs.readFile(path.join(dir, "Memory Agent/device-a/000002.jsonl"), "utf8"), "new\n", "never overwritten");
});

test("removeFile removes, and a file already gone is no error", async () => {
	const { dir, files } = await vault();
	await files.createFile("Memory Agent/device-a/000001.jsonl", "x\n");
	await files.removeFile("Memory Agent/device-a/000001.jsonl");
	await assert.rejects(fs.stat(path.join(dir, "Memory Agent/device-a/000001.jsonl")));
	await files.removeFile("Memory Agent/device-a/000001.jsonl");
	await files.removeFile("Memory Agent/nowhere/000009.jsonl");
});

test("listFolder gives names (not paths) with sizes, and folders by name; a missing folder is empty", async () => {
	const { files } = await vault();
	assert.deepEqual(await files.listFolder("Memory Agent"), { files: [], folders: [] });
	await files.appendText("Memory Agent/device-a/000001.jsonl", "12345\n");
	await files.appendText("Memory Agent/device-a/000001 2.jsonl", "1\n");
	await files.appendText("Memory Agent/device-b/000001.jsonl", "1\n");
	const root = await files.listFolder("Memory Agent");
	assert.deepEqual(root.files, []);
	assert.deepEqual([...root.folders].sort(), ["device-a", "device-b"]);
	const own = await files.listFolder("Memory Agent/device-a");
	assert.deepEqual([...own.files].sort(), [["000001 2.jsonl", 2], ["000001.jsonl", 6]]);
	assert.deepEqual(own.folders, []);
});

test("readFrom gives the bytes from an offset to the end, in a buffer of their own; null for a missing file", async () => {
	const { files } = await vault();
	await files.appendText("Memory Agent/device-a/000001.jsonl", "first\nsecond\n");
	assert.equal(text(await files.readFrom("Memory Agent/device-a/000001.jsonl", 0)), "first\nsecond\n");
	const rest = await files.readFrom("Memory Agent/device-a/000001.jsonl", 6);
	assert.equal(text(rest), "second\n");
	assert.equal(rest?.byteOffset, 0);
	assert.equal(rest?.buffer.byteLength, 7, "its own buffer: transferred to the worker, not copied");
	assert.equal(text(await files.readFrom("Memory Agent/device-a/000001.jsonl", 13)), "", "at the end: nothing");
	assert.equal(await files.readFrom("Memory Agent/device-a/000009.jsonl", 0), null);
});
