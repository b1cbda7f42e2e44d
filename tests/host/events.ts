// Obsidian's Events: named callbacks, with EventRefs that a Component can unregister.

import type { EventRef, Events } from "obsidian";

type Callback = (...data: unknown[]) => unknown;

export interface HostEventRef extends EventRef {
	events: HostEvents;
	name: string;
	callback: Callback;
	ctx: unknown;
}

export class HostEvents implements Events {
	private readonly handlers = new Map<string, HostEventRef[]>();

	on(name: string, callback: Callback, ctx?: unknown): EventRef {
		const ref: HostEventRef = { events: this, name, callback, ctx };
		this.handlers.set(name, [...(this.handlers.get(name) ?? []), ref]);
		return ref;
	}

	off(name: string, callback: Callback): void {
		this.handlers.set(name, (this.handlers.get(name) ?? []).filter((ref) => ref.callback !== callback));
	}

	offref(ref: EventRef): void {
		const { name } = ref as HostEventRef;
		this.handlers.set(name, (this.handlers.get(name) ?? []).filter((other) => other !== ref));
	}

	trigger(name: string, ...data: unknown[]): void {
		for (const ref of this.handlers.get(name) ?? []) this.tryTrigger(ref, data);
	}

	tryTrigger(evt: EventRef, args: unknown[]): void {
		const ref = evt as HostEventRef;
		try {
			ref.callback.apply(ref.ctx, args);
		} catch (error) {
			// Obsidian logs a failing handler and goes on with the others.
			console.error(error);
		}
	}

	/** How many handlers are registered for `name` (to check that unload removed them). */
	listenerCount(name: string): number {
		return this.handlers.get(name)?.length ?? 0;
	}
}
