// Long loops over the vault run in slices that give the event loop back, so Obsidian stays
// responsive while thousands of notes are compared or queued.

import type { MemoryStore, Source } from "../core/memory-core-api";

/** Items per slice at most; a slice also ends after `SLICE_BUDGET_MS` (queueing costs more per item than comparing). */
export const SLICE_SIZE = 200;
export const SLICE_BUDGET_MS = 12;

/** Resolves on the next turn of the event loop (after pending input and rendering). */
export function nextTurn(): Promise<void> {
	return new Promise((resolve) => window.setTimeout(resolve, 0));
}

/**
 * Calls `each` for every item, giving the event loop back after enough items or enough time.
 * Only a slice's end and an `each` that returns a promise are awaited: a promise per item
 * over a vault of 50,000 notes is garbage the main thread would collect in one long pause.
 */
export async function forEachInSlices<T>(items: Iterable<T>, each: (item: T) => void | Promise<void>): Promise<void> {
	let inSlice = 0;
	let sliceStarted = Date.now();
	for (const item of items) {
		if (++inSlice > SLICE_SIZE || Date.now() - sliceStarted >= SLICE_BUDGET_MS) {
			await nextTurn();
			inSlice = 1;
			sliceStarted = Date.now();
		}
		const done = each(item);
		if (done !== undefined) await done;
	}
}

/** Sources read per page: one message of a reasonable size, and the event loop turns between pages. */
export const SOURCE_PAGE_SIZE = 1000;

/** Notes sent to the store per call when thousands are queued or removed at once. */
export const NOTE_BATCH_SIZE = 500;

/**
 * Sends `items` to the store in batches, one call each, waiting for each; `store` is asked
 * again for every batch (the store can be replaced or go away meanwhile, which stops it).
 */
export async function inBatches<T>(
	store: () => MemoryStore | undefined,
	items: readonly T[],
	send: (store: MemoryStore, batch: T[]) => Promise<unknown>,
): Promise<void> {
	for (let at = 0; at < items.length; at += NOTE_BATCH_SIZE) {
		const current = store();
		if (current === undefined) return;
		await send(current, items.slice(at, at + NOTE_BATCH_SIZE));
	}
}

/**
 * Every source of the store, read a page at a time with a yield between pages. `store` is
 * asked again for each page, because the store can be replaced (reloaded) meanwhile; the
 * result is undefined when it went away.
 */
export async function listSourcesInPages(store: () => MemoryStore | undefined): Promise<Source[] | undefined> {
	const sources: Source[] = [];
	for (;;) {
		const current = store();
		if (current === undefined) return undefined;
		const last = sources[sources.length - 1];
		const page = await current.listSources(last === undefined ? null : last.path, SOURCE_PAGE_SIZE);
		// Copied out of the core's array, which a later page does not keep alive.
		for (const source of page) sources.push(source);
		if (page.length < SOURCE_PAGE_SIZE) return sources;
		await nextTurn();
	}
}
