// Obsidian's leaves, views, modals, menus, editor and MarkdownRenderer for the hosts, rendering
// into the host DOM. No Node dependency: the browser harness uses these classes too.

import type {
	App,
	Component,
	Editor,
	EditorPosition,
	FuzzyMatch,
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

	/**
	 * Obsidian's suggester: an input over a list of `.suggestion-item`s, filtered as one types;
	 * a click or Enter (the first) closes it and hands over the choice, as Obsidian does.
	 */
	abstract class HostSuggestModal<T> extends HostModal {
		limit = 100;
		emptyStateText = "No results found.";
		readonly inputEl: HTMLInputElement;
		readonly resultContainerEl: HTMLElement;
		private shown: T[] = [];

		constructor(app: App) {
			super(app);
			this.modalEl.addClass("prompt");
			this.inputEl = this.modalEl.createEl("input", { cls: "prompt-input", attr: { type: "text" } });
			this.resultContainerEl = this.modalEl.createDiv({ cls: "prompt-results" });
			this.inputEl.addEventListener("input", () => void this.hostShow());
			this.inputEl.addEventListener("keydown", (event) => {
				if (event.key === "Enter") this.selectActiveSuggestion(event);
				if (event.key === "Escape") this.close();
			});
		}
		setPlaceholder(placeholder: string): void {
			this.inputEl.placeholder = placeholder;
		}
		setInstructions(): void {}
		onNoSuggestion(): void {
			this.resultContainerEl.createDiv({ cls: "suggestion-empty", text: this.emptyStateText });
		}
		override open(): void {
			super.open();
			void this.hostShow();
			this.inputEl.focus();
		}
		selectSuggestion(value: T, evt: MouseEvent | KeyboardEvent): void {
			this.close();
			this.onChooseSuggestion(value, evt);
		}
		selectActiveSuggestion(evt: MouseEvent | KeyboardEvent): void {
			const first = this.shown[0];
			if (first !== undefined) this.selectSuggestion(first, evt);
		}
		private async hostShow(): Promise<void> {
			const found = (await this.getSuggestions(this.inputEl.value)).slice(0, this.limit);
			this.shown = found;
			this.resultContainerEl.empty();
			if (found.length === 0) this.onNoSuggestion();
			for (const value of found) {
				const el = this.resultContainerEl.createDiv({ cls: "suggestion-item" });
				this.renderSuggestion(value, el);
				el.addEventListener("click", (event) => this.selectSuggestion(value, event));
			}
		}
		abstract getSuggestions(query: string): T[] | Promise<T[]>;
		abstract renderSuggestion(value: T, el: HTMLElement): void;
		abstract onChooseSuggestion(item: T, evt: MouseEvent | KeyboardEvent): void;
	}

	/** Obsidian's fuzzy suggester: the items whose text holds the query's characters in order, the tightest first. */
	abstract class HostFuzzySuggestModal<T> extends HostSuggestModal<FuzzyMatch<T>> {
		getSuggestions(query: string): Array<FuzzyMatch<T>> {
			const wanted = query.toLowerCase().replace(/\s+/g, "");
			const matches: Array<FuzzyMatch<T>> = [];
			for (const item of this.getItems()) {
				const score = fuzzyScore(this.getItemText(item).toLowerCase(), wanted);
				if (score !== null) matches.push({ item, match: { score, matches: [] } });
			}
			return matches.sort((a, b) => b.match.score - a.match.score);
		}
		renderSuggestion(value: FuzzyMatch<T>, el: HTMLElement): void {
			el.setText(this.getItemText(value.item));
		}
		onChooseSuggestion(value: FuzzyMatch<T>, evt: MouseEvent | KeyboardEvent): void {
			this.onChooseItem(value.item, evt);
		}
		abstract getItems(): T[];
		abstract getItemText(item: T): string;
		abstract onChooseItem(item: T, evt: MouseEvent | KeyboardEvent): void;
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
		private shownEl: HTMLElement | null = null;
		showAtMouseEvent(): this {
			return this.hostShow();
		}
		showAtPosition(): this {
			return this.hostShow();
		}
		/** Draws the menu as `.menu` with a `.menu-item` per item; a click runs the item and closes it. */
		private hostShow(): this {
			this.close();
			const menuEl = ctx.document.body.createDiv({ cls: "menu", attr: { role: "menu" } });
			for (const item of this.items) {
				const itemEl = menuEl.createDiv({ cls: "menu-item", text: item.title, attr: { role: "menuitem", tabindex: "0" } });
				itemEl.addEventListener("click", () => {
					this.close();
					item.click();
				});
			}
			this.shownEl = menuEl;
			return this;
		}
		hide(): this {
			this.close();
			return this;
		}
		close(): void {
			this.shownEl?.remove();
			this.shownEl = null;
		}
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
		SuggestModal: HostSuggestModal,
		FuzzySuggestModal: HostFuzzySuggestModal,
		Menu: HostMenu,
		MenuItem: HostMenuItem,
		MarkdownRenderer: HostMarkdownRenderer,
	};
}

export type ViewClasses = ReturnType<typeof createViewClasses>;

/** The fuzzy score of `text` for `query` (lower case): higher when the characters sit closer; null when they are not all there in order. */
function fuzzyScore(text: string, query: string): number | null {
	let at = 0;
	let gaps = 0;
	for (const char of query) {
		const found = text.indexOf(char, at);
		if (found < 0) return null;
		gaps += found - at;
		at = found + 1;
	}
	return -gaps - text.length / 1_000;
}

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
