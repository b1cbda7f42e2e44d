// `npm run bench -- --only=start`: how soon the plugin can answer after Obsidian's layout is
// ready, on a small vault (20 notes, remembered by a first run): the headless host loads the
// built main.js as Obsidian does, with the core in a real worker thread and the fake Bedrock.
// For each of `--runs` loads: layout ready → the store open (what "still starting" waits for),
// → a question's first request reaching the model (asked as soon as the store is open), and the
// worker's start-up calls (decompress and compile, open the database) on their own. Then the
// same on `--notes` (1,500) real notes remembered by a first run: the reload's own work (the
// vault's check, the replay) runs while the question is asked.

import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { startHost } from "../../tests/host/host";
import { startAnsweringFake, startVaultHost, storeOf, waitForIdle, writeNotes, writeSettings } from "../../tests/support/vault-host";
import { realNotes, writeNotes as writeCorpus } from "./corpus";
import type { FakeBedrock } from "../../tests/fake-bedrock/index";
import type { Host } from "../../tests/host/host";
import type { HostWorker } from "../../tests/host/worker";

const runs = Number(process.argv.find((arg) => arg.startsWith("--runs="))?.slice("--runs=".length) ?? 5);
const NOTE_COUNT = 20;

function notes(): Record<string, string> {
	const people = ["Alice", "Bruno", "Carla", "Dmitri", "Eve"];
	return Object.fromEntries(
		Array.from({ length: NOTE_COUNT }, (_, index) => [
			`Notes/note ${index}.md`,
			`# Meeting ${index}\n\n${people[index % people.length]} said the Q${(index % 4) + 1} budget needs ${index + 2} more days.\n`,
		]),
	);
}

type Store = { ask(question: string): Promise<unknown> } | undefined;
const openStore = (host: Host): Store => (host.plugin as unknown as { runtime?: { store(): Store } } | undefined)?.runtime?.store();

async function until(predicate: () => boolean, what: string): Promise<number> {
	const deadline = performance.now() + 30_000;
	while (!predicate()) {
		if (performance.now() > deadline) throw new Error(`timed out waiting for ${what}`);
		await new Promise((resolve) => setImmediate(resolve));
	}
	return performance.now();
}

/** Asks `question` now; when its first request reached the model. */
async function askUntilSent(host: Host, fake: FakeBedrock, question: string): Promise<number> {
	const before = fake.requests.length;
	const asked = openStore(host)!.ask(question).catch(() => undefined);
	const sent = await until(() => fake.requests.length > before, "the question's request");
	await asked;
	return sent;
}

/** Loads the plugin, fires layout ready, and asks `question` as soon as the store is open. */
async function reloadAndAsk(host: Host, fake: FakeBedrock, question: string): Promise<{ layoutReady: number; ready: number; firstCall: number }> {
	await host.loadPlugin({ layoutReady: false });
	const layoutReady = performance.now();
	host.fireLayoutReady();
	const ready = await until(() => openStore(host) !== undefined, "the store to open");
	return { layoutReady, ready, firstCall: await askUntilSent(host, fake, question) };
}

const QUESTION_AT_SCALE = "Which command lists the files of a folder?";

/** The worker's call `method` (the first one), as sent → answered in ms, or "–". */
function callMs(worker: HostWorker | undefined, method: string): string {
	const call = [...(worker?.calls.values() ?? [])].find((entry) => entry.method === method);
	return call?.answeredAt === undefined ? "–" : (call.answeredAt - call.sentAt).toFixed(0);
}

export async function runStartBench(): Promise<void> {
	const fake = await startAnsweringFake();
	const host = await startVaultHost();
	await writeSettings(host, fake, { dailyConsolidation: false });
	await writeNotes(host, notes());
	await host.loadPlugin();
	await host.waitForCore();
	await waitForIdle(host, "the first ingest");
	storeOf(host);
	await host.unloadPlugin();

	const rows: string[][] = [];
	for (let run = 1; run <= runs; run++) {
		const workersBefore = host.workers.started.length;
		const loaded = performance.now();
		const { layoutReady, ready, firstCall } = await reloadAndAsk(host, fake, "What did Alice say about the Q3 budget?");
		const worker = host.workers.started[workersBefore];
		rows.push([
			String(run),
			(layoutReady - loaded).toFixed(0),
			(ready - layoutReady).toFixed(0),
			(firstCall - layoutReady).toFixed(0),
			callMs(worker, "start"),
			callMs(worker, "open"),
		]);
		await waitForIdle(host, "the run's work");
		await host.unloadPlugin();
	}
	await host.stop();
	await fake.close();

	printTable(
		`Start on a ${NOTE_COUNT}-note vault (headless host, real worker thread, fake Bedrock):`,
		["run", "onload ms", "layout → store open ms", "layout → question at the model ms", "worker start (decompress + compile) ms", "open the database ms"],
		rows,
	);
}

/** A reload of a vault of `notes` real notes already remembered: its runs' rows. */
async function runsAtScale(notes: number): Promise<string[][]> {
	const work = await fs.mkdtemp(path.join(os.tmpdir(), "memory-agent-start-"));
	const vaultDir = path.join(work, "vault");
	await fs.mkdir(vaultDir, { recursive: true });
	await writeCorpus(vaultDir, await realNotes(work), 0, notes);
	const fake = await startAnsweringFake();
	const host = await startHost({ vaultDir });
	await writeSettings(host, fake, { dailyConsolidation: false, bulkConfirmThreshold: 1_000_000, quietDelaySeconds: 0, parallelJobs: 4 });
	host.vault.indexFiles();
	await host.loadPlugin();
	await host.waitForCore({ timeoutMs: 120_000 });
	await waitForIdle(host, "the first ingest");
	await host.unloadPlugin();
	const rows: string[][] = [];
	for (let run = 1; run <= runs; run++) {
		const { layoutReady, ready, firstCall } = await reloadAndAsk(host, fake, QUESTION_AT_SCALE);
		await waitForIdle(host, "the reload's work");
		// The same question once nothing else runs: what the question costs on its own.
		const idleAsked = performance.now();
		const idleCall = await askUntilSent(host, fake, QUESTION_AT_SCALE);
		await waitForIdle(host, "the run's work");
		await host.unloadPlugin();
		// The first question of a start asked only once the start's own work is done: what is
		// left of the first-question cost is the worker's cold code and caches, not contention.
		await host.loadPlugin();
		await until(() => openStore(host) !== undefined, "the store to open");
		await waitForIdle(host, "the reload's work");
		const quietAsked = performance.now();
		const quietCall = await askUntilSent(host, fake, QUESTION_AT_SCALE);
		rows.push([
			String(run),
			(ready - layoutReady).toFixed(0),
			(firstCall - layoutReady).toFixed(0),
			(firstCall - ready).toFixed(0),
			(quietCall - quietAsked).toFixed(0),
			(idleCall - idleAsked).toFixed(0),
		]);
		await waitForIdle(host, "the run's work");
		await host.unloadPlugin();
	}
	await host.stop();
	await fake.close();
	await fs.rm(work, { recursive: true, force: true });
	return rows;
}

function printTable(title: string, header: string[], rows: string[][]): void {
	const widths = header.map((cell, column) => Math.max(cell.length, ...rows.map((row) => row[column]!.length)));
	const line = (cells: string[]) => `| ${cells.map((cell, column) => cell.padStart(widths[column]!)).join(" | ")} |`;
	console.log(`\n${title}\n`);
	console.log(line(header));
	console.log(`|${widths.map((width) => "-".repeat(width + 2)).join("|")}|`);
	for (const row of rows) console.log(line(row));
}

export async function runQuestionAtScaleBench(): Promise<void> {
	const notes = Number(process.argv.find((arg) => arg.startsWith("--notes="))?.slice("--notes=".length) ?? 1_500);
	const rows = await runsAtScale(notes);
	printTable(`A question right after a reload, ${notes.toLocaleString("en-US")} real notes remembered:`, [
			"run",
			"layout → store open ms",
			"layout → question at the model ms",
			"store open → question at the model ms",
			"first question of a start, asked once its work is done ms",
			"a later question, asked when idle ms",
		],
		rows,
	);
}
