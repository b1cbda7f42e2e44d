// The vault sync when "Remember images and scanned pages" changes: every PDF and image is
// decided again — those the core had recorded as skipped are forgotten and queued, the bulk
// dialog counts only them as costly — while notes are left alone. A fake store stands in for
// the core (its verdict on an image depends on the setting, as the core's does).

import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import type { MemoryStore, Source } from "../../plugin/core/memory-core-api";
import { type BulkQuestion, type SyncFile, VaultSync } from "../../plugin/vault/vault-sync";
import { FakeTimers } from "../support/fake-timers";

// The sync yields with `window.setTimeout` (Obsidian's); Node's timers stand in here.
const withWindow = globalThis as { window?: unknown };
before(() => {
	withWindow.window = { setTimeout, clearTimeout };
});
after(() => {
	delete withWindow.window;
});

function source(path: string, skipped: string | null): Source {
	return { path, mtime: 1, size: 10, sha256: "00", updated_at: 0, skipped };
}

test("a change of the images setting decides every PDF and image again; notes are not touched", async () => {
	let imagesOn = false;
	// What the core holds: two notes (one skipped as too large), a PDF remembered by its text, a
	// GIF it could not decode. The PNG is left out while images are off, so it has no source.
	const sources = [source("a.md", null), source("doc.pdf", null), source("q.gif", "the image could not be decoded"), source("old.md", "too large")];
	const removed: string[] = [];
	const queued: string[] = [];
	const estimated: Array<Array<{ path: string; size: number }>> = [];
	const store = {
		listSources: () => Promise.resolve(sources),
		exclusions: (items: Array<{ path: string }>) => Promise.resolve(items.map((item) => (/\.(png|gif)$/.test(item.path) && !imagesOn ? "images are off" : null))),
		removeNotes: (paths: string[]) => {
			removed.push(...paths);
			return Promise.resolve({ memories: [], consolidations: [], reopened: [] });
		},
		enqueueNotes: (paths: string[]) => {
			queued.push(...paths);
			return Promise.resolve(paths.length);
		},
		rememberedNotes: () => Promise.resolve(2),
		retryFailed: () => Promise.resolve(0),
		estimateIngest: (files: Array<{ path: string; size: number }>) => {
			estimated.push(files);
			return Promise.resolve({ notes: 0, pdfs: 0, pdfPages: 0, images: files.length, imageTokens: 1_533 * files.length, inputTokens: 0, outputTokens: 0, costUsd: 0, notesCostUsd: 0, pdfsCostUsd: 0, imagesCostUsd: 0, modelId: "m", priceKnown: true });
		},
	} as unknown as MemoryStore;
	const files: SyncFile[] = ["a.md", "doc.pdf", "p.png", "q.gif", "old.md"].map((path) => ({ path, mtime: 1, size: 10 }));
	const questions: BulkQuestion[] = [];
	const sync = new VaultSync({
		vault: { files: () => files.values(), file: (path) => files.find((file) => file.path === path) ?? null, metadata: () => null },
		runtime: { store: () => store, kick: () => undefined, changed: () => undefined },
		timers: new FakeTimers(),
		quietDelayMs: () => 1_000,
		bulkThreshold: () => 0,
		confirmBulk: (question) => {
			questions.push(question);
			return Promise.resolve({ kind: "start" });
		},
		notify: () => undefined,
	});
	const reset = () => {
		removed.length = 0;
		queued.length = 0;
		estimated.length = 0;
	};

	// Images off: the PNG (new to the store) is left out; the unchanged GIF is decided by path only.
	await sync.reconcile("start");
	assert.deepEqual([removed.sort(), queued], [["p.png", "q.gif"], []]);
	assert.equal(sync.leftOut().get("p.png"), "images are off");
	reset();

	imagesOn = true;
	assert.ok(await sync.reconcile("media"));
	assert.deepEqual(removed, ["q.gif"], "the GIF's old verdict is forgotten; nothing else is removed");
	assert.deepEqual(queued.sort(), ["doc.pdf", "p.png", "q.gif"], "every PDF and image is decided again (the PDF's scans may go now); notes are not");
	assert.deepEqual(
		estimated.map((batch) => batch.map((file) => file.path).sort()),
		[["p.png", "q.gif"]],
		"the dialog counts what can cost a call now: the new image and the one skipped before, not the remembered PDF",
	);
	assert.equal(questions.length, 1);
	assert.equal(sync.leftOut().size, 0);
	reset();

	// Off again: the images are left out (the core's verdict) and their memories go.
	imagesOn = false;
	await sync.reconcile("media");
	assert.deepEqual(removed.sort(), ["p.png", "q.gif"]);
	assert.deepEqual(queued, ["doc.pdf"]);
	assert.equal(sync.leftOut().get("q.gif"), "images are off");
	sync.stop();
});
