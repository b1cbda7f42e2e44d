// The status bar item: shows whether the memory is starting, ready (with counts) or unavailable.

import type { StoreStatus } from "../core/memory-core-api";
import { type NoteCoverage, STATUS_STARTING, STATUS_UNAVAILABLE, statusBarLabel, statusBarText } from "./status-text";

export class StatusBar {
	private lastStatus: StoreStatus | null = null;
	private coverage: () => NoteCoverage | null = () => null;
	private statusListener: (() => void) | undefined;

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
		this.el.addClass("mod-clickable");
		// A button for keyboards and screen readers too.
		this.el.setAttr("role", "button");
		this.el.setAttr("tabindex", "0");
		this.el.addEventListener("click", handler);
		this.el.addEventListener("keydown", (event) => {
			if (event.key === "Enter" || event.key === " ") {
				event.preventDefault();
				handler();
			}
		});
	}

	private render(status: StoreStatus): void {
		this.set(statusBarText(status, this.coverage()), false, statusBarLabel(status));
	}

	private set(text: string, unavailable: boolean, label: string): void {
		this.el.setText(text);
		this.el.toggleClass("is-unavailable", unavailable);
		this.el.setAttr("aria-label", label);
	}
}
