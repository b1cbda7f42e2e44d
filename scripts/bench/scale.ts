// The store at 1k, 10k and 50k memories, made through the real ingest path: the built main.js
// in the headless host, its core in a real Web Worker (a Node worker thread), notes read from a
// real folder, every model call over HTTP to the fake Bedrock in another process (so answering
// costs this process nothing). What it prints, for each size:
//   - the database file: bytes, bytes per memory, split into text, indexes and the rest;
//   - opening it (a restart), saving it, choosing memories for varied questions (16K and 150K
//     budgets, median and worst), the memory browser's first screen;
//   - the longest block of the main thread (the event loop's longest delay) in each of those
//     and during the ingest itself; and main.js's size and cold start;
//   - then, on a second vault of notes of about 5 KB (the real pages gathered by folder, as
//     large as the notes of Obsidian's help vault), the device's database's size against the Markdown's.
// Usage: npm run bench -- --only=scale [--sizes=1000,10000,50000] [--keep=DIR]

import { spawn } from "node:child_process";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { type IntervalHistogram, monitorEventLoopDelay, performance } from "node:perf_hooks";
import initSqlJs from "sql.js";
import type { LogReplay, MemoryStore, QuestionScope, StoreStatus } from "../../plugin/core/memory-core-api";
import { DatabaseFile } from "../../plugin/storage/database-file";
import { TEST_CREDENTIALS } from "../../tests/fake-bedrock/index";
import { type Host, REPO_ROOT, startHost } from "../../tests/host/host";
import { confirmEndpointOnThisDevice } from "../../tests/support/trusted-endpoint";
import { sentRequests } from "../../tests/host/request-url";
import { realNotes, writeGatheredNotes, writeNotes } from "./corpus";

export interface Runtime {
	store(): MemoryStore | undefined;
	client?: { call(method: string, ...args: unknown[]): Promise<unknown> };
	/** Appends this device's log and saves its database. */
	flush(): Promise<void>;
}

const sizes = (process.argv.find((arg) => arg.startsWith("--sizes="))?.slice("--sizes=".length) ?? "1000,10000,50000").split(",").map(Number);
/** `--keep=DIR` copies each size's database file there (memory-<n>.db), for profiling. */
const keepDir = process.argv.find((arg) => arg.startsWith("--keep="))?.slice("--keep=".length);

/** The main thread's longest stall while `run` runs (the event loop's longest delay, ms). */
async function blocking<T>(run: () => Promise<T>): Promise<{ value: T; ms: number; longest: number }> {
	const histogram: IntervalHistogram = monitorEventLoopDelay({ resolution: 1 });
	histogram.enable();
	const started = performance.now();
	const value = await run();
	const ms = performance.now() - started;
	histogram.disable();
	// The monitor's timer fires every millisecond; its delay beyond that is time the loop was blocked.
	return { value, ms, longest: Math.max(0, histogram.max / 1e6 - 1) };
}

function median(values: number[]): number {
	const sorted = [...values].sort((a, b) => a - b);
	return sorted[Math.floor(sorted.length / 2)] ?? 0;
}

const fmt = (ms: number) => (ms >= 1000 ? `${(ms / 1000).toFixed(2)} s` : `${ms.toFixed(ms < 10 ? 1 : 0)} ms`);
const kb = (bytes: number) => (bytes >= 1024 * 1024 ? `${(bytes / 1024 / 1024).toFixed(1)} MB` : `${(bytes / 1024).toFixed(0)} KB`);

async function startModel(): Promise<{ url: string; stop(): void }> {
	const child = spawn(process.execPath, ["--import", "tsx", path.join(REPO_ROOT, "scripts", "bench", "model-server.ts")], { stdio: ["ignore", "pipe", "inherit"] });
	// The model stands in for AWS, whose work is done elsewhere: on a machine of two cores it
	// must not take the measured main thread's turn (its answers only come a little later).
	if (child.pid !== undefined) os.setPriority(child.pid, 19);
	const url = await new Promise<string>((resolve, reject) => {
		child.stdout.once("data", (chunk: Buffer) => resolve((JSON.parse(chunk.toString()) as { url: string }).url));
		child.once("exit", (code) => reject(new Error(`the model server exited (${code})`)));
	});
	return { url, stop: () => child.kill("SIGTERM") };
}

function runtimeOf(host: Host): Runtime {
	return (host.plugin as unknown as { runtime: Runtime }).runtime;
}

export async function statusOf(host: Host): Promise<StoreStatus | undefined> {
	return runtimeOf(host).store()?.status().catch(() => undefined);
}

/** Waits until the start's reconciliation is over and nothing is queued or running (twice in a row); `progress` sees each status read. */
export async function waitForIngest(host: Host, progress?: (status: StoreStatus | undefined) => void): Promise<StoreStatus> {
	let idleTimes = 0;
	for (;;) {
		await new Promise((resolve) => setTimeout(resolve, 250));
		sentRequests.length = 0;
		const status = await statusOf(host);
		progress?.(status);
		const reconciling = /checking/.test(host.statusBarText());
		if (status === undefined || reconciling || status.queued > 0 || status.running > 0) {
			idleTimes = 0;
			continue;
		}
		if (++idleTimes === 2) return status;
	}
}

/** Questions of the kinds people ask: names, projects, dates, "the latest", commands. */
const QUESTIONS = [
	"What did Alice Nguyen say about the budget?",
	"When is the Apollo launch?",
	"Summarise my latest meeting with Bob Tran",
	"What happened on 2019-03-04?",
	"What did I do last week?",
	"Who is working on the Cedar roadmap?",
	"What do I know about Lisbon?",
	"Which meetings were about hiring?",
	"How do I create a tar archive?",
	"How can I list the files in a directory sorted by size?",
	"What is the command to find text in files recursively?",
	"How do I change the owner of a file?",
	"What did Priya Kim recommend?",
	"Where does Minh Pham live?",
	"What was decided about the Delta security review?",
	"When does the lease in Porto start?",
	"Wie kann ich ein Verzeichnis komprimieren?",
	"ファイルをコピーするには?",
	"如何查看磁盘使用情况?",
	"What did Grace Okafor and Omar Haddad discuss?",
	"What are the next steps for Kestrel?",
	"How did the team lunch in Hanoi go?",
	"What is the risk on the Meridian pricing?",
	"Any notes about the passport renewal?",
];

interface StageFigures {
	memories: number;
	notes: number;
	markdownBytes: number;
	dbBytes: number;
	split: { text: number; index: number; rest: number; free: number };
	pageSizes: Record<number, number>;
	ingest: { ms: number; longest: number; perNote: number };
	open: { ms: number; longest: number };
	save: { ms: number; longest: number };
	replay: { ms: number; longest: number; entries: number };
	select16: { median: number; worst: number; longest: number };
	select150: { median: number; worst: number; longest: number };
	/** Limited to the largest top folder (`share` of the notes), and to a range of days holding every memory. */
	selectFolder: { median: number; worst: number; longest: number; share: number };
	selectDays: { median: number; worst: number; longest: number };
	browser: { ms: number; longest: number; filteredMs: number };
	ask: { ms: number; longest: number };
	rssMb: number;
}

/** The file rewritten with each page size: what the choice of `maintenance::PAGE_SIZE` rests on. */
async function pageSizes(bytes: Uint8Array): Promise<Record<number, number>> {
	const SQL = await initSqlJs();
	const sizes: Record<number, number> = {};
	for (const size of [1024, 2048, 4096, 8192]) {
		const db = new SQL.Database(bytes);
		try {
			db.run(`PRAGMA page_size = ${size}; VACUUM;`);
			sizes[size] = Number(db.exec("PRAGMA page_count")[0]?.values[0]?.[0]) * size;
		} finally {
			db.close();
		}
	}
	return sizes;
}

/** How much of the file is text, how much is indexes, how much the rest (pages, row headers, ids). */
async function splitOf(bytes: Uint8Array): Promise<{ text: number; index: number; rest: number; free: number }> {
	const SQL = await initSqlJs();
	const db = new SQL.Database(bytes);
	try {
		const value = (sql: string) => Number(db.exec(sql)[0]?.values[0]?.[0] ?? 0);
		const free = value("PRAGMA freelist_count") * value("PRAGMA page_size");
		const text =
			value(`SELECT coalesce(sum(length(CAST(summary AS BLOB)) + length(CAST(topics AS BLOB)) + coalesce(length(CAST(text AS BLOB)), 0)
			         + coalesce(length(CAST(keywords AS BLOB)), 0) + coalesce(length(CAST(heading AS BLOB)), 0)), 0) FROM memories`) +
			value("SELECT coalesce(sum(length(CAST(insight AS BLOB)) + length(CAST(connections AS BLOB))), 0) FROM consolidations") +
			value("SELECT coalesce(sum(length(CAST(path AS BLOB))), 0) FROM paths") +
			value("SELECT coalesce(sum(length(CAST(name AS BLOB)) + length(CAST(kind AS BLOB))), 0) FROM entities");
		const pages = value("PRAGMA page_count") * value("PRAGMA page_size");
		// Drop every index (the full-text one and SQLite's), then see how much smaller the file gets.
		const indexes = db.exec("SELECT name FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL")[0]?.values.map((row) => String(row[0])) ?? [];
		db.run("DROP TABLE memories_terms; DROP TABLE memories_fts;");
		for (const name of indexes) db.run(`DROP INDEX "${name}"`);
		db.run("VACUUM");
		const withoutIndexes = value("PRAGMA page_count") * value("PRAGMA page_size");
		const index = pages - withoutIndexes;
		return { text, index, rest: Math.max(0, pages - index - text), free };
	} finally {
		db.close();
	}
}

async function measureStage(host: Host, notes: number, markdownBytes: number, ingest: StageFigures["ingest"]): Promise<StageFigures> {
	const runtime = runtimeOf(host);
	const store = runtime.store()!;
	const status = (await store.status())!;
	const dbPath = `${host.pluginDir}/memory-${host.deviceId}.db`;

	// Save: the export in the worker, the bytes transferred, the crash-safe write.
	const client = runtime.client!;
	const save = await blocking(async () => {
		const bytes = (await client.call("exportDatabase", true)) as Uint8Array;
		await new DatabaseFile(host.adapter, dbPath).save(bytes);
		return bytes.byteLength;
	});
	// Another device's log, alike (the case of every replay once the devices agree): this
	// device's own log files read again from their start, every entry compared, nothing changed.
	await runtime.flush();
	// The copy is put in a folder of its own, as another device's, and replayed through the core's
	// log runtime (in slices, through the host's file operations), then removed.
	const logFolder = `Memory Agent/${host.deviceId}`;
	const copyFolder = "Memory Agent/bench-alike";
	const logFiles = (await fs.readdir(host.diskPath(logFolder)).catch(() => [] as string[])).filter((name) => name.endsWith(".jsonl")).sort();
	await fs.mkdir(host.diskPath(copyFolder), { recursive: true });
	for (const name of logFiles) await fs.copyFile(host.diskPath(`${logFolder}/${name}`), host.diskPath(`${copyFolder}/${name}`));
	const replay = await blocking(async () => {
		const paths = logFiles.map((name) => `${copyFolder}/${name}`);
		return ((await client.call("replayLogs", "Memory Agent", paths)) as LogReplay).entries;
	});
	await fs.rm(host.diskPath(copyFolder), { recursive: true, force: true });

	// Choosing memories for each question, in the worker (no model call).
	const select = async (budget: number, scope?: QuestionScope) => {
		const times: number[] = [];
		const run = await blocking(async () => {
			for (const question of QUESTIONS) {
				const started = performance.now();
				await store.recall(question, budget, scope);
				times.push(performance.now() - started);
			}
		});
		return { median: median(times), worst: Math.max(...times), longest: run.longest };
	};
	await store.recall(QUESTIONS[0]!, 16_000); // the names index is prepared once per change
	const select16 = await select(16_000);
	const select150 = await select(150_000);
	// Scoped: to the vault's largest top folder, and to a range of days holding every memory (the
	// scoped path's cost when the scope leaves nothing out). Memories take their note's date when
	// the text names none (issue 22), so the generated notes' memories span their names' dates.
	const tops = new Map<string, number>();
	for (const file of host.vault.getMarkdownFiles()) {
		const top = file.path.split("/")[0]!;
		tops.set(top, (tops.get(top) ?? 0) + 1);
	}
	const [largest, inLargest] = [...tops].sort((a, b) => b[1] - a[1])[0] ?? ["", 0];
	const selectFolder = { ...(await select(16_000, { folders: [largest] })), share: inLargest / Math.max(1, notes) };
	const today = new Date();
	const selectDays = await select(16_000, { from: "1900-01-01", to: today.toISOString().slice(0, 10) });

	// The memory browser's first screen, drawn; then the page for a word typed into its search.
	const browser = await blocking(() => host.runCommand("open-memory-browser"));
	const filterStarted = performance.now();
	await store.browseMemories({ text: "budget", limit: 50 });
	const filteredMs = performance.now() - filterStarted;

	// One question through the whole path (selection, prompt, the model over HTTP, citations).
	const ask = await blocking(() => store.ask("What did Alice Nguyen say about the Apollo budget?"));

	// A restart: the final save at unload, then opening the file (header and schema only).
	await host.unloadPlugin();
	const dbBytes = (await fs.stat(host.diskPath(dbPath))).size;
	const onDisk = new Uint8Array(await fs.readFile(host.diskPath(dbPath)));
	if (keepDir !== undefined) await fs.writeFile(path.join(keepDir, `memory-${status.memories}.db`), onDisk);
	const split = await splitOf(onDisk);
	const sizesByPage = await pageSizes(onDisk);
	const open = await blocking(async () => {
		await host.loadPlugin();
		await host.waitFor(async () => (await statusOf(host))?.memories === status.memories, { timeoutMs: 120_000, message: "the store to open" });
	});
	return {
		memories: status.memories,
		notes,
		markdownBytes,
		dbBytes,
		split,
		pageSizes: sizesByPage,
		ingest,
		open: { ms: open.ms, longest: open.longest },
		save: { ms: save.ms, longest: save.longest },
		replay: { ms: replay.ms, longest: replay.longest, entries: replay.value },
		select16,
		select150,
		selectFolder,
		selectDays,
		browser: { ms: browser.ms, longest: browser.longest, filteredMs },
		ask: { ms: ask.ms, longest: ask.longest },
		rssMb: process.memoryUsage().rss / 1024 / 1024,
	};
}

/** A host on `vaultDir` whose plugin talks to the bench model, with keys in its secret storage; `settings` go into its data.json too. */
export async function benchHost(vaultDir: string, modelUrl: string, settings: Record<string, unknown> = {}): Promise<Host> {
	await fs.mkdir(vaultDir, { recursive: true });
	const host = await startHost({ vaultDir });
	confirmEndpointOnThisDevice(host, modelUrl);
	host.secretStorage.setSecret("bench-key-id", TEST_CREDENTIALS.accessKeyId);
	host.secretStorage.setSecret("bench-secret", TEST_CREDENTIALS.secretAccessKey);
	await fs.mkdir(host.diskPath(host.pluginDir), { recursive: true });
	await fs.writeFile(
		host.diskPath(`${host.pluginDir}/data.json`),
		JSON.stringify({
			endpoint: modelUrl,
			region: "us-east-1",
			accessKeyIdSecret: "bench-key-id",
			secretAccessKeySecret: "bench-secret",
			quietDelaySeconds: 0,
			bulkConfirmThreshold: 1_000_000,
			dailyConsolidation: false,
			parallelJobs: 4,
			...settings,
		}),
	);
	return host;
}

/**
 * The store's size against the vault's for notes of help-vault size (about 5 KB): the real
 * pages gathered into larger notes, remembered from scratch, the file measured after unload.
 */
async function gatheredVault(work: string, modelUrl: string, real: { root: string; paths: string[] }): Promise<void> {
	const vaultDir = path.join(work, "gathered-vault");
	await fs.mkdir(vaultDir, { recursive: true });
	const { notes, bytes } = await writeGatheredNotes(vaultDir, real);
	const host = await benchHost(vaultDir, modelUrl);
	try {
		host.vault.indexFiles();
		await host.loadPlugin();
		const status = await waitForIngest(host);
		await host.unloadPlugin();
		const dbPath = host.diskPath(`${host.pluginDir}/memory-${host.deviceId}.db`);
		const dbBytes = (await fs.stat(dbPath)).size;
		if (keepDir !== undefined) await fs.copyFile(dbPath, path.join(keepDir, "memory-gathered.db"));
		console.log(
			`\nNotes of about 5 KB (the ${real.paths.length.toLocaleString()} real pages gathered by folder into ${notes.toLocaleString()} notes, ${kb(bytes)} of Markdown): ` +
				`${status.memories.toLocaleString()} memories, the database ${kb(dbBytes)} = ${((100 * dbBytes) / bytes).toFixed(0)}% of the Markdown, ${Math.round(dbBytes / status.memories)} bytes a memory`,
		);
	} finally {
		await host.stop().catch(() => undefined);
	}
}

export async function runScaleBench(): Promise<void> {
	const work = await fs.mkdtemp(path.join(os.tmpdir(), "memory-agent-scale-"));
	if (keepDir !== undefined) await fs.mkdir(keepDir, { recursive: true });
	const model = await startModel();
	try {
		const real = await realNotes(work);
		await growingVault(work, model.url, real);
		if (real !== undefined) await gatheredVault(work, model.url, real);
	} finally {
		model.stop();
		await fs.rm(work, { recursive: true, force: true });
	}
}

/** The main run: one vault grown to each size, measured at each. */
async function growingVault(work: string, modelUrl: string, real: { root: string; paths: string[] } | undefined): Promise<void> {
	const vaultDir = path.join(work, "vault");
	const host = await benchHost(vaultDir, modelUrl);
	try {
		// Cold start: main.js loaded, layout ready, the worker and both WebAssembly modules up, a new store open.
		const mainJs = (await fs.stat(path.join(REPO_ROOT, "main.js"))).size;
		host.vault.indexFiles();
		const cold = await blocking(async () => {
			await host.loadPlugin();
			await host.waitFor(async () => (await statusOf(host)) !== undefined, { timeoutMs: 60_000, message: "the core to start" });
		});
		console.log(`\nmain.js: ${kb(mainJs)} (${mainJs.toLocaleString()} bytes); cold start to an open store ${fmt(cold.ms)}, longest main-thread block ${fmt(cold.longest)}`);

		const figures: StageFigures[] = [];
		let written = 0;
		let markdownBytes = 0;
		for (const target of sizes) {
			markdownBytes += await writeNotes(vaultDir, real, written, target);
			const added = target - written;
			written = target;
			host.vault.indexFiles();
			// A restart finds the new notes (the start's reconciliation) and remembers them.
			await host.unloadPlugin();
			const ingest = await blocking(async () => {
				await host.loadPlugin();
				return waitForIngest(host);
			});
			const perNote = ingest.ms / added;
			console.log(`  ${target.toLocaleString()} notes: ingested ${added.toLocaleString()} in ${fmt(ingest.ms)} (${perNote.toFixed(1)} ms a note), ${ingest.value.memories.toLocaleString()} memories, ${ingest.value.insights.toLocaleString()} insights`);
			figures.push(await measureStage(host, target, markdownBytes, { ms: ingest.ms, longest: ingest.longest, perNote }));
		}
		printTables(figures);
	} finally {
		await host.stop().catch(() => undefined);
	}
}

function printTables(figures: StageFigures[]): void {
	const header = ["", ...figures.map((stage) => `${stage.memories.toLocaleString()} memories`)];
	const rows: string[][] = [
		["notes (Markdown)", ...figures.map((stage) => `${stage.notes.toLocaleString()} (${kb(stage.markdownBytes)})`)],
		["the device's database", ...figures.map((stage) => `${kb(stage.dbBytes)} (${((100 * stage.dbBytes) / stage.markdownBytes).toFixed(0)}% of the Markdown)`)],
		["bytes per memory", ...figures.map((stage) => Math.round(stage.dbBytes / stage.memories).toLocaleString())],
		["  text / index / rest (of it free)", ...figures.map((stage) => `${[stage.split.text, stage.split.index, stage.split.rest].map((part) => Math.round(part / stage.memories)).join(" / ")} (${Math.round(stage.split.free / stage.memories)})`)],
		["  rewritten with 1/2/4/8 KiB pages", ...figures.map((stage) => Object.values(stage.pageSizes).map((bytes) => Math.round(bytes / stage.memories)).join(" / "))],
		["ingest (ms a note; longest block)", ...figures.map((stage) => `${stage.ingest.perNote.toFixed(1)}; ${fmt(stage.ingest.longest)}`)],
		["open at start (longest block)", ...figures.map((stage) => `${fmt(stage.open.ms)} (${fmt(stage.open.longest)})`)],
		["save (longest block)", ...figures.map((stage) => `${fmt(stage.save.ms)} (${fmt(stage.save.longest)})`)],
		["replay an alike log from another device (block)", ...figures.map((stage) => `${fmt(stage.replay.ms)} (${fmt(stage.replay.longest)}), ${stage.replay.entries.toLocaleString()} entries`)],
		["select 16K: median / worst (block)", ...figures.map((stage) => `${fmt(stage.select16.median)} / ${fmt(stage.select16.worst)} (${fmt(stage.select16.longest)})`)],
		["select 150K: median / worst (block)", ...figures.map((stage) => `${fmt(stage.select150.median)} / ${fmt(stage.select150.worst)} (${fmt(stage.select150.longest)})`)],
		["select 16K in the largest folder (its share)", ...figures.map((stage) => `${fmt(stage.selectFolder.median)} / ${fmt(stage.selectFolder.worst)} (${fmt(stage.selectFolder.longest)}) (${Math.round(stage.selectFolder.share * 100)}%)`)],
		["select 16K in a range of days (all)", ...figures.map((stage) => `${fmt(stage.selectDays.median)} / ${fmt(stage.selectDays.worst)} (${fmt(stage.selectDays.longest)})`)],
		["browser first screen (block); filtered", ...figures.map((stage) => `${fmt(stage.browser.ms)} (${fmt(stage.browser.longest)}); ${fmt(stage.browser.filteredMs)}`)],
		["a question, end to end (block)", ...figures.map((stage) => `${fmt(stage.ask.ms)} (${fmt(stage.ask.longest)})`)],
		["process RSS", ...figures.map((stage) => `${stage.rssMb.toFixed(0)} MB`)],
	];
	const widths = header.map((_, column) => Math.max(...[header, ...rows].map((row) => (row[column] ?? "").length)));
	const line = (row: string[]) => row.map((cell, column) => (column === 0 ? cell.padEnd(widths[0]!) : cell.padStart(widths[column]!))).join("  ");
	console.log(`\nThe store at scale (built main.js, core in a worker; "block" = the main thread's longest stall)`);
	console.log(`  ${line(header)}`);
	for (const row of rows) console.log(`  ${line(row)}`);
	console.log(JSON.stringify({ scale: figures }));
}
