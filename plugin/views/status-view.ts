// The "Memory status" view: how much of the vault is remembered, what waits, failed or was
// skipped (with the reason), today's tokens and estimated cost, and pause/resume/retry.

import { ItemView, type WorkspaceLeaf } from "obsidian";
import type { MemoryStore } from "../core/memory-core-api";
import type { NoteCoverage } from "../ui/status-text";

export const STATUS_VIEW_TYPE = "memory-agent-status";

/** How many rows each list shows; the rest are counted. */
const LIST_LIMIT = 100;

/** What the view needs, instead of the plugin. */
export interface StatusViewPort {
	store(): MemoryStore | undefined;
	/** Why there is no store (starting, unavailable). */
	describe(): string;
	databasePath(): string;
	coverage(): NoteCoverage | null;
	/** Notes left out because of their properties or tags, with the reason. */
	excludedByContent(): ReadonlyMap<string, string>;
	/** Calls `listener` when the counts change; returns the unsubscribe function. */
	onChange(listener: () => void): () => void;
	/** The store was changed by a button: save, refresh, run. */
	changed(): void;
}

/** Local date as YYYY-MM-DD (the core's usage days are the user's days). */
export function localDay(date: Date): string {
	const pad = (n: number) => String(n).padStart(2, "0");
	return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}`;
}

function jobPath(job: { key: string; payload: unknown }): string {
	const payload = job.payload as { path?: unknown; sourcePath?: unknown } | null;
	if (typeof payload?.path === "string") return payload.path;
	if (job.key === "consolidate") return "Finding connections between memories";
	if (typeof payload?.sourcePath === "string" && payload.sourcePath !== "") return `Selected text from ${payload.sourcePath}`;
	return "Typed text";
}

export class StatusView extends ItemView {
	private unsubscribe: (() => void) | undefined;

	constructor(
		leaf: WorkspaceLeaf,
		private readonly port: StatusViewPort,
	) {
		super(leaf);
		this.icon = "brain";
	}

	getViewType(): string {
		return STATUS_VIEW_TYPE;
	}

	getDisplayText(): string {
		return "Memory status";
	}

	override async onOpen(): Promise<void> {
		this.unsubscribe = this.port.onChange(() => this.render());
		this.render();
	}

	override async onClose(): Promise<void> {
		this.unsubscribe?.();
		this.unsubscribe = undefined;
	}

	render(): void {
		const root = this.contentEl;
		root.empty();
		root.addClass("memory-agent-status-view");
		root.createEl("h4", { text: "Memory status" });
		const store = this.port.store();
		if (store === undefined) {
			root.createEl("p", { text: this.port.describe() });
			return;
		}
		const status = store.status();
		const summary = root.createDiv({ cls: "memory-agent-status-summary" });
		const coverage = this.port.coverage();
		summary.createEl("p", {
			text:
				coverage === null
					? "Checking the vault's notes…"
					: `${coverage.remembered.toLocaleString()} of ${coverage.inScope.toLocaleString()} notes remembered.`,
		});
		summary.createEl("p", {
			text: `${status.memories.toLocaleString()} memories, ${status.insights.toLocaleString()} insights. Jobs: ${status.queued.toLocaleString()} queued, ${status.running.toLocaleString()} running, ${status.failed.toLocaleString()} failed.`,
		});
		if (status.current !== null) summary.createEl("p", { text: `Working on ${status.current}` });
		if (status.paused !== null) summary.createEl("p", { cls: "memory-agent-status-paused", text: `Paused: ${status.paused}` });
		const today = localDay(new Date());
		const usage = store.usage(today, today);
		const tokens = usage.total.inputTokens + usage.total.outputTokens + usage.total.cacheReadTokens + usage.total.cacheWriteTokens;
		summary.createEl("p", {
			text: `Today: ${tokens.toLocaleString()} tokens in ${usage.calls.toLocaleString()} model calls, about $${usage.estimatedCostUsd.toFixed(2)} (an estimate).`,
		});
		summary.createEl("p", { cls: "memory-agent-status-muted", text: `Schema version ${status.schemaVersion}. Database: ${this.port.databasePath()}` });

		const buttons = root.createDiv({ cls: "memory-agent-status-buttons" });
		this.button(buttons, "Retry failed", status.failed === 0, () => store.retryFailed());
		this.button(buttons, "Pause", status.pausedByUser, () => store.pause());
		this.button(buttons, "Resume", status.paused === null, () => store.resume());

		this.list(root, "Queued", store.listJobs("queued").map((job) => ({ path: jobPath(job) })));
		this.list(root, "Failed", store.listJobs("failed").map((job) => ({ path: jobPath(job), reason: job.last_error ?? "Unknown error" })));
		const skipped = store.listSources().filter((source) => source.skipped !== null);
		this.list(root, "Skipped", skipped.map((source) => ({ path: source.path, reason: source.skipped ?? "" })));
		this.list(root, "Left out by your settings", [...this.port.excludedByContent()].map(([path, reason]) => ({ path, reason })));
	}

	private button(parent: HTMLElement, text: string, disabled: boolean, action: () => unknown): void {
		const button = parent.createEl("button", { text });
		button.disabled = disabled;
		button.addEventListener("click", () => {
			action();
			this.port.changed();
			this.render();
		});
	}

	private list(parent: HTMLElement, title: string, rows: Array<{ path: string; reason?: string }>): void {
		const section = parent.createDiv({ cls: "memory-agent-status-section" });
		section.dataset.section = title;
		section.createEl("h5", { text: `${title} (${rows.length.toLocaleString()})` });
		if (rows.length === 0) return;
		const list = section.createEl("ul");
		for (const row of rows.slice(0, LIST_LIMIT)) {
			const item = list.createEl("li");
			item.createSpan({ cls: "memory-agent-status-path", text: row.path });
			if (row.reason !== undefined) item.createSpan({ cls: "memory-agent-status-reason", text: ` — ${row.reason}` });
		}
		if (rows.length > LIST_LIMIT) section.createEl("p", { cls: "memory-agent-status-muted", text: `…and ${(rows.length - LIST_LIMIT).toLocaleString()} more.` });
	}
}
