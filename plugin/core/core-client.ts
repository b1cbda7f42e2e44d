// The main thread's side of the core's worker: calls with ids and promises, the host's
// answers to what the core asks (HTTP, vault reads), the core's events, and a watchdog that
// notices a worker that stopped answering.

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
import type { TimerPort } from "../storage/save-scheduler";
import { ErrorCode } from "./core-error";

/** What the main thread does for the core. */
export type HostHandlers = { [M in keyof HostMethods]: (...args: Parameters<HostMethods[M]>) => Promise<ReturnType<HostMethods[M]>> };

/** A worker (or a test's stand-in): the protocol's channel, and a way to end it. */
export interface WorkerLike extends MessageChannelEnd {
	terminate(): void;
	onerror?: ((event: { message?: string }) => void) | null;
}

type Listener<E extends CoreEvent> = (data: CoreEvents[E]) => void;

/**
 * How the client notices a worker that stopped answering: while calls wait, it pings the
 * worker now and then; the worker answers a ping at once unless it is stuck in a computation
 * (a model call waits on the network, not on the worker, so it never holds a ping back).
 */
export interface WatchdogOptions {
	timers: TimerPort;
	/** Called once the worker was ended for not answering; waiting calls have failed with `worker.unresponsive`. */
	onUnresponsive(): void;
	pingEveryMs?: number;
	answerWithinMs?: number;
}

/** While calls wait, the worker is pinged this often… */
export const PING_EVERY_MS = 5_000;
/** …and ended when a ping is not answered within this long. */
export const ANSWER_WITHIN_MS = 30_000;

export class CoreClient {
	private nextId = 1;
	private readonly pending = new Map<number, { resolve(value: unknown): void; reject(error: Error): void }>();
	private readonly listeners = new Map<CoreEvent, Set<(data: unknown) => void>>();
	private ended: Error | undefined;
	/** Set at unload: from then on the core's requests for HTTP are refused here. */
	private sendingRefused = false;
	/** The next ping, or the deadline of the ping in flight. */
	private watchTimer: unknown;
	private pinging = false;

	constructor(
		private readonly worker: WorkerLike,
		private readonly host: HostHandlers,
		private readonly watchdog?: WatchdogOptions,
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
			this.watch();
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
		this.end(Object.assign(new Error("Memory Agent was stopped."), { code: ErrorCode.workerStopped }));
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

	/** While calls wait, pings the worker after a while (the next call starts again when it is idle). */
	private watch(): void {
		const watchdog = this.watchdog;
		if (watchdog === undefined || this.ended !== undefined || this.pinging || this.watchTimer !== undefined) return;
		this.watchTimer = watchdog.timers.setTimeout(() => {
			this.watchTimer = undefined;
			this.ping(watchdog);
		}, watchdog.pingEveryMs ?? PING_EVERY_MS);
	}

	private ping(watchdog: WatchdogOptions): void {
		if (this.pending.size === 0 || this.ended !== undefined) return;
		this.pinging = true;
		this.watchTimer = watchdog.timers.setTimeout(() => this.unresponsive(watchdog), watchdog.answerWithinMs ?? ANSWER_WITHIN_MS);
		const answered = () => {
			watchdog.timers.clearTimeout(this.watchTimer);
			this.watchTimer = undefined;
			this.pinging = false;
		};
		this.call("ping").then(
			() => {
				answered();
				this.watch();
			},
			answered,
		);
	}

	/** The worker did not answer a ping in time: it is ended, and whoever started it told. */
	private unresponsive(watchdog: WatchdogOptions): void {
		this.watchTimer = undefined;
		if (this.ended !== undefined) return;
		const error = new Error("Memory Agent's worker stopped answering, so it was restarted: try again in a moment.");
		this.end(Object.assign(error, { code: ErrorCode.workerUnresponsive }));
		this.worker.terminate();
		watchdog.onUnresponsive();
	}

	private end(error: Error): void {
		if (this.ended !== undefined) return;
		this.ended = error;
		if (this.watchTimer !== undefined) this.watchdog?.timers.clearTimeout(this.watchTimer);
		this.watchTimer = undefined;
		for (const waiting of this.pending.values()) waiting.reject(error);
		this.pending.clear();
	}
}
