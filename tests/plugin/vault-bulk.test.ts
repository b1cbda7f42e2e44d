// Queueing many notes at once asks first: number of notes, tokens and cost, and Start, Pause,
// Only some folders… or Cancel. "Rebuild memory from vault" re-checks every note.

import assert from "node:assert/strict";
import { afterEach, test } from "node:test";
import type { FakeBedrock } from "../fake-bedrock/index";
import type { Host } from "../host/host";
import { ingestRequests, ingestedChunks, rememberedPaths, startAnsweringFake, startVaultHost, statusOf, waitForIdle, writeNotes, writeSettings } from "../support/vault-host";

let host: Host | undefined;
let fake: FakeBedrock | undefined;
afterEach(async () => {
	await host?.stop();
	await fake?.close();
	host = undefined;
	fake = undefined;
});

const NOTES = { "Work/a.md": "Work note A.\n", "Work/b.md": "Work note B.\n", "Home/c.md": "Home note C.\n", "top.md": "Top note.\n" };

async function startWithDialog(): Promise<{ host: Host; fake: FakeBedrock; dialog: HTMLElement }> {
	fake = await startAnsweringFake();
	host = await startVaultHost();
	await writeSettings(host, fake, { bulkConfirmThreshold: 3 });
	await writeNotes(host, NOTES);
	await host.loadPlugin();
	await host.waitForCore();
	const h = host;
	await h.waitFor(() => h.dom.document.querySelector(".modal-container") !== null, { message: "the bulk dialog" });
	return { host: h, fake, dialog: h.dom.document.querySelector(".modal-container") as HTMLElement };
}

function click(dialog: HTMLElement, text: string): void {
	const button = [...dialog.querySelectorAll("button")].find((candidate) => candidate.textContent === text);
	assert.ok(button, `a "${text}" button`);
	button.click();
}

test("the dialog shows the count, tokens and an estimated cost; Cancel queues nothing", async () => {
	const { host, fake, dialog } = await startWithDialog();
	const text = dialog.textContent ?? "";
	assert.match(text, /Remember 4 notes\?/);
	assert.match(text, /About [\d,]+ tokens/);
	assert.match(text, /About (\$\d+\.\d\d|less than \$0\.01)/);
	assert.match(text, /estimate/);
	assert.deepEqual([...dialog.querySelectorAll("button")].map((button) => button.textContent), ["Start", "Pause", "Only some folders…", "Cancel"]);
	click(dialog, "Cancel");
	await waitForIdle(host);
	assert.equal(ingestedChunks(fake), 0);
	assert.equal(host.dom.document.querySelector(".modal-container"), null, "the dialog closed");
	await host.waitFor(() => host.statusBarText() === "Memory: 0/4 notes");

	// Selecting the status bar item opens the status view, whose buttons act on the engine.
	(host.statusBarEl.querySelector(".plugin-memory-agent") as HTMLElement).click();
	await host.settle();
	const view = host.workspaceEl.querySelector(".memory-agent-status-view");
	assert.ok(view, "the status view opened");
	assert.match(view.textContent ?? "", /0 of 4 notes remembered/);
	const pause = [...view.querySelectorAll("button")].find((button) => button.textContent === "Pause");
	assert.ok(pause);
	pause.click();
	assert.equal((await statusOf(host)).pausedByUser, true);
	await host.waitFor(() => host.statusBarText() === "Memory: 0/4 notes · paused");
});

test("Start remembers them all; Rebuild then re-checks every note without model calls", async () => {
	const { host, fake, dialog } = await startWithDialog();
	click(dialog, "Start");
	await waitForIdle(host);
	assert.equal(ingestedChunks(fake), 4);
	host.adapter.calls.length = 0;
	await host.runCommand("rebuild-memory");
	await waitForIdle(host);
	assert.equal(ingestedChunks(fake), 4, "unchanged notes cost nothing when re-checked");
	const reads = new Set(host.adapter.calls.filter((call) => call.method === "readBinary").map((call) => call.args[0]));
	assert.deepEqual([...reads].sort(), ["Home/c.md", "Work/a.md", "Work/b.md", "top.md"], "every note was read and hashed again");
	assert.match(host.notices.at(-1) ?? "", /checked 4 notes/);
});

test("Pause queues the notes with the engine paused", async () => {
	const { host, fake, dialog } = await startWithDialog();
	click(dialog, "Pause");
	await host.settle();
	await host.waitFor(() => /paused/.test(host.statusBarText()), { message: "paused" });
	assert.equal((await statusOf(host)).queued >= 4, true);
	assert.equal(ingestedChunks(fake), 0);
	await host.runCommand("toggle-pause");
	await waitForIdle(host);
	assert.equal(ingestedChunks(fake), 4);
});

test("Only some folders… queues the chosen top-level folders", async () => {
	const { host, fake, dialog } = await startWithDialog();
	click(dialog, "Only some folders…");
	const boxes = [...dialog.querySelectorAll<HTMLInputElement>("input[type=checkbox]")];
	assert.deepEqual(boxes.map((box) => box.dataset.folder), ["", "Home", "Work"]);
	assert.match(dialog.textContent ?? "", /Work \(2\)/);
	const work = boxes.find((box) => box.dataset.folder === "Work");
	assert.ok(work);
	work.click();
	click(dialog, "Start with these folders");
	await waitForIdle(host);
	assert.equal(ingestedChunks(fake), 2);
	assert.deepEqual(await rememberedPaths(host), ["Work/a.md", "Work/b.md"]);
});
