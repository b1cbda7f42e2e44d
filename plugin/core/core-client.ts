// The main thread's side of the core's worker: calls with ids and promises, the host's
// answers to what the core asks (HTTP, vault reads), and the core's events.

import {
	type CoreArgs,
	type CoreEvent,
	type CoreEvents,
	type CoreMethod,
	type CoreResult,
	type FromWorker,
	type HostMethods,
	type MessageChannelEnd,
	type ToWorker,
	fromWireError,
	toWireError,
	transferablesOf,
} from "../worker/protocol";

/** What the main thread does for the core. */
export type HostHandlers = { [M in keyof HostMethods]: (...args: Parameters<HostMethods[M]>) => Promise<ReturnType<HostMethods[M]>> };

/** A worker (or a test's stand-in): the protocol's channel, and a way to end it. */
export interface WorkerLike extends MessageChannelEnd {
	terminate(): void;
	onerror?: ((event: { message?: string }) => void) | null;
}

type Listener<E extends CoreEvent> = (data: CoreEvents[E]) => void;

export class CoreClient {
	private nextId = 1;
	private readonly pending = new Map<number, { resolve(value: unknown): void; reject(error: Error): void }>();
	private readonly listeners = new Map<CoreEvent, Set<(data: unknown) => void>>();
	private ended: Error | undefined;
	/** Set at unload: from then on the core's requests for HTTP are refused here. */
	private sendingRefused = false;

	constructor(
		private readonly worker: WorkerLike,
		private readonly host: HostHandlers,
	) {
		worker.onmessage = (event) => this.receive(event.data as FromWorker);
		worker.onerror = (event) => this.end(new Error(`The memory worker failed: ${event.message ?? "unknown error"}`));
	}

	/** Calls the core; the promise settles with its result or its error (with `code`). */
	call<M extends CoreMethod>(method: M, ...args: CoreArgs<M>): Promise<CoreResult<M>> {
		if (this.ended !== undefined) return Promise.reject(this.ended);
		const id = this.nextId++;
		return new Promise((resolve, reject) => {
			this.pending.set(id, { resolve: resolve, reject });
			const message: ToWorker = { kind: "call", id, method, args };
			this.worker.postMessage(message, args.flatMap(transferablesOf));
		});
	}

	/** Calls `listener` with each event of that kind; returns the unsubscribe function. */
	on<E extends CoreEvent>(event: E, listener: Listener<E>): () => void {
		let set = this.listeners.get(event);
		if (set === undefined) this.listeners.set(event, (set = new Set()));
		set.add(listener as (data: unknown) => void);
		return () => set.delete(listener as (data: unknown) => void);
	}

	/**
	 * From now on no request the core asks for is sent (unload): whatever the worker still
	 * does, nothing more leaves the device. Vault reads are still answered (they stay local).
	 */
	refuseSending(): void {
		this.sendingRefused = true;
	}

	/** Calls that have not answered yet. */
	get inFlight(): number {
		return this.pending.size;
	}

	/** Ends the worker at once: whatever it was doing stops; waiting calls fail. */
	terminate(): void {
		this.end(Object.assign(new Error("Memory Agent was stopped."), { code: "worker.stopped" }));
		this.worker.terminate();
	}

	private receive(message: FromWorker): void {
		switch (message.kind) {
			case "result": {
				const waiting = this.pending.get(message.id);
				this.pending.delete(message.id);
				if (waiting === undefined) return;
				if (message.ok) waiting.resolve(message.value);
				else waiting.reject(fromWireError(message.error));
				return;
			}
			case "event":
				for (const listener of this.listeners.get(message.event) ?? []) listener(message.data);
				return;
			case "host":
				void this.answerHost(message.id, message.method, message.args);
				return;
		}
	}

	private async answerHost(id: number, method: keyof HostMethods, args: unknown[]): Promise<void> {
		let reply: ToWorker;
		let transfer: Transferable[] = [];
		try {
			if (method === "send" && this.sendingRefused) {
				throw Object.assign(new Error("Memory Agent was stopped: nothing more is sent."), { code: "stopped" });
			}
			const handler = this.host[method] as (...values: unknown[]) => Promise<unknown>;
			const value = await handler(...args);
			reply = { kind: "reply", id, ok: true, value };
			transfer = transferablesOf(value);
		} catch (error) {
			reply = { kind: "reply", id, ok: false, error: toWireError(error) };
		}
		if (this.ended === undefined) this.worker.postMessage(reply, transfer);
	}

	private end(error: Error): void {
		if (this.ended !== undefined) return;
		this.ended = error;
		for (const waiting of this.pending.values()) waiting.reject(error);
		this.pending.clear();
	}
}
