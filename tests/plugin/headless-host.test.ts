// The headless host itself: its vault works on real files and emits Obsidian's events.

import assert from "node:assert/strict";
import fs from "node:fs/promises";
import { afterEach, test } from "node:test";
import type { TAbstractFile } from "obsidian";
import { type Host, startHost } from "../host/host";

let host: Host | undefined;
afterEach(async () => {
	await host?.stop();
	host = undefined;
});

test("vault changes made through the host API touch real files and emit events", async () => {
	host = await startHost();
	const events: string[] = [];
	for (const name of ["create", "modify", "delete", "rename"]) {
		host.vault.on(name, (file: TAbstractFile, oldPath?: string) => events.push(`${name} ${file.path}${oldPath ? ` from ${oldPath}` : ""}`));
	}
	const note = await host.vault.create("Daily/2026-11-30.md", "# Monday\n");
	assert.equal(await fs.readFile(host.diskPath("Daily/2026-11-30.md"), "utf8"), "# Monday\n");
	await host.vault.modify(note, "# Monday\n\nMet Ana.\n");
	assert.equal(await host.vault.read(note), "# Monday\n\nMet Ana.\n");
	await host.vault.rename(note, "Daily/Monday.md");
	assert.equal(note.path, "Daily/Monday.md", "the same TFile object follows the rename");
	await host.vault.delete(note);
	await assert.rejects(fs.stat(host.diskPath("Daily/Monday.md")));
	assert.deepEqual(events, [
		"create Daily/2026-11-30.md",
		"modify Daily/2026-11-30.md",
		"rename Daily/Monday.md from Daily/2026-11-30.md",
		"delete Daily/Monday.md",
	]);
});

test("getFiles lists the folder, without the config folder or hidden files", async () => {
	host = await startHost({ configDir: ".settings" });
	await fs.mkdir(host.diskPath("Projects"), { recursive: true });
	await fs.writeFile(host.diskPath("Projects/plan.md"), "plan");
	await fs.writeFile(host.diskPath("image.png"), "png");
	await fs.writeFile(host.diskPath(".hidden.md"), "no");
	await fs.writeFile(host.diskPath(".settings/app.json"), "{}");
	assert.deepEqual(host.vault.getFiles().map((f) => f.path).sort(), ["Projects/plan.md", "image.png"]);
	const [md] = host.vault.getMarkdownFiles();
	assert.equal(md?.path, "Projects/plan.md");
	assert.equal(md?.basename, "plan");
	assert.equal(md?.extension, "md");
	assert.equal(md?.stat.size, 4);
	assert.strictEqual(host.vault.getFileByPath("Projects/plan.md"), md, "file objects are stable");
});

test("the adapter is as strict as Obsidian's: no overwriting rename, no write into a missing folder", async () => {
	host = await startHost();
	await host.adapter.write("a.md", "a");
	await host.adapter.write("b.md", "b");
	await assert.rejects(host.adapter.rename("a.md", "b.md"), /already exists/);
	await assert.rejects(host.adapter.writeBinary("missing/folder/x.bin", new ArrayBuffer(1)), /does not exist/);
	await assert.rejects(host.adapter.read("../outside.md"), /leaves the vault/);
	const listed = await host.adapter.list("/");
	assert.deepEqual([listed.files.sort(), listed.folders], [["a.md", "b.md"], [".obsidian"]]);
});
