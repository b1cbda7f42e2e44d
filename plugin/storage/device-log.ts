// The per-device log over the vault: this device appends what it changed to its own log files
// (`<memory folder>/<device>/000001.jsonl`, written only here), and replays every device's log
// files into its database, which is only this device's index. The core decides every rule
// (the entries, which file is next, how far a file was read, what a line means: `store/log.rs`);
// this is the adapter that lists, appends and reads the files. No `obsidian` runtime import:
// the headless host tests it over a real folder.

import type { DataAdapter } from "obsidian";
import type { CoreClient } from "../core/core-client";
import { errorMessage } from "../core/core-error";
import type { LogCursor, ReplayReport } from "../core/memory-core-api";
import type { TimerPort } from "./save-scheduler";

/** The part of Obsidian's DataAdapter the log needs. */
export type DeviceLogPort = Pick<DataAdapter, "exists" | "list" | "stat" | "mkdir" | "append" | "write" | "readBinary" | "remove">;

export interface DeviceLogDeps {
	client: Pick<CoreClient, "call">;
	adapter: DeviceLogPort;
	/** The settings' memory folder (vault-relative, normalised). */
	memoryFolder: () => string;
	/** This device's id: its log folder's name. */
	device: string;
	timers: TimerPort;
	notify: (message: string) => void;
	/** Another device's entries were replayed here (the core queued the notes it adopted to be read again). */
	onReplayed?: (report: ReplayReport) => void;
	/** Changes are appended this long after the first one not yet written (batched). */
	writeDelayMs?: number;
	/** A changed log file of another device is read once it was quiet this long. */
	readDelayMs?: number;
}

export const DEFAULT_LOG_WRITE_DELAY_MS = 2_000;
export const DEFAULT_LOG_READ_DELAY_MS = 1_000;
/**
 * One append is at most about this long (lines are never split): the core starts a new file
 * before one would pass its limit, which a single larger append could not keep (the first
 * append of a memory migrated from an older version holds all of it).
 */
const APPEND_CHUNK_BYTES = 256 * 1024;
const LOG_EXTENSION = ".jsonl";

/** `text` (lines, each ending with a newline) in pieces of whole lines of about `limit` bytes at most. */
export function splitLines(text: string, limit: number): string[] {
	const pieces: string[] = [];
	let piece = "";
	let pieceBytes = 0;
	const encoder = new TextEncoder();
	// Each line keeps its newline (the text ends with one, so the last piece of the split is empty).
	for (const line of text.split("\n").slice(0, -1).map((bare) => `${bare}\n`)) {
		const bytes = encoder.encode(line).length;
		if (piece !== "" && pieceBytes + bytes > limit) {
			pieces.push(piece);
			piece = "";
			pieceBytes = 0;
		}
		piece += line;
		pieceBytes += bytes;
	}
	if (piece !== "") pieces.push(piece);
	return pieces;
}

export class DeviceLog {
	/** Every write and replay, one at a time, in order. */
	private chain: Promise<void> = Promise.resolve();
	private writeTimer: unknown;
	private readTimer: unknown;
	/** Other devices' log files changed since the last replay (vault paths). */
	private readonly changedFiles = new Set<string>();
	/** Files whose unreadable lines were told (once each). */
	private readonly told = new Set<string>();
	private stopped = false;
	/** Own log files whose end was looked at this session (an append cut by a crash is closed first). */
	private readonly tailChecked = new Set<string>();

	constructor(private readonly deps: DeviceLogDeps) {}

	/** This device changed its memory: appended within `writeDelayMs`, with whatever follows. */
	changed(): void {
		if (this.stopped || this.writeTimer !== undefined) return;
		this.writeTimer = this.deps.timers.setTimeout(() => {
			this.writeTimer = undefined;
			void this.write();
		}, this.deps.writeDelayMs ?? DEFAULT_LOG_WRITE_DELAY_MS);
	}

	/** Appends what this device changed and has not appended yet (after any write or replay running). */
	write(): Promise<void> {
		this.cancelWrite();
		return this.enqueue(() => this.appendOutgoing(), "write its log");
	}

	/** Replays every device's log files (this device's too: what a crash kept from being acknowledged). */
	replayAll(): Promise<void> {
		return this.enqueue(() => this.replayFolders(), "read the other devices' logs");
	}

	/** A vault file was created, changed or renamed: another device's log file is read soon. */
	fileChanged(path: string): void {
		if (this.stopped || this.otherDeviceFile(path) === null) return;
		this.changedFiles.add(path);
		if (this.readTimer !== undefined) this.deps.timers.clearTimeout(this.readTimer);
		this.readTimer = this.deps.timers.setTimeout(() => {
			this.readTimer = undefined;
			void this.replayChanged();
		}, this.deps.readDelayMs ?? DEFAULT_LOG_READ_DELAY_MS);
	}

	/** Reads the changed files now instead of after their quiet time (before paid work). */
	replayChanged(): Promise<void> {
		if (this.readTimer !== undefined) this.deps.timers.clearTimeout(this.readTimer);
		this.readTimer = undefined;
		if (this.changedFiles.size === 0) return this.chain;
		return this.enqueue(async () => {
			const paths = [...this.changedFiles].sort();
			this.changedFiles.clear();
			const cursors = await this.deps.client.call("logCursors");
			for (const path of paths) {
				const file = this.otherDeviceFile(path);
				if (file !== null) await this.replayFile(file.device, file.name, path, cursors);
			}
		}, "read another device's log");
	}

	/** Resolves when no write or replay is running or waiting in line. */
	idle(): Promise<void> {
		return this.chain;
	}

	/** No timer fires from now on; what is in line still finishes. */
	stop(): void {
		this.stopped = true;
		this.cancelWrite();
		if (this.readTimer !== undefined) this.deps.timers.clearTimeout(this.readTimer);
		this.readTimer = undefined;
	}

	private cancelWrite(): void {
		if (this.writeTimer !== undefined) this.deps.timers.clearTimeout(this.writeTimer);
		this.writeTimer = undefined;
	}

	private enqueue(work: () => Promise<void>, what: string): Promise<void> {
		this.chain = this.chain.then(work).catch((error: unknown) => {
			if (!this.stopped) this.deps.notify(`Memory Agent could not ${what}: ${errorMessage(error)}`);
		});
		return this.chain;
	}

	private async appendOutgoing(): Promise<void> {
		const { client, adapter } = this.deps;
		const outgoing = await client.call("outgoingLog");
		if (outgoing.entries === 0) return;
		const folder = await client.call("deviceLogFolder", this.deps.memoryFolder(), this.deps.device);
		if (folder === null) throw new Error(`${this.deps.device} cannot name a log folder`);
		if (!(await adapter.exists(folder))) await adapter.mkdir(folder);
		let files = await this.logFiles(folder);
		let last: [string, number] | undefined;
		for (const piece of splitLines(outgoing.text, APPEND_CHUNK_BYTES)) {
			const name = await client.call("logFileFor", files, new TextEncoder().encode(piece).length);
			const path = `${folder}/${name}`;
			// Never rewritten: a new file is created by its first append.
			if (await adapter.exists(path)) await adapter.append(path, (await this.cutShort(path)) ? `\n${piece}` : piece);
			else await adapter.write(path, piece);
			this.tailChecked.add(path);
			const size = (await adapter.stat(path))?.size ?? 0;
			last = [name, size];
			files = [...files.filter(([known]) => known !== name), last];
		}
		if (last !== undefined) await client.call("logAppended", outgoing.upto, last[0], last[1]);
		await this.compact(folder, files);
	}

	/**
	 * Whether this device's file ends inside a line: an append a crash cut short. Looked at once
	 * a session, before the first append; the next append then starts on a line of its own (the
	 * cut line is never acknowledged, so its entries are written again).
	 */
	private async cutShort(path: string): Promise<boolean> {
		if (this.tailChecked.has(path)) return false;
		const bytes = new Uint8Array(await this.deps.adapter.readBinary(path));
		return bytes.length > 0 && bytes[bytes.length - 1] !== 0x0a;
	}

	/** When the core finds this device's own log worth compacting: the snapshot's files first, then the older files go. */
	private async compact(folder: string, files: Array<[string, number]>): Promise<void> {
		const compaction = await this.deps.client.call("logCompaction", files);
		if (compaction === null) return;
		let last: [string, number] | undefined;
		for (const [name, text] of compaction.files) {
			const path = `${folder}/${name}`;
			await this.deps.adapter.write(path, text);
			this.tailChecked.add(path);
			last = [name, (await this.deps.adapter.stat(path))?.size ?? 0];
		}
		if (last !== undefined) await this.deps.client.call("logAppended", compaction.upto, last[0], last[1]);
		for (const name of compaction.retire) await this.deps.adapter.remove(`${folder}/${name}`);
	}

	/** A device folder's log files proper (conflict copies are read, never appended to), with their sizes. */
	private async logFiles(folder: string): Promise<Array<[string, number]>> {
		const names = (await this.deps.adapter.list(folder)).files.map(baseName);
		const logNames = await this.deps.client.call("logFileNames", names);
		const files: Array<[string, number]> = [];
		for (const name of logNames.sort()) files.push([name, (await this.deps.adapter.stat(`${folder}/${name}`))?.size ?? 0]);
		return files;
	}

	private async replayFolders(): Promise<void> {
		const { adapter, client } = this.deps;
		const root = this.deps.memoryFolder();
		if (!(await adapter.exists(root))) return;
		const cursors = await client.call("logCursors");
		for (const folder of (await adapter.list(root)).folders.sort()) {
			const device = baseName(folder);
			if ((await client.call("deviceLogFolder", root, device)) === null) continue;
			const names = (await adapter.list(folder)).files.map(baseName).filter((name) => name.endsWith(LOG_EXTENSION));
			for (const name of names.sort()) await this.replayFile(device, name, `${folder}/${name}`, cursors);
		}
	}

	/** Reads `path` from where it was last read (from the start when it is shorter: replaced) and replays it. */
	private async replayFile(device: string, name: string, path: string, cursors: readonly LogCursor[]): Promise<void> {
		if (this.stopped || !(await this.deps.adapter.exists(path))) return;
		const bytes = new Uint8Array(await this.deps.adapter.readBinary(path));
		const known = cursors.find((cursor) => cursor.device === device && cursor.file === name)?.offset ?? 0;
		const offset = known > bytes.length ? 0 : known;
		if (offset === bytes.length) return;
		const report = await this.deps.client.call("replayLog", device, name, offset, bytes.subarray(offset));
		if ((report.unreadable > 0 || report.newer) && !this.told.has(path)) {
			this.told.add(path);
			this.deps.notify(
				report.newer
					? `Memory Agent found entries in ${path} written by a newer version of Memory Agent; update the plugin to read them.`
					: `Memory Agent could not read ${report.unreadable === 1 ? "a line" : `${report.unreadable.toLocaleString()} lines`} of ${path}, another device's log; the rest was read.`,
			);
		}
		if (report.entries > 0) this.deps.onReplayed?.(report);
	}

	/** `path` as another device's log file (`<memory folder>/<device>/<name>.jsonl`), or null. */
	private otherDeviceFile(path: string): { device: string; name: string } | null {
		const prefix = `${this.deps.memoryFolder()}/`;
		if (!path.startsWith(prefix) || !path.endsWith(LOG_EXTENSION)) return null;
		const [device, name, ...deeper] = path.slice(prefix.length).split("/");
		if (device === undefined || name === undefined || deeper.length > 0 || device === this.deps.device) return null;
		return { device, name };
	}
}

function baseName(path: string): string {
	return path.slice(path.lastIndexOf("/") + 1);
}
