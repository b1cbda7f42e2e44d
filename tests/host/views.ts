// Obsidian's leaves, views, modals, menus, editor and MarkdownRenderer for the hosts, rendering
// into the host DOM. No Node dependency: the browser harness uses these classes too.

import type {
	App,
	Component,
	Editor,
	EditorPosition,
	EditorSelection,
	ItemView,
	MarkdownRenderer,
	Menu,
	MenuItem,
	Modal,
	OpenViewState,
	TFile,
	View,
	ViewState,
	WorkspaceLeaf,
} from "obsidian";
import type { Fluent } from "./api-types";
import { renderMarkdown } from "./markdown";
import type { HostWorkspace, LeafSide } from "./workspace";

export interface ViewContext {
	app: App;
	document: Document;
	workspace: HostWorkspace;
	/** The host's Component class (views and menus are components). */
	Component: new () => unknown;
}

export function createViewClasses(ctx: ViewContext) {
	const ComponentBase = ctx.Component as unknown as new () => Component & { loadAsync?(): Promise<void> };

	/** A leaf: a place in the workspace that shows one view (or a note, recorded as opened). */
	class HostWorkspaceLeaf implements Fluent<WorkspaceLeaf, "openFile" | "open" | "getViewState" | "setViewState" | "detach"> {
		readonly containerEl: HTMLElement;
		view: View | undefined;
		/** The note shown in this leaf, when it shows one. */
		file: TFile | null = null;

		constructor(readonly side: LeafSide) {
			this.containerEl = ctx.workspace.areaEl(side).createDiv({ cls: "workspace-leaf" });
		}

		async setViewState(viewState: ViewState): Promise<void> {
			const creator = ctx.workspace.viewCreator(viewState.type);
			if (creator === undefined) throw new Error(`No view type ${viewState.type} is registered`);
			await this.open(creator(this as unknown as WorkspaceLeaf));
		}

		getViewState(): ViewState {
			return { type: this.view?.getViewType() ?? (this.file ? "markdown" : "empty") };
		}

		async open(view: View): Promise<View> {
			await this.closeView();
			this.view = view;
			this.file = null;
			this.containerEl.appendChild(view.containerEl);
			view.load();
			await (view as unknown as { onOpen(): Promise<void> }).onOpen();
			return view;
		}

		/** Opens a note; the host records which note and at what line (`eState.line`). */
		async openFile(file: TFile, openState?: OpenViewState): Promise<void> {
			await this.closeView();
			this.file = file;
			const line = openState?.eState?.line;
			ctx.workspace.recordOpened({ path: file.path, line: typeof line === "number" ? line : undefined, leaf: this });
		}

		detach(): void {
			void this.closeView();
			this.containerEl.remove();
			ctx.workspace.removeLeaf(this);
		}

		/** Closes the view (Obsidian does this when a plugin's view type goes away). */
		async closeView(): Promise<void> {
			const view = this.view;
			if (view === undefined) return;
			this.view = undefined;
			await (view as unknown as { onClose(): Promise<void> }).onClose();
			view.unload();
			view.containerEl.remove();
		}
	}

	abstract class HostView extends ComponentBase implements Pick<View, "app" | "icon" | "navigation" | "leaf" | "containerEl" | "getViewType" | "getDisplayText" | "getIcon"> {
		app: App = ctx.app;
		icon = "";
		navigation = false;
		readonly containerEl: HTMLElement;

		constructor(readonly leaf: WorkspaceLeaf) {
			super();
			this.containerEl = ctx.document.createElement("div");
			this.containerEl.addClass("workspace-leaf-content");
		}
		abstract getViewType(): string;
		abstract getDisplayText(): string;
		getIcon(): string {
			return this.icon;
		}
		protected async onOpen(): Promise<void> {}
		protected async onClose(): Promise<void> {}
	}

	abstract class HostItemView extends HostView implements Pick<ItemView, "contentEl"> {
		readonly contentEl: HTMLElement;
		readonly headerEl: HTMLElement;

		constructor(leaf: WorkspaceLeaf) {
			super(leaf);
			this.headerEl = this.containerEl.createDiv({ cls: "view-header" });
			this.contentEl = this.containerEl.createDiv({ cls: "view-content" });
		}
		override load(): void {
			super.load();
			this.containerEl.setAttr("data-type", this.getViewType());
			this.headerEl.empty();
			this.headerEl.createDiv({ cls: "view-header-title", text: this.getDisplayText() });
		}
	}

	class HostModal implements Fluent<Modal, "app" | "containerEl" | "modalEl" | "titleEl" | "contentEl" | "open" | "close" | "onOpen" | "onClose" | "setTitle" | "setContent"> {
		readonly containerEl: HTMLElement;
		readonly modalEl: HTMLElement;
		readonly titleEl: HTMLElement;
		readonly contentEl: HTMLElement;
		isOpen = false;

		constructor(readonly app: App) {
			this.containerEl = ctx.document.createElement("div");
			this.containerEl.addClass("modal-container");
			this.containerEl.createDiv({ cls: "modal-bg" });
			this.modalEl = this.containerEl.createDiv({ cls: "modal" });
			this.titleEl = this.modalEl.createDiv({ cls: "modal-title" });
			this.contentEl = this.modalEl.createDiv({ cls: "modal-content" });
		}
		open(): void {
			ctx.document.body.appendChild(this.containerEl);
			this.isOpen = true;
			void this.onOpen();
		}
		close(): void {
			if (!this.isOpen) return;
			this.isOpen = false;
			this.containerEl.remove();
			this.onClose();
		}
		onOpen(): Promise<void> | void {}
		onClose(): void {}
		setTitle(title: string): this {
			this.titleEl.setText(title);
			return this;
		}
		setContent(content: string | DocumentFragment): this {
			this.contentEl.setText(content);
			return this;
		}
	}

	class HostMenuItem implements Fluent<MenuItem, "setTitle" | "setIcon" | "onClick" | "setDisabled" | "setChecked" | "setWarning" | "setIsLabel" | "setSection"> {
		title = "";
		icon: string | null = null;
		private callback: ((evt: MouseEvent | KeyboardEvent) => unknown) | undefined;
		setTitle(title: string | DocumentFragment): this {
			this.title = typeof title === "string" ? title : (title.textContent ?? "");
			return this;
		}
		setIcon(icon: string | null): this {
			this.icon = icon;
			return this;
		}
		setDisabled(): this {
			return this;
		}
		setChecked(): this {
			return this;
		}
		setWarning(): this {
			return this;
		}
		setIsLabel(): this {
			return this;
		}
		setSection(): this {
			return this;
		}
		onClick(callback: (evt: MouseEvent | KeyboardEvent) => unknown): this {
			this.callback = callback;
			return this;
		}
		/** Test helper: what a click on the item does. */
		click(): unknown {
			return this.callback?.(new (ctx.document.defaultView as unknown as typeof globalThis).MouseEvent("click") as MouseEvent);
		}
	}

	class HostMenu extends ComponentBase implements Fluent<Menu, "addItem" | "addSeparator" | "hide" | "close" | "setNoIcon" | "setUseNativeMenu"> {
		readonly items: HostMenuItem[] = [];
		addItem(callback: (item: MenuItem) => unknown): this {
			const item = new HostMenuItem();
			this.items.push(item);
			callback(item as unknown as MenuItem);
			return this;
		}
		addSeparator(): this {
			return this;
		}
		setNoIcon(): this {
			return this;
		}
		setUseNativeMenu(): this {
			return this;
		}
		showAtMouseEvent(): this {
			return this;
		}
		showAtPosition(): this {
			return this;
		}
		hide(): this {
			return this;
		}
		close(): void {}
		/** Test helper: the item titled `title`. */
		item(title: string): HostMenuItem | undefined {
			return this.items.find((item) => item.title === title);
		}
	}

	const HostMarkdownRenderer: Pick<typeof MarkdownRenderer, "render"> = {
		render(_app: App, markdown: string, el: HTMLElement, _sourcePath: string, _component: Component): Promise<void> {
			renderMarkdown(el, markdown);
			return Promise.resolve();
		},
	};

	return {
		WorkspaceLeaf: HostWorkspaceLeaf,
		View: HostView,
		ItemView: HostItemView,
		Modal: HostModal,
		Menu: HostMenu,
		MenuItem: HostMenuItem,
		MarkdownRenderer: HostMarkdownRenderer,
	};
}

export type ViewClasses = ReturnType<typeof createViewClasses>;

/** A text editor over a string with one selection (what editor commands read). */
export class HostEditor implements Pick<Editor, "getValue" | "getLine" | "lineCount" | "lastLine" | "getSelection" | "somethingSelected" | "getCursor" | "listSelections" | "replaceSelection"> {
	private lines: string[];

	constructor(
		text: string,
		private from: EditorPosition = { line: 0, ch: 0 },
		private to: EditorPosition = from,
	) {
		this.lines = text.split("\n");
	}

	/** An editor whose selection is the first occurrence of `selected` in `text`. */
	static selecting(text: string, selected: string): HostEditor {
		const at = text.indexOf(selected);
		if (at < 0) throw new Error(`"${selected}" is not in the text`);
		return new HostEditor(text, positionAt(text, at), positionAt(text, at + selected.length));
	}

	getValue(): string {
		return this.lines.join("\n");
	}
	getLine(line: number): string {
		return this.lines[line] ?? "";
	}
	lineCount(): number {
		return this.lines.length;
	}
	lastLine(): number {
		return this.lines.length - 1;
	}
	getSelection(): string {
		const { from, to } = this;
		if (from.line === to.line) return this.getLine(from.line).slice(from.ch, to.ch);
		const middle = this.lines.slice(from.line + 1, to.line);
		return [this.getLine(from.line).slice(from.ch), ...middle, this.getLine(to.line).slice(0, to.ch)].join("\n");
	}
	somethingSelected(): boolean {
		return this.getSelection() !== "";
	}
	getCursor(side: "from" | "to" | "head" | "anchor" = "head"): EditorPosition {
		return side === "from" || side === "anchor" ? { ...this.from } : { ...this.to };
	}
	listSelections(): EditorSelection[] {
		return [{ anchor: { ...this.from }, head: { ...this.to } }];
	}
	/** Replaces the selection (or inserts at the cursor) with `text`; the cursor goes after it. */
	replaceSelection(text: string): void {
		const value = this.getValue();
		const offset = (position: EditorPosition) => this.lines.slice(0, position.line).reduce((sum, line) => sum + line.length + 1, 0) + position.ch;
		const [start, end] = [offset(this.from), offset(this.to)];
		const next = value.slice(0, start) + text + value.slice(end);
		this.lines = next.split("\n");
		this.from = positionAt(next, start + text.length);
		this.to = this.from;
	}
}

function positionAt(text: string, offset: number): EditorPosition {
	const before = text.slice(0, offset).split("\n");
	return { line: before.length - 1, ch: before[before.length - 1]?.length ?? 0 };
}
