// A headless host with the built plugin connected to the fake Bedrock, for the vault sync tests:
// notes on disk, settings in data.json, test keys in secret storage, and ways to wait for the work.

import fs from "node:fs/promises";
import path from "node:path";
import type { Memory, MemoryCursor, MemoryStore, Source, StoreStatus } from "../../plugin/core/memory-core-api";
import { type FakeBedrock, type RecordedRequest, type Reply, TEST_CREDENTIALS, startFakeBedrock } from "../fake-bedrock/index";
import { asRecord, requestedToolName } from "../fake-bedrock/replies";
import type { VirtualClock } from "../host/clock";
import { type Host, startHost } from "../host/host";
import { batchedMemories, chunksIn, userTextOf } from "./batched-ingest";
import { confirmEndpointOnThisDevice } from "./trusted-endpoint";

export const KEY_ID_SECRET = "test-aws-key-id";
export const SECRET_KEY_SECRET = "test-aws-secret-key";

/** Valid answers for the ingest and consolidation tools, so every job completes. */
export function replyByTool(request: RecordedRequest): Reply {
	const tool = requestedToolName(asRecord(request.json) ?? {});
	const memory = () => ({ nothing_to_remember: false, summary: "Something worth remembering.", entities: [], topics: ["notes"], importance: 0.3, happened_on: [] });
	if (tool === "record_memory") return { toolUse: { name: "record_memory", input: memory() } };
	if (tool === "record_memories") return { toolUse: { name: "record_memories", input: batchedMemories(userTextOf(request.json), memory) } };
	if (tool === "record_insights") return { toolUse: { name: "record_insights", input: { insights: [] } } };
	return { text: "OK" };
}

/** The Converse requests that asked for memories: one per chunk, or one per batch of chunks (`ingestBatchChunks`). */
export function ingestRequests(fake: FakeBedrock): RecordedRequest[] {
	return fake.requests.filter((request) => ["record_memory", "record_memories"].includes(requestedToolName(asRecord(request.json) ?? {})));
}

/** The chunks the model was asked to read, over every ingest request (batched or not). */
export function ingestedChunks(fake: { readonly requests: readonly RecordedRequest[] }): number {
	return fake.requests.reduce((sum, request) => sum + chunksIn(request.body), 0);
}

/** Starts the fake with `replyByTool`. */
export async function startAnsweringFake(): Promise<FakeBedrock> {
	const fake = await startFakeBedrock();
	fake.respond = replyByTool;
	return fake;
}

/** Writes notes (vault path → text or bytes) to the vault folder, as another program would. */
export async function writeNotes(host: Host, notes: Record<string, string | Uint8Array>): Promise<void> {
	for (const [vaultPath, content] of Object.entries(notes)) {
		const file = host.diskPath(vaultPath);
		await fs.mkdir(path.dirname(file), { recursive: true });
		await fs.writeFile(file, content);
	}
}

/** Writes data.json with the fake's endpoint (confirmed on this device), the secrets' names and `settings`. */
export async function writeSettings(host: Host, fake: FakeBedrock, settings: Record<string, unknown> = {}): Promise<void> {
	confirmEndpointOnThisDevice(host, fake.url);
	host.secretStorage.setSecret(KEY_ID_SECRET, TEST_CREDENTIALS.accessKeyId);
	host.secretStorage.setSecret(SECRET_KEY_SECRET, TEST_CREDENTIALS.secretAccessKey);
	const data = {
		endpoint: fake.url,
		accessKeyIdSecret: KEY_ID_SECRET,
		secretAccessKeySecret: SECRET_KEY_SECRET,
		quietDelaySeconds: 0,
		dailyConsolidation: false,
		...settings,
	};
	await fs.mkdir(host.diskPath(host.pluginDir), { recursive: true });
	await fs.writeFile(host.diskPath(`${host.pluginDir}/data.json`), JSON.stringify(data));
}

export async function startVaultHost(options: { clock?: VirtualClock } = {}): Promise<Host> {
	return startHost(options);
}

/** The plugin's open store (the real core in its worker, started by the built main.js). */
export function storeOf(host: Host): MemoryStore {
	const store = openStore(host);
	if (store === undefined) throw new Error("The plugin's store is not open");
	return store;
}

function openStore(host: Host): MemoryStore | undefined {
	const plugin = host.plugin as unknown as { runtime?: { store(): MemoryStore | undefined } } | undefined;
	return plugin?.runtime?.store();
}

/** The store's counts now. */
export function statusOf(host: Host): Promise<StoreStatus> {
	return storeOf(host).status();
}

/** Waits until no note waits for its quiet delay, nothing is queued or running, and the counts were shown. */
export async function waitForIdle(host: Host, message = "the work to finish"): Promise<void> {
	const idle = async () => {
		const status = await openStore(host)?.status().catch(() => undefined);
		return status !== undefined && status.queued === 0 && status.running === 0 && !host.timers.dueWithin(600);
	};
	await host.waitFor(idle, { message, timeoutMs: 20_000 });
	await host.settle();
	await host.waitFor(idle, { message, timeoutMs: 20_000 });
}

/** Every memory of the store, newest first, read a page at a time as the browser does. */
export async function allMemories(host: Host): Promise<Memory[]> {
	const store = storeOf(host);
	const memories: Memory[] = [];
	let before: MemoryCursor | null = null;
	for (;;) {
		const page = await store.browseMemories({ before, limit: 500 });
		memories.push(...page.memories);
		if (page.next === null) return memories;
		before = page.next;
	}
}

/** Paths of the notes with memories, sorted. */
export async function rememberedPaths(host: Host): Promise<string[]> {
	return [...new Set((await allMemories(host)).map((memory) => memory.source_path))].sort();
}

/** Every source record of the store, by path. */
export function sourcesOf(host: Host): Promise<Source[]> {
	return storeOf(host).listSources(null, 100_000);
}

/** The status bar item's tooltip (the counts of memories, insights and queued jobs). */
export function statusBarLabel(host: Host): string {
	const items = host.statusBarEl.querySelectorAll(".plugin-memory-agent");
	return items[items.length - 1]?.getAttribute("aria-label") ?? "";
}

/** The memories of one note (or selection source), newest first. */
export async function memoriesOf(host: Host, path: string): Promise<Memory[]> {
	return (await allMemories(host)).filter((memory) => memory.source_path === path);
}
