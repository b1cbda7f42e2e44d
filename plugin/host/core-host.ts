// What the main thread does for the core in its worker: HTTP through Obsidian's requestUrl,
// and reading the vault's files (their bytes are transferred to the worker, not copied).

import type { HostHandlers } from "../core/core-client";
import type { VaultFileData } from "../core/memory-core-api";
import { type RequestUrlFn, requestUrlSend } from "./request-url-transport";

/** Reads vault files (Obsidian's `Vault`, narrowed to what the core needs). */
export interface VaultReadPort {
	getFileByPath(path: string): { stat: { mtime: number; size: number } } | null;
	readBinary(file: never): Promise<ArrayBuffer>;
}

export interface CoreHostDeps {
	requestUrl: RequestUrlFn;
	vault: VaultReadPort;
}

export function createHostHandlers(deps: CoreHostDeps): HostHandlers {
	return {
		send: requestUrlSend(deps.requestUrl),
		readFile: async (path): Promise<VaultFileData | null> => {
			const file = deps.vault.getFileByPath(path);
			if (file === null) return null;
			const bytes = new Uint8Array(await deps.vault.readBinary(file as never));
			return { bytes, mtime: file.stat.mtime, size: file.stat.size };
		},
	};
}
