// Starts the core lazily, opens the store, hands it the host and settings, runs its work,
// and reports its state to the status bar and notices.

import { errorMessage } from "./core/core-error";
import { loadCore } from "./core/load-core";
import type { CoreHost, MemoryCoreApi, MemoryStore, RunReport, StoreStatus } from "./core/memory-core-api";
import { WorkRunner } from "./engine/work-runner";
import { type MemoryAgentSettings, type SecretReader, connectionSettings, engineSettings } from "./settings";
import { DatabaseFile, type DatabaseFilePort } from "./storage/database-file";
import type { TimerPort } from "./storage/save-scheduler";
import { StoreSession, StoreUnavailableError } from "./storage/store-session";
import type { StatusBar } from "./ui/status-bar";
import { statusNoticeText } from "./ui/status-text";

export interface MemoryRuntimeDeps {
	adapter: DatabaseFilePort;
	databasePath: string;
	statusBar: StatusBar;
	notify: (message: string) => void;
	timers: TimerPort;
	/** The host object for the core (HTTP, clock, vault reads, progress). */
	host: CoreHost;
	settings: () => MemoryAgentSettings;
	secrets: SecretReader;
	/** Called once the store is open and configured (and after a reload from disk). */
	onReady?: (store: MemoryStore) => void;
}

type State =
	| { kind: "idle" }
	| { kind: "starting" }
	| { kind: "ready"; session: StoreSession }
	| { kind: "unavailable"; reason: string }
	| { kind: "stopped" };

export class MemoryRuntime {
	private state: State = { kind: "idle" };
	private started: Promise<void> | undefined;
	private api: MemoryCoreApi | undefined;
	/** Why the connection is not configured (missing secrets), shown when work needs it. */
	private connectionProblem: string | null = null;
	private lastPauseNotice: string | null = null;
	private readonly readyListeners = new Set<(store: MemoryStore) => void>();
	readonly runner: WorkRunner;

	constructor(private readonly deps: MemoryRuntimeDeps) {
		this.runner = new WorkRunner({
			store: () => this.store(),
			requestSave: () => this.changed(),
			onReport: (report) => this.reported(report),
			onError: (error) => deps.notify(`Memory Agent: ${errorMessage(error)}`),
		});
	}

	/** Loads the WebAssembly and opens the store; never rejects (failures show in the status bar). */
	start(): Promise<void> {
		// Obsidian may still call the layout-ready callback after the plugin was unloaded.
		if (this.isStopped()) return Promise.resolve();
		this.started ??= this.open();
		return this.started;
	}

	/** Saves unsaved changes and releases the store; safe to call before `start` finished. */
	async stop(): Promise<void> {
		const previous = this.state;
		this.state = { kind: "stopped" };
		this.runner.stop();
		if (previous.kind === "ready") await previous.session.close();
	}

	/** The open store, or undefined while starting, unavailable or stopped. */
	store(): MemoryStore | undefined {
		return this.state.kind === "ready" ? this.state.session.current : undefined;
	}

	/**
	 * Calls `listener` each time a store becomes ready: after the start, and after the file
	 * was reloaded from disk (a sync tool replaced it). Returns a function that unsubscribes.
	 */
	onReady(listener: (store: MemoryStore) => void): () => void {
		this.readyListeners.add(listener);
		return () => this.readyListeners.delete(listener);
	}

	/** The status bar item, for parts that add to what it shows. */
	get statusBar(): StatusBar {
		return this.deps.statusBar;
	}

	/** The loaded core's static parts (regions, default model), once started. */
	core(): MemoryCoreApi | undefined {
		return this.api;
	}

	/** Why model calls cannot work yet, or null. */
	connectionIssue(): string | null {
		return this.connectionProblem;
	}

	/** The store changed (from a call outside the runner): save soon and show the counts. */
	changed(): void {
		if (this.state.kind !== "ready") return;
		this.state.session.requestSave();
		this.showStatus();
	}

	/** Settings changed: hand them to the core now (no restart needed). */
	applySettings(): void {
		const store = this.store();
		if (store !== undefined) this.configure(store);
	}

	showStatus(): void {
		const store = this.store();
		if (store !== undefined) this.deps.statusBar.showStatus(store.status());
	}

	/** The text of the "Show memory status" notice. */
	describe(): string {
		switch (this.state.kind) {
			case "ready":
				return statusNoticeText(this.state.session.status(), this.deps.databasePath);
			case "unavailable":
				return `Memory Agent is unavailable: ${this.state.reason}`;
			case "stopped":
				return "Memory Agent is stopped.";
			default:
				return `Memory Agent is starting. Database: ${this.deps.databasePath}`;
		}
	}

	private async open(): Promise<void> {
		const { deps } = this;
		this.state = { kind: "starting" };
		try {
			const core = await loadCore();
			this.api = core;
			const session = await StoreSession.open({
				core,
				file: new DatabaseFile(deps.adapter, deps.databasePath),
				timers: deps.timers,
				now: () => new Date(),
				notify: deps.notify,
				onStatus: (status: StoreStatus) => deps.statusBar.showStatus(status),
				onUnavailable: (reason) => this.fail(reason),
				onOpened: (store) => this.prepare(store),
			});
			// stop() may have run while the core was loading.
			if (this.isStopped()) {
				await session.close();
				return;
			}
			this.state = { kind: "ready", session };
			deps.onReady?.(session.current);
			this.announceReady(session.current);
			this.runner.kick();
		} catch (error) {
			if (error instanceof StoreUnavailableError) deps.notify(error.message);
			else deps.notify(`Memory Agent could not start: ${errorMessage(error)}`);
			this.fail(errorMessage(error));
		}
	}

	/** A store was opened: give it the host and the settings. */
	private prepare(store: MemoryStore): void {
		store.attachHost(this.deps.host);
		this.configure(store);
		// A reload from disk replaces the store of a running session.
		if (this.state.kind === "ready") this.announceReady(store);
	}

	private announceReady(store: MemoryStore): void {
		for (const listener of this.readyListeners) listener(store);
	}

	private configure(store: MemoryStore): void {
		const settings = this.deps.settings();
		const connection = connectionSettings(settings, this.deps.secrets);
		this.connectionProblem = typeof connection === "string" ? connection : null;
		try {
			store.configure({ engine: engineSettings(settings), connection: typeof connection === "string" ? null : connection });
		} catch (error) {
			// A malformed connection (e.g. a region typo) is reported; the store stays usable.
			this.connectionProblem = errorMessage(error);
			try {
				store.configure({ connection: null });
			} catch {
				// Nothing more to fall back to; the problem is shown where the connection is needed.
			}
		}
	}

	private reported(report: RunReport): void {
		this.showStatus();
		// Tell the user once per reason the engine paused itself (bad keys, no model access…).
		const selfPaused = report.paused !== null && this.store()?.status().pausedByUser === false;
		if (selfPaused && report.paused !== this.lastPauseNotice) this.deps.notify(`Memory Agent paused: ${report.paused}`);
		this.lastPauseNotice = selfPaused ? report.paused : null;
	}

	private isStopped(): boolean {
		return this.state.kind === "stopped";
	}

	private fail(reason: string): void {
		if (!this.isStopped()) this.state = { kind: "unavailable", reason };
		this.deps.statusBar.showUnavailable(reason);
	}
}
