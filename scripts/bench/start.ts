// `npm run bench -- --only=start`: how soon the plugin can answer after Obsidian's layout is
// ready, on a small vault (20 notes, remembered by a first run): the headless host loads the
// built main.js as Obsidian does, with the core in a real worker thread and the fake Bedrock.
// For each of `--runs` loads: layout ready → the store open (what "still starting" waits for),
// → a question's first request reaching the model (asked as soon as the store is open), and the
// worker's start-up calls (decompress and compile, open the database) on their own.

import { startAnsweringFake, startVaultHost, storeOf, waitForIdle, writeNotes, writeSettings } from "../../tests/support/vault-host";
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
		const requestsBefore = fake.requests.length;
		const loaded = performance.now();
		await host.loadPlugin({ layoutReady: false });
		const layoutReady = performance.now();
		host.fireLayoutReady();
		const ready = await until(() => openStore(host) !== undefined, "the store to open");
		const asked = openStore(host)!.ask("What did Alice say about the Q3 budget?").catch(() => undefined);
		const firstCall = await until(() => fake.requests.length > requestsBefore, "the question's request");
		await asked;
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

	const header = ["run", "onload ms", "layout → store open ms", "layout → question at the model ms", "worker start (decompress + compile) ms", "open the database ms"];
	const widths = header.map((title, column) => Math.max(title.length, ...rows.map((row) => row[column]!.length)));
	const line = (cells: string[]) => `| ${cells.map((cell, column) => cell.padStart(widths[column]!)).join(" | ")} |`;
	console.log(`\nStart on a ${NOTE_COUNT}-note vault (headless host, real worker thread, fake Bedrock):\n`);
	console.log(line(header));
	console.log(`|${widths.map((width) => "-".repeat(width + 2)).join("|")}|`);
	for (const row of rows) console.log(line(row));
}
