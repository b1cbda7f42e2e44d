// The built WebAssembly in Node against the fake Bedrock over real HTTP: retries that succeed once
// faults clear, giving up after the bound with the right code, and the concurrency limit under load.

import assert from "node:assert/strict";
import { afterEach, test } from "node:test";
import type { BedrockAuthSettings, MemoryCore } from "../../build/pkg/memory_agent.js";
import { requestUrlSend } from "../../plugin/host/request-url-transport";
import { type FakeBedrock, type Reply, TEST_API_KEY, TEST_CREDENTIALS, startFakeBedrock } from "../fake-bedrock/index";
import { hostRequestUrl } from "../host/request-url";
import { NO_IMAGES, NO_LOG_FILES, loadFacade } from "../support/facade";

/** Realm timers 100 times faster: backoff and the 60-second timeout take milliseconds here. */
const TIME_SCALE = 100;

let fake: FakeBedrock | undefined;
let core: MemoryCore | undefined;
afterEach(async () => {
	core?.free();
	core = undefined;
	await fake?.close();
	fake = undefined;
});

/** A store connected to the fake through the plugin's own transport over Node http. */
async function connectedCore(connection: { maxConcurrency?: number; modelId?: string } = {}): Promise<{ core: MemoryCore; fake: FakeBedrock }> {
	const { facade, SQL } = await loadFacade();
	fake = await startFakeBedrock();
	core = facade.MemoryCore.open(SQL, undefined, Date.now(), 42);
	core.attachHost({
		send: requestUrlSend(hostRequestUrl),
		sleep: (ms) => new Promise((resolve) => setTimeout(resolve, Math.ceil(ms / TIME_SCALE))),
		now: () => Date.now(),
		readFile: () => Promise.resolve(null),
		utcOffsetMinutes: () => 0,
		progress: () => undefined,
		extractPdf: () => Promise.reject(new Error("no PDFs in this test")),
		...NO_LOG_FILES,
		...NO_IMAGES,
	});
	core.configure({
		engine: { parallelJobs: 6, dailyConsolidation: false, consolidationThreshold: 10_000 },
		connection: {
			region: "us-east-1",
			endpoint: fake.url,
			// The fake is not AWS's: confirmed as this device's user would (the plugin keeps the yes in local storage).
			trustedEndpointHost: "127.0.0.1",
			auth: { kind: "accessKey", accessKeyId: TEST_CREDENTIALS.accessKeyId, secretAccessKey: TEST_CREDENTIALS.secretAccessKey },
			...connection,
		},
	});
	return { core, fake };
}

function codeOf(error: unknown): unknown {
	return (error as { code?: unknown }).code;
}

const MEMORY: Reply = {
	toolUse: { name: "record_memory", input: { nothing_to_remember: false, summary: "Ana planted tomatoes in the garden.", entities: [], topics: ["garden"], importance: 0.5, happened_on: null } },
};

test("an endpoint that is not AWS's and not confirmed on this device is refused before anything is sent", async () => {
	const { core, fake } = await connectedCore();
	const configure = (trustedEndpointHost: string | null) =>
		core.configure({
			connection: { region: "us-east-1", endpoint: fake.url, trustedEndpointHost, auth: { kind: "apiKey", apiKey: TEST_API_KEY } },
		});
	for (const trusted of [null, "collector.example"]) {
		assert.throws(
			() => configure(trusted),
			(error: unknown) => codeOf(error) === "llm.endpoint_unconfirmed" && /127\.0\.0\.1/.test((error as Error).message) && !(error as Error).message.includes(TEST_API_KEY),
		);
	}
	core.configure({ connection: null });
	await assert.rejects(core.testConnection());
	assert.equal(fake.requests.length, 0, "no credential reached it");
	configure("127.0.0.1");
	await core.testConnection();
	assert.equal(fake.requests.at(-1)?.headers.authorization, `Bearer ${TEST_API_KEY}`);
});

test("credentials of the wrong shape are refused with a clear reason that never repeats a secret", async () => {
	const { core } = await connectedCore();
	// Shapes the declared type forbids, as a plugin of another version or a hand-edited file could send.
	const configure = (auth: Record<string, string>) => () =>
		core.configure({ connection: { region: "us-east-1", auth: auth as unknown as BedrockAuthSettings } });
	const refused = (reason: RegExp) => (error: unknown) =>
		codeOf(error) === "settings.invalid" && reason.test((error as Error).message) && !(error as Error).message.includes("s3cr3t");
	assert.throws(configure({ kind: "accessKey", accessKeyId: "AKIDEXAMPLE" }), refused(/accessKeyId.*secretAccessKey/));
	assert.throws(configure({ kind: "accessKey", secretAccessKey: "s3cr3t" }), refused(/accessKeyId.*secretAccessKey/));
	assert.throws(configure({ kind: "apiKey", accessKeyId: "AKIDEXAMPLE", secretAccessKey: "s3cr3t" }), refused(/apiKey/));
	assert.throws(configure({ kind: "password", apiKey: "s3cr3t" }), refused(/accessKey.*apiKey/));
	assert.throws(configure({ apiKey: "s3cr3t" }), refused(/kind/));
	configure({ kind: "apiKey", apiKey: TEST_API_KEY })();
});

test("a call succeeds once the faults clear", async () => {
	const { core, fake } = await connectedCore();
	fake.script("throttle", "reset");
	const check = await core.testConnection();
	assert.equal(check.region, "us-east-1");
	assert.equal(fake.requests.length, 3, "two faults, then the answer");
	assert.deepEqual(
		fake.requests.map((request) => request.response?.status),
		[429, "reset", 200],
	);
});

test("a call gives up after the bound with the code of the last failure", async () => {
	const { core, fake } = await connectedCore();
	fake.script(...Array.from({ length: 10 }, (): Reply => "throttle"));
	await assert.rejects(core.testConnection(), (error) => codeOf(error) === "llm.throttled");
	assert.equal(fake.requests.length, 3, "three attempts in all, as in the AWS SDKs' standard retry mode");

	fake.reset();
	fake.script(...Array.from({ length: 10 }, (): Reply => "serverError"));
	await assert.rejects(core.testConnection(), (error) => codeOf(error) === "llm.unavailable");
	assert.equal(fake.requests.length, 3);
});

test("errors that retrying cannot fix are not retried", async () => {
	// A typed model: the default one would fall back to the previous Haiku instead (tested in tests/plugin/bedrock-models.test.ts).
	const { core, fake } = await connectedCore({ modelId: "us.anthropic.claude-haiku-4-5-20251001-v1:0" });
	fake.script("accessDenied", MEMORY);
	await assert.rejects(core.testConnection(), (error) => codeOf(error) === "llm.access_denied");
	assert.equal(fake.requests.length, 1);
});

test("bulk work with random faults: everything is remembered, never more requests at once than maxConcurrency", async () => {
	const { core, fake } = await connectedCore({ maxConcurrency: 2 });
	// Slow answers make the requests overlap, so the limit is what keeps them at two.
	fake.respond = () => ({ slow: 30, then: MEMORY });
	fake.failRandomly(0.3, 11);
	const texts = ["tomatoes", "beans", "basil", "peppers", "onions", "garlic", "lettuce", "carrots"];
	for (const word of texts) core.rememberText({ text: `Ana planted ${word} in the garden on Saturday.`, kind: "text" });

	for (let round = 0; round < 20 && core.status().queued + core.status().running > 0; round++) await core.runDueWork();
	const status = core.status();
	assert.equal(status.failed, 0, JSON.stringify(core.listJobs("failed")));
	assert.equal(status.memories, texts.length);
	assert.ok(fake.requests.some((request) => request.injected), "some requests met a fault");
	assert.equal(fake.maxConcurrent, 2, "requests overlapped, up to the limit and never beyond it");
});
