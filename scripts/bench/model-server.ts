// The benchmark's model as a process of its own, so that answering costs the measured
// plugin's main thread nothing: the fake Bedrock (every signature still checked) answering
// with `benchModel`. Prints `{"url"}` on one line; stops on SIGTERM.
//
// With `--ingest` it answers with `ingestModel` (facts, batched `record_memories`) and keeps
// each answered call's figures — the tool, how many chunks it carried, the usage the fake
// reported, the status — and on a line `report` on stdin prints them as one JSON line
// (`{"calls":[[tool, chunks, input, output, cacheRead, cacheWrite, status], …]}`) and forgets them.

import { startFakeBedrock } from "../../tests/fake-bedrock/index";
import { benchModel } from "./model";
import { chunksIn, ingestModel } from "./ingest-model";

type Call = [tool: string, chunks: number, input: number, output: number, cacheRead: number, cacheWrite: number, status: number | string];

const ingest = process.argv.includes("--ingest");
const fake = await startFakeBedrock();
fake.respond = ingest ? ingestModel : benchModel;
const calls: Call[] = [];

/** Takes the answered requests out of the recording (tens of thousands would only fill memory). */
function drain(): void {
	const pending = fake.requests.filter((request) => request.response === undefined);
	for (const request of fake.requests) {
		if (!ingest || request.response === undefined || request.modelId === undefined) continue;
		const json = (request.json ?? {}) as { toolConfig?: { tools?: Array<{ toolSpec?: { name?: string } }> } };
		const tool = json.toolConfig?.tools?.[0]?.toolSpec?.name ?? "answer";
		let usage = { inputTokens: 0, outputTokens: 0, cacheReadInputTokens: 0, cacheWriteInputTokens: 0 };
		if (request.response.status === 200) usage = (JSON.parse(request.response.body) as { usage: typeof usage }).usage;
		calls.push([tool, chunksIn(request), usage.inputTokens, usage.outputTokens, usage.cacheReadInputTokens ?? 0, usage.cacheWriteInputTokens ?? 0, request.response.errorType ?? request.response.status]);
	}
	fake.requests.splice(0, fake.requests.length, ...pending);
}

const trim = setInterval(drain, 1_000);
if (ingest) {
	let buffered = "";
	process.stdin.on("data", (data: Buffer) => {
		buffered += data.toString();
		for (let line = buffered.indexOf("\n"); line >= 0; line = buffered.indexOf("\n")) {
			const command = buffered.slice(0, line).trim();
			buffered = buffered.slice(line + 1);
			if (command !== "report") continue;
			drain();
			process.stdout.write(`${JSON.stringify({ calls: calls.splice(0) })}\n`);
		}
	});
}
process.once("SIGTERM", () => {
	clearInterval(trim);
	void fake.close().then(() => process.exit(0));
});
process.stdout.write(`${JSON.stringify({ url: fake.url })}\n`);
