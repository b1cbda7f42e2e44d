// A hand-driven clock implementing the plugin's TimerPort, for deterministic debounce tests.

import type { TimerPort } from "../../plugin/storage/save-scheduler";

export class FakeTimers implements TimerPort {
	now = 0;
	private nextId = 1;
	private readonly timers = new Map<number, { at: number; callback: () => void }>();

	setTimeout(callback: () => void, ms: number): number {
		const id = this.nextId++;
		this.timers.set(id, { at: this.now + ms, callback });
		return id;
	}

	clearTimeout(handle: unknown): void {
		this.timers.delete(handle as number);
	}

	get pending(): number {
		return this.timers.size;
	}

	/** Moves the clock forward, firing due timers in order. */
	advance(ms: number): void {
		const end = this.now + ms;
		for (;;) {
			const due = [...this.timers.entries()].filter(([, t]) => t.at <= end).sort((a, b) => a[1].at - b[1].at)[0];
			if (!due) break;
			this.timers.delete(due[0]);
			this.now = due[1].at;
			due[1].callback();
		}
		this.now = end;
	}
}

/** Lets pending promise callbacks run. */
export async function drain(): Promise<void> {
	for (let i = 0; i < 20; i++) await Promise.resolve();
	await new Promise((resolve) => setImmediate(resolve));
}
