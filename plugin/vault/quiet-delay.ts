// Waits until a note has been quiet (no save) for a while before it is queued, so that an
// editor saving every few seconds while someone types makes one ingest, not dozens.

export interface QuietTimers {
	setTimeout(callback: () => void, ms: number): unknown;
	clearTimeout(handle: unknown): void;
}

export class QuietDelay {
	private readonly waiting = new Map<string, unknown>();

	constructor(
		private readonly timers: QuietTimers,
		private readonly delayMs: () => number,
		private readonly onQuiet: (path: string) => void,
	) {}

	/** The note changed: (re)start its wait (`delayMs` unless told another). */
	touch(path: string, delayMs = this.delayMs()): void {
		this.cancel(path);
		const handle = this.timers.setTimeout(() => {
			this.waiting.delete(path);
			this.onQuiet(path);
		}, delayMs);
		this.waiting.set(path, handle);
	}

	/** Forgets a wait (the note was deleted); true when one was pending. */
	cancel(path: string): boolean {
		const handle = this.waiting.get(path);
		if (handle === undefined) return false;
		this.timers.clearTimeout(handle);
		this.waiting.delete(path);
		return true;
	}

	/** A waiting note was renamed: its wait continues under the new path. */
	rename(oldPath: string, newPath: string): void {
		if (this.cancel(oldPath)) this.touch(newPath);
	}

	get size(): number {
		return this.waiting.size;
	}

	/** Cancels every wait (unload); the next start's reconciliation picks the notes up. */
	clear(): void {
		for (const handle of this.waiting.values()) this.timers.clearTimeout(handle);
		this.waiting.clear();
	}
}
