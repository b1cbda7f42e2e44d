// An in-memory vault for the browser harness: Obsidian's Vault, DataAdapter and TFile/TFolder over
// a Map, with real vault events (the headless host's vault is on disk, through Node).

import type { DataWriteOptions, FileStats, ListedFiles, Stat } from "obsidian";
import { HostEvents } from "../../host/events";

export class MemoryTAbstractFile {
	constructor(
		readonly vault: MemoryVault,
		public path: string,
	) {}
	get name(): string {
		return this.path.split("/").pop() ?? this.path;
	}
	get parent(): MemoryTFolder | null {
		const cut = this.path.lastIndexOf("/");
		return new MemoryTFolder(this.vault, cut < 0 ? "/" : this.path.slice(0, cut));
	}
}

export class MemoryTFile extends MemoryTAbstractFile {
	stat: FileStats = { ctime: 0, mtime: 0, size: 0 };
	get basename(): string {
		const dot = this.name.lastIndexOf(".");
		return dot > 0 ? this.name.slice(0, dot) : this.name;
	}
	get extension(): string {
		const dot = this.name.lastIndexOf(".");
		return dot > 0 ? this.name.slice(dot + 1) : "";
	}
}

export class MemoryTFolder extends MemoryTAbstractFile {
	get children(): MemoryTAbstractFile[] {
		return this.vault.getFiles().filter((file) => file.parent?.path === this.path);
	}
	isRoot(): boolean {
		return this.path === "/";
	}
}

interface Entry {
	data: Uint8Array;
	mtime: number;
}

/** Obsidian's DataAdapter over a Map (paths as Obsidian normalises them). */
export class MemoryAdapter {
	readonly files = new Map<string, Entry>();
	readonly folders = new Set<string>(["/"]);
	private clock = Date.now();

	getName(): string {
		return "Harness vault";
	}
	async exists(path: string): Promise<boolean> {
		return this.files.has(path) || this.folders.has(path);
	}
	async stat(path: string): Promise<Stat | null> {
		const file = this.files.get(path);
		if (file) return { type: "file", ctime: file.mtime, mtime: file.mtime, size: file.data.length };
		return this.folders.has(path) ? { type: "folder", ctime: 0, mtime: 0, size: 0 } : null;
	}
	async list(path: string): Promise<ListedFiles> {
		const prefix = path === "/" || path === "" ? "" : `${path}/`;
		const direct = (name: string) => name.startsWith(prefix) && !name.slice(prefix.length).includes("/");
		return { files: [...this.files.keys()].filter(direct), folders: [...this.folders].filter((name) => name !== "/" && direct(name)) };
	}
	async read(path: string): Promise<string> {
		return new TextDecoder().decode(this.entry(path).data);
	}
	async readBinary(path: string): Promise<ArrayBuffer> {
		return this.entry(path).data.slice().buffer;
	}
	async write(path: string, data: string, _options?: DataWriteOptions): Promise<void> {
		this.put(path, new TextEncoder().encode(data));
	}
	async writeBinary(path: string, data: ArrayBuffer, _options?: DataWriteOptions): Promise<void> {
		this.put(path, new Uint8Array(data).slice());
	}
	async remove(path: string): Promise<void> {
		if (!this.files.delete(path)) throw new Error(`ENOENT: ${path}`);
	}
	async rename(from: string, to: string): Promise<void> {
		const entry = this.entry(from);
		if (this.files.has(to)) throw new Error("Destination file already exists!");
		this.files.delete(from);
		this.files.set(to, entry);
	}
	async mkdir(path: string): Promise<void> {
		const parts = path.split("/");
		for (let i = 1; i <= parts.length; i++) this.folders.add(parts.slice(0, i).join("/"));
	}
	put(path: string, data: Uint8Array): void {
		const cut = path.lastIndexOf("/");
		if (cut > 0) void this.mkdir(path.slice(0, cut));
		this.files.set(path, { data, mtime: ++this.clock });
	}
	private entry(path: string): Entry {
		const entry = this.files.get(path);
		if (!entry) throw new Error(`ENOENT: ${path}`);
		return entry;
	}
}

export class MemoryVault extends HostEvents {
	readonly adapter = new MemoryAdapter();
	private readonly known = new Map<string, MemoryTFile>();

	constructor(readonly configDir: string) {
		super();
	}

	getName(): string {
		return this.adapter.getName();
	}
	getConfig(_key: string): unknown {
		return undefined;
	}
	getFiles(): MemoryTFile[] {
		return [...this.adapter.files.keys()].filter((path) => !path.startsWith(`${this.configDir}/`)).map((path) => this.fileAt(path));
	}
	getMarkdownFiles(): MemoryTFile[] {
		return this.getFiles().filter((file) => file.extension === "md");
	}
	getAbstractFileByPath(path: string): MemoryTAbstractFile | null {
		if (this.adapter.folders.has(path)) return new MemoryTFolder(this, path);
		return this.getFileByPath(path);
	}
	getFileByPath(path: string): MemoryTFile | null {
		return this.adapter.files.has(path) ? this.fileAt(path) : null;
	}
	getFolderByPath(path: string): MemoryTFolder | null {
		return this.adapter.folders.has(path) ? new MemoryTFolder(this, path) : null;
	}
	async createFolder(path: string): Promise<MemoryTFolder> {
		await this.adapter.mkdir(path);
		return new MemoryTFolder(this, path);
	}
	async create(path: string, data: string): Promise<MemoryTFile> {
		if (this.adapter.files.has(path)) throw new Error("File already exists.");
		await this.adapter.write(path, data);
		const file = this.fileAt(path);
		this.trigger("create", file);
		return file;
	}
	read(file: MemoryTFile): Promise<string> {
		return this.adapter.read(file.path);
	}
	cachedRead(file: MemoryTFile): Promise<string> {
		return this.adapter.read(file.path);
	}
	readBinary(file: MemoryTFile): Promise<ArrayBuffer> {
		return this.adapter.readBinary(file.path);
	}
	async modify(file: MemoryTFile, data: string): Promise<void> {
		await this.adapter.write(file.path, data);
		this.trigger("modify", this.fileAt(file.path));
	}
	async delete(file: MemoryTAbstractFile): Promise<void> {
		await this.adapter.remove(file.path);
		const known = this.fileAt(file.path);
		this.known.delete(file.path);
		this.trigger("delete", known);
	}
	private fileAt(path: string): MemoryTFile {
		let file = this.known.get(path);
		if (!file) {
			file = new MemoryTFile(this, path);
			this.known.set(path, file);
		}
		const entry = this.adapter.files.get(path);
		if (entry) file.stat = { ctime: entry.mtime, mtime: entry.mtime, size: entry.data.length };
		return file;
	}
}
