// Obsidian's Workspace, reduced to what plugins use at start-up: layout-ready callbacks and events.

import type { EventRef, OpenViewState, PaneType, TFile, ViewCreator, Workspace, WorkspaceLeaf } from "obsidian";
import { HostEvents } from "./events";

/** Where a leaf lives: the main area or the right sidebar. */
export type LeafSide = "main" | "right";

/** A leaf as the workspace sees it (the class is in views.ts, bound to a host's DOM). */
export interface HostLeaf {
	readonly side: LeafSide;
	readonly view: { getViewType(): string } | undefined;
	file: TFile | null;
	closeView(): Promise<void>;
}

/** A note the plugin opened: by link text (`openLinkText`) or by file (`leaf.openFile`). */
export interface OpenedNote {
	path: string;
	/** The part after `#` of a link text (a heading chain or block id). */
	subpath?: string;
	/** `eState.line` of `openFile`. */
	line?: number;
	leaf?: unknown;
}

export class HostWorkspace extends HostEvents implements Pick<Workspace, "layoutReady" | "onLayoutReady" | "on" | "getLeavesOfType" | "getRightLeaf" | "getLeaf" | "revealLeaf" | "openLinkText" | "getActiveFile"> {
	layoutReady = false;
	private waiting: Array<() => unknown> = [];

	/** Runs `callback` once the layout is ready: at once (next task) when it already is. */
	onLayoutReady(callback: () => unknown): void {
		if (this.layoutReady) setTimeout(callback, 0);
		else this.waiting.push(callback);
	}

	/** What Obsidian does after all plugins loaded and the workspace was restored. */
	fireLayoutReady(): void {
		if (this.layoutReady) return;
		this.layoutReady = true;
		const callbacks = this.waiting;
		this.waiting = [];
		for (const callback of callbacks) callback();
		this.trigger("layout-ready");
	}

	override on(name: string, callback: (...data: never[]) => unknown, ctx?: unknown): EventRef {
		return super.on(name, callback as (...data: unknown[]) => unknown, ctx);
	}

	// Leaves and views (additive): enough for plugins that open side panels and notes.

	/** Every note opened, in order. */
	readonly opened: OpenedNote[] = [];
	readonly leaves: HostLeaf[] = [];
	/** Leaves passed to revealLeaf, in order. */
	readonly revealed: HostLeaf[] = [];
	private readonly viewCreators = new Map<string, ViewCreator>();
	private leafFactory: ((side: LeafSide) => HostLeaf) | undefined;
	private readonly areas = new Map<LeafSide, HTMLElement>();
	private activeFile: TFile | null = null;
	/** Finds a vault file by path, for link texts. */
	fileByPath: (path: string) => TFile | null = () => null;

	/** Gives the workspace its DOM areas and a way to make leaves (the host does this when it loads a plugin). */
	attachLeaves(areas: Record<LeafSide, HTMLElement>, factory: (side: LeafSide) => HostLeaf): void {
		this.areas.set("main", areas.main);
		this.areas.set("right", areas.right);
		this.leafFactory = factory;
	}

	areaEl(side: LeafSide): HTMLElement {
		const area = this.areas.get(side);
		if (area === undefined) throw new Error("The workspace has no DOM yet");
		return area;
	}

	registerViewType(type: string, creator: ViewCreator): void {
		if (this.viewCreators.has(type)) throw new Error(`View type ${type} is already registered`);
		this.viewCreators.set(type, creator);
	}

	/** Obsidian closes the views of a type when it is unregistered (the plugin unloads). */
	unregisterViewType(type: string): void {
		this.viewCreators.delete(type);
		for (const leaf of this.getHostLeavesOfType(type)) void leaf.closeView();
	}

	viewCreator(type: string): ViewCreator | undefined {
		return this.viewCreators.get(type);
	}

	getLeavesOfType(viewType: string): WorkspaceLeaf[] {
		return this.getHostLeavesOfType(viewType) as unknown as WorkspaceLeaf[];
	}

	getHostLeavesOfType(viewType: string): HostLeaf[] {
		return this.leaves.filter((leaf) => leaf.view?.getViewType() === viewType);
	}

	getRightLeaf(_split: boolean): WorkspaceLeaf | null {
		return this.newLeaf("right") as unknown as WorkspaceLeaf;
	}

	/** A new leaf for true/"tab"/"split"/"window"; else the main area's first leaf (made when there is none). */
	getLeaf(newLeaf?: PaneType | boolean): WorkspaceLeaf {
		const existing = this.leaves.find((leaf) => leaf.side === "main");
		const leaf = newLeaf === undefined || newLeaf === false || existing === undefined ? (existing ?? this.newLeaf("main")) : this.newLeaf("main");
		return leaf as unknown as WorkspaceLeaf;
	}

	revealLeaf(leaf: WorkspaceLeaf): Promise<void> {
		this.revealed.push(leaf as unknown as HostLeaf);
		return Promise.resolve();
	}

	/** Records the note and subpath; the note must exist (as Obsidian, which would otherwise create it). */
	openLinkText(linktext: string, _sourcePath: string, newLeaf?: PaneType | boolean, _openViewState?: OpenViewState): Promise<void> {
		const hash = linktext.indexOf("#");
		const target = hash < 0 ? linktext : linktext.slice(0, hash);
		const subpath = hash < 0 ? undefined : linktext.slice(hash + 1);
		const path = /\.[a-z0-9]+$/i.test(target) ? target : `${target}.md`;
		const file = this.fileByPath(path);
		if (file === null) return Promise.reject(new Error(`openLinkText: no note ${path}`));
		const leaf = this.getLeaf(newLeaf) as unknown as HostLeaf;
		void leaf.closeView();
		leaf.file = file;
		this.recordOpened({ path, subpath, leaf });
		return Promise.resolve();
	}

	recordOpened(opened: OpenedNote): void {
		this.opened.push(opened);
		this.activeFile = this.fileByPath(opened.path);
	}

	getActiveFile(): TFile | null {
		return this.activeFile;
	}

	/** Makes `file` the active note (as if the user had clicked its tab). */
	setActiveFile(file: TFile | null): void {
		this.activeFile = file;
	}

	removeLeaf(leaf: HostLeaf): void {
		const index = this.leaves.indexOf(leaf);
		if (index >= 0) this.leaves.splice(index, 1);
	}

	private newLeaf(side: LeafSide): HostLeaf {
		if (this.leafFactory === undefined) throw new Error("The workspace has no DOM yet");
		const leaf = this.leafFactory(side);
		this.leaves.push(leaf);
		return leaf;
	}
}
