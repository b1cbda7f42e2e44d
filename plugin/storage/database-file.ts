// Reads and writes the database file so that a crash at any moment leaves a whole database.

import type { DataAdapter } from "obsidian";

/** The part of Obsidian's DataAdapter the database file needs; tests implement it over a folder. */
export type DatabaseFilePort = Pick<DataAdapter, "exists" | "readBinary" | "writeBinary" | "remove" | "rename" | "mkdir">;

/**
 * The save protocol: write `<db>.tmp`, remove `<db>`, rename the temporary file to `<db>`.
 * Obsidian's adapters do not promise an atomic replace on every platform (rename onto an
 * existing file fails on some), so the old file is removed first and the loader repairs the
 * two half-finished states: both files present means the write of the temporary file may be
 * incomplete (keep `<db>`), and only the temporary file present means the crash came after
 * the removal, when the temporary file was already complete (promote it).
 */
export class DatabaseFile {
	readonly tmpPath: string;

	constructor(
		private readonly port: DatabaseFilePort,
		readonly path: string,
	) {
		this.tmpPath = `${path}.tmp`;
	}

	/** Repairs an interrupted save, then returns the file's bytes, or undefined when there is none. */
	async load(): Promise<Uint8Array | undefined> {
		await this.recover();
		if (!(await this.port.exists(this.path))) return undefined;
		return new Uint8Array(await this.port.readBinary(this.path));
	}

	/** Writes `bytes` as the new content of the file, never leaving it half-written. */
	async save(bytes: Uint8Array): Promise<void> {
		await this.ensureParentFolder();
		await this.port.writeBinary(this.tmpPath, toArrayBuffer(bytes));
		if (await this.port.exists(this.path)) await this.port.remove(this.path);
		await this.port.rename(this.tmpPath, this.path);
	}

	/**
	 * Renames the file to `<name>.corrupt-<UTC timestamp>` (never overwriting another file)
	 * and returns the new path. The bytes are kept for the user; nothing is deleted.
	 */
	async moveAside(now: Date): Promise<string> {
		const base = `${this.path}.corrupt-${compactTimestamp(now)}`;
		let target = base;
		for (let n = 2; await this.port.exists(target); n++) target = `${base}-${n}`;
		await this.port.rename(this.path, target);
		return target;
	}

	private async recover(): Promise<void> {
		if (!(await this.port.exists(this.tmpPath))) return;
		if (await this.port.exists(this.path)) await this.port.remove(this.tmpPath);
		else await this.port.rename(this.tmpPath, this.path);
	}

	private async ensureParentFolder(): Promise<void> {
		const slash = this.path.lastIndexOf("/");
		if (slash <= 0) return;
		const parent = this.path.slice(0, slash);
		if (!(await this.port.exists(parent))) await this.port.mkdir(parent);
	}
}

/** 2026-11-30T07:14:00.123Z → 20261130T071400Z */
export function compactTimestamp(date: Date): string {
	return date.toISOString().replace(/\.\d+Z$/, "Z").replace(/[-:]/g, "");
}

/**
 * The exact bytes as an ArrayBuffer: the array's own buffer when it covers all of it (as an
 * export from the worker does — tens of megabytes are not copied on the main thread), else a
 * copy (a view may share a larger buffer).
 */
function toArrayBuffer(bytes: Uint8Array): ArrayBuffer {
	const buffer = bytes.buffer as ArrayBuffer;
	if (bytes.byteOffset === 0 && bytes.byteLength === buffer.byteLength) return buffer;
	const copy = new Uint8Array(bytes.byteLength);
	copy.set(bytes);
	return copy.buffer;
}
