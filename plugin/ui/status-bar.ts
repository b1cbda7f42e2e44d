// The status bar item: shows whether the memory is starting, ready (with counts) or unavailable.

import type { StoreStatus } from "../core/memory-core-api";
import { type NoteCoverage, STATUS_STARTING, STATUS_UNAVAILABLE, statusBarLabel, statusBarText } from "./status-text";

export class StatusBar {
	private lastStatus: StoreStatus | null = null;
	/** Other elements showing the same line (the ask panel's, on a phone without a status bar). */
	private readonly mirrors = new Set<HTMLElement>();
	private selectHandler: (() => void) | undefined;
	private shown = { text: "", unavailable: false, label: "" };
	private coverage: () => NoteCoverage | null = () => null;
	private statusListener: (() => void) | undefined;
	/** Why paid work waits (another program is remembering the vault), or null. */
	private heldBy: string | null = null;
	/** Percent of the start's replay done, while it runs. */
	private replaying: number | null = null;

	constructor(private readonly el: HTMLElement) {
		el.addClass("memory-agent-status");
		this.showStarting();
	}

	showStarting(): void {
		this.lastStatus = null;
		this.set(STATUS_STARTING, false, "Memory Agent is starting");
	}

	showStatus(status: StoreStatus): void {
		this.lastStatus = status;
		this.render(status);
		this.statusListener?.();
	}

	/** Shows that paid work waits, and why (null: it no longer does). */
	showHeldBy(reason: string | null): void {
		this.heldBy = reason;
		this.refresh();
	}

	/** Shows how far the start's reading of the devices' logs is (null: it is not running). Questions are answered meanwhile, from what was read so far. */
	showReplay(progress: { doneBytes: number; totalBytes: number } | null): void {
		this.replaying =
			progress === null || progress.totalBytes === 0 ? null : Math.min(99, Math.floor((progress.doneBytes / progress.totalBytes) * 100));
		this.refresh();
	}

	/** `reason` is shown as the item's tooltip. */
	showUnavailable(reason: string): void {
		this.lastStatus = null;
		this.set(STATUS_UNAVAILABLE, true, reason);
	}

	/**
	 * Adds the notes' coverage to the text; `onStatus` hears of every new status (so the
	 * coverage can be recounted), and `refresh()` shows a recount without a new status.
	 */
	showCoverage(coverage: () => NoteCoverage | null, onStatus: () => void): void {
		this.coverage = coverage;
		this.statusListener = onStatus;
		this.refresh();
	}

	refresh(): void {
		if (this.lastStatus !== null) this.render(this.lastStatus);
	}

	/** Selecting the item calls `handler` (opens the status view). */
	onSelect(handler: () => void): void {
		this.selectHandler = handler;
		this.makeButton(this.el);
	}

	/** Shows the same line in `el` too, as a button when the item is one; returns the undo. */
	mirror(el: HTMLElement): () => void {
		this.mirrors.add(el);
		this.paint(el);
		if (this.selectHandler !== undefined) this.makeButton(el);
		return () => this.mirrors.delete(el);
	}

	/** A button for keyboards and screen readers too. */
	private makeButton(el: HTMLElement): void {
		el.addClass("mod-clickable");
		el.setAttr("role", "button");
		el.setAttr("tabindex", "0");
		el.addEventListener("click", () => this.selectHandler?.());
		el.addEventListener("keydown", (event) => {
			if (event.key === "Enter" || event.key === " ") {
				event.preventDefault();
				this.selectHandler?.();
			}
		});
	}

	private render(status: StoreStatus): void {
		const label = statusBarLabel(status);
		const reading = this.replaying === null ? "" : ` · reading memory ${this.replaying}%`;
		const readingLabel = this.replaying === null ? "" : `Reading the memory other devices wrote: ${this.replaying}%. Questions are answered from what was read so far. `;
		if (this.heldBy === null) this.set(`${statusBarText(status, this.coverage())}${reading}`, false, `${readingLabel}${label}`);
		else this.set(`${statusBarText(status, this.coverage())}${reading} · waiting`, false, `${readingLabel}${this.heldBy}. ${label}`);
	}

	private set(text: string, unavailable: boolean, label: string): void {
		this.shown = { text, unavailable, label };
		this.paint(this.el);
		for (const mirror of this.mirrors) this.paint(mirror);
	}

	private paint(el: HTMLElement): void {
		el.setText(this.shown.text);
		el.toggleClass("is-unavailable", this.shown.unavailable);
		el.setAttr("aria-label", this.shown.label);
	}
}
