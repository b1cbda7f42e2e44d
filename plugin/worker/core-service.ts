// The core as a service inside the Web Worker: holds both WebAssembly modules and the open
// store, answers the main thread's calls, and asks the main thread for HTTP and vault reads.
// No globals and no Obsidian: the worker entry (or a test) wires it to messages.

import type { CoreHost, CoreSettings, ExclusionQuery, MemoryCore, MemoryQuery, TextToRemember } from "../../build/pkg/memory_agent.js";
import type { LoadedCore } from "./load-core";
import type { CoreArgs, CoreEvent, CoreEvents, CoreInfo, CoreMethod, CoreResult, HostMethods } from "./protocol";

/** What the service needs from whoever runs it. */
export interface CoreServiceDeps {
	/** Loads the WebAssembly modules (the inlined ones in the worker). */
	load(): Promise<LoadedCore>;
	/** Asks the main thread to do what only it can. */
	callHost<M extends keyof HostMethods>(method: M, args: Parameters<HostMethods[M]>): Promise<ReturnType<HostMethods[M]>>;
	emit<E extends CoreEvent>(event: E, data: CoreEvents[E]): void;
	/** 53 random bits for the core's ids (the core has no randomness of its own). */
	randomSeed(): number;
	/** The worker's own timer (the core's sleeps, and pacing the status reports). */
	setTimeout(callback: () => void, ms: number): unknown;
	clearTimeout(handle: unknown): void;
}

/** Calls that may change the store: the main thread hears `changed` and the new status after them. */
const CHANGING: ReadonlySet<CoreMethod> = new Set<CoreMethod>([
	"open",
	"stopWork",
	"configure",
	"enqueueNote",
	"enqueueNotes",
	"rememberText",
	"removeNote",
	"removeNotes",
	"renameNote",
	"forgetMemory",
	"consolidateNow",
	"pause",
	"resume",
	"retryFailed",
	"runDueWork",
	"ask",
	"testConnection",
	"checkIntegrity",
	"compact",
	"mergeDatabase",
]);

/** Statuses pushed during long work are at most this often (each costs a few counts here and a redraw there). */
const STATUS_INTERVAL_MS = 250;

export class CoreService {
	private loading: Promise<LoadedCore> | undefined;
	private loaded: LoadedCore | undefined;
	private store: MemoryCore | undefined;
	private statusTimer: unknown;

	constructor(private readonly deps: CoreServiceDeps) {}

	/** Runs one call of the protocol. */
	async handle<M extends CoreMethod>(method: M, args: CoreArgs<M>): Promise<CoreResult<M>> {
		const result = (await this.run(method, args)) as CoreResult<M>;
		if (CHANGING.has(method)) this.afterChange();
		return result;
	}

	private async run(method: CoreMethod, args: unknown[]): Promise<unknown> {
		switch (method) {
			case "start":
				return this.start();
			case "open":
				return this.open(args[0] as Uint8Array | null, args[1] as number);
			case "conflictCopies":
				await this.start();
				return this.loaded!.core.conflictCopies(args[0] as string, args[1] as string[]);
			case "stopWork":
				this.store?.close();
				return undefined;
			case "close":
				this.close();
				return undefined;
			case "exportDatabase": {
				const store = this.current();
				return args[0] === true || store.isDirty() ? store.exportDatabase() : null;
			}
			case "returnBytes":
				return undefined;
			case "mergeDatabase":
				return this.current().mergeDatabase(this.loaded!.sqlJs, args[0] as Uint8Array);
			case "configure":
				return this.current().configure(args[0] as CoreSettings);
			case "browseMemories":
				return this.current().browseMemories(args[0] as MemoryQuery);
			case "rememberText":
				return this.current().rememberText(args[0] as TextToRemember);
			// Issue 21 (vault): the core decides exclusions; notes it must read are read through the host.
			case "exclusions":
				return this.current().exclusions(args[0] as ExclusionQuery[]);
			default:
				return this.passThrough(method, args);
		}
	}

	/** The calls that are the facade's methods of the same name. */
	private passThrough(method: CoreMethod, args: unknown[]): unknown {
		const store = this.current() as unknown as Record<string, unknown>;
		const target = store[method];
		if (typeof target !== "function") throw Object.assign(new Error(`Unknown call ${method}`), { code: "worker.unknown_call" });
		return (target as (...values: unknown[]) => unknown).apply(store, args);
	}

	private async start(): Promise<CoreInfo> {
		this.loading ??= this.deps.load();
		this.loaded = await this.loading;
		const { core } = this.loaded;
		const bedrockRegions = core.bedrockRegions();
		const defaultModels = Object.fromEntries(bedrockRegions.map((region) => [region, core.defaultModelId(region)]));
		return { bedrockRegions, defaultModels, supportedSchemaVersion: core.supportedSchemaVersion() };
	}

	private async open(bytes: Uint8Array | null, nowMs: number): Promise<unknown> {
		await this.start();
		const { core, sqlJs } = this.loaded!;
		// The old store goes first: it must not start another job, whatever happens next.
		this.close();
		const store = core.MemoryCore.open(sqlJs, bytes ?? undefined, nowMs, this.deps.randomSeed());
		store.attachHost(this.host());
		this.store = store;
		return store.status();
	}

	private close(): void {
		const store = this.store;
		if (store === undefined) return;
		this.store = undefined;
		store.close();
		store.free();
	}

	private current(): MemoryCore {
		if (this.store === undefined) throw Object.assign(new Error("No memory store is open."), { code: "worker.no_store" });
		return this.store;
	}

	/** The core's host: timers and the clock here, HTTP and vault reads on the main thread. */
	private host(): CoreHost {
		return {
			send: (request) => this.deps.callHost("send", [request]),
			readFile: (path) => this.deps.callHost("readFile", [path]),
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
