// Runs the core's due work whenever something was queued, and now and then for retries and
// the daily consolidation. One run at a time; a kick during a run makes it go round once
// more. Saving is not the runner's job: the core's worker reports every change, and the
// store session writes (with checkpoints during long runs).

import type { MemoryStore, RunReport } from "../core/memory-core-api";

export interface WorkRunnerDeps {
	/** The open store, or undefined while none is open. */
	store: () => MemoryStore | undefined;
	onReport: (report: RunReport) => void;
	onError: (error: unknown) => void;
}

export class WorkRunner {
	private running: Promise<void> | undefined;
	private again = false;
	private stopped = false;

	constructor(private readonly deps: WorkRunnerDeps) {}

	/** Something was queued (or may be due): run soon. */
	kick(): void {
		if (this.stopped) return;
		if (this.running) {
			this.again = true;
			return;
		}
		this.running = this.loop().finally(() => {
			this.running = undefined;
		});
	}

	/** Resolves when the current run (and any it was asked to repeat) is over. */
	idle(): Promise<void> {
		return this.running ?? Promise.resolve();
	}

	stop(): void {
		this.stopped = true;
	}

	private async loop(): Promise<void> {
		do {
			this.again = false;
			const store = this.deps.store();
			if (store === undefined || this.stopped) return;
			try {
				const report = await store.runDueWork();
				if (!this.stopped) this.deps.onReport(report);
			} catch (error) {
				if (!this.stopped) this.deps.onError(error);
				return;
			}
		} while (this.again && !this.stopped);
	}
}
