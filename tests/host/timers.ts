// Browser-style timers (numeric ids) for the plugin's realm, tracked so tests can see what is pending.

interface ActiveTimer {
	handle: NodeJS.Timeout;
	repeat: boolean;
	due: number;
}

export class HostTimers {
	private nextId = 1;
	private readonly active = new Map<number, ActiveTimer>();
	/** One-shot timers set from now on run this many times sooner (tests of the plugin's long waits). */
	timeScale = 1;
	/** Intervals set from now on run this many times more often (a virtual clock: everything runs faster). */
	intervalScale = 1;

	readonly setTimeout = (callback: (...args: unknown[]) => void, ms = 0, ...args: unknown[]): number => {
		const id = this.nextId++;
		const wait = Math.ceil(ms / this.timeScale);
		const handle = setTimeout(() => {
			this.active.delete(id);
			callback(...args);
		}, wait);
		this.active.set(id, { handle, repeat: false, due: Date.now() + wait });
		return id;
	};

	readonly clearTimeout = (id: number | undefined): void => {
		if (id === undefined) return;
		const timer = this.active.get(id);
		if (timer) clearTimeout(timer.handle);
		this.active.delete(id);
	};

	readonly setInterval = (callback: (...args: unknown[]) => void, ms = 0, ...args: unknown[]): number => {
		const id = this.nextId++;
		const every = Math.ceil(ms / this.intervalScale);
		const handle = setInterval(() => callback(...args), every);
		this.active.set(id, { handle, repeat: true, due: Date.now() + every });
		return id;
	};

	readonly clearInterval = (id: number | undefined): void => {
		if (id === undefined) return;
		const timer = this.active.get(id);
		if (timer) clearInterval(timer.handle);
		this.active.delete(id);
	};

	/** Number of timers and intervals not yet fired or cleared. */
	get pending(): number {
		return this.active.size;
	}

	/** True when a one-shot timer will fire within `ms`. */
	dueWithin(ms: number): boolean {
		const limit = Date.now() + ms;
		return [...this.active.values()].some((timer) => !timer.repeat && timer.due <= limit);
	}

	/** Cancels everything (the host shutting down). */
	clearAll(): void {
		for (const timer of this.active.values()) clearTimeout(timer.handle);
		this.active.clear();
	}
}
