// Starts the core lazily, opens the store and reports its state to the status bar and notices.

import { errorMessage } from "./core/core-error";
import { loadCore } from "./core/load-core";
import type { StoreStatus } from "./core/memory-core-api";
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

	constructor(private readonly deps: MemoryRuntimeDeps) {}

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
		if (previous.kind === "ready") await previous.session.close();
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
			const session = await StoreSession.open({
				core,
				file: new DatabaseFile(deps.adapter, deps.databasePath),
				timers: deps.timers,
				now: () => new Date(),
				notify: deps.notify,
				onStatus: (status: StoreStatus) => deps.statusBar.showStatus(status),
				onUnavailable: (reason) => this.fail(reason),
			});
			// stop() may have run while the core was loading.
			if (this.isStopped()) await session.close();
			else this.state = { kind: "ready", session };
		} catch (error) {
			if (error instanceof StoreUnavailableError) deps.notify(error.message);
			else deps.notify(`Memory Agent could not start: ${errorMessage(error)}`);
			this.fail(errorMessage(error));
		}
	}

	private isStopped(): boolean {
		return this.state.kind === "stopped";
	}

	private fail(reason: string): void {
		if (!this.isStopped()) this.state = { kind: "unavailable", reason };
		this.deps.statusBar.showUnavailable(reason);
	}
}
