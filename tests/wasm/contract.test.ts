// The worker's contract against the built facade: every method of `MemoryCore` is a call of
// the table or one the worker keeps for itself, and every call reaches the method of its name.
// (tsc checks the same coverage and every call's types, in plugin/worker/contract.ts.)

import assert from "node:assert/strict";
import { test } from "node:test";
import { memoryStore } from "../../plugin/core/memory-core-api";
import type { CoreClient } from "../../plugin/core/core-client";
import { CORE_CONTRACT, type CallTarget, STORE_METHODS, WORKER_OWNED, contractEntry } from "../../plugin/worker/contract";
import { CoreService } from "../../plugin/worker/core-service";
import { loadFacade } from "../support/facade";

/** The names of the public methods of a class's instances (wasm-bindgen's own `__` helpers are not the facade's). */
function methodsOf(prototype: object): string[] {
	return Object.getOwnPropertyNames(prototype).filter(
		(name) => name !== "constructor" && !name.startsWith("__") && typeof Object.getOwnPropertyDescriptor(prototype, name)?.value === "function",
	);
}

/** A target whose every method call is recorded as "core.name" or "worker.name". */
function recordingTarget(calls: string[]): CallTarget {
	const side = (name: string) =>
		new Proxy({}, { get: (_object, method) => (typeof method === "string" ? () => void calls.push(`${name}.${method}`) : undefined) });
	return { core: side("core") as CallTarget["core"], worker: side("worker") as CallTarget["worker"] };
}

test("every method of the facade is a call of the contract or one the worker keeps for itself", async () => {
	const { facade } = await loadFacade();
	const facadeMethods = methodsOf(facade.MemoryCore.prototype);
	assert.ok(facadeMethods.includes("status") && facadeMethods.includes("runDueWork"), `read the facade's methods: ${facadeMethods.join(", ")}`);
	const owned = new Set<string>(WORKER_OWNED);
	const uncovered = facadeMethods.filter((method) => contractEntry(method) === undefined && !owned.has(method));
	assert.deepEqual(uncovered, [], "facade methods missing from CORE_CONTRACT (add a line) or WORKER_OWNED");
	const stale = WORKER_OWNED.filter((method) => !facadeMethods.includes(method));
	assert.deepEqual(stale, [], "WORKER_OWNED names methods the facade no longer has");
});

test("every call reaches the facade's or the worker's method of its own name, which exists", async () => {
	const { facade } = await loadFacade();
	const facadeMethods = new Set(methodsOf(facade.MemoryCore.prototype));
	const workerMethods = new Set(methodsOf(CoreService.prototype));
	for (const [method, entry] of Object.entries(CORE_CONTRACT)) {
		const calls: string[] = [];
		// The recording target ignores arguments; each entry only passes its own on.
		(entry.call as (target: CallTarget) => unknown)(recordingTarget(calls));
		const [side] = calls;
		assert.equal(calls.length, 1, `${method} makes one call (made ${calls.join(", ")})`);
		assert.ok(side === `core.${method}` || side === `worker.${method}`, `${method} calls ${side}`);
		const exists = side === `core.${method}` ? facadeMethods.has(method) : workerMethods.has(method);
		assert.ok(exists, `${side} exists`);
	}
});

test("the views' store is the contract's store calls, each sent to the worker under its name", async () => {
	const sent: Array<[string, unknown[]]> = [];
	const client = { call: (method: string, ...args: unknown[]) => Promise.resolve(sent.push([method, args])) } as unknown as CoreClient;
	const store = memoryStore(client);
	assert.deepEqual(Object.keys(store).sort(), Object.keys(CORE_CONTRACT).filter((method) => contractEntry(method)?.store).sort());
	const storeMethods = new Set<string>(STORE_METHODS);
	assert.ok(storeMethods.has("ask") && !storeMethods.has("open") && !storeMethods.has("exportDatabase"), "lifecycle calls stay with the session");
	assert.ok(!storeMethods.has("syncLog") && !storeMethods.has("replayLogs") && storeMethods.has("replayProgress"), "the log is the runtime's; its progress anyone's");
	await store.enqueueNote("a.md", 5);
	await store.status();
	assert.deepEqual(sent, [
		["enqueueNote", ["a.md", 5]],
		["status", []],
	]);
});

test("the service refuses a call the contract does not have, with a stable code", async () => {
	const service = new CoreService({
		load: () => Promise.reject(new Error("not needed")),
		callHost: () => Promise.reject(new Error("not needed")),
		emit: () => undefined,
		randomSeed: () => 1,
		setTimeout: () => undefined,
		clearTimeout: () => undefined,
	});
	await assert.rejects(service.handle("toString" as never, []), (error: { code?: unknown }) => error.code === "worker.unknown_call");
	await assert.rejects(service.handle("status", []), (error: { code?: unknown }) => error.code === "worker.no_store");
});
