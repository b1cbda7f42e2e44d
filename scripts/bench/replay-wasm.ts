// The rebuild from the logs as the plugin runs it: the core's WebAssembly over the real sql.js,
// through the plugin's own worker service and its vault file operations on a real folder (the
// memory folder `log-bench` wrote for each size). A new device (or a lost database) replays
// every device's log with `replayLogs`; printed: its time, and the longest stretch the event
// loop was held (in the plugin that is the worker's: a question waits at most that long).
// Run on its own thread here (the in-process core), so the figures are the worker's alone.

import fs from "node:fs/promises";
import path from "node:path";
import { monitorEventLoopDelay, performance } from "node:perf_hooks";
import type { LogReplay, StoreStatus } from "../../plugin/core/memory-core-api";
import { vaultFileHandlers } from "../../plugin/host/vault-files";
import { HostDataAdapter } from "../../tests/host/data-adapter";
import { inProcessCore } from "../../tests/support/node-core";

const MEMORY_FOLDER = "Memory Agent";

export async function runReplayWasmBench(dumps: string): Promise<void> {
	const sizes = (await fs.readdir(dumps)).map(Number).filter(Number.isFinite).sort((a, b) => a - b);
	console.log("\nThe rebuild from the logs in the plugin's core (WebAssembly, sql.js; the worker service in this thread)\n");
	console.log("| memories | index rebuilt from the logs | per memory | longest hold of the thread |");
	console.log("|---:|---:|---:|---:|");
	for (const size of sizes) {
		const vault = path.join(dumps, String(size));
		const core = await inProcessCore(vaultFileHandlers(new HostDataAdapter(vault)));
		await core.call("open", null, Date.now());
		await core.call("configure", { device: "bench-new" });
		const held = monitorEventLoopDelay({ resolution: 5 });
		held.enable();
		const started = performance.now();
		const replay = (await core.call("replayLogs", MEMORY_FOLDER, null)) as LogReplay;
		const ms = performance.now() - started;
		held.disable();
		const status = (await core.call("status")) as StoreStatus;
		core.terminate();
		if (replay.problems.length > 0) throw new Error(`the replay met problems: ${JSON.stringify(replay.problems)}`);
		if (status.memories < size - 1) throw new Error(`the rebuilt index holds ${status.memories} of ${size} memories`);
		const seconds = (value: number) => (value >= 1000 ? `${(value / 1000).toFixed(2)} s` : `${value.toFixed(0)} ms`);
		console.log(`| ${size.toLocaleString("en")} | ${seconds(ms)} | ${((ms / status.memories) * 1000).toFixed(0)} µs | ${seconds(held.max / 1e6)} |`);
	}
}
