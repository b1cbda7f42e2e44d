// The host object the core is handed: HTTP, time, the vault's files, the time zone, progress.

import type { CoreHost, Progress, VaultFileData } from "../core/memory-core-api";
import type { TimerPort } from "../storage/save-scheduler";
import { type RequestUrlFn, requestUrlSend } from "./request-url-transport";

/** Reads vault files (Obsidian's `Vault`, narrowed to what the core needs). */
export interface VaultReadPort {
	getFileByPath(path: string): { stat: { mtime: number; size: number } } | null;
	readBinary(file: never): Promise<ArrayBuffer>;
}

export interface CoreHostDeps {
	requestUrl: RequestUrlFn;
	vault: VaultReadPort;
	timers: TimerPort;
	onProgress: (progress: Progress) => void;
	now?: () => number;
}

export function createCoreHost(deps: CoreHostDeps): CoreHost {
	return {
		send: requestUrlSend(deps.requestUrl),
		sleep: (ms) => new Promise((resolve) => deps.timers.setTimeout(resolve, ms)),
		now: deps.now ?? (() => Date.now()),
		readFile: async (path): Promise<VaultFileData | null> => {
			const file = deps.vault.getFileByPath(path);
			if (file === null) return null;
			const bytes = new Uint8Array(await deps.vault.readBinary(file as never));
			return { bytes, mtime: file.stat.mtime, size: file.stat.size };
		},
		// Date's offset is minutes *behind* UTC; the core wants minutes ahead.
		utcOffsetMinutes: () => -new Date().getTimezoneOffset(),
		progress: deps.onProgress,
	};
}
