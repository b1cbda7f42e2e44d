// Keeps the store in the core's worker in step with its database file: opening, recovery,
// debounced saves with checkpoints during long work, the full check after the start, and
// reloading when another program replaced the file.

import { ErrorCode, errorCode, errorMessage } from "../core/core-error";
import type { CoreClient } from "../core/core-client";
import type { StoreStatus } from "../core/memory-core-api";
import type { DatabaseFile } from "./database-file";
import { DEFAULT_MAX_WAIT_MS, SaveScheduler, type TimerPort } from "./save-scheduler";

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
	file: DatabaseFile;
	timers: TimerPort;
	now: () => Date;
	/** Tells the user something happened to their data (shown as a notice). */
	notify: (message: string) => void;
	/** Called after the store was opened or reloaded, with its counts. */
	onStatus: (status: StoreStatus) => void;
	/** Called when the store stopped being usable after it had opened. */
	onUnavailable: (message: string) => void;
	/** Called after a merge took notes' records from another device's copy (the core queued them to be read again). */
	onAdopted?: () => void;
	/** Called with each store opened (the first, and one reloaded from disk), before use. */
	onOpened?: () => Promise<void> | void;
	saveDelayMs?: number;
	/** Checkpoints during long work (defaults: 30 s, 50 jobs). */
	maxWaitMs?: number;
	maxJobs?: number;
	/** The full check of every page runs this long after the start, when nothing waits on it. */
	checkDelayMs?: number;
}

/** The full check waits this long after the start, so it never delays the first work. */
export const DEFAULT_CHECK_DELAY_MS = 20_000;

/**
 * Once another device shares the memory, paid work reaches the disk (and the sync tool) within
 * this long, so the other device finds it before it would pay for the same note — but never so
 * often that saving takes more than a tenth of the time.
 */
export const SHARED_MAX_WAIT_MS = 5_000;
/**
 * How often a shared memory looks whether the sync tool replaced its file: one stat. A
 * replaced file that lacked this device's work is merged and saved again at once, so the work
 * reaches the other device even when this one has nothing more to do.
 */
export const SHARED_CHECK_MS = 5_000;
/** The folder is listed for sync tools' conflict copies at most this often (and at the start). */
export const CONFLICT_SCAN_MS = 5_000;

export class StoreSession {
	private readonly scheduler: SaveScheduler;
	private closed = false;
	/** The worker reported changes that no write has taken yet. */
	private changes = false;
	private checkTimer: unknown;
	private readonly unsubscribe: Array<() => void> = [];
	/** Another device's copy was merged into this memory (it lives on more than one device). */
	private shared = false;
	/** How long the last write took, which bounds how often a shared memory is saved. */
	private lastWriteMs = 0;
	private watchTimer: unknown;
	private lastConflictScan = Number.NEGATIVE_INFINITY;
	private conflictScan: Promise<void> | undefined;
	/** Conflict copies that could not be merged, told once. */
	private readonly unmergeable = new Set<string>();

	private constructor(
		private readonly deps: StoreSessionDeps,
		/** True while the file on disk does not hold this store yet (new or moved-aside). */
		private unsaved: boolean,
	) {
		this.scheduler = new SaveScheduler({
			write: () => this.write(),
			isDirty: () => !this.closed && (this.unsaved || this.changes),
			// An abandoned session's write fails with its worker: that is told once, by the runtime.
			onError: (error) => {
				if (!this.closed) deps.notify(`Memory Agent could not save its database: ${errorMessage(error)}`);
			},
			timers: deps.timers,
			delayMs: deps.saveDelayMs,
			maxWaitMs: () => this.maxWaitMs(),
			maxJobs: deps.maxJobs,
		});
		this.unsubscribe.push(
			deps.client.on("changed", () => this.requestSave()),
			deps.client.on("progress", () => {
				this.changes = true;
				this.scheduler.jobFinished();
			}),
		);
	}

	/**
	 * Loads the file (repairing an interrupted save) and opens it in the worker. A corrupt file
	 * is moved aside and replaced by a new store; a file from a newer Memory Agent is left
	 * untouched and StoreUnavailableError is thrown.
	 */
	static async open(deps: StoreSessionDeps): Promise<StoreSession> {
		const opened = await openFromDisk(deps);
		const session = new StoreSession(deps, opened.unsaved);
		session.shared = opened.status.shared;
		session.watchWhileShared();
		void session.mergeConflictCopies().catch((error: unknown) => deps.notify(`Memory Agent could not look for sync conflict copies of its database: ${errorMessage(error)}`));
		await deps.onOpened?.();
		if (opened.unsaved) session.requestSave();
		deps.onStatus(opened.status);
		session.scheduleCheck();
		return session;
	}

	/** Schedules a debounced write of the current state. */
	requestSave(): void {
		this.changes = true;
		this.scheduler.requestSave();
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
		this.stopWatching();
		if (!this.closed) await this.deps.client.call("stopWork").catch(() => undefined);
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
		this.stopWatching();
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

	/**
	 * Merges the file on disk into ours when another program replaced it (another device's
	 * copy), before work that could pay for what that copy already holds; then saves soon.
	 */
	async mergeIfChanged(): Promise<void> {
		await this.mergeConflictCopies();
		if (this.closed || !(await this.deps.file.changedOnDisk())) return;
		// The copy lacks our work: saved now, as the other device may be waiting for it.
		if ((await this.mergeFromDisk()) === "save") await this.flush();
	}

	/**
	 * The copies a sync tool (Syncthing, Dropbox, iCloud, Google Drive) leaves beside the file
	 * when two devices changed it at once hold work of the device that lost: each is merged,
	 * ours is saved, and only then is the copy moved to the trash. One that cannot be merged
	 * (damaged, from a newer Memory Agent) is left where it is, and the user told once.
	 */
	mergeConflictCopies(): Promise<void> {
		if (this.conflictScan !== undefined) return this.conflictScan;
		const now = this.deps.now().getTime();
		if (this.closed || now - this.lastConflictScan < CONFLICT_SCAN_MS) return Promise.resolve();
		this.lastConflictScan = now;
		this.conflictScan = this.scanConflictCopies().finally(() => {
			this.conflictScan = undefined;
		});
		return this.conflictScan;
	}

	private async scanConflictCopies(): Promise<void> {
		const names = await this.deps.file.siblingNames();
		if (names.length === 0) return;
		const copies = await this.deps.client.call("conflictCopies", this.deps.file.name, names);
		for (const name of copies) {
			if (this.closed) return;
			let added = 0;
			let removed = 0;
			try {
				const report = await this.deps.client.call("mergeDatabase", await this.deps.file.readSibling(name));
				if (report.notesAdopted > 0) this.deps.onAdopted?.();
				added = report.memoriesAdded + report.insightsAdded;
				removed = report.memoriesRemoved + report.insightsRemoved;
			} catch (error) {
				if (!this.unmergeable.has(name)) {
					this.unmergeable.add(name);
					this.deps.notify(`Memory Agent found ${name}, a copy a sync tool made of its database, but could not merge it (${errorMessage(error)}). It was left as it is.`);
				}
				continue;
			}
			this.shared = true;
			this.watchWhileShared();
			this.unsaved = true;
			await this.flush();
			if (this.unsaved) continue; // Not saved: the copy stays until its work is on disk here.
			await this.deps.file.trashSibling(name);
			this.deps.notify(
				`Memory Agent merged ${name}, a copy a sync tool made when two devices changed the memory at once ` +
					`(${added.toLocaleString()} added, ${removed.toLocaleString()} removed), and moved it to the trash.`,
			);
		}
	}

	private maxWaitMs(): number {
		const alone = this.deps.maxWaitMs ?? DEFAULT_MAX_WAIT_MS;
		return this.shared ? Math.min(alone, Math.max(SHARED_MAX_WAIT_MS, 10 * this.lastWriteMs)) : alone;
	}

	private async write(): Promise<void> {
		const started = this.deps.now().getTime();
		try {
			await this.writeNow();
		} finally {
			this.lastWriteMs = this.deps.now().getTime() - started;
		}
	}

	private async writeNow(): Promise<void> {
		if ((await this.deps.file.changedOnDisk()) && (await this.mergeFromDisk()) !== "save") return;
		this.changes = false;
		const bytes = await this.deps.client.call("exportDatabase", this.unsaved);
		if (bytes === null) return;
		try {
			await this.deps.file.save(bytes);
			this.unsaved = false;
		} catch (error) {
			// The export cleared the worker's dirty flag; remember that the disk is behind.
			this.unsaved = true;
			throw error;
		} finally {
			void this.deps.client.call("returnBytes", bytes).catch(() => undefined);
		}
	}

	/**
	 * Another program replaced the file — a sync tool bringing another device's copy: it is
	 * merged into ours, and the merged memory is what gets saved, so neither side's paid work
	 * is lost and nothing either side forgot comes back. "save" when ours must be written (the
	 * copy lacks something of ours, or is damaged); "alike" when the copy on disk already holds
	 * everything ours does (writing it back would only have the sync tool carry the file to and
	 * fro); "reloaded" when the other copy won (it comes from a newer Memory Agent).
	 */
	private async mergeFromDisk(): Promise<"save" | "alike" | "reloaded"> {
		const bytes = await this.deps.file.load();
		if (bytes === undefined) return "save";
		try {
			const report = await this.deps.client.call("mergeDatabase", bytes);
			if (report.notesAdopted > 0) this.deps.onAdopted?.();
			this.shared = true;
			this.watchWhileShared();
			const added = report.memoriesAdded + report.insightsAdded;
			const removed = report.memoriesRemoved + report.insightsRemoved;
			if (added + removed > 0) {
				this.deps.notify(
					`The memory database ${this.deps.file.path} was changed on disk, probably by a sync tool from another device. ` +
						`Memory Agent merged it with its own: ${added.toLocaleString()} added, ${removed.toLocaleString()} removed.`,
				);
			}
			if (!report.theirsBehind) {
				this.unsaved = false;
				this.changes = false;
				return "alike";
			}
		} catch (error) {
			if (errorCode(error) === ErrorCode.storeNewerSchema) {
				await this.reloadFromDisk();
				return "reloaded";
			}
			// A damaged copy is not merged: ours is whole, and saving it replaces the damage.
			this.deps.notify(`The memory database ${this.deps.file.path} was replaced by a copy that cannot be read (${errorMessage(error)}). Memory Agent saved its own over it.`);
		}
		this.unsaved = true;
		return "save";
	}

	/** While the memory is shared, looks every few seconds whether the sync tool replaced the file. */
	private watchWhileShared(): void {
		if (!this.shared || this.closed || this.watchTimer !== undefined) return;
		this.watchTimer = this.deps.timers.setTimeout(() => {
			this.watchTimer = undefined;
			void this.mergeIfChanged()
				.catch(() => undefined)
				.finally(() => this.watchWhileShared());
		}, SHARED_CHECK_MS);
	}

	private stopWatching(): void {
		if (this.watchTimer !== undefined) this.deps.timers.clearTimeout(this.watchTimer);
		this.watchTimer = undefined;
	}

	/** Another program replaced the file with one this version cannot read: its version wins over our unsaved state. */
	private async reloadFromDisk(): Promise<void> {
		let opened: OpenedStore;
		try {
			opened = await openFromDisk(this.deps);
		} catch (error) {
			this.closed = true;
			this.scheduler.dispose();
			this.cancelCheck();
			this.stopWatching();
			this.deps.onUnavailable(errorMessage(error));
			throw error;
		}
		this.unsaved = opened.unsaved;
		this.changes = false;
		await this.deps.onOpened?.();
		this.deps.notify(
			`The memory database ${this.deps.file.path} was changed on disk, probably by a sync tool. ` +
				"Memory Agent loaded the new version instead of overwriting it.",
		);
		this.deps.onStatus(opened.status);
		this.scheduleCheck();
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
		await this.deps.onOpened?.();
		this.requestSave();
		this.deps.notify(
			`Memory Agent found damage in its database, so it started a new, empty one. ` +
				`The old file was kept, unchanged, as ${movedTo}.`,
		);
		this.deps.onStatus(status);
	}
}

interface OpenedStore {
	status: StoreStatus;
	unsaved: boolean;
}

async function openFromDisk(deps: StoreSessionDeps): Promise<OpenedStore> {
	const { client, file } = deps;
	const bytes = await file.load();
	try {
		const status = await client.call("open", bytes ?? null, deps.now().getTime());
		// The core removed what the file held that its schema does not define (a trigger could
		// otherwise delete memories or hang every start); the cleaned store is saved soon.
		if (status.removedAtOpen !== null) {
			deps.notify(
				`Memory Agent removed ${status.removedAtOpen.summary} from its database ${file.path}. ` +
					"They were not made by Memory Agent; no memory was lost.",
			);
			return { status, unsaved: true };
		}
		return { status, unsaved: bytes === undefined };
	} catch (error) {
		const code = errorCode(error);
		if (code === ErrorCode.storeNewerSchema) {
			throw new StoreUnavailableError(
				`The memory database ${file.path} was written by a newer version of Memory Agent — update the plugin. ` +
					"The file was left untouched.",
			);
		}
		if (code !== ErrorCode.storeCorrupt || bytes === undefined) throw error;
		const movedTo = await file.moveAside(deps.now());
		deps.notify(
			`Memory Agent could not read its database, so it started a new, empty one. ` +
				`The old file was kept, unchanged, as ${movedTo}.`,
		);
		return { status: await client.call("open", null, deps.now().getTime()), unsaved: true };
	}
}
