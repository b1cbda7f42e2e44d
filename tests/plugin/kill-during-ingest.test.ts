// A real crash in the middle of a long first ingest: the plugin (built main.js, core in its
// worker) remembers hundreds of notes in a child process, which is SIGKILLed at random moments.
// After each kill the file on disk must open, and hold every memory but the last 50 jobs' (the
// checkpoint rule: a write at least every 50 finished jobs and every 30 s); the next start
// carries on where the file left off.

import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { test } from "node:test";
import { DEFAULT_DEVICE_ID, REPO_ROOT } from "../host/host";
import { loadFacade } from "../support/facade";

const CHILD = path.join(REPO_ROOT, "tests", "support", "ingest-child.ts");
const DB = `.obsidian/plugins/memory-agent/memory-${DEFAULT_DEVICE_ID}.db`;
const NOTES = 900;
/** What the checkpoint rule allows to be lost, plus the jobs that finish while a write is under way. */
const AT_RISK = 50 + 10;

interface Report {
	at: number;
	memories: number;
}

/** Runs the child until `memories` reach `killAt`, kills it, and returns what it reported. */
async function runAndKill(vaultDir: string, killAt: number): Promise<Report[]> {
	const child = spawn(process.execPath, ["--import", "tsx", CHILD, vaultDir], { cwd: REPO_ROOT, stdio: ["ignore", "pipe", "pipe"] });
	const reports: Report[] = [];
	let stderr = "";
	let buffered = "";
	child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
	const killed = new Promise<void>((resolve, reject) => {
		child.stdout.on("data", (chunk: Buffer) => {
			buffered += chunk.toString();
			const lines = buffered.split("\n");
			buffered = lines.pop() ?? "";
			for (const line of lines) {
				const [word, count] = line.split(" ");
				if (word !== "memories") continue;
				reports.push({ at: Date.now(), memories: Number(count) });
				if (Number(count) >= killAt && !child.killed) child.kill("SIGKILL");
			}
		});
		child.once("close", (code, signal) => (signal === "SIGKILL" ? resolve() : reject(new Error(`the child ended by itself (${code}): ${stderr}`))));
	});
	await killed;
	return reports;
}

/** The memories in the file on disk, read the way the next start reads it (a whole database or nothing). */
async function memoriesOnDisk(vaultDir: string): Promise<number> {
	const { facade, SQL } = await loadFacade();
	const file = path.join(vaultDir, DB);
	const tmp = `${file}.tmp`;
	// The start's recovery: a finished temporary file with no database beside it is the database.
	const bytes = await fs.readFile(file).catch(async () => fs.readFile(tmp));
	const core = facade.MemoryCore.open(SQL, new Uint8Array(bytes), Date.now());
	try {
		core.checkIntegrity();
		return core.status().memories;
	} finally {
		core.free();
	}
}

test("a first ingest killed at random moments keeps every memory but the last 50 jobs' on disk, and the next start carries on", { timeout: 300_000 }, async () => {
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
			const reports = await runAndKill(vaultDir, killAt);
			const killedAt = reports.at(-1)!.at;
			const onDisk = await memoriesOnDisk(vaultDir);
			// What the child had reported a little before the kill was finished by then.
			const finishedBefore = [...reports].reverse().find((report) => report.at <= killedAt - 300)?.memories ?? 0;
			assert.ok(onDisk >= finishedBefore - AT_RISK, `round ${round}: ${onDisk} memories on disk, ${finishedBefore} finished 0.3 s before the kill`);
			assert.ok(onDisk >= previous, `round ${round}: the file went back from ${previous} to ${onDisk}`);
			assert.ok(onDisk <= NOTES);
			// The next start reads the file and goes on from there: no memory twice, none lost.
			previous = onDisk;
		}
		assert.ok(previous > 200, `the runs got somewhere: ${previous}`);
	} finally {
		await fs.rm(vaultDir, { recursive: true, force: true });
	}
});
