// Notes renamed or moved while Obsidian was closed keep their memories at the next start, at no
// model call (issue 15 measured 10 renamed notes → 10 calls, 0 memories kept); a note renamed
// and edited is read again, and a note deleted while closed is forgotten.

import assert from "node:assert/strict";
import fs from "node:fs/promises";
import path from "node:path";
import { afterEach, test } from "node:test";
import { type UiHost, browserCards, rememberNotes, startUiHost, waitForMemories } from "./views-fixture";

let ui: UiHost | undefined;
afterEach(async () => {
	await ui?.close();
	ui = undefined;
});

const NOTES: Record<string, string> = Object.fromEntries(
	Array.from({ length: 12 }, (_, n) => [`Inbox/Note ${n}.md`, `# Note ${n}\n\nThe harbour plan number ${n} needs ${n + 3} boats and a crane.\n`]),
);

const ingestCalls = (ui: UiHost) => ui.fake.requests.filter((request) => request.body.includes("record_memory")).length;

test("ten notes renamed while closed keep their memories without a model call", async () => {
	ui = await startUiHost({ notes: NOTES, settings: { dailyConsolidation: false, bulkConfirmThreshold: 1_000 } });
	const { host } = ui;
	await rememberNotes(host, Object.keys(NOTES));
	await waitForMemories(host, 12);
	await host.unloadPlugin();
	const before = ingestCalls(ui);

	await fs.mkdir(host.diskPath("Archive/2026"), { recursive: true });
	for (let n = 0; n < 10; n++) await fs.rename(host.diskPath(`Inbox/Note ${n}.md`), host.diskPath(`Archive/2026/Harbour ${n}.md`));
	// One renamed and edited: read again. One deleted: forgotten.
	await fs.rm(host.diskPath("Inbox/Note 10.md"));
	await fs.writeFile(host.diskPath("Archive/2026/Harbour 10.md"), "# Note 10\n\nThe harbour plan now needs a tugboat.\n");
	await fs.rm(host.diskPath("Inbox/Note 11.md"));

	await host.loadPlugin();
	await host.waitForCore();
	await host.waitFor(async () => {
		const cards = await browserCards(host);
		return cards.length === 11 && cards.filter((card) => /Archive\/2026\/Harbour \d+\.md/.test(card.textContent ?? "")).length === 11;
	}, { timeoutMs: 30_000, message: "the memories under their new names" });
	assert.equal(ingestCalls(ui) - before, 1, "only the edited note was sent again");
	const cards = (await browserCards(host)).map((card) => card.textContent ?? "");
	assert.ok(!cards.some((text) => text.includes("Inbox/")), "nothing is left under the old names");
	assert.ok(!cards.some((text) => text.includes("number 11 ")), "the deleted note is forgotten");
	assert.ok(cards.some((text) => text.includes("Archive/2026/Harbour 3.md") && text.includes("The harbour plan number 3")), "a renamed note's memory is the one it had");
	// Its file digest moved with it: the next start sends nothing either.
	await host.unloadPlugin();
	const settled = ingestCalls(ui);
	await host.loadPlugin();
	await host.waitForCore();
	await new Promise((resolve) => setTimeout(resolve, 1_500));
	assert.equal(ingestCalls(ui), settled);
	await fs.access(path.join(host.diskPath("Archive/2026"), "Harbour 0.md"));
});
