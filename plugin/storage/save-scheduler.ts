// Debounces database writes: many changes in a short time become one write, never two at once,
// and long work is checkpointed, so little paid work is ever only in memory.

/** Timer functions, injectable so tests can drive time by hand. */
export interface TimerPort {
	setTimeout(callback: () => void, ms: number): unknown;
	clearTimeout(handle: unknown): void;
}

export interface SaveSchedulerOptions {
	/** Runs one write; called only when `isDirty()` says there is something to write. */
	write: () => Promise<void>;
	isDirty: () => boolean;
	/** Receives a failed write's error; the scheduler stays usable. */
	onError: (error: unknown) => void;
	timers: TimerPort;
	/** The clock the timers run on (Date.now by default). */
	now?: () => number;
	/** Quiet time after the last change before writing. */
	delayMs?: number;
	/** A change never waits longer than this for its write, however busy the store is (read at each change). */
	maxWaitMs?: number | (() => number);
	/** After this many finished jobs a write happens at once. */
	maxJobs?: number;
}

export const DEFAULT_SAVE_DELAY_MS = 2000;
/** At most 30 s or 50 jobs of paid work are ever only in memory (a crash loses no more). */
export const DEFAULT_MAX_WAIT_MS = 30_000;
export const DEFAULT_MAX_JOBS = 50;

export class SaveScheduler {
	private timer: unknown = undefined;
	private hasTimer = false;
	/** The write in progress (or a resolved promise); every write chains after the previous one. */
	private chain: Promise<void> = Promise.resolve();
	private disposed = false;
	/** When the oldest change not yet written was asked to be saved. */
	private firstRequestAt: number | undefined;
	private jobsSinceWrite = 0;
	private readonly delayMs: number;
	private readonly maxWaitMs: () => number;
	private readonly maxJobs: number;
	private readonly now: () => number;

	constructor(private readonly options: SaveSchedulerOptions) {
		this.delayMs = options.delayMs ?? DEFAULT_SAVE_DELAY_MS;
		const maxWait = options.maxWaitMs ?? DEFAULT_MAX_WAIT_MS;
		this.maxWaitMs = typeof maxWait === "number" ? () => maxWait : maxWait;
		this.maxJobs = options.maxJobs ?? DEFAULT_MAX_JOBS;
		this.now = options.now ?? (() => Date.now());
	}

	/** Asks for a write once no further request has come for `delayMs` (or `maxWaitMs` passed). */
	requestSave(): void {
		if (this.disposed) return;
		const now = this.now();
		this.firstRequestAt ??= now;
		const due = Math.min(now + this.delayMs, this.firstRequestAt + this.maxWaitMs());
		this.cancelTimer();
		this.hasTimer = true;
		this.timer = this.options.timers.setTimeout(
			() => {
				this.hasTimer = false;
				void this.enqueue();
			},
			Math.max(0, due - now),
		);
	}

	/** A job finished (paid work): written with the next save, and at once every `maxJobs`. */
	jobFinished(): void {
		if (this.disposed) return;
		if (++this.jobsSinceWrite >= this.maxJobs) void this.flush();
		else this.requestSave();
	}

	/** Writes now if anything is unsaved, after any write already running; resolves when done. */
	flush(): Promise<void> {
		this.cancelTimer();
		return this.enqueue();
	}

	/** Stops the timer; later requests are ignored. Call `flush()` first to keep changes. */
	dispose(): void {
		this.disposed = true;
		this.cancelTimer();
	}

	/** True while a debounce timer is waiting. */
	get pending(): boolean {
		return this.hasTimer;
	}

	private enqueue(): Promise<void> {
		this.chain = this.chain.then(() => this.writeIfDirty());
		return this.chain;
	}

	private async writeIfDirty(): Promise<void> {
		// What changes from here on waits for the next write, with its own deadline.
		this.firstRequestAt = undefined;
		this.jobsSinceWrite = 0;
		if (!this.options.isDirty()) return;
		try {
			await this.options.write();
		} catch (error) {
			this.options.onError(error);
		}
	}

	private cancelTimer(): void {
		if (!this.hasTimer) return;
		this.options.timers.clearTimeout(this.timer);
		this.hasTimer = false;
		this.timer = undefined;
	}
}
