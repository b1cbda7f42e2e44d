// The first ingest of the shared tldr-pages vault (10,862 pages in five languages, CC BY 4.0 by
// the tldr-pages authors), as a new user's first start makes it: the built main.js in the
// headless host, its core in a worker, every model call over HTTP to the fake Bedrock in another
// process (tests/fake-bedrock: ≈ 4 characters a token), answering `record_memory` and the
// batched `record_memories` with outputs sized like Claude's (scripts/bench/ingest-model.ts).
// For each model (Claude Haiku 4.5 and Haiku 5.5, chosen by id) it runs the vault twice —
// "before", one chunk a call (`ingestBatchChunks: 1`), and "after", the default — and prints
// model calls, calls per note, chunks per call, input and output tokens, cache reads and writes,
// rejected requests, and the estimated cost, each call priced by its own prompt size. A build
// without the `ingestBatchChunks` setting runs "before" only and says so.
// `--gathered` runs the pages gathered by folder into notes of about 5 KB instead (1,075 notes,
// several chunks each: the size of Obsidian's help vault's notes, which the issue measured).
// Usage: npm run bench -- --only=ingest [--models=haiku-4.5,haiku-5.5] [--ingest-notes=N] [--gathered]

import { spawn } from "node:child_process";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import type { StoreStatus } from "../../plugin/core/memory-core-api";
import { REPO_ROOT } from "../../tests/host/host";
import initSqlJs from "sql.js";
import { realNotes, writeGatheredNotes, writeNotes } from "./corpus";
import { type BenchModel, type Call, MODELS, callDollars } from "./ingest-prices";
import { NO_PROSE_SUMMARY, prose } from "./model";
import { type Runtime, benchHost, statusOf, waitForIngest } from "./scale";

/** The measurement from outside that issue 23 quotes (Obsidian's help vault, 6,249 notes, 32 MB): not measured here. */
const OUTSIDE = { notes: 6_249, calls: 9_552, input: 14_400_000, output: 1_600_000, dollars: 24 };

/** A run that makes no progress for this long is stopped and reported as it stands. */
const STALL_MS = 90_000;

/** Thrown out of the wait when a run stops making progress. */
class Stalled extends Error {}


interface RunFigures {
	model: BenchModel;
	column: "before" | "after";
	notes: number;
	calls: number;
	chunks: number;
	input: number;
	output: number;
	cacheRead: number;
	cacheWrite: number;
	/** Answers other than 200 (Bedrock's refusals of a request). */
	rejected: number;
	/** Calls whose prompt passed the model's price tier. */
	longPrompts: number;
	dollars: number;
	memories: number;
	/** Memories whose summary is not from the lines they are filed under (the scripted check that answers do not bleed across chunks). */
	misfiled: number;
	failed: number;
	stalled: boolean;
	ms: number;
}

const ARGS = process.argv.slice(2);
const arg = (name: string) => ARGS.find((value) => value.startsWith(`--${name}=`))?.slice(name.length + 3);

/** The model server in --ingest mode: its URL, and its figures of the calls answered since the last report. */
async function startIngestModel(): Promise<{ url: string; report(): Promise<Call[]>; stop(): void }> {
	const child = spawn(process.execPath, ["--import", "tsx", path.join(REPO_ROOT, "scripts", "bench", "model-server.ts"), "--ingest"], {
		stdio: ["pipe", "pipe", "inherit"],
	});
	let buffered = "";
	const lines: Array<(line: string) => void> = [];
	child.stdout.on("data", (chunk: Buffer) => {
		buffered += chunk.toString();
		for (let end = buffered.indexOf("\n"); end >= 0; end = buffered.indexOf("\n")) {
			const line = buffered.slice(0, end);
			buffered = buffered.slice(end + 1);
			lines.shift()?.(line);
		}
	});
	const nextLine = () => new Promise<string>((resolve) => lines.push(resolve));
	const exited = new Promise<never>((_, reject) => child.once("exit", (code) => reject(new Error(`the model server exited (${code})`))));
	const url = (JSON.parse(await Promise.race([nextLine(), exited])) as { url: string }).url;
	return {
		url,
		report: async () => {
			const line = nextLine();
			child.stdin.write("report\n");
			return (JSON.parse(await Promise.race([line, exited])) as { calls: Call[] }).calls;
		},
		stop: () => child.kill("SIGTERM"),
	};
}

function figuresOf(model: BenchModel, column: RunFigures["column"], notes: number, calls: Call[], status: StoreStatus | undefined, misfiled: number, stalled: boolean, ms: number): RunFigures {
	const ingest = calls.filter(([tool]) => tool === "record_memory" || tool === "record_memories");
	const sum = (index: 1 | 2 | 3 | 4 | 5) => ingest.reduce((total, call) => total + (call[index] as number), 0);
	const priced = ingest.map((call) => callDollars(model, call));
	return {
		model,
		column,
		notes,
		calls: ingest.length,
		chunks: sum(1),
		input: Math.round(sum(2) * model.tokenFactor),
		output: Math.round(sum(3) * model.tokenFactor),
		cacheRead: Math.round(sum(4) * model.tokenFactor),
		cacheWrite: Math.round(sum(5) * model.tokenFactor),
		rejected: calls.filter((call) => call[6] !== 200).length,
		longPrompts: priced.filter((call) => call.long).length,
		dollars: priced.reduce((total, call) => total + call.dollars, 0),
		memories: status?.memories ?? 0,
		misfiled,
		failed: status?.failed ?? 0,
		stalled,
		ms,
	};
}

/** One first ingest: a new store on the vault, the plugin started, waited on until nothing is left. */
async function firstIngest(vaultDir: string, model: BenchModel, column: RunFigures["column"], settings: Record<string, unknown>, notes: number, server: Awaited<ReturnType<typeof startIngestModel>>): Promise<RunFigures> {
	await fs.rm(path.join(vaultDir, ".obsidian"), { recursive: true, force: true });
	await server.report(); // forget anything answered before
	const host = await benchHost(vaultDir, server.url, { modelId: model.modelId, ...settings });
	const started = performance.now();
	let lastChange = started;
	let lastSeen = "";
	let lastPrinted = 0;
	let stalled = false;
	try {
		host.vault.indexFiles();
		await host.loadPlugin();
		const status = await waitForIngest(host, (now) => {
			const seen = `${now?.memories}/${now?.queued}/${now?.finished}/${now?.failed}`;
			if (seen !== lastSeen) [lastSeen, lastChange] = [seen, performance.now()];
			if (performance.now() - lastChange > STALL_MS) throw new Stalled();
			if (performance.now() - lastPrinted > 10_000) {
				lastPrinted = performance.now();
				process.stderr.write(
					`  [${model.key} ${column}] ${((lastPrinted - started) / 1000).toFixed(0)} s: ${now?.memories ?? 0} memories, ${now?.queued ?? "?"} queued, ${now?.running ?? 0} running, ${now?.failed ?? 0} failed${now?.paused ? `, paused: ${now.paused}` : ""}\n`,
				);
			}
		}).catch((error: unknown) => {
			if (!(error instanceof Stalled)) throw error;
			stalled = true;
			return undefined;
		});
		const ms = performance.now() - started;
		const final = status ?? (await statusOf(host));
		const database = (await (host.plugin as unknown as { runtime: Runtime }).runtime.client!.call("exportDatabase", true)) as Uint8Array;
		return figuresOf(model, column, notes, await server.report(), final, await misfiledMemories(vaultDir, database), stalled, ms);
	} finally {
		await host.stop().catch(() => undefined);
	}
}

/**
 * How many of the store's note memories carry a summary that is not from the lines they are
 * filed under. The bench's model makes every summary from the start of its chunk's own prose
 * (`summaryOf`), so a memory stored on the wrong chunk — a batched answer's entry landed on a
 * chunk it does not name — has a summary its lines do not contain.
 */
async function misfiledMemories(vaultDir: string, database: Uint8Array): Promise<number> {
	const SQL = await initSqlJs();
	const db = new SQL.Database(database);
	const notes = new Map<string, string[]>();
	let misfiled = 0;
	try {
		const rows = db.exec("SELECT p.path, m.line_start, m.line_end, m.summary FROM memories m JOIN paths p ON p.id = m.path_id WHERE m.line_start IS NOT NULL")[0]?.values ?? [];
		for (const [notePath, start, end, summary] of rows as Array<[string, number, number, string]>) {
			if (!notes.has(notePath)) notes.set(notePath, (await fs.readFile(path.join(vaultDir, notePath), "utf8")).split("\n"));
			const lines = notes.get(notePath)!.slice(start, end + 1).join("\n");
			// A cut summary ends in "…" after a whole word: what comes before it is in the prose.
			if (summary !== NO_PROSE_SUMMARY && !prose(lines).includes(summary.replace(/…$/, ""))) misfiled++;
		}
	} finally {
		db.close();
	}
	return misfiled;
}

const count = (value: number) => Math.round(value).toLocaleString("en-US");
const millions = (value: number) => `${(value / 1e6).toFixed(2)}M`;
const dollars = (value: number) => `$${value < 1 ? value.toFixed(3) : value.toFixed(2)}`;

function printTable(vault: string, notes: number, markdownBytes: number, runs: RunFigures[], batching: boolean): void {
	console.log(
		`\nFirst ingest of ${vault} (${count(notes)} notes, ${(markdownBytes / 1e6).toFixed(1)} MB of Markdown; CC BY 4.0, the tldr-pages authors)` +
			`\nthrough the built main.js against the fake Bedrock (≈ 4 characters a token; Haiku 5.5's counts ×${runs.find((run) => run.model.key === "haiku-5.5")?.model.tokenFactor.toFixed(2) ?? "1.30"} for its tokenizer), us-east-1, \`us.\` profile prices`,
	);
	const columns = batching ? ["before: 1 chunk a call", "after: batched (default)"] : ["before: 1 chunk a call", "after: n/a (this build has no ingestBatchChunks)"];
	const rows: string[][] = [];
	for (const model of MODELS) {
		const byColumn = (["before", "after"] as const).map((column) => runs.find((run) => run.model === model && run.column === column));
		if (byColumn.every((run) => run === undefined)) continue;
		const cell = (format: (run: RunFigures) => string) => byColumn.map((run) => (run === undefined ? "—" : format(run)));
		/** `format`, and in the "after" column the change from "before" of what `of` measures. */
		const changed = (format: (run: RunFigures) => string, of: (run: RunFigures) => number) =>
			cell((run) => {
				const before = byColumn[0];
				if (run.column === "before" || before === undefined || of(before) === 0) return format(run);
				const percent = Math.round((100 * (of(run) - of(before))) / of(before));
				return `${format(run)} (${percent > 0 ? "+" : percent < 0 ? "−" : "±"}${Math.abs(percent)}%)`;
			});
		const prompt = (run: RunFigures) => run.input + run.cacheRead + run.cacheWrite;
		rows.push([`${model.label} (${model.modelId})`, "", ""]);
		rows.push(["  model calls", ...changed((run) => count(run.calls), (run) => run.calls)]);
		rows.push(["  calls per note", ...cell((run) => (run.calls / run.notes).toFixed(2))]);
		rows.push(["  chunks per call", ...cell((run) => (run.chunks / Math.max(1, run.calls)).toFixed(2))]);
		rows.push(["  input tokens", ...changed((run) => millions(run.input), (run) => run.input)]);
		rows.push(["  output tokens", ...cell((run) => millions(run.output))]);
		rows.push(["  cache read / write tokens", ...cell((run) => `${millions(run.cacheRead)} / ${millions(run.cacheWrite)}`)]);
		rows.push(["  prompt tokens (input + cache) per note", ...changed((run) => count(prompt(run) / run.notes), prompt)]);
		rows.push(["  rejected requests", ...cell((run) => count(run.rejected))]);
		rows.push(["  memories (failed notes)", ...cell((run) => `${count(run.memories)} (${count(run.failed)})${run.stalled ? ", STALLED" : ""}`)]);
		rows.push(["  memories not from their own lines", ...cell((run) => count(run.misfiled))]);
		rows.push(["  estimated cost", ...changed((run) => `${dollars(run.dollars)}${run.longPrompts > 0 ? ` (${count(run.longPrompts)} calls over the price tier)` : ""}`, (run) => run.dollars)]);
		rows.push(["  time", ...cell((run) => `${(run.ms / 1000).toFixed(0)} s`)]);
	}
	const header = ["", ...columns];
	const widths = header.map((_, column) => Math.max(...[header, ...rows].map((row) => (row[column] ?? "").length)));
	const line = (row: string[]) => row.map((cell, column) => (column === 0 ? cell.padEnd(widths[0]!) : cell.padStart(widths[column]!))).join("  ");
	console.log(`  ${line(header)}`);
	for (const row of rows) console.log(`  ${line(row)}`);
	for (const model of MODELS) {
		const before = runs.find((run) => run.model === model && run.column === "before");
		const after = runs.find((run) => run.model === model && run.column === "after");
		if (before === undefined || after === undefined) continue;
		// Issue 23's bar: at most one call for every two notes, and at least 30% fewer input tokens
		// than one call per chunk (counted with the cached ones: every prompt token is input).
		const callsPerNote = after.calls / after.notes;
		const fewer = 1 - (after.input + after.cacheRead + after.cacheWrite) / Math.max(1, before.input + before.cacheRead + before.cacheWrite);
		const met = callsPerNote <= 0.5 && fewer >= 0.3;
		console.log(`  issue 23's bar, ${model.label}: ${callsPerNote.toFixed(2)} calls a note (bar ≤ 0.50), ${Math.round(fewer * 100)}% fewer prompt tokens (bar ≥ 30%): ${met ? "met" : "NOT met"}`);
	}
	console.log(
		`\nFor comparison, NOT measured here (issue 23, measured from outside on an Obsidian-help-like vault, ${count(OUTSIDE.notes)} notes, 32 MB):` +
			`\n  ${count(OUTSIDE.calls)} calls (one per chunk), ${millions(OUTSIDE.input)} input and ${millions(OUTSIDE.output)} output tokens, ≈ $${OUTSIDE.dollars} at Haiku 4.5's regional price`,
	);
	console.log(JSON.stringify({ ingest: runs.map(({ model, ...run }) => ({ model: model.key, ...run })) }));
}

export async function runIngestBench(): Promise<void> {
	const work = await fs.mkdtemp(path.join(os.tmpdir(), "memory-agent-ingest-"));
	const server = await startIngestModel();
	try {
		const real = await realNotes(work);
		if (real === undefined) throw new Error("the ingest bench needs ../shared/vaults/tldr-pages.tar.gz (see scripts/bench/corpus.ts)");
		// The whole vault is the unpacked archive as it is (its licence note too: 10,862 notes);
		// `--ingest-notes=N` copies the first N pages into a vault of their own.
		const subset = arg("ingest-notes");
		let vaultDir = real.root;
		let notes = real.paths.length + 1;
		let markdownBytes = (await Promise.all([...real.paths, "LICENSE.md"].map((page) => fs.stat(path.join(real.root, page))))).reduce((total, stat) => total + stat.size, 0);
		let vault = "the tldr-pages vault";
		if (subset !== undefined) {
			notes = Math.min(Number(subset), real.paths.length);
			vaultDir = path.join(work, "vault");
			markdownBytes = await writeNotes(vaultDir, real, 0, notes);
		}
		if (ARGS.includes("--gathered")) {
			// Notes the size of Obsidian's help vault's (about 5 KB, several chunks each): the pages of each folder gathered.
			vaultDir = path.join(work, "gathered");
			({ notes, bytes: markdownBytes } = await writeGatheredNotes(vaultDir, real));
			vault = "the tldr-pages gathered into notes of ~5 KB";
		}
		// The setting exists once the batching work is in the build; until then "after" cannot be run.
		const batching = (await fs.readFile(path.join(REPO_ROOT, "main.js"), "utf8")).includes("ingestBatchChunks");
		const chosen = (arg("models") ?? MODELS.map((model) => model.key).join(",")).split(",");
		const runs: RunFigures[] = [];
		for (const model of MODELS.filter((candidate) => chosen.includes(candidate.key))) {
			const columns: Array<[RunFigures["column"], Record<string, unknown>]> = batching ? [["before", { ingestBatchChunks: 1 }], ["after", {}]] : [["before", {}]];
			for (const [column, settings] of columns) {
				process.stderr.write(`ingest bench: ${model.label}, ${column}, ${count(notes)} notes\n`);
				runs.push(await firstIngest(vaultDir, model, column, settings, notes, server));
			}
		}
		printTable(vault, notes, markdownBytes, runs, batching);
	} finally {
		server.stop();
		await fs.rm(work, { recursive: true, force: true });
	}
}
