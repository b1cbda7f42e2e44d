// Child process for the ingest kill test: the built main.js in the headless host remembers the
// notes of a vault folder, answered by the fake Bedrock (in this process, a little slow, like a
// model), until it is killed. Every 50 ms it prints "memories <count>" (from the core's status).
//
// Usage: node --import tsx ingest-child.ts <vault folder>

import fs from "node:fs/promises";
import { TEST_CREDENTIALS, startFakeBedrock } from "../fake-bedrock/index";
import { startHost } from "../host/host";
import { chunksIn } from "./batched-ingest";
import { confirmEndpointOnThisDevice } from "./trusted-endpoint";
import { replyByTool } from "./vault-host";

const [vaultDir] = process.argv.slice(2);
if (vaultDir === undefined) throw new Error("usage: ingest-child.ts <vault folder>");

const fake = await startFakeBedrock();
// 30 ms a chunk: a batched call of several chunks takes as long as their single calls would, so
// jobs finish at the pace the checkpoint rule was measured at.
fake.respond = (request) => ({ slow: 30 * Math.max(1, chunksIn(request.body)), then: replyByTool(request) });
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
const runtime = (host.plugin as unknown as { runtime: { store(): { status(): Promise<{ memories: number }> } | undefined } }).runtime;
setInterval(() => {
	fake.requests.splice(0);
	void runtime
		.store()
		?.status()
		.then((status) => process.stdout.write(`memories ${status.memories}\n`))
		.catch(() => undefined);
}, 50);
