// Reads and writes the database file so that a crash at any moment leaves a whole database.

import type { DataAdapter } from "obsidian";

/** The part of Obsidian's DataAdapter the database file needs; tests implement it over a folder. */
export type DatabaseFilePort = Pick<DataAdapter, "exists" | "readBinary" | "writeBinary" | "remove" | "rename" | "mkdir">;

/**
 * The save protocol: write `<db>.tmp`, move `<db>` aside to `<db>.old`, rename the temporary
 * file to `<db>`, remove `<db>.old`. Obsidian's adapters do not promise an atomic replace on
 * every platform (rename onto an existing file fails on some), so the loader repairs the
 * half-finished states by what is there:
 * - `<db>` present: it is whole (the temporary file may not be): keep it, drop the others.
 * - `<db>` gone, `<db>.old` present: the crash came after the old file was moved aside, which
 *   happens only once the temporary file is written whole: promote the temporary file (or, if
 *   it is gone too, take the old file back).
 * - only `<db>.tmp`: a first save cut short, perhaps half-written: it is dropped, never opened
 *   (the database is a cache: the logs in the vault rebuild it).
 */
export class DatabaseFile {
	readonly tmpPath: string;
	readonly oldPath: string;

	constructor(
		private readonly port: DatabaseFilePort,
		readonly path: string,
	) {
		this.tmpPath = `${path}.tmp`;
		this.oldPath = `${path}.old`;
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
		if (await this.port.exists(this.path)) {
			if (await this.port.exists(this.oldPath)) await this.port.remove(this.oldPath);
			await this.port.rename(this.path, this.oldPath);
		}
		await this.port.rename(this.tmpPath, this.path);
		if (await this.port.exists(this.oldPath)) await this.port.remove(this.oldPath);
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
		const [main, tmp, old] = await Promise.all([this.port.exists(this.path), this.port.exists(this.tmpPath), this.port.exists(this.oldPath)]);
		if (main) {
			if (tmp) await this.port.remove(this.tmpPath);
			if (old) await this.port.remove(this.oldPath);
		} else if (old) {
			await this.port.rename(tmp ? this.tmpPath : this.oldPath, this.path);
			if (tmp) await this.port.remove(this.oldPath);
		} else if (tmp) {
			await this.port.remove(this.tmpPath);
		}
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
