// When the per-device log is written and read. Every rule of the log's files — their layout,
// appends and sealing, replay in slices, purges of what the user removed, compaction — is the
// core's (src/device/), carried out through the host's file operations (host/vault-files.ts).
// This only schedules its two calls, one at a time: `syncLog` within `writeDelayMs` of a change,
// `replayLogs` at the start and for another device's files a vault event said changed, and it
// tells the user about files the replay could not read whole. No `obsidian` runtime import.

import type { CoreClient } from "../core/core-client";
import { errorMessage } from "../core/core-error";
import type { LogReplay, ReplayProblem } from "../core/memory-core-api";
import type { TimerPort } from "./save-scheduler";

export interface DeviceLogDeps {
	client: Pick<CoreClient, "call">;
	/** The settings' memory folder (vault-relative, normalised). */
	memoryFolder: () => string;
	/** This device's id (the core tells its own log files from another device's by it). */
	device: string;
	timers: TimerPort;
	notify: (message: string) => void;
	/** Another device's entries changed something here (the core queued the notes it adopted to be read again). */
	onReplayed?: (replay: LogReplay) => void;
	/** Changes are written this long after the first one not yet written (batched). */
	writeDelayMs?: number;
	/** A changed log file of another device is read once it was quiet this long. */
	readDelayMs?: number;
}

export const DEFAULT_LOG_WRITE_DELAY_MS = 2_000;
export const DEFAULT_LOG_READ_DELAY_MS = 1_000;

export class DeviceLog {
	/** Every sync and replay, one at a time, in order. */
	private chain: Promise<void> = Promise.resolve();
	private writeTimer: unknown;
	private readTimer: unknown;
	/** Other devices' log files changed since the last replay (vault paths). */
	private readonly changedFiles = new Set<string>();
	/** Vault events still being asked about (is it another device's log file?). */
	private readonly checks = new Set<Promise<void>>();
	/** What was told about a file, once each (`<kind> <path>`). */
	private readonly told = new Set<string>();
	private stopped = false;

	constructor(private readonly deps: DeviceLogDeps) {}

	/** This device changed its memory: written within `writeDelayMs`, with whatever follows. */
	changed(): void {
		if (this.stopped || this.writeTimer !== undefined) return;
		this.writeTimer = this.deps.timers.setTimeout(() => {
			this.writeTimer = undefined;
			void this.write();
		}, this.deps.writeDelayMs ?? DEFAULT_LOG_WRITE_DELAY_MS);
	}

	/** Writes what this device changed now (after any sync or replay running): also after `stop`, for the last save. */
	write(): Promise<void> {
		this.cancelWrite();
		return this.enqueue(async () => {
			await this.deps.client.call("syncLog", this.deps.memoryFolder());
		}, "write its log");
	}

	/** Replays every device's log files (this device's too: what its database did not keep). */
	replayAll(): Promise<void> {
		return this.enqueue(() => this.replay(null), "read the devices' logs");
	}

	/** A vault file was created, changed or renamed: when the core says it is another device's log file, it is read soon. */
	fileChanged(path: string): void {
		if (this.stopped) return;
		const check = this.deps.client
			.call("isOtherDeviceLogFile", this.deps.memoryFolder(), this.deps.device, path)
			.then(
				(other) => {
					if (other && !this.stopped) this.readSoon(path);
				},
				() => undefined, // no worker now: the next start replays every file anyway
			)
			.finally(() => this.checks.delete(check));
		this.checks.add(check);
	}

	/** Reads the changed files now instead of after their quiet time (before paid work). */
	async replayChanged(): Promise<void> {
		await Promise.all([...this.checks]);
		this.cancelRead();
		if (this.changedFiles.size === 0) return this.chain;
		const paths = [...this.changedFiles].sort();
		this.changedFiles.clear();
		return this.enqueue(() => this.replay(paths), "read another device's log");
	}

	/** Resolves when no sync or replay is running or waiting in line. */
	idle(): Promise<void> {
		return this.chain;
	}

	/** No timer fires from now on; what is in line still finishes. */
	stop(): void {
		this.stopped = true;
		this.cancelWrite();
		this.cancelRead();
	}

	private readSoon(path: string): void {
		this.changedFiles.add(path);
		this.cancelRead();
		this.readTimer = this.deps.timers.setTimeout(() => {
			this.readTimer = undefined;
			void this.replayChanged();
		}, this.deps.readDelayMs ?? DEFAULT_LOG_READ_DELAY_MS);
	}

	private cancelWrite(): void {
		if (this.writeTimer !== undefined) this.deps.timers.clearTimeout(this.writeTimer);
		this.writeTimer = undefined;
	}

	private cancelRead(): void {
		if (this.readTimer !== undefined) this.deps.timers.clearTimeout(this.readTimer);
		this.readTimer = undefined;
	}

	private enqueue(work: () => Promise<void>, what: string): Promise<void> {
		this.chain = this.chain.then(work).catch((error: unknown) => {
			if (!this.stopped) this.deps.notify(`Memory Agent could not ${what}: ${errorMessage(error)}`);
		});
		return this.chain;
	}

	/** Replays `paths` (null: every device's files), tells what could not be read, and who gained from it. */
	private async replay(paths: string[] | null): Promise<void> {
		if (this.stopped) return;
		const replay = await this.deps.client.call("replayLogs", this.deps.memoryFolder(), paths);
		for (const problem of replay.problems) this.tell(problem);
		if (replay.fromOthers > 0) this.deps.onReplayed?.(replay);
	}

	/** Each kind of problem of a file is told once a session. */
	private tell(problem: ReplayProblem): void {
		const once = (kind: string, message: string) => {
			const key = `${kind} ${problem.path}`;
			if (this.told.has(key)) return;
			this.told.add(key);
			this.deps.notify(message);
		};
		if (problem.error !== null) once("error", `Memory Agent could not read ${problem.path}, a device's log: ${problem.error}. The other files were read.`);
		if (problem.unreadable > 0) {
			const lines = problem.unreadable === 1 ? "a line" : `${problem.unreadable.toLocaleString()} lines`;
			const skipped = problem.firstSkipped;
			const first = skipped === null ? "" : ` (${problem.unreadable === 1 ? "" : "the first "}at ${skipped.line === null ? `byte ${skipped.byte.toLocaleString()}` : `line ${skipped.line.toLocaleString()}`}: ${skipped.reason})`;
			once("unreadable", `Memory Agent could not read or did not accept ${lines} of ${problem.path}, a device's log, and skipped ${problem.unreadable === 1 ? "it" : "them"}${first}; the rest was read.`);
		}
		if (problem.newer) once("newer", `Memory Agent found entries in ${problem.path} written by a newer version of Memory Agent; they are kept for it. Update the plugin to read them.`);
	}
}
