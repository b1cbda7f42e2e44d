// The worker's contract, declared once: every call the main thread can make, whether it may
// change the store, whether the views may make it (the rest is the store session's lifecycle),
// and what it runs in the worker. Argument and result types come from the facade's generated
// declarations (`build/pkg/memory_agent.d.ts`) through each entry's `call`; the client
// (`memoryStore`, `CoreClient.call`), the service's dispatch and the "changes the store" set
// are all read from this table.
//
// Adding a facade method is one line here; forgetting it is a compile error (`COVERED` below)
// and a failing test (tests/wasm/contract.test.ts).

import type { CoreStatus, LogSync, MemoryCore, SettingCheck } from "../../build/pkg/memory_agent.js";

/** What the core tells about itself once its WebAssembly is loaded. */
export interface CoreInfo {
	supportedSchemaVersion: number;
}

/** The worker's own calls: loading the modules and the open store's life, which the facade alone cannot do. */
export interface CoreWorker {
	/** Loads both WebAssembly modules (once); nothing else works before. */
	start(): Promise<CoreInfo>;
	/** Whether a vault path is a log file of another device than `device` under `memoryFolder` (a vault event about it means: replay it); needs no open store. */
	isOtherDeviceLogFile(memoryFolder: string, device: string, path: string): Promise<boolean>;
	/** A value typed in the settings, as the core's rule for `key` saves it, or the sentence saying why it cannot be; needs no open store. */
	validateSetting(key: string, value: unknown): Promise<SettingCheck>;
	/**
	 * The facade's `syncLog` (this device's log appended, purged, compacted), telling the main
	 * thread the store changed only when it did: a sync with nothing to write must not look like
	 * a change, or each one would schedule the next.
	 */
	syncLog(memoryFolder: string): Promise<LogSync>;
	/** Opens the store from a database file's bytes (null = new), closing any open one. */
	open(bytes: Uint8Array | null, nowMs: number): Promise<CoreStatus>;
	/**
	 * Stops the store's work at once: no job starts and no call is sent from now on, running
	 * jobs go back to the queue untried, answers still on their way are discarded. The store
	 * stays open for the last export; `close` releases it.
	 */
	stopWork(): void;
	/** Stops its work (as `stopWork`) and releases the store. */
	close(): void;
	/** The database file's bytes when anything changed since the last export (or `force`), else null. */
	exportDatabase(force: boolean): Uint8Array | null;
	/**
	 * Takes exported bytes back once they are written (transferred, not copied), so that the
	 * worker frees them: a database's worth of memory left to the main thread's collector
	 * costs it a full collection at every checkpoint.
	 */
	returnBytes(bytes: Uint8Array): void;
	/** Answers at once: the main thread's watchdog asks it while calls wait, to notice a worker that stopped answering. */
	ping(): void;
}

/** What a call runs against in the worker. */
export interface CallTarget {
	/** The open store's facade; reading it throws `worker.no_store` while none is open. */
	readonly core: MemoryCore;
	readonly worker: CoreWorker;
}

/** One call of the contract. */
interface ContractEntry<Args extends unknown[]> {
	/** The store may change: the main thread hears `changed` and the new status after it. */
	readonly changes: boolean;
	/** The views, commands and vault sync may make it (`MemoryStore`); the others are the store session's. */
	readonly store: boolean;
	// A method (not a function property): an entry may take friendlier arguments than the facade
	// (its body's call to the facade is still checked exactly), and every entry fits `AnyEntry`.
	call(target: CallTarget, ...args: Args): unknown;
}

/** The facade's methods, by name (the generated class's instance methods). */
type FacadeMethod = { [K in keyof MemoryCore]: MemoryCore[K] extends (...args: never[]) => unknown ? K : never }[keyof MemoryCore] & string;

/**
 * Facade methods no call of the contract passes through: the worker uses them itself (the
 * protocol's `close` and `exportDatabase` are the worker's own, around them).
 */
export const WORKER_OWNED = ["free", "attachHost", "isDirty", "close", "exportDatabase"] as const satisfies readonly FacadeMethod[];
type WorkerOwned = (typeof WORKER_OWNED)[number];

/** Every facade method but the worker's own, and every call of the worker, with its arguments. */
type ContractShape = { [K in Exclude<FacadeMethod, WorkerOwned>]: ContractEntry<Parameters<MemoryCore[K]>> } & {
	[K in keyof CoreWorker]: ContractEntry<Parameters<CoreWorker[K]>>;
};

/** The contract. An entry calls the facade's (`core`) or the worker's method of its own name. */
export const CORE_CONTRACT = {
	start: { changes: false, store: false, call: ({ worker }, ...args) => worker.start(...args) },
	isOtherDeviceLogFile: { changes: false, store: false, call: ({ worker }, ...args) => worker.isOtherDeviceLogFile(...args) },
	validateSetting: { changes: false, store: false, call: ({ worker }, ...args) => worker.validateSetting(...args) },
	open: { changes: true, store: false, call: ({ worker }, ...args) => worker.open(...args) },
	stopWork: { changes: true, store: false, call: ({ worker }, ...args) => worker.stopWork(...args) },
	close: { changes: false, store: false, call: ({ worker }, ...args) => worker.close(...args) },
	exportDatabase: { changes: false, store: false, call: ({ worker }, ...args) => worker.exportDatabase(...args) },
	returnBytes: { changes: false, store: false, call: ({ worker }, ...args) => worker.returnBytes(...args) },
	ping: { changes: false, store: false, call: ({ worker }, ...args) => worker.ping(...args) },
	configure: { changes: true, store: false, call: ({ core }, ...args) => core.configure(...args) },
	checkIntegrity: { changes: true, store: false, call: ({ core }, ...args) => core.checkIntegrity(...args) },
	compact: { changes: true, store: false, call: ({ core }, ...args) => core.compact(...args) },
	// The device log (`plugin/storage/device-log.ts` says when; the core does it through the host's file operations).
	syncLog: { changes: false, store: false, call: ({ worker }, ...args) => worker.syncLog(...args) },
	replayLogs: { changes: true, store: false, call: ({ core }, ...args) => core.replayLogs(...args) },

	status: { changes: false, store: true, call: ({ core }, ...args) => core.status(...args) },
	/** How far the replay of the devices' logs running (or the last one) is. */
	replayProgress: { changes: false, store: true, call: ({ core }, ...args) => core.replayProgress(...args) },
	browseMemories: { changes: false, store: true, call: ({ core }, ...args) => core.browseMemories(...args) },
	browseInsights: { changes: false, store: true, call: ({ core }, ...args) => core.browseInsights(...args) },
	getMemories: { changes: false, store: true, call: ({ core }, ...args) => core.getMemories(...args) },
	listJobs: { changes: false, store: true, call: ({ core }, ...args) => core.listJobs(...args) },
	listSources: { changes: false, store: true, call: ({ core }, ...args) => core.listSources(...args) },
	listSkipped: { changes: false, store: true, call: ({ core }, ...args) => core.listSkipped(...args) },
	rememberedNotes: { changes: false, store: true, call: ({ core }, ...args) => core.rememberedNotes(...args) },
	usage: { changes: false, store: true, call: ({ core }, ...args) => core.usage(...args) },
	recall: { changes: false, store: true, call: ({ core }, ...args) => core.recall(...args) },
	exportJson: { changes: false, store: true, call: ({ core }, ...args) => core.exportJson(...args) },
	estimateIngest: { changes: false, store: true, call: ({ core }, ...args) => core.estimateIngest(...args) },
	listModels: { changes: false, store: true, call: ({ core }, ...args) => core.listModels(...args) },
	/** Which files are left out, and why: decided by the core, fed with Obsidian's metadata cache. */
	exclusions: { changes: false, store: true, call: ({ core }, ...args) => core.exclusions(...args) },

	enqueueNote: { changes: true, store: true, call: ({ core }, ...args) => core.enqueueNote(...args) },
	enqueueNotes: { changes: true, store: true, call: ({ core }, ...args) => core.enqueueNotes(...args) },
	rememberText: { changes: true, store: true, call: ({ core }, ...args) => core.rememberText(...args) },
	removeNote: { changes: true, store: true, call: ({ core }, ...args) => core.removeNote(...args) },
	removeNotes: { changes: true, store: true, call: ({ core }, ...args) => core.removeNotes(...args) },
	renameNote: { changes: true, store: true, call: ({ core }, ...args) => core.renameNote(...args) },
	forgetMemory: { changes: true, store: true, call: ({ core }, ...args) => core.forgetMemory(...args) },
	consolidateNow: { changes: true, store: true, call: ({ core }, ...args) => core.consolidateNow(...args) },
	pause: { changes: true, store: true, call: ({ core }, ...args) => core.pause(...args) },
	resume: { changes: true, store: true, call: ({ core }, ...args) => core.resume(...args) },
	retryFailed: { changes: true, store: true, call: ({ core }, ...args) => core.retryFailed(...args) },
	runDueWork: { changes: true, store: true, call: ({ core }, ...args) => core.runDueWork(...args) },
	ask: { changes: true, store: true, call: ({ core }, ...args) => core.ask(...args) },
	/** The ask panel's Stop: questions in flight send nothing more (their late replies are discarded by the caller). */
	stopQuestions: { changes: false, store: true, call: ({ core }, ...args) => core.stopQuestions(...args) },
	testConnection: { changes: true, store: true, call: ({ core }, ...args) => core.testConnection(...args) },
} satisfies ContractShape;

type Contract = typeof CORE_CONTRACT;
export type CoreMethod = keyof Contract;
/** The arguments of a call, as the main thread passes them. */
export type CoreArgs<M extends CoreMethod> = Parameters<Contract[M]["call"]> extends [CallTarget, ...infer Args] ? Args : never;
/** What a call answers (a facade promise's value: the worker awaits it). */
export type CoreResult<M extends CoreMethod> = Awaited<ReturnType<Contract[M]["call"]>>;
/** The calls the views, commands and vault sync may make. */
export type StoreMethod = { [M in CoreMethod]: Contract[M]["store"] extends true ? M : never }[CoreMethod];

/** Any entry, as the worker's dispatch sees it: arguments arrive as the client's `CoreArgs`. */
export interface AnyEntry {
	readonly changes: boolean;
	readonly store: boolean;
	call(target: CallTarget, ...args: unknown[]): unknown;
}

/** Whether `name` is a call of the contract (not, say, `toString`). */
export function isCoreMethod(name: string): name is CoreMethod {
	return Object.prototype.hasOwnProperty.call(CORE_CONTRACT, name);
}

/** The entry of `method`, or undefined for a name that is none (a message from a newer or older main thread). */
export function contractEntry(method: string): AnyEntry | undefined {
	return isCoreMethod(method) ? CORE_CONTRACT[method] : undefined;
}

/** The calls the views may make, in the table's order. */
export const STORE_METHODS: readonly StoreMethod[] = Object.keys(CORE_CONTRACT)
	.filter(isCoreMethod)
	.filter((method): method is StoreMethod => CORE_CONTRACT[method].store);

// The table covers the facade: a method added to `MemoryCore` (a `#[wasm_bindgen]` method in
// src/wasm/mod.rs) and not to the table or `WORKER_OWNED` fails to compile here, naming it.
type Uncovered = Exclude<FacadeMethod, CoreMethod | WorkerOwned>;
const COVERED: [Uncovered] extends [never] ? true : Uncovered = true;
void COVERED;
