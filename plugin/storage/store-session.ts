// Keeps one open store in step with its database file: opening, recovery, debounced saves.

import { ErrorCode, errorCode, errorMessage } from "../core/core-error";
import type { MemoryCoreApi, MemoryStore, StoreStatus } from "../core/memory-core-api";
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
	core: MemoryCoreApi;
	file: DatabaseFile;
	timers: TimerPort;
	now: () => Date;
	/** Tells the user something happened to their data (shown as a notice). */
	notify: (message: string) => void;
	/** Called after the store was opened or reloaded, with its counts. */
	onStatus: (status: StoreStatus) => void;
	/** Called when the store stopped being usable after it had opened. */
	onUnavailable: (message: string) => void;
	/** Called with each store opened (the first, and one reloaded from disk), before use. */
	onOpened?: (store: MemoryStore) => void;
	saveDelayMs?: number;
}

export class StoreSession {
	private readonly scheduler: SaveScheduler;
	private closed = false;

	private constructor(
		private readonly deps: StoreSessionDeps,
		private store: MemoryStore,
		/** True while the file on disk does not hold this store yet (new or moved-aside). */
		private unsaved: boolean,
	) {
		this.scheduler = new SaveScheduler({
			write: () => this.write(),
			isDirty: () => !this.closed && (this.unsaved || this.store.isDirty()),
			onError: (error) => deps.notify(`Memory Agent could not save its database: ${errorMessage(error)}`),
			timers: deps.timers,
			delayMs: deps.saveDelayMs,
		});
	}

	/**
	 * Loads the file (repairing an interrupted save) and opens it. A corrupt file is moved
	 * aside and replaced by a new store; a file from a newer Memory Agent is left untouched
	 * and StoreUnavailableError is thrown.
	 */
	static async open(deps: StoreSessionDeps): Promise<StoreSession> {
		const opened = await openFromDisk(deps);
		const session = new StoreSession(deps, opened.store, opened.unsaved);
		deps.onOpened?.(opened.store);
		if (opened.unsaved) session.requestSave();
		deps.onStatus(session.status());
		return session;
	}

	status(): StoreStatus {
		return this.store.status();
	}

	/** The open store; replaced when the file is reloaded from disk. */
	get current(): MemoryStore {
		return this.store;
	}

	/** Schedules a debounced write of the current state. */
	requestSave(): void {
		this.scheduler.requestSave();
	}

	/** Writes any unsaved change now. */
	flush(): Promise<void> {
		return this.scheduler.flush();
	}

	/** Flushes, then releases the store. */
	async close(): Promise<void> {
		await this.scheduler.flush();
		this.scheduler.dispose();
		if (!this.closed) {
			this.closed = true;
			this.store.free();
		}
	}

	private async write(): Promise<void> {
		if (await this.deps.file.changedOnDisk()) {
			await this.reloadFromDisk();
			return;
		}
		const bytes = this.store.exportBytes();
		try {
			await this.deps.file.save(bytes);
			this.unsaved = false;
		} catch (error) {
			// exportBytes() cleared the dirty flag; remember that the disk is behind.
			this.unsaved = true;
			throw error;
		}
	}

	/** Another program replaced the file: its version wins over our unsaved state. */
	private async reloadFromDisk(): Promise<void> {
		let opened: OpenedStore;
		try {
			opened = await openFromDisk(this.deps);
		} catch (error) {
			this.closed = true;
			this.scheduler.dispose();
			this.store.free();
			this.deps.onUnavailable(errorMessage(error));
			throw error;
		}
		this.store.free();
		this.store = opened.store;
		this.unsaved = opened.unsaved;
		this.deps.onOpened?.(opened.store);
		this.deps.notify(
			`The memory database ${this.deps.file.path} was changed on disk, probably by a sync tool. ` +
				"Memory Agent loaded the new version instead of overwriting it.",
		);
		this.deps.onStatus(this.status());
	}
}

interface OpenedStore {
	store: MemoryStore;
	unsaved: boolean;
}

async function openFromDisk(deps: StoreSessionDeps): Promise<OpenedStore> {
	const { core, file } = deps;
	const bytes = await file.load();
	try {
		return { store: core.open(bytes, deps.now().getTime()), unsaved: bytes === undefined };
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
		return { store: core.open(undefined, deps.now().getTime()), unsaved: true };
	}
}
