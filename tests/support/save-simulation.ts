// A first ingest as the save scheduler hears it, on a hand-driven clock: the new store's first
// change, the queue filled, then a job finished every `jobMs` (each a change, with the device
// log's acknowledgement ~2 s later, itself a change) with the jobs left (the core's progress),
// then an hour without work, and the unload. The database grows linearly from `emptyBytes` to `finalBytes`;
// every write is recorded with the size it wrote. Used by tests/plugin/save-scheduler.test.ts and
// `npm run bench -- --only=saves`.

import { SaveScheduler, type SavePolicy } from "../../plugin/storage/save-scheduler";
import { FakeTimers, drain } from "./fake-timers";

export interface SimulatedIngest {
	jobs: number;
	finalBytes: number;
	/** The database before the first job (the new store with its queue); 2% of the final by default. */
	emptyBytes?: number;
	/** Time between two finished jobs. */
	jobMs: number;
	/** A quiet gap (no change, jobs still queued: throttling) of `ms` after every `every` jobs. */
	gaps?: { every: number; ms: number };
	policy?: SavePolicy;
}

export interface SimulatedSaves {
	/** The bytes of each write, in order. */
	writes: number[];
	totalBytes: number;
	finalBytes: number;
	/** Bytes written per final byte. */
	ratio: number;
	/** How long the ingest ran (ms). */
	durationMs: number;
}

/** The device log's append acknowledges itself this long after a change (`device-log.ts`). */
const LOG_ACK_MS = 2_000;

export async function simulateIngest(run: SimulatedIngest): Promise<SimulatedSaves> {
	const timers = new FakeTimers();
	const emptyBytes = run.emptyBytes ?? Math.round(run.finalBytes * 0.02);
	let finished = 0;
	let dirty = true;
	const size = () => Math.round(emptyBytes + ((run.finalBytes - emptyBytes) * finished) / run.jobs);
	const writes: number[] = [];
	const scheduler = new SaveScheduler({
		timers,
		now: () => timers.now,
		isDirty: () => dirty,
		onError: (error) => {
			throw error;
		},
		write: async () => {
			dirty = false;
			const bytes = size();
			writes.push(bytes);
			return bytes;
		},
		savedBytes: 0,
		policy: run.policy,
	});
	let ackPending = false;
	const changed = () => {
		dirty = true;
		scheduler.requestSave();
		if (ackPending) return;
		ackPending = true;
		timers.setTimeout(() => {
			ackPending = false;
			dirty = true;
			scheduler.requestSave();
		}, LOG_ACK_MS);
	};
	const advance = async (ms: number) => {
		// In steps, so that writes (promises) run between timers as they would.
		for (let left = ms; left > 0; left -= 1_000) {
			timers.advance(Math.min(1_000, left));
			await drain();
		}
	};

	// The new store, then the whole vault queued.
	changed();
	changed();
	scheduler.jobsLeft(run.jobs);
	for (let job = 1; job <= run.jobs; job++) {
		await advance(run.jobMs);
		finished = job;
		dirty = true;
		scheduler.jobFinished();
		scheduler.jobsLeft(run.jobs - job);
		changed();
		if (run.gaps !== undefined && job % run.gaps.every === 0 && job < run.jobs) await advance(run.gaps.ms);
	}
	const durationMs = timers.now;
	// The work is over: the idle write, then Obsidian is closed an hour later.
	await advance(60 * 60_000);
	await scheduler.flush();
	scheduler.dispose();
	const totalBytes = writes.reduce((sum, bytes) => sum + bytes, 0);
	return { writes, totalBytes, finalBytes: run.finalBytes, ratio: totalBytes / run.finalBytes, durationMs };
}
