// Child process for the ingest kill test: the built main.js in the headless host, over a vault
// folder, until it is killed or done.
//
// `ingest`: remembers the notes, answered by the fake Bedrock (in this process, a little slow,
// like a model). Every 50 ms it prints "memories <count>" (from the core's status).
//
// `restart`: the next start, whose model never answers (nothing new is remembered). Once the
// start's replay of the device logs is over (the first model call comes only after it) and its
// look at the vault too, it prints "held <JSON of Held>": what the start holds, the database and
// the replayed log together. Then it closes the plugin as Obsidian does at quit (the database is
// written), prints "closed" and exits.
//
// Usage: node --import tsx ingest-child.ts <vault folder> <ingest | restart>

import fs from "node:fs/promises";
import type { Memory, MemoryCursor, MemoryStore, Source } from "../../plugin/core/memory-core-api";
import { TEST_CREDENTIALS, startFakeBedrock } from "../fake-bedrock/index";
import { startHost } from "../host/host";
import { chunksIn } from "./batched-ingest";
import { confirmEndpointOnThisDevice } from "./trusted-endpoint";
import { replyByTool } from "./vault-host";

/** What a start holds once its replay and its look at the vault are over (the `restart` mode's report). */
export interface Held {
	/** The core's count. */
	memories: number;
	/** Notes the core counts as remembered. */
	rememberedNotes: number;
	/** Every memory (browsed page by page): its id, note, summary and place in the note. */
	browsed: Array<Pick<Memory, "id" | "source_path" | "summary" | "position">>;
	/** The notes recorded as read and not skipped. */
	sources: string[];
	/** The notes with a job left (queued or running): the start will still read them. */
	noteJobs: string[];
	notices: string[];
}

const [vaultDir, mode = "ingest"] = process.argv.slice(2);
if (vaultDir === undefined || (mode !== "ingest" && mode !== "restart")) throw new Error("usage: ingest-child.ts <vault folder> <ingest | restart>");

const fake = await startFakeBedrock();
let modelAsked = false;
// ingest: 100 ms a chunk (a batched call of several chunks takes as long as their single calls
// would): about 30 notes a second with three calls at once, so a run of a few hundred notes lasts
// several times the log's write delay. restart: an hour (the process is gone long before).
fake.respond = (request) => {
	if (mode === "ingest") return { slow: 100 * Math.max(1, chunksIn(request.body)), then: replyByTool(request) };
	if (request.modelId !== undefined) modelAsked = true;
	return { slow: 3_600_000, then: replyByTool(request) };
};
const host = await startHost({ vaultDir });
confirmEndpointOnThisDevice(host, fake.url);
host.secretStorage.setSecret("kill-key-id", TEST_CREDENTIALS.accessKeyId);
host.secretStorage.setSecret("kill-secret", TEST_CREDENTIALS.secretAccessKey);
await fs.mkdir(host.diskPath(host.pluginDir), { recursive: true });
await fs.writeFile(
	host.diskPath(`${host.pluginDir}/data.json`),
	JSON.stringify({
		endpoint: fake.url,
		region: "us-east-1",
		accessKeyIdSecret: "kill-key-id",
		secretAccessKeySecret: "kill-secret",
		quietDelaySeconds: 0,
		bulkConfirmThreshold: 1_000_000,
		dailyConsolidation: false,
		consolidationThreshold: 100_000,
		parallelJobs: 3,
	}),
);
await host.loadPlugin();
const runtime = (host.plugin as unknown as { runtime: { store(): MemoryStore | undefined } }).runtime;

if (mode === "ingest") {
	setInterval(() => {
		fake.requests.splice(0);
		void runtime
			.store()
			?.status()
			.then((status) => process.stdout.write(`memories ${status.memories}\n`))
			.catch(() => undefined);
	}, 50);
} else {
	await host.waitFor(
		async () => {
			const store = runtime.store();
			// The start's look at the vault is over too: the status bar counts the notes remembered
			// once it is (and closing before would end it mid-way).
			if (store === undefined || !modelAsked || !/\d\/[\d,]+ notes?\b/.test(host.statusBarText())) return false;
			const replay = await store.replayProgress();
			return !replay.running;
		},
		{ timeoutMs: 60_000, message: "the start's replay, its first model call and its look at the vault" },
	);
	const store = runtime.store();
	if (store === undefined) throw new Error("the store closed");
	const browsed: Held["browsed"] = [];
	for (let before: MemoryCursor | null = null; ; ) {
		const page = await store.browseMemories({ before, limit: 200 });
		browsed.push(...page.memories.map(({ id, source_path, summary, position }) => ({ id, source_path, summary, position })));
		if (page.next === null || page.memories.length === 0) break;
		before = page.next;
	}
	const sources: string[] = [];
	for (let after: string | null = null; ; ) {
		const page: Source[] = await store.listSources(after, 500);
		sources.push(...page.filter((source) => source.skipped === null).map((source) => source.path));
		if (page.length === 0) break;
		after = page.at(-1)!.path;
	}
	const noteJobs = (await store.listJobs(null, 100_000)).flatMap((job) => (job.kind === "ingest_source" && job.state !== "failed" ? [job.payload.path] : []));
	const status = await store.status();
	const held: Held = { memories: status.memories, rememberedNotes: await store.rememberedNotes(), browsed, sources, noteJobs, notices: host.notices };
	process.stdout.write(`held ${JSON.stringify(held)}\n`);
	await host.unloadPlugin();
	process.stdout.write("closed\n");
	process.exit(0);
}
