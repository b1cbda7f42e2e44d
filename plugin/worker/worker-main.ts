// The Web Worker's entry: the core service on one side of the protocol, `self` on the other.
// Built as its own bundle and inlined into main.js (scripts/lib/bundle.mjs); nothing else
// runs in the worker.

import { CoreService } from "./core-service";
import { loadCore } from "./load-core";
import { workerImagePlatform } from "./render-image";
import { type FromWorker, type HostMethod, type MessageChannelEnd, type ToWorker, fromWireError, toWireError, transferablesOf } from "./protocol";

const port = self as unknown as MessageChannelEnd;
const pendingHost = new Map<number, { resolve(value: unknown): void; reject(error: Error): void }>();
let nextHostId = 1;

function post(message: FromWorker, transfer: Transferable[] = []): void {
	port.postMessage(message, transfer);
}

const service = new CoreService({
	load: loadCore,
	callHost: (method: HostMethod, args: unknown[]) =>
		new Promise((resolve, reject) => {
			const id = nextHostId++;
			pendingHost.set(id, { resolve, reject });
			post({ kind: "host", id, method, args }, args.flatMap(transferablesOf));
		}) as never,
	emit: (event, data) => post({ kind: "event", event, data }),
	imagePlatform: workerImagePlatform(self),
	randomSeed,
	setTimeout: (callback, ms) => self.setTimeout(callback, ms),
	clearTimeout: (handle) => self.clearTimeout(handle as number),
});

port.onmessage = (event) => {
	const message = event.data as ToWorker;
	if (message.kind === "reply") {
		const waiting = pendingHost.get(message.id);
		pendingHost.delete(message.id);
		if (waiting === undefined) return;
		if (message.ok) waiting.resolve(message.value);
		else waiting.reject(fromWireError(message.error));
		return;
	}
	const { id, method, args } = message;
	service.handle(method, args).then(
		(value) => post({ kind: "result", id, ok: true, value }, transferablesOf(value)),
		(error: unknown) => post({ kind: "result", id, ok: false, error: toWireError(error) }),
	);
};

/** The seed of the core's ids: 53 bits from the platform's CSPRNG. */
function randomSeed(): number {
	const words = new Uint32Array(2);
	crypto.getRandomValues(words);
	const [high = 0, low = 0] = words;
	return high * 2 ** 21 + (low >>> 11);
}
