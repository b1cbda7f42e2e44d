// Unit tests of the debounced, serialised database writes.

import assert from "node:assert/strict";
import { test } from "node:test";
import { SaveScheduler } from "../../plugin/storage/save-scheduler";
import { FakeTimers, drain } from "../support/fake-timers";

function setup({ writeMs = 0 }: { writeMs?: number } = {}) {
	const timers = new FakeTimers();
	const state = { dirty: true, writes: 0, running: 0, maxRunning: 0, errors: [] as unknown[], fail: false };
	const releases: Array<() => void> = [];
	const scheduler = new SaveScheduler({
		timers,
		delayMs: 2000,
		isDirty: () => state.dirty,
		onError: (error) => state.errors.push(error),
		write: async () => {
			// Like exportBytes(): the state is taken (and the flag cleared) when the write starts.
			state.dirty = false;
			state.running++;
			state.maxRunning = Math.max(state.maxRunning, state.running);
			if (writeMs > 0) await new Promise<void>((resolve) => releases.push(resolve));
			state.running--;
			if (state.fail) throw new Error("disk full");
			state.writes++;
		},
	});
	return { timers, state, scheduler, releaseWrite: () => releases.shift()?.() };
}

test("several requestSave calls within the delay make one write", async () => {
	const { timers, state, scheduler } = setup();
	for (let i = 0; i < 5; i++) {
		if (i > 0) timers.advance(500);
		scheduler.requestSave();
	}
	await drain();
	assert.equal(state.writes, 0, "no write while changes keep coming");
	timers.advance(1999);
	await drain();
	assert.equal(state.writes, 0, "still inside the quiet time after the last request");
	timers.advance(1);
	await drain();
	assert.equal(state.writes, 1);
	assert.equal(timers.pending, 0);
});

test("the default delay is two seconds", async () => {
	const timers = new FakeTimers();
	let writes = 0;
	const scheduler = new SaveScheduler({ timers, isDirty: () => true, onError: () => {}, write: async () => void writes++ });
	scheduler.requestSave();
	timers.advance(1999);
	await drain();
	assert.equal(writes, 0);
	timers.advance(1);
	await drain();
	assert.equal(writes, 1);
});

test("nothing is written when the store is not dirty", async () => {
	const { timers, state, scheduler } = setup();
	state.dirty = false;
	scheduler.requestSave();
	timers.advance(5000);
	await scheduler.flush();
	assert.equal(state.writes, 0);
});

test("flush writes at once and cancels the pending timer", async () => {
	const { timers, state, scheduler } = setup();
	scheduler.requestSave();
	assert.equal(scheduler.pending, true);
	await scheduler.flush();
	assert.equal(state.writes, 1);
	assert.equal(scheduler.pending, false);
	assert.equal(timers.pending, 0);
	timers.advance(10_000);
	await drain();
	assert.equal(state.writes, 1, "the cancelled timer does not write again");
});

test("writes never overlap: a flush during a write waits for it", async () => {
	const { timers, state, scheduler, releaseWrite } = setup({ writeMs: 1 });
	scheduler.requestSave();
	timers.advance(2000);
	await drain();
	assert.equal(state.running, 1, "first write started");
	state.dirty = true; // a change arrives during the write
	const flushed = scheduler.flush();
	await drain();
	assert.equal(state.running, 1, "the second write waits");
	releaseWrite();
	await drain();
	releaseWrite();
	await flushed;
	assert.equal(state.maxRunning, 1);
	assert.equal(state.writes, 2);
});

test("a failed write is reported and a later request writes again", async () => {
	const { timers, state, scheduler } = setup();
	state.fail = true;
	await scheduler.flush();
	assert.equal(state.errors.length, 1);
	assert.match(String(state.errors[0]), /disk full/);
	state.fail = false;
	state.dirty = true; // the session marks the unsaved state again after a failed write
	scheduler.requestSave();
	timers.advance(2000);
	await drain();
	assert.equal(state.writes, 1);
});

test("after dispose, requests are ignored", async () => {
	const { timers, state, scheduler } = setup();
	scheduler.requestSave();
	scheduler.dispose();
	scheduler.requestSave();
	timers.advance(10_000);
	await drain();
	assert.equal(state.writes, 0);
	assert.equal(timers.pending, 0);
});

test("changes that never pause are written at least every 30 seconds", async () => {
	const timers = new FakeTimers();
	let writes = 0;
	const scheduler = new SaveScheduler({ timers, now: () => timers.now, isDirty: () => true, onError: () => {}, write: async () => void writes++ });
	// A change every second for two minutes: the quiet time never comes.
	for (let second = 1; second <= 120; second++) {
		scheduler.requestSave();
		timers.advance(1000);
		await drain();
	}
	assert.ok(writes >= 4, `at least one write per 30 s of changes, got ${writes} in 120 s`);
	assert.ok(writes <= 5, `not one per change: ${writes}`);
});

test("every 50 finished jobs are written at once, whatever the quiet time", async () => {
	const timers = new FakeTimers();
	let writes = 0;
	const scheduler = new SaveScheduler({ timers, now: () => timers.now, delayMs: 2000, isDirty: () => true, onError: () => {}, write: async () => void writes++ });
	for (let job = 1; job <= 49; job++) {
		scheduler.jobFinished();
		timers.advance(100);
	}
	await drain();
	assert.equal(writes, 0, "49 jobs a tenth of a second apart wait for the debounce");
	scheduler.jobFinished();
	await drain();
	assert.equal(writes, 1, "the 50th writes at once");
	for (let job = 1; job <= 50; job++) scheduler.jobFinished();
	await drain();
	assert.equal(writes, 2, "and the next 50 again");
});
