// The memory browser: every memory newest first, filtered by text, source, entity, topic and
// dates, shown 50 at a time; each can be opened at its source or forgotten; a tab lists insights.

import { ItemView, Notice, type WorkspaceLeaf } from "obsidian";
import { errorMessage } from "../core/core-error";
import type { Insight, Memory } from "../core/memory-core-api";
import { ConfirmModal } from "../modals/confirm-modal";
import { EMPTY_FILTER, type MemoryFilter, matchesFilter, memoryDate } from "./memory-filter";
import { loadAllMemories, placeOf } from "./memory-index";
import type { MemoryPort } from "./memory-port";
import { openSource } from "./open-source";

export const MEMORY_BROWSER_VIEW_TYPE = "memory-agent-browser";

/** Rows rendered at a time; "Show more" adds the next page. */
export const BROWSER_PAGE_SIZE = 50;
const INSIGHT_PAGE = 200;

export interface MemoryBrowserDeps {
	memory: MemoryPort;
}

type Tab = "memories" | "insights";

export class MemoryBrowserView extends ItemView {
	private memories: Memory[] = [];
	private memoriesById = new Map<string, Memory>();
	private insights: Insight[] = [];
	private filter: MemoryFilter = { ...EMPTY_FILTER };
	private shown = BROWSER_PAGE_SIZE;
	private tab: Tab = "memories";
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
		const tabs = header.createDiv({ cls: "memory-agent-tabs", attr: { role: "tablist" } });
		for (const [tab, label] of [["memories", "Memories"], ["insights", "Insights"]] as const) {
			const button = tabs.createEl("button", { cls: "memory-agent-tab", text: label, attr: { role: "tab", "data-tab": tab } });
			button.addEventListener("click", () => this.showTab(tab));
			this.tabButtons.set(tab, button);
		}
		this.summaryEl = header.createDiv({ cls: "memory-agent-browser-summary" });
		header.createEl("button", { cls: "memory-agent-refresh", text: "Refresh" }).addEventListener("click", () => this.reload());
		this.filtersEl = root.createDiv({ cls: "memory-agent-filters" });
		this.buildFilters(this.filtersEl);
		this.listEl = root.createDiv({ cls: "memory-agent-browser-list" });
		this.reload();
	}

	override async onClose(): Promise<void> {
		this.contentEl.empty();
	}

	/** Reads the memories and insights again from the store and renders them. */
	reload(): void {
		const store = this.deps.memory.store();
		if (store === undefined) {
			this.memories = [];
			this.insights = [];
			this.memoriesById.clear();
			this.render(this.deps.memory.describe());
			return;
		}
		this.memories = loadAllMemories(store);
		this.memoriesById = new Map(this.memories.map((memory) => [memory.id, memory]));
		this.insights = [];
		for (let offset = 0; ; offset += INSIGHT_PAGE) {
			const page = store.listInsights(INSIGHT_PAGE, offset);
			this.insights.push(...page);
			if (page.length < INSIGHT_PAGE) break;
		}
		this.render();
	}

	private showTab(tab: Tab): void {
		this.tab = tab;
		this.render();
	}

	private buildFilters(container: HTMLElement): void {
		const field = (key: keyof MemoryFilter, label: string, type: "search" | "text" | "date", cls: string) => {
			const wrap = container.createEl("label", { cls: ["memory-agent-filter", cls] });
			wrap.createSpan({ cls: "memory-agent-filter-label", text: label });
			const input = wrap.createEl("input", { type, attr: { "data-filter": key, "aria-label": label } });
			input.addEventListener("input", () => {
				this.filter = { ...this.filter, [key]: input.value };
				this.shown = BROWSER_PAGE_SIZE;
				this.render();
			});
		};
		field("text", "Search", "search", "is-wide");
		field("source", "Note", "text", "is-narrow");
		field("entity", "Person, place or thing", "text", "is-narrow");
		field("topic", "Topic", "text", "is-narrow");
		field("from", "From", "date", "is-date");
		field("to", "To", "date", "is-date");
	}

	private render(unavailable?: string): void {
		for (const [tab, button] of this.tabButtons) {
			button.toggleClass("is-active", tab === this.tab);
			button.setAttr("aria-selected", tab === this.tab);
		}
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
		const matching = this.memories.filter((memory) => matchesFilter(memory, this.filter));
		const total = this.memories.length;
		this.summaryEl.setText(
			matching.length === total ? `${total.toLocaleString()} ${total === 1 ? "memory" : "memories"}` : `${matching.length.toLocaleString()} of ${total.toLocaleString()} memories`,
		);
		if (matching.length === 0) {
			this.listEl.createDiv({
				cls: "memory-agent-empty",
				text: total === 0 ? "No memories yet. Use “Remember selection” or “Remember current note now” to add some." : "No memory matches these filters.",
			});
			return;
		}
		for (const memory of matching.slice(0, this.shown)) this.renderMemory(memory);
		if (matching.length > this.shown) {
			const more = this.listEl.createEl("button", {
				cls: "memory-agent-show-more",
				text: `Show more (${(matching.length - this.shown).toLocaleString()} left)`,
			});
			more.addEventListener("click", () => {
				this.shown += BROWSER_PAGE_SIZE;
				this.render();
			});
		}
	}

	private renderMemory(memory: Memory): void {
		const card = this.listEl.createDiv({ cls: "memory-agent-memory", attr: { "data-memory-id": memory.id } });
		card.createDiv({ cls: "memory-agent-memory-summary", text: memory.summary });
		const meta = card.createDiv({ cls: "memory-agent-memory-meta" });
		meta.createSpan({ cls: "memory-agent-memory-date", text: memoryDate(memory) });
		const source = memory.source_path === "" ? "Typed text" : memory.position.heading === null ? memory.source_path : `${memory.source_path} › ${memory.position.heading}`;
		meta.createSpan({ cls: "memory-agent-memory-source", text: source });
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
		const count = this.insights.length;
		this.summaryEl.setText(`${count.toLocaleString()} ${count === 1 ? "insight" : "insights"}`);
		if (count === 0) {
			this.listEl.createDiv({ cls: "memory-agent-empty", text: "No insights yet. They appear once memories are consolidated (the “Consolidate now” command)." });
			return;
		}
		for (const insight of this.insights) {
			const card = this.listEl.createDiv({ cls: "memory-agent-insight", attr: { "data-insight-id": insight.id } });
			card.createDiv({ cls: "memory-agent-memory-summary", text: insight.insight });
			const list = card.createEl("ul", { cls: "memory-agent-insight-sources" });
			for (const id of insight.memory_ids) {
				const item = list.createEl("li");
				const memory = this.memoriesById.get(id);
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
	}

	private confirmForget(memory: Memory): void {
		new ConfirmModal(this.app, {
			title: "Forget this memory?",
			message: `“${memory.summary}” will be removed from memory, with any insight built on it (insights are made again from the memories that remain). The note itself is not changed.`,
			confirmLabel: "Forget",
			onConfirm: () => this.forget(memory.id),
		}).open();
	}

	private forget(id: string): void {
		const { memory } = this.deps;
		const store = memory.store();
		if (store === undefined) {
			new Notice(memory.describe());
			return;
		}
		try {
			const removal = store.forgetMemory(id);
			memory.changed();
			memory.kick();
			const insights = removal.consolidations.length;
			new Notice(insights === 0 ? "Forgot the memory." : `Forgot the memory and ${insights} ${insights === 1 ? "insight" : "insights"} built on it.`);
		} catch (error) {
			new Notice(`Memory Agent: ${errorMessage(error)}`);
		}
		this.reload();
	}
}
