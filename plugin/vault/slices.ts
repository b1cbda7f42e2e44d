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

/** Tells a loop when to give the event loop back: after enough items or enough time. */
export class SliceClock {
	private items = 0;
	private startedAt = Date.now();

	/** Counts one item; yields first when the current slice is full. */
	async tick(): Promise<void> {
		if (++this.items < SLICE_SIZE && Date.now() - this.startedAt < SLICE_BUDGET_MS) return;
		await nextTurn();
		this.items = 0;
		this.startedAt = Date.now();
	}
}

/** Calls `each` for every item, yielding to the event loop between slices. */
export async function forEachInSlices<T>(items: readonly T[], each: (item: T) => void | Promise<void>): Promise<void> {
	const clock = new SliceClock();
	for (const item of items) {
		await clock.tick();
		await each(item);
	}
}

/** Sources read per page: a page takes a few milliseconds in the core, the whole table of a
 * 10,000-note vault would take over 50 ms in one block. */
export const SOURCE_PAGE_SIZE = 1000;

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
		const page = current.listSources(last === undefined ? null : last.path, SOURCE_PAGE_SIZE);
		// Copied out of the core's array, which a later page does not keep alive.
		for (const source of page) sources.push(source);
		if (page.length < SOURCE_PAGE_SIZE) return sources;
		await nextTurn();
	}
}
