// The memory browser: memories newest first, filtered by text, source, entity, topic and dates
// in the core, shown 50 at a time (each page asked for when wanted, so 50 or 50,000 memories
// open alike); each can be opened at its source or forgotten; a tab lists insights.

import { ItemView, Notice, type WorkspaceLeaf } from "obsidian";
import { errorMessage } from "../core/core-error";
import type { Insight, Memory, MemoryCursor, MemoryQuery, MemoryStore, SkippedSources } from "../core/memory-core-api";
import { ConfirmModal } from "../modals/confirm-modal";
import { EMPTY_FILTER, KIND_CHOICES, type MemoryFilter, memoryDateLabel, memorySourceLabel, queryOf } from "./memory-filter";
import { placeOf } from "./memory-place";
import type { MemoryPort } from "./memory-port";
import { openSource } from "./open-source";

export const MEMORY_BROWSER_VIEW_TYPE = "memory-agent-browser";

/** Rows asked for at a time; "Show more" asks for the next page. */
export const BROWSER_PAGE_SIZE = 50;

export interface MemoryBrowserDeps {
	memory: MemoryPort;
}

type Tab = "memories" | "insights";

/** What the list shows of one tab: the pages loaded so far and where the next starts. */
interface Loaded<T> {
	items: T[];
	next: MemoryCursor | null;
	/** How many there are in all (for memories: that pass the filters). */
	count: number;
	/** All memories, filtered or not. */
	total: number;
}

/** How many skipped notes the browser names (the status view lists them all). */
const SKIPPED_SHOWN = 3;

const TABS: ReadonlyArray<readonly [Tab, string]> = [
	["memories", "Memories"],
	["insights", "Insights"],
];

/** Numbers the open browsers, so each one's tab and panel ids are its own. */
let browserCount = 0;

export class MemoryBrowserView extends ItemView {
	private filter: MemoryFilter = { ...EMPTY_FILTER };
	private tab: Tab = "memories";
	private memories: Loaded<Memory> | undefined;
	/** Notes that are not remembered (a refusal, binary, too large), with their reasons. */
	private skipped: SkippedSources | undefined;
	private insights: Loaded<Insight> | undefined;
	/** The memories the shown insights cite, by id. */
	private readonly cited = new Map<string, Memory>();
	/** Bumped by every reload, so an answer that arrives late is dropped. */
	private generation = 0;
	private summaryEl!: HTMLElement;
	private filtersEl!: HTMLElement;
	private listEl!: HTMLElement;
	private tabButtons = new Map<Tab, HTMLElement>();

	constructor(
		leaf: WorkspaceLeaf,
		private readonly deps: MemoryBrowserDeps,
	) {
		super(leaf);
		this.icon = "library";
	}

	getViewType(): string {
		return MEMORY_BROWSER_VIEW_TYPE;
	}

	getDisplayText(): string {
		return "Memory browser";
	}

	override getIcon(): string {
		return "library";
	}

	override async onOpen(): Promise<void> {
		const root = this.contentEl;
		root.empty();
		root.addClass("memory-agent-browser");
		const header = root.createDiv({ cls: "memory-agent-browser-header" });
		// The WAI-ARIA tabs pattern: one tab stop (the selected tab), arrows and Home/End move
		// between the tabs and select them, and the list is the panel they control.
		const ids = `memory-agent-browser-${++browserCount}`;
		const panelId = `${ids}-panel`;
		const tabs = header.createDiv({ cls: "memory-agent-tabs", attr: { role: "tablist", "aria-label": "Memory browser" } });
		for (const [tab, label] of TABS) {
			const selected = tab === this.tab;
			const button = tabs.createEl("button", {
				cls: "memory-agent-tab",
				text: label,
				attr: { role: "tab", id: `${ids}-tab-${tab}`, "data-tab": tab, "aria-controls": panelId, "aria-selected": selected, tabindex: selected ? 0 : -1 },
			});
			button.addEventListener("click", () => this.showTab(tab));
			this.tabButtons.set(tab, button);
		}
		tabs.addEventListener("keydown", (event) => this.onTabKey(event));
		this.summaryEl = header.createDiv({ cls: "memory-agent-browser-summary" });
		header.createEl("button", { cls: "memory-agent-refresh", text: "Refresh" }).addEventListener("click", () => void this.reload());
		this.filtersEl = root.createDiv({ cls: "memory-agent-filters" });
		this.buildFilters(this.filtersEl);
		this.listEl = root.createDiv({ cls: "memory-agent-browser-list", attr: { id: panelId, role: "tabpanel", "aria-labelledby": `${ids}-tab-${this.tab}` } });
		void this.reload();
	}

	override async onClose(): Promise<void> {
		this.contentEl.empty();
	}

	/** Asks the store for the first page of the open tab again, and renders it. */
	async reload(): Promise<void> {
		const generation = ++this.generation;
		const store = this.deps.memory.store();
		if (store === undefined) {
			this.memories = undefined;
			this.insights = undefined;
			this.render(this.deps.memory.describe());
			return;
		}
		try {
			if (this.tab === "memories") {
				const page = await store.browseMemories(this.query(null));
				const skipped = await store.listSkipped(SKIPPED_SHOWN);
				if (generation !== this.generation) return;
				this.skipped = skipped;
				this.memories = { items: page.memories, next: page.next, count: page.matching ?? page.total, total: page.total };
			} else {
				const page = await store.browseInsights(null, BROWSER_PAGE_SIZE);
				const cited = await store.getMemories(unique(page.insights.flatMap((insight) => insight.memory_ids)));
				if (generation !== this.generation) return;
				this.cited.clear();
				for (const memory of cited) this.cited.set(memory.id, memory);
				this.insights = { items: page.insights, next: page.next, count: page.total, total: page.total };
			}
		} catch (error) {
			if (generation === this.generation) this.render(`Memory Agent: ${errorMessage(error)}`);
			return;
		}
		this.render();
	}

	private query(before: MemoryCursor | null): MemoryQuery {
		return { ...queryOf(this.filter), before, limit: BROWSER_PAGE_SIZE };
	}

	/** Appends the next page of the open tab. */
	private async showMore(store: MemoryStore): Promise<void> {
		const generation = this.generation;
		if (this.tab === "memories" && this.memories?.next != null) {
			const page = await store.browseMemories(this.query(this.memories.next));
			if (generation !== this.generation || this.memories === undefined) return;
			this.memories = { ...this.memories, items: [...this.memories.items, ...page.memories], next: page.next };
		} else if (this.tab === "insights" && this.insights?.next != null) {
			const page = await store.browseInsights(this.insights.next, BROWSER_PAGE_SIZE);
			const cited = await store.getMemories(unique(page.insights.flatMap((insight) => insight.memory_ids)));
			if (generation !== this.generation || this.insights === undefined) return;
			for (const memory of cited) this.cited.set(memory.id, memory);
			this.insights = { ...this.insights, items: [...this.insights.items, ...page.insights], next: page.next };
		}
		this.render();
	}

	private showTab(tab: Tab): void {
		this.tab = tab;
		this.markTabs();
		void this.reload();
	}

	/** Arrow keys (wrapping), Home and End move the focus to a tab and select it. */
	private onTabKey(event: KeyboardEvent): void {
		const order = TABS.map(([tab]) => tab);
		const at = order.indexOf(this.tab);
		const moves: Record<string, number> = { ArrowRight: at + 1, ArrowLeft: at - 1 + order.length, Home: 0, End: order.length - 1 };
		const move = moves[event.key];
		if (move === undefined) return;
		const next = order[move % order.length];
		if (next === undefined) return;
		event.preventDefault();
		this.tabButtons.get(next)?.focus();
		if (next !== this.tab) this.showTab(next);
	}

	/** The selected tab is marked, is the one tab stop, and labels the panel. */
	private markTabs(): void {
		for (const [tab, button] of this.tabButtons) {
			const selected = tab === this.tab;
			button.toggleClass("is-active", selected);
			button.setAttr("aria-selected", selected);
			button.setAttr("tabindex", selected ? 0 : -1);
			if (selected) this.listEl.setAttr("aria-labelledby", button.id);
		}
	}

	private buildFilters(container: HTMLElement): void {
		const field = (key: keyof MemoryFilter, label: string, type: "search" | "text" | "date", cls: string) => {
			const wrap = container.createEl("label", { cls: ["memory-agent-filter", cls] });
			wrap.createSpan({ cls: "memory-agent-filter-label", text: label });
			const input = wrap.createEl("input", { type, attr: { "data-filter": key, "aria-label": label } });
			input.addEventListener("input", () => {
				this.filter = { ...this.filter, [key]: input.value };
				void this.reload();
			});
		};
		field("text", "Search", "search", "is-wide");
		field("source", "Note", "text", "is-narrow");
		field("entity", "Person, place or thing", "text", "is-narrow");
		field("topic", "Topic", "text", "is-narrow");
		field("from", "From", "date", "is-date");
		field("to", "To", "date", "is-date");
		this.kindFilter(container);
	}

	/** All, notes, PDFs or images: the core's `fileKind` filter. */
	private kindFilter(container: HTMLElement): void {
		const wrap = container.createEl("label", { cls: ["memory-agent-filter", "is-narrow"] });
		wrap.createSpan({ cls: "memory-agent-filter-label", text: "Kind" });
		const select = wrap.createEl("select", { cls: "dropdown", attr: { "data-filter": "kind", "aria-label": "Kind" } });
		for (const choice of KIND_CHOICES) select.createEl("option", { text: choice.label, value: choice.value });
		select.addEventListener("change", () => {
			const choice = KIND_CHOICES.find((candidate) => candidate.value === select.value);
			this.filter = { ...this.filter, kind: choice?.value ?? "" };
			void this.reload();
		});
	}

	private render(unavailable?: string): void {
		this.markTabs();
		this.filtersEl.toggleClass("memory-agent-hidden", this.tab !== "memories");
		this.listEl.empty();
		if (unavailable !== undefined) {
			this.summaryEl.setText("");
			this.listEl.createDiv({ cls: "memory-agent-empty", text: unavailable });
			return;
		}
		if (this.tab === "memories") this.renderMemories();
		else this.renderInsights();
	}

	private renderMemories(): void {
		const loaded = this.memories;
		if (loaded === undefined) return;
		const { count, total } = loaded;
		this.summaryEl.setText(
			count === total ? `${total.toLocaleString()} ${total === 1 ? "memory" : "memories"}` : `${count.toLocaleString()} of ${total.toLocaleString()} memories`,
		);
		this.renderSkipped();
		if (loaded.items.length === 0) {
			this.listEl.createDiv({
				cls: "memory-agent-empty",
				text: total === 0 ? "No memories yet. Use “Remember selection” or “Remember current note now” to add some." : "No memory matches these filters.",
			});
			return;
		}
		for (const memory of loaded.items) this.renderMemory(memory);
		this.moreButton(loaded);
	}

	/** A line naming the notes that are not remembered and why (all of them: in the status view). */
	private renderSkipped(): void {
		const skipped = this.skipped;
		if (skipped === undefined || skipped.total === 0) return;
		const named = skipped.sources.map((source) => `${source.path} (${source.skipped ?? "skipped"})`).join("; ");
		const more = skipped.total > skipped.sources.length ? `, and ${(skipped.total - skipped.sources.length).toLocaleString()} more` : "";
		const notes = skipped.total === 1 ? "1 note is" : `${skipped.total.toLocaleString()} notes are`;
		this.listEl.createDiv({ cls: "memory-agent-skipped-note", text: `${notes} not remembered: ${named}${more}. "Show memory status" lists them all.` });
	}

	/** "Show more", while the store has more than is shown. */
	private moreButton(loaded: Loaded<unknown>): void {
		const store = this.deps.memory.store();
		if (loaded.next === null || store === undefined) return;
		const left = Math.max(loaded.count - loaded.items.length, 0);
		const more = this.listEl.createEl("button", { cls: "memory-agent-show-more", text: `Show more (${left.toLocaleString()} left)` });
		more.addEventListener("click", () => void this.showMore(store));
	}

	private renderMemory(memory: Memory): void {
		const card = this.listEl.createDiv({ cls: "memory-agent-memory", attr: { "data-memory-id": memory.id } });
		card.createDiv({ cls: "memory-agent-memory-summary", text: memory.summary });
		if (memory.facts.length > 0) {
			const facts = card.createEl("ul", { cls: "memory-agent-memory-facts" });
			for (const fact of memory.facts) facts.createEl("li", { text: fact });
		}
		const meta = card.createDiv({ cls: "memory-agent-memory-meta" });
		const date = memoryDateLabel(memory);
		meta.createSpan({ cls: "memory-agent-memory-date", text: date.text, attr: { title: date.title, "data-date-source": memory.happened_on === null ? "undated" : memory.date_source } });
		meta.createSpan({ cls: "memory-agent-memory-source", text: memorySourceLabel(memory), attr: { "data-file-kind": memory.fileKind } });
		meta.createSpan({ cls: "memory-agent-memory-importance", text: `Importance ${memory.importance.toFixed(1)}`, attr: { title: "How much this matters (0 to 1), as judged when it was remembered" } });
		if (memory.entities.length > 0 || memory.topics.length > 0) {
			const chips = card.createDiv({ cls: "memory-agent-chips" });
			for (const entity of memory.entities) {
				chips.createSpan({ cls: ["memory-agent-chip", "is-entity"], text: entity.name, attr: { title: entity.kind } });
			}
			for (const topic of memory.topics) chips.createSpan({ cls: ["memory-agent-chip", "is-topic"], text: `#${topic}` });
		}
		const actions = card.createDiv({ cls: "memory-agent-memory-actions" });
		if (memory.source_path !== "") {
			actions.createEl("button", { cls: "memory-agent-open-source", text: "Open source" }).addEventListener("click", () => void openSource(this.app, placeOf(memory)));
		}
		actions.createEl("button", { cls: "mod-warning memory-agent-forget", text: "Forget" }).addEventListener("click", () => this.confirmForget(memory));
	}

	private renderInsights(): void {
		const loaded = this.insights;
		if (loaded === undefined) return;
		const count = loaded.total;
		this.summaryEl.setText(`${count.toLocaleString()} ${count === 1 ? "insight" : "insights"}`);
		if (count === 0) {
			this.listEl.createDiv({ cls: "memory-agent-empty", text: "No insights yet. They appear once memories are consolidated (the “Consolidate now” command)." });
			return;
		}
		for (const insight of loaded.items) {
			const card = this.listEl.createDiv({ cls: "memory-agent-insight", attr: { "data-insight-id": insight.id } });
			card.createDiv({ cls: "memory-agent-memory-summary", text: insight.insight });
			const list = card.createEl("ul", { cls: "memory-agent-insight-sources" });
			for (const id of insight.memory_ids) {
				const item = list.createEl("li");
				const memory = this.cited.get(id);
				if (memory === undefined) {
					item.createSpan({ cls: "memory-agent-source-where", text: "A memory that is no longer stored" });
					continue;
				}
				const link = item.createEl("a", { cls: "memory-agent-source-link", text: memory.summary, href: "#" });
				link.addEventListener("click", (event) => {
					event.preventDefault();
					void openSource(this.app, placeOf(memory));
				});
				item.createSpan({ cls: "memory-agent-source-where", text: memory.source_path === "" ? "typed text" : memory.source_path });
			}
		}
		this.moreButton(loaded);
	}

	private confirmForget(memory: Memory): void {
		new ConfirmModal(this.app, {
			title: "Forget this memory?",
			message: `“${memory.summary}” will be removed from memory, with any insight built on it (insights are made again from the memories that remain). The note itself is not changed.`,
			confirmLabel: "Forget",
			onConfirm: () => void this.forget(memory.id),
		}).open();
	}

	private async forget(id: string): Promise<void> {
		const { memory } = this.deps;
		const store = memory.store();
		if (store === undefined) {
			new Notice(memory.describe());
			return;
		}
		try {
			const removal = await store.forgetMemory(id);
			memory.changed();
			memory.kick();
			const insights = removal.consolidations.length;
			new Notice(insights === 0 ? "Forgot the memory." : `Forgot the memory and ${insights} ${insights === 1 ? "insight" : "insights"} built on it.`);
		} catch (error) {
			new Notice(`Memory Agent: ${errorMessage(error)}`);
		}
		await this.reload();
	}
}

function unique(ids: string[]): string[] {
	return [...new Set(ids)];
}
