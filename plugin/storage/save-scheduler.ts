// Decides when this device's database file is written, and serialises the writes (never two at
// once). The file is a cache (issue 34): every change is in this device's log within ~2 s, and a
// start replays that log from the database's cursors, so a crash loses nothing the log holds; a
// change not yet in the file costs only its replay at the next start. What costs is the write:
// sql.js exports the whole database each time. So the file is written when the work is over, at
// pause, settings changes and unload (`flush`), and during long work only as it doubles.

/** Timer functions, injectable so tests can drive time by hand. */
export interface TimerPort {
	setTimeout(callback: () => void, ms: number): unknown;
	clearTimeout(handle: unknown): void;
}

/** The policy's constants (all times in ms). */
export interface SavePolicy {
	/**
	 * Quiet after the last change before work with no job left counts as over. The device log's
	 * append acknowledges itself with a change ~2 s after the last one, the editor saves a note
	 * being typed every few seconds, and a running ingest finishes a job every few seconds (and
	 * has jobs left anyway): 10 s lets each of these end in one write; the file being a cache,
	 * waiting costs nothing a crash could lose.
	 */
	idleMs: number;
	/** Writes at the end of work are at least this far apart unless the database doubled (a trickle of single jobs, each followed by a quiet). */
	idleSpacingMs: number;
	/** A write while work goes on (a checkpoint) comes no sooner than this after the last write… */
	checkpointSpacingMs: number;
	/** …and only once the database is estimated at this many times its size at the last write. */
	growth: number;
	/** Changes without a finished job (an edit, a forgotten memory) while jobs wait (another device's turn, a pause the core made): written after this much quiet… */
	longQuietMs: number;
	/** …once this long has passed since the last write. */
	longQuietSpacingMs: number;
}

export const SAVE_POLICY: SavePolicy = {
	idleMs: 10_000,
	idleSpacingMs: 60_000,
	checkpointSpacingMs: 3 * 60_000,
	growth: 2,
	longQuietMs: 60_000,
	longQuietSpacingMs: 10 * 60_000,
};

/** What the policy looks at (times on one clock, in ms). */
export interface SaveState {
	now: number;
	/** When the store last changed (a call that changed it, a finished job). */
	lastChangeAt: number;
	/** When the last write started (the session's start before the first). */
	lastSaveAt: number;
	/** The database's size at the last write: the exported bytes (the opened file's before the first write, 0 when the disk holds none of it). */
	savedBytes: number;
	/** An estimate of its size now (`estimateBytes`). */
	estimatedBytes: number;
	/** Jobs finished since the last write. */
	jobsSinceSave: number;
	/** Jobs queued or running, by the core's last word: 0 when the work is over (not merely waiting). */
	jobsLeft: number;
}

/** Write now, or look again at `lookAgainAt` if nothing happens before (never: only a change, the core's word on its queue or a flush). */
export type SaveDecision = { save: true } | { save: false; lookAgainAt: number };

/**
 * Whether unsaved changes are written now, else when to look again. Three rules:
 * - the work is over (no job left, 10 s without a change): written, at most once a minute
 *   unless the database doubled;
 * - a checkpoint during work: at least 3 minutes after the last write, once the database is
 *   estimated at twice its size then, and only while at least as many jobs are left as were
 *   done since that write (else the end of the work comes first, and writes);
 * - changes without a finished job while jobs wait: after a minute without a change, at least
 *   10 minutes after the last write.
 *
 * The bound, for a first ingest whose database grows with the jobs to F bytes:
 * - the checkpoints are a geometric series: each writes at least twice the last (the growth per
 *   job is measured between the last two writes; only the second checkpoint may be less, its
 *   estimate scaling the first by the jobs), so s₁ ≤ s₂ < … < sₙ sum to at most s₁ + 2·sₙ ≤
 *   2.5·sₙ; and sₙ ≤ ⅔F, since the jobs left at sₙ (F − sₙ of growth) were at least those done
 *   since sₙ₋₁ (sₙ − sₙ₋₁ ≥ sₙ/2);
 * - the end of the work writes F once. A quiet gap in the middle of an ingest (a call retried
 *   after throttling) has jobs left, so it is no end of work; a trickle of single jobs, each
 *   followed by a quiet, writes at most once a minute;
 * - the long-quiet rule needs a minute without a change and no job finished since the last
 *   write, which a running ingest does not have.
 * So a first ingest writes at most about 2.5·⅔F + F ≈ 2.7F, within 3F (simulated at many paces
 * in tests/plugin/save-scheduler.test.ts: at most 2.2F). Pause, settings changes and unload
 * write too (`flush`), when the user does them.
 */
export function saveDecision(state: SaveState, policy: SavePolicy = SAVE_POLICY): SaveDecision {
	const grown = state.estimatedBytes >= policy.growth * state.savedBytes;
	const times: number[] = [];
	if (state.jobsLeft === 0) {
		const quiet = state.lastChangeAt + policy.idleMs;
		times.push(grown ? quiet : Math.max(quiet, state.lastSaveAt + policy.idleSpacingMs));
	} else if (grown && state.jobsLeft >= state.jobsSinceSave) {
		times.push(state.lastSaveAt + policy.checkpointSpacingMs);
	}
	if (state.jobsSinceSave === 0) {
		times.push(Math.max(state.lastChangeAt + policy.longQuietMs, state.lastSaveAt + policy.longQuietSpacingMs));
	}
	const at = Math.min(...times);
	return state.now >= at ? { save: true } : { save: false, lookAgainAt: at };
}

/** A write's size and the jobs finished (this session) when it started. */
export interface SavePoint {
	bytes: number;
	jobs: number;
}

/**
 * The database's size after `jobs` finished jobs, estimated from the last writes: the core
 * offers no cheap size (its status has counts; `compact` tells bytes but merges the full-text
 * index; the export is the bytes themselves). From two writes (the opened file counts as one),
 * the growth per job between them goes on (a first ingest grows about linearly); from one after
 * some jobs, the size grows in proportion to the jobs (an over-estimate while the database holds
 * more than this session's work: the next write comes early rather than late); from none but a
 * new store's, any job may have doubled it.
 */
export function estimateBytes(last: SavePoint, before: SavePoint | undefined, jobs: number): number {
	if (jobs <= last.jobs) return last.bytes;
	if (before !== undefined && before.jobs < last.jobs) {
		const perJob = Math.max(0, (last.bytes - before.bytes) / (last.jobs - before.jobs));
		return last.bytes + perJob * (jobs - last.jobs);
	}
	if (last.jobs === 0) return Number.POSITIVE_INFINITY;
	return (last.bytes * jobs) / last.jobs;
}

export interface SaveSchedulerOptions {
	/** Runs one write and answers the bytes written, or undefined when there was nothing to write; called only when `isDirty()`. */
	write: () => Promise<number | undefined>;
	isDirty: () => boolean;
	/** Receives a failed write's error; the scheduler stays usable. */
	onError: (error: unknown) => void;
	timers: TimerPort;
	/** The clock the timers run on (Date.now by default). */
	now?: () => number;
	/** The size of the database on disk at the start (0, the default, when there is none: the first write is not held back). */
	savedBytes?: number;
	/** Jobs queued or running at the start (0 by default; `jobsLeft` tells it later). */
	jobsLeft?: number;
	policy?: SavePolicy;
}

export class SaveScheduler {
	private timer: unknown = undefined;
	private hasTimer = false;
	/** The write in progress (or a resolved promise); every write chains after the previous one. */
	private chain: Promise<void> = Promise.resolve();
	/** Writes queued or running: the policy is asked again when the last one ends. */
	private writing = 0;
	private disposed = false;
	/** A change came that no write has started to take yet. */
	private unsaved = false;
	private lastChangeAt: number;
	private lastSaveAt: number;
	/** The last write (the opened file before the first; 0 bytes when the disk holds none of the store). */
	private saved: SavePoint;
	/** The write before it with fewer jobs, for the growth per job. */
	private savedBefore: SavePoint | undefined;
	/** Jobs finished since the session started. */
	private jobs = 0;
	/** Jobs queued or running, by the core's last word. */
	private left: number;
	private readonly now: () => number;
	private readonly policy: SavePolicy;

	constructor(private readonly options: SaveSchedulerOptions) {
		this.now = options.now ?? (() => Date.now());
		this.policy = options.policy ?? SAVE_POLICY;
		this.lastChangeAt = this.lastSaveAt = this.now();
		this.saved = { bytes: options.savedBytes ?? 0, jobs: 0 };
		this.left = options.jobsLeft ?? 0;
	}

	/** The store changed: written when the policy says (`saveDecision`). */
	requestSave(): void {
		if (this.disposed) return;
		this.unsaved = true;
		this.lastChangeAt = this.now();
		this.consider();
	}

	/** A job finished (paid work): a change, and what the size is estimated by. */
	jobFinished(): void {
		if (this.disposed) return;
		this.jobs++;
		this.requestSave();
	}

	/** What the core said of its queue (jobs queued or running): with none, the work is over and is written once quiet. */
	jobsLeft(jobs: number): void {
		if (this.disposed || jobs === this.left) return;
		this.left = jobs;
		this.consider();
	}

	/**
	 * The disk holds none of the store now (a new one replaced a damaged one): the next write is
	 * held back by nothing but the quiet, and sizes are measured from it.
	 */
	startOver(): void {
		this.saved = { bytes: 0, jobs: 0 };
		this.savedBefore = undefined;
		this.jobs = 0;
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

	/** True while a timer waits to look at unsaved changes again. */
	get pending(): boolean {
		return this.hasTimer;
	}

	/** Asks the policy about the unsaved changes: writes now, or looks again when it says. */
	private consider(): void {
		this.cancelTimer();
		if (this.disposed || !this.unsaved || this.writing > 0) return;
		const decision = saveDecision(
			{
				now: this.now(),
				lastChangeAt: this.lastChangeAt,
				lastSaveAt: this.lastSaveAt,
				savedBytes: this.saved.bytes,
				estimatedBytes: estimateBytes(this.saved, this.savedBefore, this.jobs),
				jobsSinceSave: this.jobs - this.saved.jobs,
				jobsLeft: this.left,
			},
			this.policy,
		);
		if (decision.save) {
			void this.enqueue();
			return;
		}
		if (decision.lookAgainAt === Number.POSITIVE_INFINITY) return;
		this.hasTimer = true;
		this.timer = this.options.timers.setTimeout(
			() => {
				this.hasTimer = false;
				this.consider();
			},
			Math.max(0, decision.lookAgainAt - this.now()),
		);
	}

	private enqueue(): Promise<void> {
		this.writing++;
		this.chain = this.chain.then(() => this.writeIfDirty());
		return this.chain;
	}

	private async writeIfDirty(): Promise<void> {
		// What changes from here on waits for the next write.
		this.unsaved = false;
		const startedAt = this.now();
		const jobs = this.jobs;
		try {
			if (!this.options.isDirty()) return;
			const bytes = await this.options.write();
			this.lastSaveAt = startedAt;
			if (bytes !== undefined) this.savedPoint({ bytes, jobs });
		} catch (error) {
			// Tried again at the next change the policy lets through, its spacing measured from this
			// try (a full disk is not hammered); the session keeps itself dirty meanwhile.
			this.lastSaveAt = startedAt;
			this.options.onError(error);
		} finally {
			this.writing--;
			this.consider();
		}
	}

	private savedPoint(point: SavePoint): void {
		// A point with more jobs moves the last one back (a store the disk held none of is no point).
		if (point.jobs > this.saved.jobs && this.saved.bytes > 0) this.savedBefore = this.saved;
		this.saved = point;
	}

	private cancelTimer(): void {
		if (!this.hasTimer) return;
		this.options.timers.clearTimeout(this.timer);
		this.hasTimer = false;
		this.timer = undefined;
	}
}
