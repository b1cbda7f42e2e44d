// An in-memory DatabaseFilePort with fault injection, for unit tests of the save protocol.

import type { ListedFiles, Stat } from "obsidian";
import type { DatabaseFilePort } from "../../plugin/storage/database-file";

export type PortOp = "exists" | "stat" | "readBinary" | "writeBinary" | "write" | "append" | "remove" | "rename" | "mkdir" | "list" | "trash";

/** Thrown by an injected fault, standing in for a crash or an I/O error at that step. */
export class InjectedFault extends Error {}

export interface FaultOptions {
	path?: string;
	after?: boolean;
	partial?: boolean;
	crash?: boolean;
}

export class MemoryPort implements DatabaseFilePort {
	readonly files = new Map<string, { bytes: Uint8Array; mtime: number }>();
	readonly folders = new Set<string>();
	readonly log: string[] = [];
	private clock = 1_000;
	/**
	 * When set, the matching call fails: before it runs, or with `after` once it has run (a
	 * crash right after the step), or with `partial` (writeBinary only) after writing half the
	 * bytes. With `crash` (the default) every later call fails too, as in a dead process.
	 */
	private fault: FaultOptions & { op: PortOp } | undefined;
	private crashed = false;

	failOn(op: PortOp, options: FaultOptions = {}): void {
		this.fault = { op, ...options };
		this.crashed = false;
	}

	/** After a crash: the process is gone, the files stay. A new session uses the same port. */
	restart(): void {
		this.fault = undefined;
		this.crashed = false;
	}

	text(path: string): string | undefined {
		const file = this.files.get(path);
		return file && new TextDecoder().decode(file.bytes);
	}

	/** Another program writes the file (as a sync tool would). */
	replaceExternally(path: string, bytes: Uint8Array): void {
		this.files.set(path, { bytes: bytes.slice(), mtime: ++this.clock });
	}

	async exists(path: string): Promise<boolean> {
		this.check("exists", path);
		return this.files.has(path) || this.folders.has(path);
	}

	async stat(path: string): Promise<Stat | null> {
		this.check("stat", path);
		const file = this.files.get(path);
		if (file) return { type: "file", ctime: 0, mtime: file.mtime, size: file.bytes.length };
		return this.folders.has(path) ? { type: "folder", ctime: 0, mtime: 0, size: 0 } : null;
	}

	async readBinary(path: string): Promise<ArrayBuffer> {
		this.check("readBinary", path);
		const file = this.files.get(path);
		if (!file) throw new Error(`ENOENT ${path}`);
		return file.bytes.slice().buffer;
	}

	async writeBinary(path: string, data: ArrayBuffer): Promise<void> {
		const partial = this.matches("writeBinary", path) && this.fault?.partial === true;
		this.check("writeBinary", path);
		const parent = path.slice(0, path.lastIndexOf("/"));
		if (parent && !this.folders.has(parent)) throw new Error(`ENOENT parent of ${path}`);
		const bytes = new Uint8Array(data);
		this.files.set(path, { bytes: partial ? bytes.slice(0, bytes.length >> 1) : bytes.slice(), mtime: ++this.clock });
		if (partial) this.trip("writeBinary", path);
		this.checkAfter("writeBinary", path);
	}

	/** Writes text (a new log file's first lines, a heartbeat). */
	async write(path: string, data: string): Promise<void> {
		this.check("write", path);
		const parent = path.slice(0, path.lastIndexOf("/"));
		if (parent && !this.folders.has(parent)) throw new Error(`ENOENT parent of ${path}`);
		this.files.set(path, { bytes: new TextEncoder().encode(data), mtime: ++this.clock });
	}

	/** Adds text at the end of a file, creating it. */
	async append(path: string, data: string): Promise<void> {
		this.check("append", path);
		const parent = path.slice(0, path.lastIndexOf("/"));
		if (parent && !this.folders.has(parent)) throw new Error(`ENOENT parent of ${path}`);
		const before = this.files.get(path)?.bytes ?? new Uint8Array();
		const added = new TextEncoder().encode(data);
		const bytes = new Uint8Array(before.length + added.length);
		bytes.set(before);
		bytes.set(added, before.length);
		this.files.set(path, { bytes, mtime: ++this.clock });
	}

	async remove(path: string): Promise<void> {
		this.check("remove", path);
		if (!this.files.delete(path)) throw new Error(`ENOENT ${path}`);
		this.checkAfter("remove", path);
	}

	async rename(from: string, to: string): Promise<void> {
		this.check("rename", from);
		const file = this.files.get(from);
		if (!file) throw new Error(`ENOENT ${from}`);
		if (this.files.has(to)) throw new Error("Destination file already exists!");
		this.files.delete(from);
		this.files.set(to, file);
		this.checkAfter("rename", from);
	}

	async list(folder: string): Promise<ListedFiles> {
		this.check("list", folder);
		const prefix = folder === "/" ? "" : `${folder}/`;
		const inFolder = (path: string) => path.startsWith(prefix) && !path.slice(prefix.length).includes("/");
		return { files: [...this.files.keys()].filter(inFolder), folders: [...this.folders].filter(inFolder) };
	}

	/** Files moved to the trash (there is no system trash here: the vault's `.trash`). */
	readonly trashed: string[] = [];

	async trashSystem(path: string): Promise<boolean> {
		this.check("trash", path);
		return false;
	}

	async trashLocal(path: string): Promise<void> {
		this.check("trash", path);
		const file = this.files.get(path);
		if (!file) throw new Error(`ENOENT ${path}`);
		this.files.delete(path);
		this.files.set(`.trash/${path.slice(path.lastIndexOf("/") + 1)}`, file);
		this.trashed.push(path);
	}

	async mkdir(path: string): Promise<void> {
		this.check("mkdir", path);
		const parts = path.split("/");
		for (let i = 1; i <= parts.length; i++) this.folders.add(parts.slice(0, i).join("/"));
	}

	private matches(op: PortOp, path: string): boolean {
		const fault = this.fault;
		return fault !== undefined && fault.op === op && (fault.path === undefined || fault.path === path);
	}

	/** Runs before every operation: logs it, and fails it when a fault is set for it. */
	private check(op: PortOp, path: string): void {
		if (this.crashed) throw new InjectedFault(`process already crashed (${op} ${path})`);
		this.log.push(`${op} ${path}`);
		if (this.matches(op, path) && !this.fault?.after && !this.fault?.partial) this.trip(op, path);
	}

	/** Runs after a mutating operation took effect: fails it when the fault is set `after`. */
	private checkAfter(op: PortOp, path: string): void {
		if (this.matches(op, path) && this.fault?.after) this.trip(op, path);
	}

	private trip(op: PortOp, path: string): never {
		if (this.fault?.crash ?? true) this.crashed = true;
		this.fault = undefined;
		throw new InjectedFault(`injected failure at ${op} ${path}`);
	}
}
