// Notes renamed or moved while Obsidian was closed: at the start, a note that is gone and a new
// one with the same size and the same digest are one note under a new name, so its memories
// move with it (no model call), as they do for a rename Obsidian reports while open.

import type { Source } from "../core/memory-core-api";
import type { SyncFile } from "./vault-sync";

export interface Rename {
	from: string;
	to: string;
}

/** Lower-case hex of the SHA-256 of `bytes` (the platform's WebCrypto: off the main thread's own work). */
async function sha256Hex(bytes: ArrayBuffer): Promise<string> {
	const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes));
	return Array.from(digest, (byte) => byte.toString(16).padStart(2, "0")).join("");
}

/**
 * Pairs each gone source with a new file of the same size whose digest it holds. Only files
 * whose size matches a gone note's are read; the core keeps a prefix of the SHA-256 (its
 * length says how much), so the comparison needs no knowledge of it.
 */
export async function renamedNotes(gone: readonly Source[], fresh: readonly SyncFile[], read: (path: string) => Promise<ArrayBuffer | null>): Promise<Rename[]> {
	const bySize = new Map<number, Source[]>();
	for (const source of gone) {
		// A skipped note has no memories to move; a short digest would not tell files apart.
		if (source.skipped !== null || source.sha256.length < 32) continue;
		bySize.set(source.size, [...(bySize.get(source.size) ?? []), source]);
	}
	const renames: Rename[] = [];
	for (const file of fresh) {
		const candidates = bySize.get(file.size);
		if (candidates === undefined || candidates.length === 0) continue;
		const bytes = await read(file.path);
		if (bytes === null) continue;
		const digest = await sha256Hex(bytes);
		const at = candidates.findIndex((source) => digest.startsWith(source.sha256));
		if (at < 0) continue;
		renames.push({ from: candidates[at]!.path, to: file.path });
		candidates.splice(at, 1);
	}
	return renames;
}
