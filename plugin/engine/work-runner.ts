// Runs the core's due work whenever something was queued, when a waiting retry comes due,
// and now and then for the daily consolidation. One run at a time; a kick during a run makes
// it go round once more. Saving is not the runner's job: the core's worker reports every
// change, and the store session writes (with checkpoints during long runs).

import type { MemoryStore, RunReport } from "../core/memory-core-api";
import type { TimerPort } from "../storage/save-scheduler";

export interface WorkRunnerDeps {
	/** The open store, or undefined while none is open. */
	store: () => MemoryStore | undefined;
	onReport: (report: RunReport) => void;
	/**
	 * Before each run: take in what other devices' logs brought (their memories cost nothing
	 * here); false holds the run back (the `memory-agent` command is remembering the vault), and
	 * the runner looks again after `heldRetryMs`.
	 */
	beforeRun?: () => Promise<boolean>;
	/** How soon a held-back run is tried again (default 10 s). */
	heldRetryMs?: number;
	onError: (error: unknown) => void;
	timers: TimerPort;
	now: () => number;
}

/** A retry is never looked at sooner than this after a run (a clock step back cannot spin it). */
const MIN_RETRY_WAIT_MS = 1_000;
const HELD_RETRY_MS = 10_000;

export class WorkRunner {
	private running: Promise<void> | undefined;
	private again = false;
	private stopped = false;
	private retryTimer: unknown;

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
		this.clearRetry();
	}

	private async loop(): Promise<void> {
		do {
			this.again = false;
			const store = this.deps.store();
			if (store === undefined || this.stopped) return;
			try {
				const mayRun = (await this.deps.beforeRun?.()) ?? true;
				if (this.stopped) return;
				if (!mayRun) {
					this.scheduleRetry(this.deps.now() + (this.deps.heldRetryMs ?? HELD_RETRY_MS));
					return;
				}
				const report = await store.runDueWork();
				if (this.stopped) return;
				this.deps.onReport(report);
				this.scheduleRetry(report.nextDueAt);
			} catch (error) {
				if (!this.stopped) this.deps.onError(error);
				return;
			}
		} while (this.again && !this.stopped);
	}

	/** The earliest waiting job (a retry after its backoff) runs when it is due, not at the next kick. */
	private scheduleRetry(dueAt: number | null | undefined): void {
		this.clearRetry();
		if (dueAt === null || dueAt === undefined) return;
		const wait = Math.max(MIN_RETRY_WAIT_MS, dueAt - this.deps.now());
		this.retryTimer = this.deps.timers.setTimeout(() => {
			this.retryTimer = undefined;
			this.kick();
		}, wait);
	}

	private clearRetry(): void {
		if (this.retryTimer !== undefined) this.deps.timers.clearTimeout(this.retryTimer);
		this.retryTimer = undefined;
	}
}
