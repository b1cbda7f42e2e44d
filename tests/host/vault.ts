// Obsidian's Vault over the host folder: lists real files and emits create/modify/delete/rename.

import { readdirSync, statSync } from "node:fs";
import path from "node:path";
import type { DataWriteOptions, EventRef, FileStats, TAbstractFile, TFile, TFolder, Vault } from "obsidian";
import type { HostDataAdapter } from "./data-adapter";
import { HostEvents } from "./events";

type HostVaultMethods =
	| "configDir"
	| "getName"
	| "getFiles"
	| "getMarkdownFiles"
	| "getAbstractFileByPath"
	| "getFileByPath"
	| "create"
	| "createFolder"
	| "read"
	| "cachedRead"
	| "readBinary"
	| "modify"
	| "delete"
	| "rename"
	| "on";

/**
 * Files and folders are classes so that `instanceof TFile` works in the plugin. As in
 * Obsidian, `name`, `basename` and `extension` are fields, set again when the path changes.
 */
export class HostTAbstractFile implements Pick<TAbstractFile, "path" | "name"> {
	name = "";
	basename = "";
	extension = "";
	private filePath = "";

	constructor(
		readonly vaultRef: HostVault,
		path: string,
	) {
		this.path = path;
	}
	get path(): string {
		return this.filePath;
	}
	set path(value: string) {
		this.filePath = value;
		this.name = value.split("/").pop() ?? value;
		const dot = this.name.lastIndexOf(".");
		this.basename = dot > 0 ? this.name.slice(0, dot) : this.name;
		this.extension = dot > 0 ? this.name.slice(dot + 1) : "";
	}
	get vault(): Vault {
		return this.vaultRef as unknown as Vault;
	}
	get parent(): TFolder | null {
		return null;
	}
}

export class HostTFile extends HostTAbstractFile implements Pick<TFile, "path" | "name" | "basename" | "extension" | "stat"> {
	stat: FileStats = { ctime: 0, mtime: 0, size: 0 };
}

export class HostTFolder extends HostTAbstractFile {
	isRoot(): boolean {
		return this.path === "/";
	}
}

/** The host's files stand in for Obsidian's TFile; the Pick above checks the fields they have. */
function asTFile(file: HostTFile): TFile {
	return file as unknown as TFile;
}

export class HostVault extends HostEvents implements Pick<Vault, HostVaultMethods> {
	private readonly files = new Map<string, HostTFile>();
	/**
	 * The files as Obsidian holds them, in memory, once `indexFiles()` was called: then listing
	 * and looking up cost what they cost in Obsidian, not a walk of the disk (benchmarks).
	 */
	private index: Map<string, HostTFile> | undefined;

	constructor(
		readonly adapter: HostDataAdapter,
		readonly configDir: string,
	) {
		super();
	}

	getName(): string {
		return this.adapter.getName();
	}

	/** Reads the folder once and answers from memory from now on (call again after writing to disk). */
	indexFiles(): void {
		this.index = undefined;
		const files = this.getFiles() as unknown as HostTFile[];
		this.index = new Map(files.map((file) => [file.path, file]));
	}

	/** All files of the vault folder, except the config folder and hidden entries (as Obsidian). */
	getFiles(): TFile[] {
		if (this.index !== undefined) return [...this.index.values()].map(asTFile);
		const found: TFile[] = [];
		const walk = (relative: string) => {
			for (const entry of readdirSync(this.adapter.full(relative || "/"), { withFileTypes: true })) {
				const child = relative ? `${relative}/${entry.name}` : entry.name;
				if (entry.name.startsWith(".") || child === this.configDir) continue;
				if (entry.isDirectory()) walk(child);
				else if (entry.isFile()) found.push(asTFile(this.fileAt(child)));
			}
		};
		walk("");
		return found;
	}

	getMarkdownFiles(): TFile[] {
		return this.getFiles().filter((file) => file.extension === "md");
	}

	/** The note or, for a folder on disk, a TFolder (what file menus are opened on). */
	getAbstractFileByPath(filePath: string): TAbstractFile | null {
		const file = this.getFileByPath(filePath);
		if (file !== null) return file;
		const st = statSync(this.adapter.full(filePath), { throwIfNoEntry: false });
		return st?.isDirectory() ? (new HostTFolder(this, filePath) as unknown as TAbstractFile) : null;
	}

	getFileByPath(filePath: string): TFile | null {
		if (this.index !== undefined) {
			const file = this.index.get(filePath);
			return file === undefined ? null : asTFile(file);
		}
		const st = statSync(this.adapter.full(filePath), { throwIfNoEntry: false });
		return st?.isFile() ? asTFile(this.fileAt(filePath)) : null;
	}

	async create(filePath: string, data: string, _options?: DataWriteOptions): Promise<TFile> {
		if (await this.adapter.exists(filePath)) throw new Error("File already exists.");
		const parent = path.posix.dirname(filePath);
		if (parent !== ".") await this.adapter.mkdir(parent);
		await this.adapter.write(filePath, data);
		const file = asTFile(this.fileAt(filePath));
		this.index?.set(filePath, file as unknown as HostTFile);
		this.trigger("create", file);
		return file;
	}

	/** As Obsidian's: fails when the folder exists; the plugin checks first. */
	async createFolder(folderPath: string): Promise<TFolder> {
		if (await this.adapter.exists(folderPath)) throw new Error("Folder already exists.");
		await this.adapter.mkdir(folderPath);
		return { path: folderPath, name: path.posix.basename(folderPath) } as unknown as TFolder;
	}

	read(file: TFile): Promise<string> {
		return this.adapter.read(file.path);
	}

	cachedRead(file: TFile): Promise<string> {
		return this.adapter.read(file.path);
	}

	readBinary(file: TFile): Promise<ArrayBuffer> {
		return this.adapter.readBinary(file.path);
	}

	/** Obsidian's app settings (`userIgnoreFilters` = "Excluded files"); not in the public typings. */
	readonly config: Record<string, unknown> = {};

	getConfig(key: string): unknown {
		return this.config[key];
	}

	async modify(file: TFile, data: string, _options?: DataWriteOptions): Promise<void> {
		await this.adapter.write(file.path, data);
		this.trigger("modify", this.fileAt(file.path));
	}

	async delete(file: TAbstractFile, _force?: boolean): Promise<void> {
		await this.adapter.remove(file.path);
		const known = this.fileAt(file.path);
		this.files.delete(file.path);
		this.index?.delete(file.path);
		this.trigger("delete", known);
	}

	async rename(file: TAbstractFile, newPath: string): Promise<void> {
		const oldPath = file.path;
		await this.adapter.rename(oldPath, newPath);
		const moved = this.fileAt(oldPath);
		this.files.delete(oldPath);
		this.index?.delete(oldPath);
		moved.path = newPath;
		this.files.set(newPath, moved);
		this.index?.set(newPath, moved);
		this.refreshStat(moved);
		this.trigger("rename", moved, oldPath);
	}

	override on(name: string, callback: (...data: never[]) => unknown, ctx?: unknown): EventRef {
		return super.on(name, callback as (...data: unknown[]) => unknown, ctx);
	}

	/** The one TFile object for `filePath`, with a fresh stat (Obsidian keeps objects stable). */
	private fileAt(filePath: string): HostTFile {
		let file = this.files.get(filePath);
		if (!file) {
			file = new HostTFile(this, filePath);
			this.files.set(filePath, file);
		}
		this.refreshStat(file);
		return file;
	}

	private refreshStat(file: HostTFile): void {
		const st = statSync(this.adapter.full(file.path), { throwIfNoEntry: false });
		if (st) file.stat = { ctime: st.birthtimeMs, mtime: st.mtimeMs, size: st.size };
	}
}
