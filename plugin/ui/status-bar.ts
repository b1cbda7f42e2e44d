// The status bar item: shows whether the memory is starting, ready (with counts) or unavailable.

import type { StoreStatus } from "../core/memory-core-api";
import { STATUS_STARTING, STATUS_UNAVAILABLE, statusBarText } from "./status-text";

export class StatusBar {
	constructor(private readonly el: HTMLElement) {
		el.addClass("memory-agent-status");
		this.showStarting();
	}

	showStarting(): void {
		this.set(STATUS_STARTING, false, "Memory Agent is starting");
	}

	showStatus(status: StoreStatus): void {
		this.set(statusBarText(status), false, "Memory Agent");
	}

	/** `reason` is shown as the item's tooltip. */
	showUnavailable(reason: string): void {
		this.set(STATUS_UNAVAILABLE, true, reason);
	}

	private set(text: string, unavailable: boolean, label: string): void {
		this.el.setText(text);
		this.el.toggleClass("is-unavailable", unavailable);
		this.el.setAttr("aria-label", label);
	}
}
