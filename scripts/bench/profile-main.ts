// Profiling aid (not part of `npm run bench`): a first ingest of `--notes` real notes and a
// reload in the headless host, run under `node --cpu-prof`; the main thread's profile is then
// read by profile-blocks.mjs to name what its long blocks spend their time on.

import { spawn } from "node:child_process";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { monitorEventLoopDelay } from "node:perf_hooks";
import { TEST_CREDENTIALS } from "../../tests/fake-bedrock/index";
import { REPO_ROOT, startHost } from "../../tests/host/host";
import { confirmEndpointOnThisDevice } from "../../tests/support/trusted-endpoint";
import { realNotes, writeNotes } from "./corpus";

const notes = Number(process.argv.find((arg) => arg.startsWith("--notes="))?.slice("--notes=".length) ?? 1500);
const work = await fs.mkdtemp(path.join(os.tmpdir(), "memory-agent-profile-"));
const child = spawn(process.execPath, ["--import", "tsx", path.join(REPO_ROOT, "scripts", "bench", "model-server.ts")], { stdio: ["ignore", "pipe", "inherit"] });
if (child.pid !== undefined) os.setPriority(child.pid, 19);
const url = await new Promise<string>((resolve) => child.stdout.once("data", (chunk: Buffer) => resolve((JSON.parse(chunk.toString()) as { url: string }).url)));
const vaultDir = path.join(work, "vault");
await fs.mkdir(vaultDir, { recursive: true });
await writeNotes(vaultDir, await realNotes(work), 0, notes);
const host = await startHost({ vaultDir });
confirmEndpointOnThisDevice(host, url);
host.secretStorage.setSecret("k", TEST_CREDENTIALS.accessKeyId);
host.secretStorage.setSecret("s", TEST_CREDENTIALS.secretAccessKey);
await fs.mkdir(host.diskPath(host.pluginDir), { recursive: true });
await fs.writeFile(host.diskPath(`${host.pluginDir}/data.json`), JSON.stringify({ endpoint: url, region: "us-east-1", accessKeyIdSecret: "k", secretAccessKeySecret: "s", quietDelaySeconds: 0, bulkConfirmThreshold: 1_000_000, dailyConsolidation: false, parallelJobs: 4 }));
host.vault.indexFiles();

type Store = { status(): Promise<{ queued: number; running: number; memories: number }> };
const store = () => (host.plugin as unknown as { runtime: { store(): Store | undefined } }).runtime.store();
async function idle(): Promise<void> {
	let times = 0;
	for (;;) {
		await new Promise((resolve) => setTimeout(resolve, 250));
		const status = await store()?.status().catch(() => undefined);
		if (status === undefined || /checking/.test(host.statusBarText()) || status.queued > 0 || status.running > 0) times = 0;
		else if (++times === 2) return;
	}
}
async function phase(name: string, run: () => Promise<void>): Promise<void> {
	const delay = monitorEventLoopDelay({ resolution: 1 });
	const started = performance.now();
	console.log(JSON.stringify({ phase: name, startedAt: performance.timeOrigin + started }));
	delay.enable();
	await run();
	delay.disable();
	console.log(JSON.stringify({ phase: name, ms: Math.round(performance.now() - started), longestBlockMs: Math.max(0, delay.max / 1e6 - 1) }));
}
try {
	await host.loadPlugin();
	await host.waitForCore();
	await phase("first ingest", idle);
	await host.unloadPlugin();
	await phase("reload", async () => {
		await host.loadPlugin();
		await host.waitForCore();
		await idle();
	});
} finally {
	await host.stop().catch(() => undefined);
	child.kill("SIGTERM");
	await fs.rm(work, { recursive: true, force: true });
}
