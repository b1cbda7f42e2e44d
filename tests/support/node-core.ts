// The core's worker service run in this process, over an in-memory channel: the plugin's own
// client and service code with the real core, for testing the storage layer without threads.

import type { CoreClient as CoreClientType, HostHandlers } from "../../plugin/core/core-client";
import { CoreClient } from "../../plugin/core/core-client";
import { CoreService } from "../../plugin/worker/core-service";
import type { LoadedCore } from "../../plugin/worker/load-core";
import { type FromWorker, type HostMethod, type ToWorker, fromWireError, toWireError, transferablesOf } from "../../plugin/worker/protocol";
import { loadFacade } from "./facade";

/** A client connected to a CoreService in this process (messages are cloned, as between threads). */
export async function inProcessCore(host: Partial<HostHandlers> = {}): Promise<CoreClientType> {
	const { facade, SQL } = await loadFacade();
	const loaded = { core: facade, sqlJs: SQL } as unknown as LoadedCore;
	let toMain: ((message: FromWorker, transfer: Transferable[]) => void) | undefined;
	const pendingHost = new Map<number, { resolve(value: unknown): void; reject(error: Error): void }>();
	let nextHostId = 1;
	const service = new CoreService({
		load: async () => loaded,
		callHost: (method: HostMethod, args: unknown[]) =>
			new Promise((resolve, reject) => {
				const id = nextHostId++;
				pendingHost.set(id, { resolve, reject });
				toMain?.({ kind: "host", id, method, args }, []);
			}) as never,
		emit: (event, data) => toMain?.({ kind: "event", event, data }, []),
		randomSeed: () => Math.floor(Math.random() * 2 ** 52),
		setTimeout: (callback, ms) => setTimeout(callback, ms),
		clearTimeout: (handle) => clearTimeout(handle as NodeJS.Timeout),
	});
	const worker = {
		onmessage: null as ((event: { data: unknown }) => void) | null,
		postMessage(message: unknown, transfer: Transferable[] = []) {
			const data = structuredClone(message, { transfer }) as ToWorker;
			queueMicrotask(() => {
				if (data.kind === "reply") {
					const waiting = pendingHost.get(data.id);
					pendingHost.delete(data.id);
					if (data.ok) waiting?.resolve(data.value);
					else waiting?.reject(fromWireError(data.error));
					return;
				}
				service.handle(data.method, data.args).then(
					(value) => toMain?.({ kind: "result", id: data.id, ok: true, value }, transferablesOf(value)),
					(error: unknown) => toMain?.({ kind: "result", id: data.id, ok: false, error: toWireError(error) }, []),
				);
			});
		},
		terminate() {
			toMain = undefined;
		},
	};
	const unsupported = async () => {
		throw new Error("this test's core has no host for that");
	};
	const client = new CoreClient(worker, {
		send: host.send ?? unsupported,
		readFile: host.readFile ?? unsupported,
		extractPdf: host.extractPdf ?? unsupported,
		renderImage: host.renderImage ?? unsupported,
		listFolder: host.listFolder ?? unsupported,
		readFrom: host.readFrom ?? unsupported,
		appendText: host.appendText ?? unsupported,
		createFile: host.createFile ?? unsupported,
		removeFile: host.removeFile ?? unsupported,
	});
	toMain = (message, transfer) => {
		const data = structuredClone(message, { transfer });
		queueMicrotask(() => worker.onmessage?.({ data }));
	};
	await client.call("start");
	return client;
}

/** The bytes of a new, empty Memory Agent database. */
export async function emptyDatabase(): Promise<Uint8Array> {
	const client = await inProcessCore();
	await client.call("open", null, Date.now());
	const bytes = await client.call("exportDatabase", true);
	client.terminate();
	if (bytes === null) throw new Error("a new store exported nothing");
	return bytes;
}
