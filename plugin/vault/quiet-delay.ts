// Waits until a note has been quiet (no save) for a while before it is queued, so that an
// editor saving every few seconds while someone types makes one ingest, not dozens.

export interface QuietTimers {
	setTimeout(callback: () => void, ms: number): unknown;
	clearTimeout(handle: unknown): void;
}

interface Wait {
	handle: unknown;
	/** When it ends (ms since the epoch). */
	due: number;
	/** What the change said of paying for the note, handed on when it ends. */
	payAfter: number | null;
}

export class QuietDelay {
	private readonly waiting = new Map<string, Wait>();

	constructor(
		private readonly timers: QuietTimers,
		private readonly delayMs: () => number,
		private readonly onQuiet: (path: string, payAfter: number | null) => void,
		private readonly now: () => number = () => Date.now(),
	) {}

	/**
	 * The note changed: (re)start its wait. `payAfter` is when the note may be paid for (a change
	 * from another device, whose memory of it is on its way), null for at once; the last change wins.
	 */
	touch(path: string, payAfter: number | null = null, delayMs = this.delayMs()): void {
		this.cancel(path);
		const handle = this.timers.setTimeout(() => {
			this.waiting.delete(path);
			this.onQuiet(path, payAfter);
		}, delayMs);
		this.waiting.set(path, { handle, due: this.now() + delayMs, payAfter });
	}

	/** When the note waiting under `path` may be paid for (null: at once); undefined when none waits. */
	payAfterOf(path: string): number | null | undefined {
		return this.waiting.get(path)?.payAfter;
	}

	/** Forgets a wait (the note was deleted); true when one was pending. */
	cancel(path: string): boolean {
		const wait = this.waiting.get(path);
		if (wait === undefined) return false;
		this.timers.clearTimeout(wait.handle);
		this.waiting.delete(path);
		return true;
	}

	/**
	 * A waiting note was renamed: its wait continues under the new path, at least the quiet
	 * delay, and a note from another device still waits for its memories to be paid for.
	 */
	rename(oldPath: string, newPath: string): void {
		const wait = this.waiting.get(oldPath);
		if (wait === undefined || !this.cancel(oldPath)) return;
		this.touch(newPath, wait.payAfter, Math.max(this.delayMs(), wait.due - this.now()));
	}

	get size(): number {
		return this.waiting.size;
	}

	/** Cancels every wait (unload); the next start's reconciliation picks the notes up. */
	clear(): void {
		for (const wait of this.waiting.values()) this.timers.clearTimeout(wait.handle);
		this.waiting.clear();
	}
}
