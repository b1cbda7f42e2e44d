// Web Workers for the headless host: the plugin's `new Worker(blobUrl)` runs the very script
// it put in the Blob, in a real Node worker thread, behind the Web Worker API.

import { resolveObjectURL } from "node:buffer";
import { Worker as ThreadWorker } from "node:worker_threads";
import { type VirtualClock, virtualDateSource } from "./clock";

/** Calls that wait on the model or the network: `settle()` does not wait for them. */
const LONG_CALLS = new Set(["runDueWork", "ask", "testConnection"]);

/** Every worker the host's plugin started, so tests can look at them and the host can wait for them. */
export class HostWorkers {
	readonly started: HostWorker[] = [];
	/** Timers in the worker run this many times faster (tests of retries and backoff). */
	timeScale = 1;
	/** A virtual clock for the worker's `Date` and timers (set by the host, with its own). */
	clock: VirtualClock | undefined;

	/** The `Worker` constructor of the plugin's realm. */
	get constructorForRealm(): new (url: string, options?: { name?: string }) => HostWorker {
		// eslint-disable-next-line @typescript-eslint/no-this-alias
		const workers = this;
		return class extends HostWorker {
			constructor(url: string, options?: { name?: string }) {
				super(url, workers.clock?.scale ?? workers.timeScale, options?.name, workers.clock);
				workers.started.push(this);
			}
		};
	}

	/** True while a short call to a worker, or a vault read for one, is unanswered. */
	get busy(): boolean {
		return this.started.some((worker) => worker.busy);
	}

	/** Ends every worker still running. */
	async terminateAll(): Promise<void> {
		await Promise.all(this.started.map((worker) => worker.terminated()));
	}
}

/** The host's own message (never the plugin's): the thread gets stuck at the next call it receives. */
const STUCK_AT_NEXT_CALL = "host-test:stuck-at-next-call";

/**
 * A Chromium worker's \`createImageBitmap\` and \`OffscreenCanvas\`, on @napi-rs/canvas's Skia: the
 * core's pictures are really decoded, drawn and encoded by the plugin's worker code
 * (plugin/worker/render-image.ts). Skia's decoder does not turn a picture by its EXIF
 * orientation, which the worker code then does itself (a quarter turn), as on a platform
 * without \`imageOrientation\`.
 */
const IMAGE_PLATFORM = `
{
	const canvasModule = require("@napi-rs/canvas");
	globalThis.createImageBitmap = async (blob) => {
		const image = await canvasModule.loadImage(Buffer.from(await blob.arrayBuffer()));
		if (!(image.width > 0 && image.height > 0)) throw new Error("The source image could not be decoded.");
		image.close = () => undefined;
		return image;
	};
	globalThis.OffscreenCanvas = class {
		constructor(width, height) {
			this.canvas = canvasModule.createCanvas(width, height);
		}
		get width() { return this.canvas.width; }
		set width(value) { this.canvas.width = value; }
		get height() { return this.canvas.height; }
		set height(value) { this.canvas.height = value; }
		getContext(kind) { return kind === "2d" ? this.canvas.getContext("2d") : null; }
		async convertToBlob(options = {}) {
			const quality = Math.round((options.quality ?? 0.92) * 100);
			return new Blob([new Uint8Array(await this.canvas.encode("jpeg", quality))], { type: "image/jpeg" });
		}
	};
}
`;

/** The script that turns a Node worker thread into a Web Worker's global scope. */
function prelude(timeScale: number, clock: VirtualClock | undefined): string {
	return `
const { parentPort } = require("node:worker_threads");
globalThis.self = globalThis;
const __timeScale = ${JSON.stringify(timeScale)};
if (__timeScale !== 1) {
	const realSetTimeout = globalThis.setTimeout;
	globalThis.setTimeout = (callback, ms, ...args) => realSetTimeout(callback, Math.ceil((ms ?? 0) / __timeScale), ...args);
}
${
	clock === undefined
		? ""
		: `globalThis.Date = ${virtualDateSource(clock)}(globalThis.Date);
{
	const realSetInterval = globalThis.setInterval;
	globalThis.setInterval = (callback, ms, ...args) => realSetInterval(callback, Math.ceil((ms ?? 0) / __timeScale), ...args);
}`
}
${IMAGE_PLATFORM}
globalThis.postMessage = (message, transfer) => parentPort.postMessage(message, transfer);
let __stuckAtNextCall = false;
parentPort.on("message", (data) => {
	if (data && data.kind === "${STUCK_AT_NEXT_CALL}") {
		__stuckAtNextCall = true;
		return;
	}
	// A core stuck in a computation: the thread never answers anything again.
	if (__stuckAtNextCall && data && data.kind === "call") for (;;);
	if (typeof globalThis.onmessage === "function") globalThis.onmessage({ data });
});
`;
}

export class HostWorker {
	onmessage: ((event: { data: unknown }) => void) | null = null;
	onerror: ((event: { message?: string }) => void) | null = null;
	readonly name: string | undefined;
	/** Messages posted before the thread was up. */
	private queue: Array<{ message: unknown; transfer: Transferable[] }> = [];
	private thread: ThreadWorker | undefined;
	private ended = false;
	private readonly shortCalls = new Set<number>();
	private readonly fileReads = new Set<number>();
	private readonly exit: Promise<void>;
	private markExited!: () => void;
	/** Every message the plugin sent, by kind and method, for tests. */
	readonly sent: Array<{ kind: string; method?: string }> = [];
	/** When each call was sent and answered (performance.now()), by id: the start benchmark's phases. */
	readonly calls = new Map<number, { method: string; sentAt: number; answeredAt?: number }>();

	constructor(url: string, timeScale: number, name?: string, clock?: VirtualClock) {
		this.name = name;
		this.exit = new Promise((resolve) => (this.markExited = resolve));
		const blob = resolveObjectURL(url);
		if (blob === undefined) throw new Error(`No Blob behind ${url}: it was revoked before the worker read it`);
		void blob.text().then((code) => this.begin(prelude(timeScale, clock) + code));
	}

	postMessage(message: unknown, transfer: Transferable[] = []): void {
		if (this.ended) return;
		const { kind, id, method } = message as { kind: string; id: number; method?: string };
		this.sent.push({ kind, method });
		if (kind === "call" && method !== undefined) this.calls.set(id, { method, sentAt: performance.now() });
		if (kind === "call" && method !== undefined && !LONG_CALLS.has(method)) this.shortCalls.add(id);
		if (kind === "reply") this.fileReads.delete(id);
		if (this.thread === undefined) this.queue.push({ message, transfer });
		else this.thread.postMessage(message, transfer as never);
	}

	/** From the next call it receives on, the worker's thread computes for ever: it stops answering, as a stuck core would. */
	getStuckAtNextCall(): void {
		const message = { kind: STUCK_AT_NEXT_CALL };
		if (this.thread === undefined) this.queue.push({ message, transfer: [] });
		else this.thread.postMessage(message);
	}

	terminate(): void {
		if (this.ended) return;
		this.ended = true;
		this.shortCalls.clear();
		this.fileReads.clear();
		if (this.thread === undefined) this.markExited();
		else void this.thread.terminate();
	}

	/** True while a short call (not a model call) or a vault read for the worker is unanswered. */
	get busy(): boolean {
		return !this.ended && (this.thread === undefined || this.shortCalls.size > 0 || this.fileReads.size > 0);
	}

	get isTerminated(): boolean {
		return this.ended;
	}

	/** Ends the worker (if not yet) and resolves once its thread is gone. */
	terminated(): Promise<void> {
		this.terminate();
		return this.exit;
	}

	private begin(code: string): void {
		if (this.ended) {
			this.markExited();
			return;
		}
		const thread = new ThreadWorker(code, { eval: true, name: this.name });
		this.thread = thread;
		thread.on("message", (data: unknown) => {
			const { kind, id, method } = data as { kind: string; id: number; method?: string };
			if (kind === "result") {
				this.shortCalls.delete(id);
				const call = this.calls.get(id);
				if (call !== undefined) call.answeredAt = performance.now();
			}
			if (kind === "host" && method === "readFile") this.fileReads.add(id);
			if (!this.ended) this.onmessage?.({ data });
		});
		thread.on("error", (error: Error) => this.onerror?.({ message: error.message }));
		thread.on("exit", () => this.markExited());
		for (const { message, transfer } of this.queue) thread.postMessage(message, transfer as never);
		this.queue = [];
	}
}
