// The vault sync's pure parts: the quiet delay, the wait for other devices and the bulk estimate.
// (The exclusion rules are the core's: their cases run once, in src/notes/scope.rs.)

import assert from "node:assert/strict";
import { test } from "node:test";
import { formatUsd, topFolder } from "../../plugin/vault/bulk-estimate";
import { OtherDeviceWait } from "../../plugin/vault/other-device-wait";
import { QuietDelay } from "../../plugin/vault/quiet-delay";
import { type SyncFile, VaultSync } from "../../plugin/vault/vault-sync";
import type { MemoryStore } from "../../plugin/core/memory-core-api";
import { FakeTimers, drain } from "../support/fake-timers";

test("quiet delay: rapid saves make one call, after the last save; renames and cancels follow", () => {
	const timers = new FakeTimers();
	const quiet: string[] = [];
	const payAfters = new Map<string, number | null>();
	const delay = new QuietDelay(
		timers,
		() => 1000,
		(path, payAfter) => {
			quiet.push(path);
			payAfters.set(path, payAfter);
		},
		() => timers.now,
	);
	for (let i = 0; i < 5; i++) {
		delay.touch("a.md");
		timers.advance(400);
	}
	assert.deepEqual(quiet, [], "still typing");
	timers.advance(600);
	assert.deepEqual(quiet, ["a.md"]);

	delay.touch("b.md");
	delay.rename("b.md", "c.md");
	delay.touch("d.md");
	assert.ok(delay.cancel("d.md"));
	assert.ok(!delay.cancel("d.md"));
	timers.advance(1000);
	assert.deepEqual(quiet, ["a.md", "c.md"]);
	delay.touch("e.md");
	delay.clear();
	assert.equal(timers.pending, 0);

	assert.equal(payAfters.get("c.md"), null, "typed here: paid for at once");

	// A change from another device is read after the quiet delay like any other, and keeps
	// when it may be paid for through a rename; the last change decides.
	delay.touch("f.md", 60_000);
	timers.advance(400);
	delay.rename("f.md", "g.md");
	timers.advance(500);
	assert.deepEqual(quiet, ["a.md", "c.md"], "a renamed note waits the quiet delay again");
	timers.advance(500);
	assert.deepEqual(quiet, ["a.md", "c.md", "g.md"]);
	assert.equal(payAfters.get("g.md"), 60_000, "still waits for the other device before paying");
	delay.touch("h.md", 60_000);
	delay.touch("h.md");
	timers.advance(1000);
	assert.equal(payAfters.get("h.md"), null, "typed over: paid for at once");
});

test("wait for other devices: typed notes are paid for at once, notes from elsewhere after the other device's wait", () => {
	let now = 0;
	let shared = false;
	let waitMs = 120_000;
	const wait = new OtherDeviceWait({ otherDeviceWaitMs: () => waitMs, shared: () => shared, now: () => now });
	assert.equal(wait.payAfter("a.md"), null, "alone, every change is paid for at once");
	shared = true;
	wait.typedIn("a.md");
	now += 2_000;
	assert.equal(wait.payAfter("a.md"), null, "typed here");
	assert.equal(wait.payAfter("a.md"), 122_000, "the mark was used up: the next change came from elsewhere");
	now += 30_000;
	wait.typedIn("a.md");
	assert.equal(wait.payAfter("a.md"), null, "typing over another device's change: this device wrote the version to remember");
	wait.typedIn("c.md");
	now += 11_000;
	assert.equal(wait.payAfter("c.md"), 163_000, "a mark older than the editor's save is not this device's");
	waitMs = 0;
	assert.equal(wait.payAfter("d.md"), null, "no wait set: paid for at once");
});

test("a note typed here and renamed on the other device before it was read is still paid for here", async () => {
	const timers = new FakeTimers();
	const queued = new Map<string, number | null | undefined>();
	const store = {
		enqueueNote: (path: string, payAfter?: number | null) => {
			queued.set(path, payAfter);
			return Promise.resolve(1);
		},
		removeNote: () => Promise.resolve({ memories: [], consolidations: [] }),
		exclusions: (items: Array<{ path: string }>) => Promise.resolve(items.map(() => null)),
	} as unknown as MemoryStore;
	const files = new Map<string, SyncFile>();
	const typedHere = new Set<string>();
	const sync = new VaultSync({
		vault: { files: () => files.values(), file: (path) => files.get(path) ?? null, metadata: () => null },
		runtime: { store: () => store, kick: () => undefined, changed: () => undefined },
		timers,
		quietDelayMs: () => 1_000,
		payAfter: (path) => (typedHere.has(path) ? null : 99_000),
		bulkThreshold: () => 1_000,
		confirmBulk: () => Promise.resolve({ kind: "start" }),
		notify: () => undefined,
	});
	const write = (path: string, size: number) => files.set(path, { path, mtime: 1, size });
	// Written here; the sync tool brings the other device's rename of it before it was read.
	typedHere.add("New.md");
	write("New.md", 120);
	sync.fileChanged("New.md", 120);
	files.delete("New.md");
	sync.fileDeleted("New.md", 120);
	write("Moved/New.md", 120);
	sync.fileChanged("Moved/New.md", 120);
	// Another note from elsewhere, of another size, waits for the other device as usual.
	write("Other.md", 77);
	sync.fileChanged("Other.md", 77);
	timers.advance(1_000);
	await drain();
	assert.equal(queued.get("Moved/New.md"), null, "this device wrote it: paid for at once");
	assert.equal(queued.get("Other.md"), 99_000, "from elsewhere: paid for after the wait");
	assert.ok(!queued.has("New.md"));
	// Once only: a second note of that size from elsewhere waits.
	write("Again.md", 120);
	sync.fileChanged("Again.md", 120);
	timers.advance(1_000);
	await drain();
	assert.equal(queued.get("Again.md"), 99_000);
	sync.stop();
});

test("bulk estimate wording: dollars and folders", () => {
	assert.equal(formatUsd(0.004), "less than $0.01");
	assert.equal(formatUsd(12.345), "$12.35");
	assert.equal(topFolder("a/b/c.md"), "a");
	assert.equal(topFolder("c.md"), "");
});

test("a vault whose records came from the logs (another time, the same size) is not asked to pay for them again", async () => {
	// Issue 35: a rebuilt database, or a device joining a vault, asked "Remember 6,195 notes?"
	// although the logs held every one of them. A record of the same size is hashed by the core
	// at no cost; only new notes and notes of another size can cost model calls.
	// The slices give Obsidian's window a turn; here the realm's own timers stand in for it.
	const realm = globalThis as { window?: unknown };
	realm.window ??= globalThis;
	const files = new Map<string, SyncFile>();
	const sources: Array<{ path: string; mtime: number; size: number; skipped: null }> = [];
	for (let note = 0; note < 30; note++) {
		const path = `Notes/${note}.md`;
		files.set(path, { path, mtime: 5_000, size: 100 + note });
		sources.push({ path, mtime: 1_000, size: 100 + note, skipped: null });
	}
	files.set("Notes/changed.md", { path: "Notes/changed.md", mtime: 5_000, size: 999 });
	sources.push({ path: "Notes/changed.md", mtime: 1_000, size: 998, skipped: null });
	files.set("Notes/new.md", { path: "Notes/new.md", mtime: 5_000, size: 50 });
	const enqueued: string[] = [];
	const asked: string[][] = [];
	const store = {
		listSources: (after: string | null) => Promise.resolve(after === null ? sources : []),
		exclusions: (items: Array<{ path: string }>) => Promise.resolve(items.map(() => null)),
		estimateIngest: (items: Array<{ path: string }>) => {
			asked.push(items.map((item) => item.path).sort());
			return Promise.resolve({ notes: items.length });
		},
		enqueueNotes: (paths: string[]) => {
			enqueued.push(...paths);
			return Promise.resolve(paths.length);
		},
		removeNotes: () => Promise.resolve(null),
		rememberedNotes: () => Promise.resolve(30),
	} as unknown as MemoryStore;
	const confirm = (threshold: number) =>
		new VaultSync({
			vault: { files: () => files.values(), file: (path) => files.get(path) ?? null, metadata: () => null },
			runtime: { store: () => store, kick: () => undefined, changed: () => undefined },
			timers: new FakeTimers(),
			quietDelayMs: () => 1_000,
			payAfter: () => null,
			bulkThreshold: () => threshold,
			confirmBulk: () => Promise.resolve({ kind: "start" }),
			notify: () => undefined,
		});
	await confirm(1).reconcile("start");
	assert.deepEqual(asked, [["Notes/changed.md", "Notes/new.md"]], "only the two that may cost are in the question");
	assert.equal(enqueued.length, 32, "every note is checked (the 30 by their hash, at no cost)");
	asked.length = 0;
	enqueued.length = 0;
	await confirm(2).reconcile("start");
	assert.deepEqual(asked, [], "two costly notes are within a threshold of two: no question");
	assert.equal(enqueued.length, 32);
});
