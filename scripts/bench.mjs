// `npm run bench`: three benchmarks, each printing tables.
//  1. The store at scale (scripts/bench/scale.ts): 1k, 10k and 50k memories made through the
//     real ingest path of the built main.js with its core in a worker — file size and its split,
//     open, save, selection, the memory browser, the main thread's longest block — and
//     main.js's size and cold start.
//  2. The vault sync on a generated vault (default 10,000 notes) with the real core: reconciling
//     an unchanged vault (total, and the longest block between yields to the event loop), the
//     first reconciliation (queue + read + hash + store, instant model answers), and SHA-256
//     throughput of the core's WebAssembly next to Node's crypto on the same bytes.
//  3. The first ingest of the shared tldr-pages vault (scripts/bench/ingest.ts; 10,862 notes, CC BY 4.0):
//     the built main.js against the fake Bedrock answering like Claude (a summary, a fact per 40
//     words, names, topics, dates; batched calls one entry per chunk), for Claude Haiku 4.5 and
//     Haiku 5.5, one chunk a call ("before", `ingestBatchChunks: 1`) and batched ("after", the
//     default; run only when the build has the setting): model calls, calls per note, input and
//     output tokens, cache reads and writes, rejected requests and the estimated cost, each call
//     priced by its prompt size; progress on stderr. About 2 minutes a run on two cores.
//     `--models=haiku-4.5,haiku-5.5` picks models, `--ingest-notes=N` the first N notes,
//     `--gathered` the pages gathered into notes of ~5 KB (help-vault size, several chunks each).
//
//  5. PDF text extraction (scripts/bench/pdf.ts): a generated 100-page text PDF read by
//     plugin/host/pdf-text.ts with pdfjs-dist in Node — ms per page and the main thread's longest block.
//
//  4. The per-device log (src/bin/log_bench.rs): at 1k, 10k and 50k memories, the log written,
//     its largest file, the bytes a remembered chunk and an edited note add to the synced files,
//     another device's 10k entries replayed, and the index rebuilt from the logs — natively, then
//     in the plugin's core as WebAssembly over sql.js (scripts/bench/replay-wasm.ts).
//
//  6. The database writes of a first ingest (scripts/bench/saves.ts): the save policy's
//     database bytes written per final byte, simulated for 1,500 and 6,249 notes. A second.
//
// Usage: npm run bench [-- --only=start|scale|ingest|log|sync|pdf|saves] [--sizes=1000,10000,50000] [--notes=10000]
//        [--models=haiku-4.5,haiku-5.5] [--ingest-notes=10862] [--gathered]

import { createHash } from "node:crypto";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { register } from "tsx/esm/api";

register();

const notesArg = process.argv.slice(2).find((arg) => arg.startsWith("--notes="));
const NOTES = notesArg ? Number(notesArg.slice("--notes=".length)) : 10_000;
const only = process.argv.slice(2).find((arg) => arg.startsWith("--only="))?.slice("--only=".length);

if (only === undefined || only === "start") {
	const { runStartBench, runQuestionAtScaleBench } = await import("./bench/start.ts");
	await runStartBench();
	await runQuestionAtScaleBench();
}
if (only === "start") process.exit(0);
if (only === undefined || only === "saves") {
	const { runSavesBench } = await import("./bench/saves.ts");
	await runSavesBench();
}
if (only === "saves") process.exit(0);
if (only === undefined || only === "pdf") {
	const { runPdfBench } = await import("./bench/pdf.ts");
	await runPdfBench();
}
if (only === "pdf") process.exit(0);
if (only === undefined || only === "scale") {
	const { runScaleBench } = await import("./bench/scale.ts");
	await runScaleBench();
}
if (only === "scale") process.exit(0);
if (only === undefined || only === "ingest") {
	const { runIngestBench } = await import("./bench/ingest.ts");
	await runIngestBench();
}
if (only === "ingest") process.exit(0);
if (only === undefined || only === "log") {
	// The per-device log (src/bin/log_bench.rs): bytes a sync tool carries, replay, rebuild.
	const { spawnSync } = await import("node:child_process");
	const sizesArg = process.argv.slice(2).find((arg) => arg.startsWith("--sizes="))?.slice("--sizes=".length);
	// Each size's memory folder is kept for the rebuild in the plugin's core (WebAssembly) below.
	const dumps = await fs.mkdtemp(path.join(os.tmpdir(), "memory-agent-log-bench-"));
	const run = spawnSync("cargo", ["run", "--quiet", "--release", "--features", "bench", "--bin", "log-bench", "--", sizesArg ?? "1000,10000,50000", dumps], { stdio: "inherit" });
	if (run.status !== 0) process.exit(run.status ?? 1);
	const { runReplayWasmBench } = await import("./bench/replay-wasm.ts");
	await runReplayWasmBench(dumps);
	await fs.rm(dumps, { recursive: true, force: true });
}
if (only === "log") process.exit(0);

// The sync yields with window.setTimeout(…, 0); this probe measures the work between yields.
const probe = { last: 0, longest: 0, yields: 0 };
globalThis.window = {
	setTimeout: (callback, ms) =>
		setTimeout(() => {
			if (ms === 0) probe.last = performance.now();
			callback();
		}, ms),
	clearTimeout: (handle) => clearTimeout(handle),
};
const realSetTimeout = globalThis.window.setTimeout;
globalThis.window.setTimeout = (callback, ms) => {
	if (ms === 0) {
		probe.longest = Math.max(probe.longest, performance.now() - probe.last);
		probe.yields++;
	}
	return realSetTimeout(callback, ms);
};

const { loadFacade } = await import("../tests/support/facade.ts");
const { inProcessCore } = await import("../tests/support/node-core.ts");
const { memoryStore } = await import("../plugin/core/memory-core-api.ts");
const { generateNotes, rememberAll } = await import("../tests/support/prepared-vault.ts");
const { VaultSync } = await import("../plugin/vault/vault-sync.ts");

const { facade } = await loadFacade();

/** Notes the core read through its host (for deciding what is left out) since the last reset. */
const hostReads = { count: 0 };

/** The core as the plugin sees it (asynchronous calls), over the worker's service in this process. */
async function openCore(bytes) {
	const client = await inProcessCore({
		readFile: async (p) => {
			hostReads.count++;
			const data = await fs.readFile(path.join(vaultDir, p)).catch(() => null);
			return data === null ? null : { bytes: new Uint8Array(data), mtime: Date.now(), size: data.length };
		},
	});
	await client.call("open", bytes ?? null, Date.now());
	return { client, store: memoryStore(client) };
}
const vaultDir = await fs.mkdtemp(path.join(os.tmpdir(), "memory-agent-bench-"));

function table(title, rows) {
	console.log(`\n${title}`);
	const width = Math.max(...rows.map(([label]) => label.length));
	for (const [label, value] of rows) console.log(`  ${label.padEnd(width)}  ${value}`);
}
const ms = (value) => `${value.toFixed(1)} ms`;

/** The sync over a real folder and an open core (what the plugin wires with Obsidian's vault). */
async function syncOver(core, paths) {
	const stats = new Map();
	await Promise.all(paths.map(async (p) => stats.set(p, await fs.stat(path.join(vaultDir, p)))));
	hostReads.count = 0;
	const sync = new VaultSync({
		vault: {
			files: () => paths.map((p) => ({ path: p, mtime: stats.get(p).mtimeMs, size: stats.get(p).size })),
			file: (p) => (stats.has(p) ? { path: p, mtime: stats.get(p).mtimeMs, size: stats.get(p).size } : null),
			metadata: () => null,
		},
		runtime: { store: () => core.store, kick: () => undefined, changed: () => undefined },
		timers: { setTimeout: (cb, delay) => setTimeout(cb, delay), clearTimeout: (h) => clearTimeout(h) },
		quietDelayMs: () => 0,
		bulkThreshold: () => Number.MAX_SAFE_INTEGER,
		confirmBulk: async () => ({ kind: "start" }),
		notify: () => undefined,
	});
	return { sync, reads: hostReads };
}

async function measured(run) {
	probe.longest = 0;
	probe.yields = 0;
	probe.last = performance.now();
	const started = performance.now();
	const result = await run();
	const total = performance.now() - started;
	probe.longest = Math.max(probe.longest, performance.now() - probe.last);
	return { total, longest: probe.longest, yields: probe.yields, result };
}

try {
	let started = performance.now();
	const paths = await generateNotes(vaultDir, NOTES);
	const generated = performance.now() - started;

	// First reconciliation: the sync queues every note; the core reads, hashes and stores them.
	const firstCore = await openCore();
	const first = await syncOver(firstCore, paths);
	const queueing = await measured(() => first.sync.reconcile("start"));
	firstCore.client.terminate();
	started = performance.now();
	const bytes = await rememberAll(vaultDir, paths);
	const ingest = performance.now() - started;

	// Unchanged vault: the same notes against the database the first run left.
	const core = await openCore(bytes);
	const second = await syncOver(core, paths);
	const unchanged = await measured(() => second.sync.reconcile("start"));
	started = performance.now();
	const sources = (await core.store.listSources(null, 100_000)).length;
	const listing = performance.now() - started;
	core.client.terminate();

	table(`Vault: ${NOTES.toLocaleString()} notes (generated in ${ms(generated)})`, [
		["first reconciliation: compare and queue", `${ms(queueing.total)}  (longest block ${ms(queueing.longest)}, ${queueing.yields} yields, ${queueing.result?.queued} queued)`],
		["first reconciliation: core reads, hashes, stores (instant model)", `${ms(ingest)}  (${(ingest / NOTES).toFixed(2)} ms a note)`],
		["unchanged vault: reconciliation", `${ms(unchanged.total)}  (longest block ${ms(unchanged.longest)}, ${unchanged.yields} yields)`],
		["unchanged vault: queued / notes read", `${unchanged.result?.queued} / ${second.reads.count}`],
		[`listSources() of ${sources.toLocaleString()} (status bar recount; in the worker)`, ms(listing)],
	]);

	// SHA-256: the same bytes through the core's WebAssembly and through Node's crypto.
	const noteBytes = Buffer.concat(await Promise.all(paths.map((p) => fs.readFile(path.join(vaultDir, p)))));
	const big = Buffer.alloc(32 * 1024 * 1024, 7);
	const rows = [];
	for (const [label, data] of [[`all notes (${(noteBytes.length / 1e6).toFixed(2)} MB)`, noteBytes], ["one 32 MB buffer", big]]) {
		const view = new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
		const time = (fn) => {
			fn();
			const t = performance.now();
			const rounds = 3;
			for (let i = 0; i < rounds; i++) fn();
			return (performance.now() - t) / rounds;
		};
		const wasm = time(() => facade.sha256Hex(view));
		const node = time(() => createHash("sha256").update(view).digest("hex"));
		if (facade.sha256Hex(view) !== createHash("sha256").update(view).digest("hex")) throw new Error("the hashes differ");
		const mbps = (t) => `${(data.length / 1e6 / (t / 1000)).toFixed(0)} MB/s`;
		rows.push([label, `wasm ${mbps(wasm)}  node:crypto ${mbps(node)}`]);
	}
	let perNote = performance.now();
	for (const p of paths.slice(0, 1000)) facade.sha256Hex(new Uint8Array(await fs.readFile(path.join(vaultDir, p))));
	perNote = (performance.now() - perNote) / 1000;
	rows.push(["read + wasm hash, per small note", `${perNote.toFixed(3)} ms`]);
	table("SHA-256", rows);
} finally {
	await fs.rm(vaultDir, { recursive: true, force: true });
}
