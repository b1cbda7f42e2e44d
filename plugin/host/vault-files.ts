// The device log's file operations, carried out for the core over Obsidian's DataAdapter: list a
// folder, read a file from an offset, append, create a new file, remove. The core decides every
// rule of the log's files (src/device/); this only does what it is asked, on vault paths. No
// `obsidian` runtime import: the headless host tests it over a real folder.

import type { DataAdapter } from "obsidian";
import type { HostHandlers } from "../core/core-client";
import type { VaultListing } from "../core/memory-core-api";

/** The part of Obsidian's DataAdapter the file operations use. */
export type VaultFilesPort = Pick<DataAdapter, "exists" | "list" | "stat" | "mkdir" | "append" | "write" | "readBinary" | "remove">;

/** The host handlers of the log's file operations. */
export type VaultFileHandlers = Pick<HostHandlers, "listFolder" | "readFrom" | "appendText" | "createFile" | "removeFile">;

export function vaultFileHandlers(adapter: VaultFilesPort): VaultFileHandlers {
	return {
		listFolder: (path) => listFolder(adapter, path),
		readFrom: (path, offset) => readFrom(adapter, path, offset),
		appendText: async (path, text) => {
			await ensureParent(adapter, path);
			// A new file is written (not every platform's adapter appends to a missing file).
			if (await adapter.exists(path)) await adapter.append(path, text);
			else await adapter.write(path, text);
			const stat = await adapter.stat(path);
			if (stat === null) throw new Error(`${path} is missing after it was written`);
			return stat.size;
		},
		createFile: async (path, text) => {
			await ensureParent(adapter, path);
			if (await adapter.exists(path)) throw new Error(`${path} already exists`);
			await adapter.write(path, text);
		},
		removeFile: async (path) => {
			if (!(await adapter.exists(path))) return;
			try {
				await adapter.remove(path);
			} catch (error) {
				// Removed by someone else in between (a sync tool): what was asked is done.
				if (await adapter.exists(path)) throw error;
			}
		},
	};
}

async function listFolder(adapter: VaultFilesPort, path: string): Promise<VaultListing> {
	if (!(await adapter.exists(path))) return { files: [], folders: [] };
	const listed = await adapter.list(path);
	const files: Array<[string, number]> = [];
	for (const file of listed.files) {
		const stat = await adapter.stat(file);
		// Gone since it was listed: not there.
		if (stat !== null && stat.type === "file") files.push([baseName(file), stat.size]);
	}
	return { files, folders: listed.folders.map(baseName) };
}

async function readFrom(adapter: VaultFilesPort, path: string, offset: number): Promise<Uint8Array | null> {
	if (!(await adapter.exists(path))) return null;
	let buffer: ArrayBuffer;
	try {
		buffer = await adapter.readBinary(path);
	} catch (error) {
		if (!(await adapter.exists(path))) return null; // removed in between
		throw error;
	}
	// The rest of the file in a buffer of its own, so that it is transferred to the worker, not copied.
	return offset <= 0 ? new Uint8Array(buffer) : new Uint8Array(buffer.slice(Math.min(offset, buffer.byteLength)));
}

/** Makes the folders above `path` that are missing, from the top (an adapter's `mkdir` may not make parents). */
async function ensureParent(adapter: VaultFilesPort, path: string): Promise<void> {
	const parent = path.slice(0, Math.max(0, path.lastIndexOf("/")));
	if (parent === "" || (await adapter.exists(parent))) return;
	const parts = parent.split("/");
	for (let depth = 1; depth <= parts.length; depth++) {
		const folder = parts.slice(0, depth).join("/");
		if (!(await adapter.exists(folder))) await adapter.mkdir(folder);
	}
}

function baseName(path: string): string {
	return path.slice(path.lastIndexOf("/") + 1);
}
