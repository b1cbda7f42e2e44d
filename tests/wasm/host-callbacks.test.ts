// The built WebAssembly in Node: host callbacks that throw (the clock, sleeps, progress reports)
// are errors the engine survives — the run ends, and the next run works — instead of a JS
// exception unwinding through Rust and leaving the engine "running" until Obsidian restarts.

import assert from "node:assert/strict";
import { afterEach, test } from "node:test";
import type { CoreHost, MemoryCore } from "../../build/pkg/memory_agent.js";
import { requestUrlSend } from "../../plugin/host/request-url-transport";
import { type FakeBedrock, TEST_CREDENTIALS, startFakeBedrock } from "../fake-bedrock/index";
import { hostRequestUrl } from "../host/request-url";
import { NO_IMAGES, NO_LOG_FILES, loadFacade } from "../support/facade";

let fake: FakeBedrock | undefined;
let core: MemoryCore | undefined;
afterEach(async () => {
	core?.free();
	core = undefined;
	await fake?.close();
	fake = undefined;
});

const NOTE = new TextEncoder().encode("Ana planted tomatoes in the garden.");

test("a run whose progress report, clock and sleep throw ends, and the next run works", async () => {
	const { facade, SQL } = await loadFacade();
	fake = await startFakeBedrock();
	fake.respond = () => ({
		toolUse: { name: "record_memory", input: { nothing_to_remember: false, summary: "Ana planted tomatoes.", entities: [], topics: ["garden"], importance: 0.5, happened_on: [] } },
	});
	core = facade.MemoryCore.open(SQL, undefined, Date.now(), 42);
	let broken = true;
	const fail = (what: string) => {
		throw new Error(`${what} failed in the host`);
	};
	const host: CoreHost = {
		send: requestUrlSend(hostRequestUrl),
		sleep: (ms) => (broken ? fail("sleep") : new Promise((resolve) => setTimeout(resolve, Math.min(ms, 5)))),
		now: () => (broken ? fail("now") : Date.now()),
		readFile: () => Promise.resolve({ bytes: NOTE.slice(), mtime: 1, size: NOTE.length }),
		utcOffsetMinutes: () => (broken ? fail("utcOffsetMinutes") : 0),
		progress: () => (broken ? fail("progress") : undefined),
		extractPdf: () => Promise.reject(new Error("no PDFs in this test")),
		...NO_LOG_FILES,
		...NO_IMAGES,
	};
	core.attachHost(host);
	core.configure({
		engine: { dailyConsolidation: false, consolidationThreshold: 10_000 },
		connection: { region: "us-east-1", endpoint: fake.url, trustedEndpointHost: "127.0.0.1", auth: { kind: "accessKey", accessKeyId: TEST_CREDENTIALS.accessKeyId, secretAccessKey: TEST_CREDENTIALS.secretAccessKey } },
	});
	core.enqueueNote("a.md");
	const first = await core.runDueWork();
	assert.equal(first.ran, true, "the run happened despite the host");
	assert.equal(first.done, 1, "the note was remembered: the core fell back to the realm's own clock and timers");
	assert.equal(core.status().running, 0, "no job is left running");

	broken = false;
	core.enqueueNote("b.md");
	const second = await core.runDueWork();
	assert.equal(second.ran, true, "the engine is not stuck as 'running'");
	assert.equal(core.status().queued, 0);
});
