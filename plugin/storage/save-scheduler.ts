// Debounces database writes: many changes in a short time become one write, never two at once.

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
	/** Quiet time after the last change before writing. */
	delayMs?: number;
}

export const DEFAULT_SAVE_DELAY_MS = 2000;

export class SaveScheduler {
	private timer: unknown = undefined;
	private hasTimer = false;
	/** The write in progress (or a resolved promise); every write chains after the previous one. */
	private chain: Promise<void> = Promise.resolve();
	private disposed = false;
	private readonly delayMs: number;

	constructor(private readonly options: SaveSchedulerOptions) {
		this.delayMs = options.delayMs ?? DEFAULT_SAVE_DELAY_MS;
	}

	/** Asks for a write once no further request has come for `delayMs`. */
	requestSave(): void {
		if (this.disposed) return;
		this.cancelTimer();
		this.hasTimer = true;
		this.timer = this.options.timers.setTimeout(() => {
			this.hasTimer = false;
			void this.enqueue();
		}, this.delayMs);
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
