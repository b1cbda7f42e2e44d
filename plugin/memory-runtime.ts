// Starts the core in its Web Worker lazily, opens the store, hands it the settings, runs its
// work, and reports its state to the status bar and notices. The main thread keeps only the
// host side: requestUrl, vault reads, the database file, the device log's file operations (the
// core's, carried out by the host), notices and the UI.

import { CoreClient, type HostHandlers } from "./core/core-client";
import { ErrorCode, errorCode, errorMessage } from "./core/core-error";
import { type CoreScopeRules, type MemoryStore, type RunReport, type StoreStatus, memoryStore } from "./core/memory-core-api";
import { type WorkerPlatform, startCoreWorker } from "./core/start-worker";
import { WorkRunner } from "./engine/work-runner";
import { type MemoryAgentSettings, type SecretReader, connectionSettings, engineSettings } from "./settings";
import type { Parsed } from "./settings/settings-form";
import { DatabaseFile, type DatabaseFilePort } from "./storage/database-file";
import { DeviceLog } from "./storage/device-log";
import { CommandIndexingWatch, Heartbeat, type PresencePort, heartbeatPath } from "./storage/device-presence";
import type { TimerPort } from "./storage/save-scheduler";
import { StoreSession, StoreUnavailableError } from "./storage/store-session";
import type { StatusBar } from "./ui/status-bar";
import { statusNoticeText } from "./ui/status-text";

export interface MemoryRuntimeDeps {
	adapter: DatabaseFilePort & PresencePort;
	/** The plugin's folder (`<config folder>/plugins/memory-agent`): this device's database and heartbeat. */
	pluginFolder: string;
	/** Where an older version kept the memory every device shared: read once to migrate, never written. */
	legacyDatabasePath: string;
	/** The vault folder of every device's log (the `memoryFolder` setting, normalised). */
	memoryFolder: () => string;
	statusBar: StatusBar;
	notify: (message: string) => void;
	timers: TimerPort;
	/** What the main thread does for the core: HTTP and vault reads. */
	host: HostHandlers;
	/** How to start a Web Worker from the inlined script. */
	platform: WorkerPlatform;
	settings: () => MemoryAgentSettings;
	/** The exclusion rules now (the settings' and Obsidian's "Excluded files"). */
	scope: () => CoreScopeRules;
	secrets: SecretReader;
	/** This device's id: its database's and log folder's name, and its calls counted apart from other devices'. */
	deviceId: () => string;
	/** The custom endpoint host confirmed on this device, and whom to tell when the core refuses one. */
	endpointTrust?: { confirmedHost(): string | null; refused(endpoint: string): void };
}

type State =
	| { kind: "idle" }
	| { kind: "starting" }
	| { kind: "ready"; session: StoreSession; store: MemoryStore; log: DeviceLog; heartbeat: Heartbeat }
	| { kind: "unavailable"; reason: string }
	| { kind: "stopped" };

/** After a run that finished this many jobs, free pages are handed back. */
const COMPACT_AFTER_JOBS = 200;
/** How often the status bar's "reading memory N%" is brought up to date while the start's replay runs. */
const REPLAY_PROGRESS_EVERY_MS = 1_000;
/** At unload the last write may take this long before the worker is ended anyway. */
const STOP_FLUSH_MS = 10_000;
/**
 * A worker that stopped answering is restarted, but not more than this often within
 * `RESTART_WINDOW_MS`: one that is stuck again at every start (the same note, the same file)
 * leaves the memory unavailable instead of restarting for ever.
 */
const MAX_RESTARTS = 3;
const RESTART_WINDOW_MS = 10 * 60_000;
/** What the status says while the command's `indexing.json` is fresh (paid work waits). */
const COMMAND_INDEXING = "The memory-agent command is remembering this vault";

/** Waits for `work`, but no longer than `ms` (its failure is not this caller's concern). */
async function withinTime(work: Promise<void>, ms: number, timers: TimerPort): Promise<void> {
	let handle: unknown;
	const timeout = new Promise<void>((resolve) => (handle = timers.setTimeout(resolve, ms)));
	await Promise.race([work.catch(() => undefined), timeout]);
	timers.clearTimeout(handle);
}

export class MemoryRuntime {
	private state: State = { kind: "idle" };
	private started: Promise<void> | undefined;
	private client: CoreClient | undefined;
	private lastStatus: StoreStatus | undefined;
	/** Why the connection is not configured (missing secrets), shown when work needs it. */
	private connectionProblem: string | null = null;
	private connectionProblemCode: string | null = null;
	private lastPauseNotice: string | null = null;
	/** The model fallback the user was last told of (once per reason, not at every status). */
	private lastFallbackNotice: string | null = null;
	private jobsSinceCompaction = 0;
	/** When the worker was restarted for not answering (the last `RESTART_WINDOW_MS`). */
	private restarts: number[] = [];
	/** The `memory-agent` command is remembering the vault: paid work waits. */
	private heldByCommand = false;
	private readonly commandIndexing: CommandIndexingWatch;
	private readonly readyListeners = new Set<(store: MemoryStore) => void>();
	private readonly statusListeners = new Set<(status: StoreStatus) => void>();
	readonly runner: WorkRunner;

	constructor(private readonly deps: MemoryRuntimeDeps) {
		this.runner = new WorkRunner({
			store: () => this.store(),
			onReport: (report) => void this.reported(report),
			beforeRun: () => this.beforeRun(),
			onError: (error) => {
				// A stuck worker is told once, by the watchdog's notice.
				if (errorCode(error) !== ErrorCode.workerUnresponsive) deps.notify(`Memory Agent: ${errorMessage(error)}`);
			},
			timers: deps.timers,
			now: () => Date.now(),
		});
		this.commandIndexing = new CommandIndexingWatch({ adapter: deps.adapter, memoryFolder: deps.memoryFolder, now: () => Date.now() });
	}

	/** This device's own database file (its index of every device's log). */
	get databasePath(): string {
		return `${this.deps.pluginFolder}/memory-${this.deps.deviceId()}.db`;
	}

	/** Takes in what other devices' logs brought, then says whether paid work may run now. */
	private async beforeRun(): Promise<boolean> {
		if (this.state.kind === "ready") await this.state.log.replayChanged();
		const held = await this.commandIndexing.isIndexing();
		if (held !== this.heldByCommand) {
			this.heldByCommand = held;
			this.deps.statusBar.showHeldBy(held ? COMMAND_INDEXING : null);
		}
		return !held;
	}

	/** A vault file was created, changed or renamed to `path`: another device's log is read soon. */
	vaultFileChanged(path: string): void {
		if (this.state.kind === "ready") this.state.log.fileChanged(path);
	}

	/** Starts the worker and opens the store; never rejects (failures show in the status bar). */
	start(): Promise<void> {
		// Obsidian may still call the layout-ready callback after the plugin was unloaded.
		if (this.isStopped()) return Promise.resolve();
		this.started ??= this.open();
		return this.started;
	}

	/**
	 * Unload: at once, nothing more is sent and no job starts; then the core hands running
	 * jobs back untried, what is done is written (for at most `STOP_FLUSH_MS`), and the
	 * worker ends — whatever it was doing. Safe to call before `start` finished. Not a pause:
	 * the next start carries on with the queue.
	 */
	async stop(): Promise<void> {
		const previous = this.state;
		this.state = { kind: "stopped" };
		this.runner.stop();
		this.client?.refuseSending();
		try {
			if (previous.kind === "ready") {
				previous.log.stop();
				await withinTime(previous.session.close(), STOP_FLUSH_MS, this.deps.timers);
				await previous.heartbeat.stop().catch(() => undefined);
			}
		} finally {
			this.client?.terminate();
			this.client = undefined;
		}
	}

	/** The open store, or undefined while starting, unavailable or stopped. */
	store(): MemoryStore | undefined {
		return this.state.kind === "ready" ? this.state.store : undefined;
	}

	/**
	 * The open store, waiting while the memory is still starting (up to `timeoutMs`): what a
	 * button pressed in the first second after Obsidian opened needs, rather than "still
	 * starting". Undefined when it is unavailable, stopped, or not open in time.
	 */
	async readyStore(timeoutMs: number): Promise<MemoryStore | undefined> {
		const open = this.store();
		if (open !== undefined || this.state.kind === "unavailable" || this.state.kind === "stopped") return open;
		return new Promise((resolve) => {
			const timer = this.deps.timers.setTimeout(() => {
				stopListening();
				resolve(this.store());
			}, timeoutMs);
			const stopListening = this.onReady((store) => {
				this.deps.timers.clearTimeout(timer);
				stopListening();
				resolve(store);
			});
		});
	}

	/**
	 * Calls `listener` each time a store becomes ready: after the start, and after a restart
	 * of the worker. Returns a function that unsubscribes.
	 */
	onReady(listener: (store: MemoryStore) => void): () => void {
		this.readyListeners.add(listener);
		return () => this.readyListeners.delete(listener);
	}

	/** Calls `listener` with every new status of the store; returns the unsubscribe function. */
	onStatus(listener: (status: StoreStatus) => void): () => void {
		this.statusListeners.add(listener);
		return () => this.statusListeners.delete(listener);
	}

	/** The status bar item, for parts that add to what it shows. */
	get statusBar(): StatusBar {
		return this.deps.statusBar;
	}

	/**
	 * `value` as the core's rule for the setting `key` saves it, or the core's sentence saying why
	 * it cannot be: asked in the worker, which is started if it is not yet (no store needed).
	 */
	async validateSetting<K extends keyof MemoryAgentSettings>(key: K, value: unknown): Promise<Parsed<MemoryAgentSettings[K]>> {
		if (this.client === undefined) void this.start();
		const client = this.client;
		if (client === undefined) return { problem: "Memory Agent is not running, so this value cannot be checked. Reload the plugin and try again." };
		const check = await client.call("validateSetting", key, value);
		// The core answers with the setting's own type: its schema is the one `MemoryAgentSettings` is generated from.
		return check as Parsed<MemoryAgentSettings[K]>;
	}

	/** The store's latest counts, as last reported (undefined before the first). */
	status(): StoreStatus | undefined {
		return this.state.kind === "ready" ? this.lastStatus : undefined;
	}

	/** Why model calls cannot work yet, or null. */
	connectionIssue(): string | null {
		return this.connectionProblem;
	}

	/** The core's error code for `connectionIssue()`, when it came from the core. */
	connectionIssueCode(): string | null {
		return this.connectionProblemCode;
	}

	/** The store changed (from a call outside the runner): save soon and show the counts. */
	changed(): void {
		if (this.state.kind !== "ready") return;
		this.state.session.requestSave();
		this.showStatus();
	}

	/** Appends what this device changed to its log and writes what is unsaved, now (before a pause, after a settings change). */
	async flush(): Promise<void> {
		if (this.state.kind !== "ready") return;
		await this.state.log.write();
		await this.state.session.flush();
	}

	/** Settings changed: hand them to the core now (no restart needed), and save. */
	async applySettings(): Promise<void> {
		if (this.state.kind !== "ready") return;
		await this.configure();
		await this.flush();
	}

	/** Asks the store for its counts and shows them. */
	showStatus(): void {
		void this.store()
			?.status()
			.then((status) => this.statusReported(status))
			.catch(() => undefined);
	}

	/** The text of the "Show memory status" notice. */
	describe(): string {
		switch (this.state.kind) {
			case "ready":
				if (this.lastStatus === undefined) return "Memory Agent is ready.";
				return this.heldByCommand ? `${COMMAND_INDEXING}.\n${statusNoticeText(this.lastStatus, this.databasePath)}` : statusNoticeText(this.lastStatus, this.databasePath);
			case "unavailable":
				return `Memory Agent is unavailable: ${this.state.reason}`;
			case "stopped":
				return "Memory Agent is stopped.";
			default:
				return `Memory Agent is starting. Database: ${this.databasePath}`;
		}
	}

	private async open(): Promise<void> {
		const { deps } = this;
		this.state = { kind: "starting" };
		let client: CoreClient | undefined;
		try {
			const started = startCoreWorker(deps.platform);
			client = new CoreClient(started.worker, deps.host, {
				timers: deps.timers,
				onUnresponsive: () => this.restartStuckWorker(client),
			});
			this.client = client;
			client.on("status", (status) => this.statusReported(status));
			await client.call("start");
			started.release();
			const store = memoryStore(client);
			const log = this.deviceLog(client);
			const session = await StoreSession.open({
				client,
				file: new DatabaseFile(deps.adapter, this.databasePath),
				legacyFile: new DatabaseFile(deps.adapter, deps.legacyDatabasePath),
				timers: deps.timers,
				now: () => new Date(),
				notify: deps.notify,
				onStatus: (status: StoreStatus) => this.statusReported(status),
				onUnavailable: (reason) => this.fail(reason),
				onOpened: () => this.prepare(store),
				onChanged: () => log.changed(),
				beforeLastWrite: () => log.write(),
			});
			// stop() may have run while the core was starting.
			if (this.isStopped()) {
				await session.close();
				return;
			}
			// The worker stopped answering while the store opened: a new one is starting.
			if (this.client !== client) {
				session.abandon();
				return;
			}
			const heartbeat = new Heartbeat({
				adapter: deps.adapter,
				path: heartbeatPath(deps.pluginFolder, deps.deviceId()),
				device: deps.deviceId(),
				timers: deps.timers,
				now: () => Date.now(),
			});
			this.state = { kind: "ready", session, store, log, heartbeat };
			void heartbeat.start().catch((error: unknown) => deps.notify(`Memory Agent could not write ${heartbeatPath(deps.pluginFolder, deps.deviceId())}: ${errorMessage(error)}`));
			// Every device's log before any work (the vault's check, the queue): what other
			// devices remembered costs nothing here. The runner's first run waits for it too.
			const stopShowing = this.showReplayProgress(store);
			await log.replayAll().finally(stopShowing);
			if (this.state.kind !== "ready" || this.state.session !== session) return;
			// What this device changed and has not appended yet (an upgraded memory: all of it).
			log.changed();
			this.announceReady(store);
			this.runner.kick();
		} catch (error) {
			if (this.isStopped() || (client !== undefined && this.client !== client)) return;
			if (error instanceof StoreUnavailableError) deps.notify(error.message);
			else deps.notify(`Memory Agent could not start: ${errorMessage(error)}`);
			this.fail(errorMessage(error));
		}
	}

	private deviceLog(client: CoreClient): DeviceLog {
		return new DeviceLog({
			client,
			memoryFolder: this.deps.memoryFolder,
			device: this.deps.deviceId(),
			timers: this.deps.timers,
			notify: this.deps.notify,
			// Notes whose record came from another device are read again here; the counts changed.
			onReplayed: () => {
				this.runner.kick();
				this.showStatus();
			},
		});
	}

	/** A store was opened: give it the settings; a new store after damage also re-announces it. */
	/** While the start's replay runs, the status bar says how far it is (every second); the returned function stops it. */
	private showReplayProgress(store: MemoryStore): () => void {
		const { timers, statusBar } = this.deps;
		let timer: unknown;
		let stopped = false;
		const poll = (): void => {
			timer = timers.setTimeout(() => {
				void store
					.replayProgress()
					.then((progress) => {
						if (stopped) return;
						statusBar.showReplay(progress.running ? progress : null);
						poll();
					})
					.catch(() => undefined);
			}, REPLAY_PROGRESS_EVERY_MS);
		};
		poll();
		return () => {
			stopped = true;
			timers.clearTimeout(timer);
			statusBar.showReplay(null);
		};
	}

	private async prepare(store: MemoryStore): Promise<void> {
		await this.configure();
		if (this.state.kind !== "ready") return;
		// A store started anew after damage found while running: rebuilt from the logs, no model call.
		await this.state.log.replayAll();
		if (this.state.kind === "ready") this.announceReady(store);
	}

	private announceReady(store: MemoryStore): void {
		for (const listener of this.readyListeners) listener(store);
	}

	private async configure(): Promise<void> {
		const client = this.client;
		if (client === undefined) return;
		const settings = this.deps.settings();
		const connection = connectionSettings(settings, this.deps.secrets);
		this.connectionProblem = typeof connection === "string" ? connection : null;
		this.connectionProblemCode = null;
		const trustedEndpointHost = this.deps.endpointTrust?.confirmedHost() ?? null;
		try {
			await client.call("configure", {
				engine: engineSettings(settings, this.deps.scope()),
				connection: typeof connection === "string" || connection == null ? null : { ...connection, trustedEndpointHost },
				device: this.deps.deviceId(),
			});
		} catch (error) {
			// A malformed connection (e.g. a region typo) is reported; the store stays usable.
			this.connectionProblem = errorMessage(error);
			this.connectionProblemCode = errorCode(error) ?? null;
			await client.call("configure", { connection: null }).catch(() => undefined);
			// An endpoint this device never confirmed: nothing is sent until its user says yes.
			if (this.connectionProblemCode === ErrorCode.endpointUnconfirmed) this.deps.endpointTrust?.refused(settings.endpoint);
		}
	}

	private statusReported(status: StoreStatus): void {
		if (this.isStopped()) return;
		this.lastStatus = status;
		// The default model was denied and the previous Haiku answers instead: say so once.
		if (status.modelFallback !== null && status.modelFallback !== this.lastFallbackNotice) this.deps.notify(status.modelFallback);
		this.lastFallbackNotice = status.modelFallback;
		this.deps.statusBar.showStatus(status);
		for (const listener of this.statusListeners) listener(status);
	}

	private async reported(report: RunReport): Promise<void> {
		const status = await this.store()?.status().catch(() => undefined);
		if (status === undefined) return;
		this.statusReported(status);
		// Tell the user once per reason the engine paused itself (bad keys, no model access…).
		const selfPaused = report.paused !== null && !status.pausedByUser;
		if (selfPaused && report.paused !== this.lastPauseNotice) this.deps.notify(`Memory Agent paused: ${report.paused}`);
		this.lastPauseNotice = selfPaused ? report.paused : null;
		this.jobsSinceCompaction += report.done + report.skipped + report.failed;
		if (this.jobsSinceCompaction >= COMPACT_AFTER_JOBS && this.state.kind === "ready") {
			this.jobsSinceCompaction = 0;
			void this.state.session.compact().catch(() => undefined);
		}
	}

	/**
	 * The watchdog ended a worker that stopped answering (its waiting calls failed with
	 * `worker.unresponsive`): the user is told, and a new worker opens the store from the file
	 * as last saved — unless it was stuck too often lately.
	 */
	private restartStuckWorker(client: CoreClient | undefined): void {
		if (client === undefined || client !== this.client || this.isStopped()) return;
		this.client = undefined;
		if (this.state.kind === "ready") {
			this.state.log.stop();
			this.state.session.abandon();
			// The next start's heartbeat takes the file over.
			this.state.heartbeat.stopBeating();
		}
		this.started = undefined;
		const now = Date.now();
		this.restarts = this.restarts.filter((at) => now - at < RESTART_WINDOW_MS);
		if (this.restarts.length >= MAX_RESTARTS) {
			const reason = `its worker stopped answering ${MAX_RESTARTS + 1} times within ${RESTART_WINDOW_MS / 60_000} minutes`;
			this.deps.notify(`Memory Agent's worker stopped answering again, so Memory Agent stays off until it is reloaded (turn it off and on in Community plugins).`);
			this.fail(reason);
			return;
		}
		this.restarts.push(now);
		this.deps.notify("Memory Agent's worker stopped answering; restarting it.");
		this.deps.statusBar.showStarting();
		void this.start();
	}

	private isStopped(): boolean {
		return this.state.kind === "stopped";
	}

	private fail(reason: string): void {
		if (!this.isStopped()) this.state = { kind: "unavailable", reason };
		this.deps.statusBar.showUnavailable(reason);
	}
}
