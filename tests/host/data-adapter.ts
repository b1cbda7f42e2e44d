// Obsidian's DataAdapter over a real folder on disk, with Obsidian's strictness and op tracking.

import { constants } from "node:fs";
import fs from "node:fs/promises";
import path from "node:path";
import type { DataAdapter, DataWriteOptions, ListedFiles, Stat } from "obsidian";

/** The constructors of the realm that will receive our ArrayBuffers (the plugin's vm context). */
export interface Realm {
	ArrayBuffer: ArrayBufferConstructor;
}

export type HostAdapterMethods =
	| "getName"
	| "exists"
	| "stat"
	| "list"
	| "trashSystem"
	| "trashLocal"
	| "read"
	| "readBinary"
	| "write"
	| "append"
	| "writeBinary"
	| "remove"
	| "rename"
	| "mkdir";

/** One call to the adapter, as seen by tests that check the order of file operations. */
export interface AdapterCall {
	method: HostAdapterMethods;
	args: string[];
}

/** Calls kept in `calls` (the older half is dropped when it is full). */
const MAX_RECORDED_CALLS = 20_000;

export class HostDataAdapter implements Pick<DataAdapter, HostAdapterMethods> {
	/** Every call, in order. */
	readonly calls: AdapterCall[] = [];
	private readonly pending = new Set<Promise<unknown>>();
	private realm: Realm = { ArrayBuffer };

	constructor(readonly basePath: string) {}

	/** Makes readBinary return buffers of `realm`, so `instanceof ArrayBuffer` holds in the plugin. */
	setRealm(realm: Realm): void {
		this.realm = realm;
	}

	/** Resolves when no adapter call is in flight. */
	async idle(): Promise<void> {
		while (this.pending.size > 0) await Promise.allSettled([...this.pending]);
	}

	get busy(): boolean {
		return this.pending.size > 0;
	}

	getName(): string {
		return path.basename(this.basePath);
	}

	exists(normalizedPath: string, _sensitive?: boolean): Promise<boolean> {
		return this.track("exists", [normalizedPath], async () => {
			try {
				await fs.access(this.full(normalizedPath), constants.F_OK);
				return true;
			} catch {
				return false;
			}
		});
	}

	stat(normalizedPath: string): Promise<Stat | null> {
		return this.track("stat", [normalizedPath], async () => {
			const st = await fs.stat(this.full(normalizedPath)).catch(() => null);
			if (st === null) return null;
			return { type: st.isDirectory() ? "folder" : "file", ctime: st.birthtimeMs, mtime: st.mtimeMs, size: st.size };
		});
	}

	list(normalizedPath: string): Promise<ListedFiles> {
		return this.track("list", [normalizedPath], async () => {
			const entries = await fs.readdir(this.full(normalizedPath), { withFileTypes: true });
			const prefix = normalizedPath === "/" || normalizedPath === "" ? "" : `${normalizedPath}/`;
			return {
				files: entries.filter((e) => e.isFile()).map((e) => prefix + e.name),
				folders: entries.filter((e) => e.isDirectory()).map((e) => prefix + e.name),
			};
		});
	}

	read(normalizedPath: string): Promise<string> {
		return this.track("read", [normalizedPath], () => fs.readFile(this.full(normalizedPath), "utf8"));
	}

	readBinary(normalizedPath: string): Promise<ArrayBuffer> {
		return this.track("readBinary", [normalizedPath], async () => {
			// Read straight into a buffer of the plugin's realm: no second copy on this thread.
			const handle = await fs.open(this.full(normalizedPath), "r");
			try {
				const { size } = await handle.stat();
				const out = new this.realm.ArrayBuffer(size);
				const view = new Uint8Array(out);
				for (let at = 0; at < size; ) {
					const { bytesRead } = await handle.read(view, at, size - at, at);
					if (bytesRead === 0) return out.slice(0, at);
					at += bytesRead;
				}
				return out;
			} finally {
				await handle.close();
			}
		});
	}

	write(normalizedPath: string, data: string, _options?: DataWriteOptions): Promise<void> {
		return this.track("write", [normalizedPath], async () => {
			await this.requireParent(normalizedPath);
			await fs.writeFile(this.full(normalizedPath), data, "utf8");
		});
	}

	/** Adds `data` at the end of the file, creating it (as Obsidian's desktop adapter: Node's appendFile). */
	append(normalizedPath: string, data: string, _options?: DataWriteOptions): Promise<void> {
		return this.track("append", [normalizedPath], async () => {
			await this.requireParent(normalizedPath);
			await fs.appendFile(this.full(normalizedPath), data, "utf8");
		});
	}

	writeBinary(normalizedPath: string, data: ArrayBuffer, _options?: DataWriteOptions): Promise<void> {
		return this.track("writeBinary", [normalizedPath], async () => {
			await this.requireParent(normalizedPath);
			// A view, not a copy (as Obsidian's desktop adapter); Node takes an ArrayBuffer of any realm.
			await fs.writeFile(this.full(normalizedPath), Buffer.from(data));
		});
	}

	remove(normalizedPath: string): Promise<void> {
		return this.track("remove", [normalizedPath], () => fs.unlink(this.full(normalizedPath)));
	}

	/** Like Obsidian's adapters: refuses to replace an existing destination. */
	rename(normalizedPath: string, normalizedNewPath: string): Promise<void> {
		return this.track("rename", [normalizedPath, normalizedNewPath], async () => {
			const target = this.full(normalizedNewPath);
			const taken = await fs.access(target).then(
				() => true,
				() => false,
			);
			if (taken) throw new Error("Destination file already exists!");
			await fs.mkdir(path.dirname(target), { recursive: true });
			await fs.rename(this.full(normalizedPath), target);
		});
	}

	/** No system trash in the headless host (as on a phone): false, and the vault's trash is used. */
	trashSystem(normalizedPath: string): Promise<boolean> {
		return this.track("trashSystem", [normalizedPath], async () => false);
	}

	/** Moves the file into the vault's `.trash` folder, as Obsidian does. */
	trashLocal(normalizedPath: string): Promise<void> {
		return this.track("trashLocal", [normalizedPath], async () => {
			const target = path.join(this.basePath, ".trash", path.basename(normalizedPath));
			await fs.mkdir(path.dirname(target), { recursive: true });
			await fs.rename(this.full(normalizedPath), target);
		});
	}

	mkdir(normalizedPath: string): Promise<void> {
		return this.track("mkdir", [normalizedPath], async () => {
			await fs.mkdir(this.full(normalizedPath), { recursive: true });
		});
	}

	/** Absolute path of a vault path; refuses paths that leave the vault. */
	full(normalizedPath: string): string {
		if (normalizedPath.split("/").includes("..")) throw new Error(`Path leaves the vault: ${normalizedPath}`);
		return path.join(this.basePath, normalizedPath === "/" ? "" : normalizedPath);
	}

	private async requireParent(normalizedPath: string): Promise<void> {
		const parent = path.dirname(this.full(normalizedPath));
		const st = await fs.stat(parent).catch(() => null);
		if (!st?.isDirectory()) throw new Error(`ENOENT: parent folder of ${normalizedPath} does not exist`);
	}

	private track<T>(method: HostAdapterMethods, args: string[], op: () => Promise<T>): Promise<T> {
		// The recent calls are enough for a test; a benchmark's hundred thousand would only fill memory.
		if (this.calls.length >= MAX_RECORDED_CALLS) this.calls.splice(0, MAX_RECORDED_CALLS / 2);
		this.calls.push({ method, args });
		const promise = (async () => op())();
		this.pending.add(promise);
		const done = () => this.pending.delete(promise);
		promise.then(done, done);
		return promise;
	}
}
