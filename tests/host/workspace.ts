// Obsidian's Workspace, reduced to what plugins use at start-up: layout-ready callbacks and events.

import type { EventRef, Workspace } from "obsidian";
import { HostEvents } from "./events";

export class HostWorkspace extends HostEvents implements Pick<Workspace, "layoutReady" | "onLayoutReady" | "on"> {
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
}
