// A real crash: a child process saving over a real folder is SIGKILLed at random moments;
// after every kill a fresh load must open a whole database, no older than the last confirmed save.

import assert from "node:assert/strict";
import { type ChildProcess, spawn } from "node:child_process";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { test } from "node:test";
import { DatabaseFile } from "../../plugin/storage/database-file";
import { HostDataAdapter } from "../host/data-adapter";
import { REPO_ROOT } from "../host/host";
import { loadFacade } from "../support/facade";
import { emptyDatabase } from "../support/node-core";

const KILLS = 15;
const DB = ".obsidian/plugins/memory-agent/memory.db";
const CHILD = path.join(REPO_ROOT, "tests", "support", "save-loop-child.ts");

interface ChildRun {
	child: ChildProcess;
	ready: Promise<number>;
	saved: () => number;
	exited: Promise<unknown>;
}

function startChild(vaultDir: string): ChildRun {
	const child = spawn(process.execPath, ["--import", "tsx", CHILD, vaultDir, DB], {
		cwd: REPO_ROOT,
		stdio: ["ignore", "pipe", "pipe"],
	});
	let lastSaved = -1;
	let stderr = "";
	let buffered = "";
	let onReady: (n: number) => void = () => {};
	const ready = new Promise<number>((resolve, reject) => {
		onReady = resolve;
		child.once("exit", (code, signal) => reject(new Error(`child exited early (${code ?? signal}): ${stderr}`)));
	});
	child.stderr?.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
	child.stdout?.on("data", (chunk: Buffer) => {
		buffered += chunk.toString();
		const lines = buffered.split("\n");
		buffered = lines.pop() ?? "";
		for (const line of lines) {
			const [word, n] = line.split(" ");
			if (word === "ready") onReady(Number(n));
			if (word === "saved") lastSaved = Number(n);
		}
	});
	// "close", not "exit": it comes after the last line the child wrote has been read.
	const exited = new Promise((resolve) => child.once("close", resolve));
	return { child, ready, saved: () => lastSaved, exited };
}

test(`a save killed at ${KILLS} random moments always leaves a loadable database`, { timeout: 240_000 }, async (t) => {
	const vaultDir = await fs.mkdtemp(path.join(os.tmpdir(), "memory-agent-kill-"));
	const adapter = new HostDataAdapter(vaultDir);
	const { facade, SQL } = await loadFacade();
	await new DatabaseFile(adapter, DB).save(await emptyDatabase());

	let confirmed = 0; // the highest counter a child reported as saved
	const phases = { "between saves": 0, "writing the temporary file": 0, "after removing the old file": 0 };
	try {
		for (let kill = 1; kill <= KILLS; kill++) {
			const run = startChild(vaultDir);
			const loaded = await run.ready;
			assert.ok(loaded >= confirmed, `kill ${kill}: the child loaded counter ${loaded}, below the confirmed ${confirmed}`);
			// Let it save a few times, then kill it wherever it is.
			await new Promise((resolve) => setTimeout(resolve, 150 + Math.random() * 600));
			run.child.kill("SIGKILL");
			await run.exited;
			// What the child loaded is on disk too: a save that finished unconfirmed before the last
			// kill was loaded by this child, whose own next save may finish unconfirmed in turn.
			confirmed = Math.max(confirmed, loaded, run.saved());
			const tmp = await adapter.exists(`${DB}.tmp`);
			const main = await adapter.exists(DB);
			phases[!tmp ? "between saves" : main ? "writing the temporary file" : "after removing the old file"]++;

			const bytes = await new DatabaseFile(adapter, DB).load();
			assert.ok(bytes, `kill ${kill}: a database file exists`);
			const core = facade.MemoryCore.open(SQL, bytes, Date.now()); // throws store.corrupt on a torn file
			assert.equal(core.status().schemaVersion, facade.supportedSchemaVersion());
			core.free();
			const db = new SQL.Database(bytes);
			// The full-text index's view calls the core's `memory_terms` (plain sql.js gets it from the facade).
			db.create_function("memory_terms", (kind: unknown, text: unknown, names: unknown) => facade.memoryTerms(String(kind), String(text ?? ""), String(names ?? "")));
			assert.equal(db.exec("PRAGMA integrity_check")[0]?.values[0]?.[0], "ok", `kill ${kill}: integrity`);
			const counter = Number(db.exec("SELECT value FROM meta WHERE key = 'kill-test-counter'")[0]?.values[0]?.[0] ?? 0);
			db.close();
			assert.ok(
				counter === confirmed || counter === confirmed + 1,
				`kill ${kill}: loaded counter ${counter}, expected the last confirmed save ${confirmed} or the one in flight`,
			);
			assert.equal(await adapter.exists(`${DB}.tmp`), false, `kill ${kill}: load cleaned up the temporary file`);
		}
		assert.ok(confirmed >= KILLS, `the children saved often enough to be killed mid-work (${confirmed} saves)`);
		t.diagnostic(`${confirmed} saves confirmed; kills by phase: ${JSON.stringify(phases)}`);
		assert.ok(phases["between saves"] < KILLS, "at least one kill interrupted a save");
	} finally {
		await fs.rm(vaultDir, { recursive: true, force: true });
	}
});
