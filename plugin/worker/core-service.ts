// The core as a service inside the Web Worker: holds both WebAssembly modules and the open
// store, answers the main thread's calls, and asks the main thread for HTTP, vault reads and
// the device log's file operations.
// No globals and no Obsidian: the worker entry (or a test) wires it to messages.

import type { CoreHost, CoreStatus, LogSync, MemoryCore, SettingCheck } from "../../build/pkg/memory_agent.js";
import { type CallTarget, type CoreInfo, type CoreMethod, type CoreWorker, contractEntry } from "./contract";
import type { LoadedCore } from "./load-core";
import { type ImagePlatform, renderImage } from "./render-image";
import type { CoreEvent, CoreEvents, HostMethods } from "./protocol";

/** What the service needs from whoever runs it. */
export interface CoreServiceDeps {
	/** Loads the WebAssembly modules (the inlined ones in the worker). */
	load(): Promise<LoadedCore>;
	/** Asks the main thread to do what only it can. */
	callHost<M extends keyof HostMethods>(method: M, args: Parameters<HostMethods[M]>): Promise<ReturnType<HostMethods[M]>>;
	emit<E extends CoreEvent>(event: E, data: CoreEvents[E]): void;
	/** The worker's own image decoding (`createImageBitmap` and `OffscreenCanvas`), when it has them; else the main thread's. */
	imagePlatform?: ImagePlatform;
	/** 53 random bits for the core's ids (the core has no randomness of its own). */
	randomSeed(): number;
	/** The worker's own timer (the core's sleeps, and pacing the status reports). */
	setTimeout(callback: () => void, ms: number): unknown;
	clearTimeout(handle: unknown): void;
}

/** Statuses pushed during long work are at most this often (each costs a few counts here and a redraw there). */
const STATUS_INTERVAL_MS = 250;

export class CoreService implements CoreWorker {
	private loading: Promise<LoadedCore> | undefined;
	private loaded: LoadedCore | undefined;
	private store: MemoryCore | undefined;
	private statusTimer: unknown;
	private readonly target: CallTarget;

	constructor(private readonly deps: CoreServiceDeps) {
		const current = () => this.current();
		this.target = {
			worker: this,
			get core() {
				return current();
			},
		};
	}

	/** Runs one call of the protocol: the contract's entry of that name (its arguments are the client's `CoreArgs`). */
	async handle(method: CoreMethod, args: readonly unknown[]): Promise<unknown> {
		const entry = contractEntry(method);
		if (entry === undefined) throw Object.assign(new Error(`Unknown call ${method}`), { code: "worker.unknown_call" });
		const result: unknown = await entry.call(this.target, ...args);
		if (entry.changes) this.afterChange();
		return result;
	}

	async start(): Promise<CoreInfo> {
		this.loading ??= this.deps.load();
		this.loaded = await this.loading;
		return { supportedSchemaVersion: this.loaded.core.supportedSchemaVersion() };
	}

	async validateSetting(key: string, value: unknown): Promise<SettingCheck> {
		const { core } = await this.modules();
		return core.validateSetting(key, value);
	}

	async isOtherDeviceLogFile(memoryFolder: string, device: string, path: string): Promise<boolean> {
		const { core } = await this.modules();
		return core.isOtherDeviceLogFile(memoryFolder, device, path);
	}

	async syncLog(memoryFolder: string): Promise<LogSync> {
		const store = this.current();
		const wasDirty = store.isDirty();
		const sync = await store.syncLog(memoryFolder);
		// What the sync records (the outbox taken, the files written) is saved like any change,
		// but one that wrote nothing is no change: the main thread would write the log again.
		const wrote = sync.appended > 0 || sync.appendedBytes > 0 || sync.purgedFiles > 0 || sync.filesWritten > 0;
		if (this.store === store && (wrote || (!wasDirty && store.isDirty()))) this.afterChange();
		return sync;
	}

	async open(bytes: Uint8Array | null, nowMs: number): Promise<CoreStatus> {
		const { core, sqlJs } = await this.modules();
		// The old store goes first: it must not start another job, whatever happens next.
		this.close();
		const store = core.MemoryCore.open(sqlJs, bytes ?? undefined, nowMs, this.deps.randomSeed());
		store.attachHost(this.host());
		this.store = store;
		return store.status();
	}

	stopWork(): void {
		this.store?.close();
	}

	close(): void {
		const store = this.store;
		if (store === undefined) return;
		this.store = undefined;
		store.close();
		store.free();
	}

	exportDatabase(force: boolean): Uint8Array | null {
		const store = this.current();
		return force || store.isDirty() ? store.exportDatabase() : null;
	}

	/** Nothing to do: the bytes were transferred here, and dropping them frees them. */
	returnBytes(): void {}

	ping(): void {}

	private async modules(): Promise<LoadedCore> {
		await this.start();
		if (this.loaded === undefined) throw new Error("the core's modules did not load");
		return this.loaded;
	}

	private current(): MemoryCore {
		if (this.store === undefined) throw Object.assign(new Error("No memory store is open."), { code: "worker.no_store" });
		return this.store;
	}

	/** The core's host: timers, the clock and pictures (where the worker can draw) here; HTTP, vault reads, pdf.js and the log's file operations on the main thread. */
	private host(): CoreHost {
		return {
			send: (request) => this.deps.callHost("send", [request]),
			readFile: (path, maxBytes) => this.deps.callHost("readFile", [path, maxBytes]),
			extractPdf: (bytes, options) => this.deps.callHost("extractPdf", [bytes, options]),
			renderImage: (bytes, request) => {
				const platform = this.deps.imagePlatform;
				return platform === undefined ? this.deps.callHost("renderImage", [bytes, request]) : renderImage(platform, bytes, request);
			},
			listFolder: (path) => this.deps.callHost("listFolder", [path]),
			readFrom: (path, offset) => this.deps.callHost("readFrom", [path, offset]),
			appendText: (path, text) => this.deps.callHost("appendText", [path, text]),
			createFile: (path, text) => this.deps.callHost("createFile", [path, text]),
			removeFile: (path) => this.deps.callHost("removeFile", [path]),
			sleep: (ms) => {
				let handle: unknown;
				const slept = new Promise<void>((resolve) => (handle = this.deps.setTimeout(resolve, ms)));
				// The core cancels a sleep it gave up (a call's timeout once the call answered).
				return Object.assign(slept, { cancel: () => this.deps.clearTimeout(handle) });
			},
			now: () => Date.now(),
			// Date's offset is minutes *behind* UTC; the core wants minutes ahead.
			utcOffsetMinutes: () => -new Date().getTimezoneOffset(),
			progress: (progress) => {
				this.deps.emit("progress", progress);
				this.afterChange();
			},
		};
	}

	/** Tells the main thread the store changed (so it saves) and, soon, the new counts. */
	private afterChange(): void {
		const store = this.store;
		if (store === undefined) return;
		if (store.isDirty()) this.deps.emit("changed", null);
		if (this.statusTimer !== undefined) return;
		this.statusTimer = this.deps.setTimeout(() => {
			this.statusTimer = undefined;
			if (this.store !== undefined) this.deps.emit("status", this.store.status());
		}, STATUS_INTERVAL_MS);
	}
}
