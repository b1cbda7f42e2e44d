// A generated vault of many small notes and a database that already remembers all of them,
// made by the real core in Node with instant model answers (for the scale test and the bench).

import { createHash } from "node:crypto";
import fs from "node:fs/promises";
import path from "node:path";
import type { CoreHost, HostRequest, HostResponse } from "../../build/pkg/memory_agent.js";
import { batchedMemories, userTextOf } from "./batched-ingest";
import { NO_IMAGES, NO_LOG_FILES, loadFacade } from "./facade";

/** Writes `count` small notes into 100 folders; returns their vault paths. */
export async function generateNotes(vaultDir: string, count: number): Promise<string[]> {
	const paths: string[] = [];
	const folders = Math.min(100, count);
	for (let folder = 0; folder < folders; folder++) {
		const name = `Folder ${folder}`;
		await fs.mkdir(path.join(vaultDir, name), { recursive: true });
		const inFolder = Array.from({ length: Math.ceil(count / folders) }, (_, i) => folder + i * folders).filter((n) => n < count);
		await Promise.all(
			inFolder.map((n) => {
				paths.push(`${name}/note ${n}.md`);
				return fs.writeFile(path.join(vaultDir, name, `note ${n}.md`), `# Note ${n}\n\nMet person ${n % 97} about project ${n % 31} on day ${n % 365}.\n`);
			}),
		);
	}
	return paths.sort();
}

/** A Converse answer with the forced tool's input, as Bedrock would send it. */
function instantAnswer(request: HostRequest): HostResponse {
	const text = new TextDecoder().decode(request.body);
	const body = JSON.parse(text) as { toolConfig?: { toolChoice?: { tool?: { name?: string } } } };
	const tool = body.toolConfig?.toolChoice?.tool?.name;
	const memory = () => ({ nothing_to_remember: false, summary: "A meeting about a project.", entities: [], topics: ["meetings"], importance: 0.3, happened_on: [] });
	const input =
		tool === "record_insights" ? { insights: [] } : tool === "record_memories" ? batchedMemories(userTextOf(JSON.parse(text)), memory) : memory();
	const reply = {
		output: { message: { role: "assistant", content: [{ toolUse: { toolUseId: "tooluse_prepared", name: tool ?? "record_memory", input } }] } },
		stopReason: "tool_use",
		usage: { inputTokens: Math.ceil(text.length / 4), outputTokens: 40, totalTokens: Math.ceil(text.length / 4) + 40 },
	};
	return { status: 200, headers: { "content-type": "application/json" }, body: new TextEncoder().encode(JSON.stringify(reply)) };
}

/** Remembers every note of `paths` with the real core and returns the database bytes. */
export async function rememberAll(vaultDir: string, paths: readonly string[]): Promise<Uint8Array> {
	const { facade, SQL } = await loadFacade();
	const core = facade.MemoryCore.open(SQL, undefined, Date.now(), 42);
	const host: CoreHost = {
		send: (request) => Promise.resolve(instantAnswer(request)),
		sleep: () => Promise.resolve(),
		now: () => Date.now(),
		readFile: async (vaultPath) => {
			const file = path.join(vaultDir, vaultPath);
			const [bytes, stat] = await Promise.all([fs.readFile(file), fs.stat(file)]);
			return { bytes: new Uint8Array(bytes), mtime: stat.mtimeMs, size: stat.size };
		},
		utcOffsetMinutes: () => 0,
		progress: () => undefined,
		extractPdf: () => Promise.reject(new Error("no PDFs in this test")),
		...NO_LOG_FILES,
		...NO_IMAGES,
	};
	try {
		core.attachHost(host);
		core.configure({
			engine: { dailyConsolidation: false, consolidationThreshold: 2, consolidationBatchSize: 200 },
			connection: { region: "us-east-1", auth: { kind: "apiKey", apiKey: "prepared-database" } },
		});
		for (const notePath of paths) core.enqueueNote(notePath);
		const report = await core.runDueWork();
		if (report.failed > 0 || core.listSources(undefined, 100_000).length !== paths.length) throw new Error(`preparing the database failed: ${JSON.stringify(report)}`);
		return core.exportDatabase();
	} finally {
		core.free();
	}
}

/**
 * A database whose `sources` say every note of `paths` was read as it is on disk now (mtime,
 * size, SHA-256), planted with plain sql.js: what a finished first reconciliation leaves, made
 * in a second instead of the minute the core takes to ingest ten thousand notes.
 */
export async function databaseKnowingNotes(vaultDir: string, paths: readonly string[]): Promise<Uint8Array> {
	const { facade, SQL } = await loadFacade();
	const empty = facade.MemoryCore.open(SQL, undefined, Date.now(), 1);
	const db = new SQL.Database(empty.exportDatabase());
	empty.free();
	try {
		const now = Date.now();
		db.run("BEGIN");
		// The schema's own layout: a path once in `paths`, the record in `sources` by its id.
		const addPath = db.prepare("INSERT INTO paths (path) VALUES (?)");
		const insert = db.prepare("INSERT INTO sources (path_id, mtime, size, sha256, updated_at) VALUES (last_insert_rowid(), ?, ?, ?, ?)");
		for (const notePath of paths) {
			const file = path.join(vaultDir, notePath);
			const [bytes, stat] = await Promise.all([fs.readFile(file), fs.stat(file)]);
			addPath.run([notePath]);
			insert.run([Math.trunc(stat.mtimeMs), stat.size, createHash("sha256").update(bytes).digest(), now]);
		}
		addPath.free();
		insert.free();
		db.run("COMMIT");
		return db.export();
	} finally {
		db.close();
	}
}
