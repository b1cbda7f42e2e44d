// The "Memory status" view: how much of the vault is remembered, what waits (and when its next
// try is), failed or was skipped (with the reason), today's tokens and estimated cost, and
// pause/resume/retry.

import { ItemView, type WorkspaceLeaf } from "obsidian";
import type { MemoryStore } from "../core/memory-core-api";
import type { NoteCoverage } from "../ui/status-text";
import { formatUsd } from "../vault/bulk-estimate";
import { failedRow, queuedRow } from "./job-rows";

export const STATUS_VIEW_TYPE = "memory-agent-status";

/** How many rows each list shows; the rest are counted. */
const LIST_LIMIT = 100;

/** What the view needs, instead of the plugin. */
export interface StatusViewPort {
	store(): MemoryStore | undefined;
	/** Why there is no store (starting, unavailable). */
	describe(): string;
	databasePath(): string;
	/** Remembered notes out of the notes in scope, counted now; null before the first reconciliation. */
	coverage(): Promise<NoteCoverage | null>;
	/** Notes the core leaves out (by path, properties or tags), with its reason. */
	leftOut(): ReadonlyMap<string, string>;
	/** Calls `listener` when the counts change; returns the unsubscribe function. */
	onChange(listener: () => void): () => void;
	/** The store was changed by a button: save, refresh, run. */
	changed(): void;
}

function count(n: number, one: string, many: string): string {
	return `${n.toLocaleString()} ${n === 1 ? one : many}`;
}

/** Local date as YYYY-MM-DD (the core's usage days are the user's days). */
export function localDay(date: Date): string {
	const pad = (n: number) => String(n).padStart(2, "0");
	return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}`;
}

export class StatusView extends ItemView {
	private unsubscribe: (() => void) | undefined;
	private generation = 0;

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
		this.unsubscribe = this.port.onChange(() => void this.render());
		await this.render();
	}

	override async onClose(): Promise<void> {
		this.unsubscribe?.();
		this.unsubscribe = undefined;
	}

	/** Asks the store for what the view shows, then draws it (a newer render wins). */
	async render(): Promise<void> {
		const generation = ++this.generation;
		const store = this.port.store();
		const shown = store === undefined ? undefined : await this.read(store).catch(() => undefined);
		if (generation !== this.generation) return;
		const root = this.contentEl;
		root.empty();
		root.addClass("memory-agent-status-view");
		root.createEl("h4", { text: "Memory status" });
		if (store === undefined || shown === undefined) {
			root.createEl("p", { text: this.port.describe() });
			return;
		}
		const { status, usage, queued, failed, skipped, coverage } = shown;
		const summary = root.createDiv({ cls: "memory-agent-status-summary" });
		summary.createEl("p", {
			text:
				coverage === null
					? "Checking the vault's notes…"
					: `${coverage.remembered.toLocaleString()} of ${coverage.inScope.toLocaleString()} notes remembered.`,
		});
		summary.createEl("p", {
			text: `${count(status.memories, "memory", "memories")}, ${count(status.insights, "insight", "insights")}. Jobs: ${status.queued.toLocaleString()} queued, ${status.running.toLocaleString()} running, ${status.failed.toLocaleString()} failed.`,
		});
		if (status.current !== null) summary.createEl("p", { text: `Working on ${status.current}` });
		if (status.paused !== null) summary.createEl("p", { cls: "memory-agent-status-paused", text: `Paused: ${status.paused}` });
		if (status.modelFallback !== null) summary.createEl("p", { cls: "memory-agent-status-model-fallback", text: status.modelFallback });
		const tokens = usage.total.inputTokens + usage.total.outputTokens + usage.total.cacheReadTokens + usage.total.cacheWriteTokens;
		const cost = usage.estimatedCostUsd < 0.01 ? formatUsd(usage.estimatedCostUsd) : `about ${formatUsd(usage.estimatedCostUsd)}`;
		const price = usage.priceKnown ? `at the prices of ${usage.modelId}` : `at the highest Claude price: the price of ${usage.modelId} is not known`;
		summary.createEl("p", {
			text: `Today: ${count(tokens, "token", "tokens")} in ${count(usage.calls, "model call", "model calls")}, ${cost} (an estimate ${price}).`,
		});
		const limits = [
			usage.dailyLimitUsd > 0 ? `$${usage.spentTodayUsd.toFixed(2)} of today's $${usage.dailyLimitUsd.toFixed(2)}` : null,
			usage.monthlyLimitUsd > 0 ? `$${usage.spentThisMonthUsd.toFixed(2)} of this month's $${usage.monthlyLimitUsd.toFixed(2)}` : null,
		].filter((part) => part !== null);
		if (limits.length > 0) summary.createEl("p", { cls: "memory-agent-status-limits", text: `Spending limits: ${limits.join("; ")}.` });
		summary.createEl("p", { cls: "memory-agent-status-muted", text: `Schema version ${status.schemaVersion}. Database: ${this.port.databasePath()}` });

		const buttons = root.createDiv({ cls: "memory-agent-status-buttons" });
		this.button(buttons, "Retry failed", status.failed === 0, () => store.retryFailed(true));
		this.button(buttons, "Pause", status.pausedByUser, () => store.pause());
		this.button(buttons, "Resume", status.paused === null, () => store.resume());

		const now = Date.now();
		this.list(root, "Queued", status.queued, queued.map((job) => queuedRow(job, now)));
		this.list(root, "Failed", status.failed, failed.map(failedRow));
		this.list(root, "Skipped", skipped.total, skipped.sources.map((source) => ({ path: source.path, reason: source.skipped ?? "" })));
		// The core's decisions and its reasons (memory: no/off/false, tags, folders, patterns, Obsidian's filters).
		const leftOut = this.port.leftOut();
		const excluded: Array<{ path: string; reason: string }> = [];
		for (const [path, reason] of leftOut) {
			if (excluded.length === LIST_LIMIT) break;
			excluded.push({ path, reason });
		}
		this.list(root, "Left out by your settings", leftOut.size, excluded);
	}

	/** Everything one render shows, asked for at once; each list at most `LIST_LIMIT` long. */
	private async read(store: MemoryStore) {
		const today = localDay(new Date());
		const [status, usage, queued, failed, skipped, coverage] = await Promise.all([
			store.status(),
			store.usage(today, today),
			store.listJobs("queued", LIST_LIMIT),
			store.listJobs("failed", LIST_LIMIT),
			store.listSkipped(LIST_LIMIT),
			this.port.coverage(),
		]);
		return { status, usage, queued, failed, skipped, coverage };
	}

	private button(parent: HTMLElement, text: string, disabled: boolean, action: () => Promise<unknown>): void {
		const button = parent.createEl("button", { text });
		button.disabled = disabled;
		button.addEventListener("click", () => {
			void action().then(() => {
				this.port.changed();
				return this.render();
			});
		});
	}

	/** A titled list of at most `LIST_LIMIT` rows out of `total`. */
	private list(parent: HTMLElement, title: string, total: number, rows: Array<{ path: string; reason?: string }>): void {
		const section = parent.createDiv({ cls: "memory-agent-status-section" });
		section.dataset.section = title;
		section.createEl("h5", { text: `${title} (${total.toLocaleString()})` });
		if (rows.length === 0) return;
		const list = section.createEl("ul");
		for (const row of rows.slice(0, LIST_LIMIT)) {
			const item = list.createEl("li");
			item.createSpan({ cls: "memory-agent-status-path", text: row.path });
			if (row.reason !== undefined) item.createSpan({ cls: "memory-agent-status-reason", text: ` — ${row.reason}` });
		}
		const more = total - Math.min(rows.length, LIST_LIMIT);
		if (more > 0) section.createEl("p", { cls: "memory-agent-status-muted", text: `…and ${more.toLocaleString()} more.` });
	}
}
