// Keeps the `memory-agent` command and a running plugin from paying for the same notes: the
// plugin keeps a heartbeat file beside its database while it is loaded (the command's `index`
// refuses to run while one is fresh), and holds its paid work back while the command's
// `indexing.json` in any device's log folder is fresh. The numbers and the marker's name are
// the core's (`src/device/presence.rs`), through the generated schema. No `obsidian` runtime import.

import type { DataAdapter } from "obsidian";
import { SETTINGS_SCHEMA } from "../generated/settings-schema";
import type { TimerPort } from "./save-scheduler";

export type PresencePort = Pick<DataAdapter, "exists" | "list" | "stat" | "write" | "remove" | "mkdir">;

const PRESENCE = SETTINGS_SCHEMA.presence;
/** The heartbeat is rewritten this often while the plugin is loaded (the command trusts one younger than `presence.heartbeatFreshMs`). */
export const HEARTBEAT_MS: number = PRESENCE.heartbeatEveryMs;
/** A command's indexing marker younger than this means it is indexing now (it rewrites it every `presence.indexingEveryMs`). */
export const COMMAND_INDEXING_FRESH_MS: number = PRESENCE.indexingFreshMs;
/** The command's indexing marker, in its own log folder: `indexing.json`. */
export const INDEXING_FILE: string = PRESENCE.indexingFile;
/** The device folders are looked at for the marker at most this often (the plugin's own pace, well within its freshness). */
export const INDEXING_CHECK_MS = 10_000;

/** The heartbeat file of `device`: `<plugin folder>/running-<device>.json`. */
export function heartbeatPath(pluginFolder: string, device: string): string {
	return `${pluginFolder}/${PRESENCE.heartbeatFile.replace("{device}", device)}`;
}

export class Heartbeat {
	private timer: unknown;
	private stopped = false;
	/** The write in progress: `stop` removes the file only after it. */
	private beating: Promise<void> | undefined;

	constructor(
		private readonly deps: {
			adapter: PresencePort;
			path: string;
			device: string;
			timers: TimerPort;
			now: () => number;
		},
	) {}

	/** Writes the file now and every `HEARTBEAT_MS` until `stop`. */
	start(): Promise<void> {
		this.beating = this.beat();
		return this.beating;
	}

	/** No more beats; the file stays (another session of this device takes it over). */
	stopBeating(): void {
		this.stopped = true;
		if (this.timer !== undefined) this.deps.timers.clearTimeout(this.timer);
		this.timer = undefined;
	}

	/** No more beats; the file is removed (the command may run at once). */
	async stop(): Promise<void> {
		this.stopBeating();
		await this.beating?.catch(() => undefined);
		if (await this.deps.adapter.exists(this.deps.path)) await this.deps.adapter.remove(this.deps.path);
	}

	private async beat(): Promise<void> {
		if (this.stopped) return;
		const { adapter, path, device } = this.deps;
		const folder = path.slice(0, path.lastIndexOf("/"));
		if (folder !== "" && !(await adapter.exists(folder))) await adapter.mkdir(folder);
		await adapter.write(path, JSON.stringify({ device, at: this.deps.now() }));
		if (this.stopped) return;
		this.timer = this.deps.timers.setTimeout(() => {
			this.timer = undefined;
			this.beating = this.beat().catch(() => undefined);
		}, HEARTBEAT_MS);
	}
}

/** Whether the `memory-agent` command is indexing this vault now (one stat per device folder, at most every `INDEXING_CHECK_MS`). */
export class CommandIndexingWatch {
	private checkedAt = Number.NEGATIVE_INFINITY;
	private indexing = false;

	constructor(
		private readonly deps: {
			adapter: PresencePort;
			memoryFolder: () => string;
			now: () => number;
		},
	) {}

	async isIndexing(): Promise<boolean> {
		const now = this.deps.now();
		if (now - this.checkedAt < INDEXING_CHECK_MS) return this.indexing;
		this.checkedAt = now;
		this.indexing = await this.lookNow(now).catch(() => false);
		return this.indexing;
	}

	private async lookNow(now: number): Promise<boolean> {
		const { adapter } = this.deps;
		const root = this.deps.memoryFolder();
		if (!(await adapter.exists(root))) return false;
		for (const folder of (await adapter.list(root)).folders) {
			const stat = await adapter.stat(`${folder}/${INDEXING_FILE}`);
			if (stat !== null && now - stat.mtime < COMMAND_INDEXING_FRESH_MS) return true;
		}
		return false;
	}
}
