// A real crash in the middle of a long first ingest: the plugin (built main.js, core in its
// worker) remembers hundreds of notes in a child process, which is SIGKILLed at random moments.
//
// The database file is a cache, written rarely (storage/save-scheduler.ts): a kill mostly comes
// long after its last write, or before the first. What a crash must not lose is in the device's
// own log (`Memory Agent/<device>/NNNNNN.jsonl`, written within 2 s of a change by the core's
// `syncLog`), which the next start replays from the database's cursors. So after each kill the
// plugin starts again with a model that never answers (nothing new is remembered), and what that
// start holds once its replay and its look at the vault are over — database and log together —
// must be:
// - every memory whose job had finished 2.5 s before the kill (the log's 2 s and a margin), and
//   every memory the previous start held;
// - each note's memory once and whole: one memory a note (each note is one chunk), each with its
//   note recorded as read, each note recorded as read with its memory;
// - every other note with its job, so the work carries on.
// That start then closes as at quit: the database it writes must open, pass the full check and
// hold the same. The next round's ingest goes on from there, so the later kills land on a
// database whose cursors point into a log that goes on past them.

import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { test } from "node:test";
import { DEFAULT_DEVICE_ID, REPO_ROOT } from "../host/host";
import { loadFacade } from "../support/facade";
import type { Held } from "../support/ingest-child";

const CHILD = path.join(REPO_ROOT, "tests", "support", "ingest-child.ts");
const PLUGIN_DIR = ".obsidian/plugins/memory-agent";
const DB = `${PLUGIN_DIR}/memory-${DEFAULT_DEVICE_ID}.db`;
const NOTES = 900;
/** The log's write delay (`DEFAULT_LOG_WRITE_DELAY_MS`) and a margin for the write itself. */
const LOG_DELAY_MS = 2_500;
/**
 * Memories that may be made between the child's last count and the kill, and reach the log by a
 * write already under way: the notes of the model calls in flight (three at once, eight chunks a call).
 */
const AFTER_LAST_COUNT = 3 * 8;

interface Report {
	at: number;
	memories: number;
}

/** Runs the child in `mode`, handing each line of its output to `onLine` (with a way to kill it). */
async function runChild(vaultDir: string, mode: "ingest" | "restart", onLine: (line: string, kill: () => void) => void): Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string }> {
	const child = spawn(process.execPath, ["--import", "tsx", CHILD, vaultDir, mode], { cwd: REPO_ROOT, stdio: ["ignore", "pipe", "pipe"] });
	let stderr = "";
	let buffered = "";
	const kill = () => {
		if (!child.killed) child.kill("SIGKILL");
	};
	// A child that hangs is ended, and the test fails on its exit.
	const bound = setTimeout(kill, 90_000);
	child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
	child.stdout.on("data", (chunk: Buffer) => {
		buffered += chunk.toString();
		const lines = buffered.split("\n");
		buffered = lines.pop() ?? "";
		for (const line of lines) onLine(line, kill);
	});
	return new Promise((resolve) =>
		child.once("close", (code, signal) => {
			clearTimeout(bound);
			// The end is what tells (an error's stack; an error in main.js prints its whole line first).
			resolve({ code, signal, stderr: stderr.slice(-2_000) });
		}),
	);
}

/** Ingests until the memories reach `killAt`, SIGKILLs the child then, and returns its counts. */
async function ingestAndKill(vaultDir: string, killAt: number): Promise<Report[]> {
	const reports: Report[] = [];
	const end = await runChild(vaultDir, "ingest", (line, kill) => {
		const [word, count] = line.split(" ");
		if (word !== "memories") return;
		reports.push({ at: Date.now(), memories: Number(count) });
		if (Number(count) >= killAt) kill();
	});
	assert.equal(end.signal, "SIGKILL", `the ingest ended by itself (${end.code}): ${end.stderr}`);
	return reports;
}

/** Starts the plugin again (its model never answers) and returns what it holds once its start is over; it then closes. */
async function restart(vaultDir: string): Promise<Held> {
	let held: Held | undefined;
	const end = await runChild(vaultDir, "restart", (line) => {
		if (line.startsWith("held ")) held = JSON.parse(line.slice("held ".length)) as Held;
	});
	assert.ok(held !== undefined && end.code === 0, `the next start did not report and close (${end.code ?? end.signal}): ${end.stderr}`);
	return held;
}

/** The memories of the database file, opened as a start opens it and fully checked. */
async function memoriesInDatabase(vaultDir: string): Promise<number> {
	const { facade, SQL } = await loadFacade();
	const core = facade.MemoryCore.open(SQL, new Uint8Array(await fs.readFile(path.join(vaultDir, DB))), Date.now());
	try {
		core.checkIntegrity();
		return core.status().memories;
	} finally {
		core.free();
	}
}

/** Each note's memory once and whole: one memory a remembered note, none without its note. */
function assertWhole(held: Held, round: number): void {
	const where = `round ${round}`;
	assert.equal(held.browsed.length, held.memories, `${where}: the browser shows ${held.browsed.length} memories, the count says ${held.memories}`);
	assert.equal(new Set(held.browsed.map((memory) => memory.id)).size, held.memories, `${where}: a memory id twice`);
	const perNote = new Map<string, number>();
	for (const memory of held.browsed) perNote.set(memory.source_path, (perNote.get(memory.source_path) ?? 0) + 1);
	const twice = [...perNote].filter(([, count]) => count > 1).map(([note]) => note);
	assert.deepEqual(twice, [], `${where}: notes with more than one memory`);
	const sources = new Set(held.sources);
	const withoutNote = [...perNote.keys()].filter((note) => !sources.has(note));
	assert.deepEqual(withoutNote, [], `${where}: memories whose note is not recorded as read`);
	const withoutMemory = held.sources.filter((note) => !perNote.has(note));
	assert.deepEqual(withoutMemory, [], `${where}: notes recorded as read without their memory`);
	assert.equal(held.rememberedNotes, held.sources.length, `${where}: remembered notes`);
	for (const memory of held.browsed) {
		const n = /^Notes \d+\/note (\d+)\.md$/.exec(memory.source_path)?.[1];
		assert.ok(n !== undefined, `${where}: a memory of ${memory.source_path}`);
		assert.equal(memory.summary, "Something worth remembering.", `${where}: ${memory.source_path}'s summary`);
		assert.equal(memory.position.heading, `Note ${n}`, `${where}: ${memory.source_path}'s heading`);
	}
}

test("a first ingest killed at random moments: the next start holds every memory finished 2.5 s before the kill, once and whole, and carries on", { timeout: 300_000 }, async (t) => {
	const vaultDir = await fs.mkdtemp(path.join(os.tmpdir(), "memory-agent-ingest-kill-"));
	try {
		for (let n = 0; n < NOTES; n++) {
			const folder = path.join(vaultDir, `Notes ${n % 30}`);
			await fs.mkdir(folder, { recursive: true });
			await fs.writeFile(path.join(folder, `note ${n}.md`), `# Note ${n}\n\nMet person ${n % 97} about project ${n % 31}.\n`);
		}
		let seed = 17;
		const random = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
		let previous = 0;
		for (const round of [1, 2, 3]) {
			// Somewhere between 80 and 230 more memories into this run.
			const killAt = previous + 80 + Math.floor(random() * 150);
			const reports = await ingestAndKill(vaultDir, killAt);
			const killedAt = reports.at(-1)!.at;
			const atKill = reports.at(-1)!.memories;
			// What the child had counted LOG_DELAY_MS before the kill had finished by then.
			const finishedBefore = [...reports].reverse().find((report) => report.at <= killedAt - LOG_DELAY_MS)?.memories ?? 0;
			const held = await restart(vaultDir);
			const told = `round ${round}: killed at ${atKill} memories, ${finishedBefore} finished ${LOG_DELAY_MS} ms before; the next start holds ${held.memories} (the previous one ${previous})${held.notices.length > 0 ? `, notices: ${JSON.stringify(held.notices)}` : ""}`;
			assert.ok(held.memories >= finishedBefore, told);
			assert.ok(held.memories >= previous, told);
			assert.ok(held.memories <= Math.min(NOTES, atKill + AFTER_LAST_COUNT), told);
			assertWhole(held, round);
			// The next start carries on: every note is remembered or has its job.
			const covered = new Set([...held.sources, ...held.noteJobs]);
			assert.equal(covered.size, NOTES, `${told}: ${NOTES - covered.size} notes neither remembered nor with a job`);
			// What the start held is what it wrote at its close.
			assert.equal(await memoriesInDatabase(vaultDir), held.memories, `${told}: the database written at its close`);
			const movedAside = (await fs.readdir(path.join(vaultDir, PLUGIN_DIR))).filter((name) => name.includes(".corrupt-"));
			assert.deepEqual(movedAside, [], `${told}: a database moved aside as damaged`);
			t.diagnostic(told);
			previous = held.memories;
		}
		assert.ok(previous > 200, `the runs got somewhere: ${previous}`);
	} finally {
		await fs.rm(vaultDir, { recursive: true, force: true });
	}
});
