// Keeps the store in the core's worker in step with this device's database file: opening
// (once from an older version's shared file), recovery, saves when the work is over (and during
// long work only as the database doubles: `save-scheduler.ts`), and the full check after the
// start. The file is this device's own index, a cache of its log: no other device writes it
// (the memory travels between devices through their logs, `device-log.ts`), and a change not yet
// in it is replayed from this device's log at the next start.

import { ErrorCode, errorCode, errorMessage } from "../core/core-error";
import type { CoreClient } from "../core/core-client";
import type { StoreStatus } from "../core/memory-core-api";
import type { DatabaseFile } from "./database-file";
import { SaveScheduler, type TimerPort } from "./save-scheduler";

/** The store cannot be used (for now); `message` is written for the user. */
export class StoreUnavailableError extends Error {
	constructor(message: string) {
		super(message);
		this.name = "StoreUnavailableError";
	}
}

export interface StoreSessionDeps {
	/** The core's worker; the session makes the lifecycle calls (open, export, check, close). */
	client: CoreClient;
	/** This device's own database file. */
	file: DatabaseFile;
	/**
	 * Where an older version kept the memory all devices shared: read once, when this device's
	 * own file does not exist yet, and left where it is.
	 */
	legacyFile?: DatabaseFile;
	timers: TimerPort;
	/** The clock the timers run on (the save policy's quiet and spacing are measured on it). */
	now: () => Date;
	/** Tells the user something happened to their data (shown as a notice). */
	notify: (message: string) => void;
	/** Called after the store was opened or reloaded, with its counts. */
	onStatus: (status: StoreStatus) => void;
	/** Called when the store stopped being usable after it had opened. */
	onUnavailable: (message: string) => void;
	/** The store changed (a call, a finished job): the device log is written soon. */
	onChanged?: () => void;
	/** At close, after the store's work stopped and before the last write (the device log's last append). */
	beforeLastWrite?: () => Promise<void>;
	/** Called with each store opened (the first, and a new one after damage), before use. */
	onOpened?: () => Promise<void> | void;
	/** The full check of every page runs this long after the start, when nothing waits on it. */
	checkDelayMs?: number;
}

/** The full check waits this long after the start, so it never delays the first work. */
export const DEFAULT_CHECK_DELAY_MS = 20_000;

export class StoreSession {
	private readonly scheduler: SaveScheduler;
	/** True while the file on disk does not hold this store yet (new or moved-aside). */
	private unsaved: boolean;
	private closed = false;
	/** The worker reported changes that no write has taken yet. */
	private changes = false;
	private checkTimer: unknown;
	private readonly unsubscribe: Array<() => void> = [];

	private constructor(
		private readonly deps: StoreSessionDeps,
		opened: OpenedStore,
	) {
		this.unsaved = opened.unsaved;
		this.scheduler = new SaveScheduler({
			write: () => this.write(),
			isDirty: () => !this.closed && (this.unsaved || this.changes),
			// An abandoned session's write fails with its worker: that is told once, by the runtime.
			onError: (error) => {
				if (!this.closed) deps.notify(`Memory Agent could not save its database: ${errorMessage(error)}`);
			},
			timers: deps.timers,
			now: () => deps.now().getTime(),
			savedBytes: opened.unsaved ? 0 : opened.bytes,
			jobsLeft: jobsLeft(opened.status),
		});
		this.unsubscribe.push(
			deps.client.on("changed", () => this.requestSave()),
			deps.client.on("progress", (progress) => {
				this.changes = true;
				this.scheduler.jobFinished();
				this.scheduler.jobsLeft(jobsLeft(progress));
				deps.onChanged?.();
			}),
			deps.client.on("status", (status) => this.scheduler.jobsLeft(jobsLeft(status))),
		);
	}

	/**
	 * Loads the file (repairing an interrupted save) and opens it in the worker; without one,
	 * the older version's shared file is opened once and saved as this device's. A corrupt file
	 * is moved aside and replaced by a new store; a file from a newer Memory Agent is left
	 * untouched and StoreUnavailableError is thrown.
	 */
	static async open(deps: StoreSessionDeps): Promise<StoreSession> {
		const opened = await openFromDisk(deps);
		const session = new StoreSession(deps, opened);
		await deps.onOpened?.();
		if (opened.unsaved) session.requestSave();
		deps.onStatus(opened.status);
		session.scheduleCheck();
		return session;
	}

	/** The store changed: written when the save policy says (`saveDecision`). */
	requestSave(): void {
		this.changes = true;
		this.scheduler.requestSave();
		this.deps.onChanged?.();
	}

	/** Writes any unsaved change now (before a pause, a settings change, unload). */
	flush(): Promise<void> {
		return this.scheduler.flush();
	}

	/**
	 * Stops the store's work (running jobs go back to the queue untried), writes what is
	 * unsaved, then releases the store in the worker.
	 */
	async close(): Promise<void> {
		this.cancelCheck();
		if (!this.closed) {
			await this.deps.client.call("stopWork").catch(() => undefined);
			await this.deps.beforeLastWrite?.().catch(() => undefined);
		}
		await this.scheduler.flush();
		this.scheduler.dispose();
		for (const unsubscribe of this.unsubscribe) unsubscribe();
		if (this.closed) return;
		this.closed = true;
		await this.deps.client.call("close").catch(() => undefined);
	}

	/**
	 * Lets the session go without a word to its worker, which was ended (it stopped answering):
	 * no timer fires and nothing is written from now on. What was not saved is lost with the
	 * worker; the next session opens the file as it was last written.
	 */
	abandon(): void {
		this.cancelCheck();
		this.scheduler.dispose();
		for (const unsubscribe of this.unsubscribe) unsubscribe();
		this.closed = true;
	}

	/** Hands free pages back (after large deletions or a long first ingest). */
	async compact(): Promise<void> {
		if (this.closed) return;
		const result = await this.deps.client.call("compact");
		if (result.bytesAfter !== result.bytesBefore) this.requestSave();
	}

	/** Writes the store, answering the bytes written (undefined when the worker had nothing new). */
	private async write(): Promise<number | undefined> {
		this.changes = false;
		const bytes = await this.deps.client.call("exportDatabase", this.unsaved);
		if (bytes === null) return undefined;
		try {
			await this.deps.file.save(bytes);
			this.unsaved = false;
			return bytes.length;
		} catch (error) {
			// The export cleared the worker's dirty flag; remember that the disk is behind.
			this.unsaved = true;
			throw error;
		} finally {
			void this.deps.client.call("returnBytes", bytes).catch(() => undefined);
		}
	}

	/**
	 * The full check of every page, once the start is over; damage is handled like a corrupt file,
	 * and a check that could not finish (or could not run) is told, never dropped.
	 */
	private scheduleCheck(): void {
		this.cancelCheck();
		this.checkTimer = this.deps.timers.setTimeout(() => {
			this.checkTimer = undefined;
			void this.checkNow();
		}, this.deps.checkDelayMs ?? DEFAULT_CHECK_DELAY_MS);
	}

	private cancelCheck(): void {
		if (this.checkTimer !== undefined) this.deps.timers.clearTimeout(this.checkTimer);
		this.checkTimer = undefined;
	}

	private async checkNow(): Promise<void> {
		if (this.closed) return;
		try {
			const integrity = await this.deps.client.call("checkIntegrity");
			if (integrity.repairedIndex) this.requestSave();
			if (integrity.unfinished !== null) {
				this.deps.notify(
					`Memory Agent could not finish checking its database (${integrity.unfinished}). ` +
						"It keeps using the database as it is and checks it again at the next start.",
				);
			}
		} catch (error) {
			if (this.closed) return;
			if (errorCode(error) !== ErrorCode.storeCorrupt) {
				this.deps.notify(
					`Memory Agent could not check its database (${errorMessage(error)}). ` +
						"It keeps using the database as it is and checks it again at the next start.",
				);
				return;
			}
			await this.startOverAfterDamage();
			return;
		}
		try {
			await this.compact();
		} catch (error) {
			if (this.closed) return;
			if (errorCode(error) === ErrorCode.storeCorrupt) {
				await this.startOverAfterDamage();
				return;
			}
			this.deps.notify(`Memory Agent could not make its database smaller (${errorMessage(error)}). It tries again at the next start.`);
		}
	}

	/** Damage found after the start: the file is moved aside, unchanged, and a new store started. */
	private async startOverAfterDamage(): Promise<void> {
		const movedTo = await this.deps.file.moveAside(this.deps.now());
		const status = await this.deps.client.call("open", null, this.deps.now().getTime());
		this.unsaved = true;
		this.scheduler.startOver();
		this.scheduler.jobsLeft(jobsLeft(status));
		await this.deps.onOpened?.();
		this.requestSave();
		this.deps.notify(
			`Memory Agent found damage in its database, so it is rebuilding it from the logs in the memory folder (no model call). ` +
				`The old file was kept, unchanged, as ${movedTo}.`,
		);
		this.deps.onStatus(status);
	}
}

interface OpenedStore {
	status: StoreStatus;
	unsaved: boolean;
	/** The size of the file the store was opened from (0 for a new store). */
	bytes: number;
}

/** Jobs queued or running: none when the work is over (a job waiting for a retry or another device is work left). */
function jobsLeft(counts: { queued: number; running: number }): number {
	return counts.queued + counts.running;
}

/** The bytes to open: this device's file, else (once) the older version's shared one. */
async function bytesToOpen(deps: StoreSessionDeps): Promise<{ bytes: Uint8Array | undefined; source: DatabaseFile }> {
	const own = await deps.file.load();
	if (own !== undefined || deps.legacyFile === undefined) return { bytes: own, source: deps.file };
	return { bytes: await deps.legacyFile.load(), source: deps.legacyFile };
}

async function openFromDisk(deps: StoreSessionDeps): Promise<OpenedStore> {
	const { client, file } = deps;
	const { bytes, source } = await bytesToOpen(deps);
	// Opened from the older shared file: saved soon as this device's own (the core queued
	// everything it holds for this device's log, so other devices get it without a model call).
	const migrated = source !== file && bytes !== undefined;
	try {
		const status = await client.call("open", bytes ?? null, deps.now().getTime());
		// The core removed what the file held that its schema does not define (a trigger could
		// otherwise delete memories or hang every start); the cleaned store is saved soon.
		if (status.removedAtOpen !== null) {
			deps.notify(
				`Memory Agent removed ${status.removedAtOpen.summary} from its database ${source.path}. ` +
					"They were not made by Memory Agent; no memory was lost.",
			);
			return { status, unsaved: true, bytes: 0 };
		}
		return { status, unsaved: bytes === undefined || migrated, bytes: bytes?.length ?? 0 };
	} catch (error) {
		const code = errorCode(error);
		if (code === ErrorCode.storeNewerSchema) {
			throw new StoreUnavailableError(
				`The memory database ${source.path} was written by a newer version of Memory Agent — update the plugin. ` +
					"The file was left untouched.",
			);
		}
		if (code !== ErrorCode.storeCorrupt || bytes === undefined) throw error;
		// The older shared file is only read: a damaged one stays as it is.
		if (migrated) {
			deps.notify(`Memory Agent could not read the database of its older version, ${source.path}, so it started a new, empty one. The old file was left as it is.`);
			return { status: await client.call("open", null, deps.now().getTime()), unsaved: true, bytes: 0 };
		}
		const movedTo = await file.moveAside(deps.now());
		deps.notify(
			`Memory Agent could not read its database, so it is rebuilding it from the logs in the memory folder (no model call). ` +
				`The old file was kept, unchanged, as ${movedTo}.`,
		);
		return { status: await client.call("open", null, deps.now().getTime()), unsaved: true, bytes: 0 };
	}
}
