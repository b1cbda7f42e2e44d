// The user's action wins, through the built main.js in the headless host: nothing is sent
// after unload, a pause survives a restart, answers fetch nothing, retries run when due, and
// endpoints are parsed (the core's rules end to end; the engine's side is tests/user_wins.rs).

import assert from "node:assert/strict";
import fs from "node:fs/promises";
import { afterEach, test } from "node:test";
import { sentRequests } from "../host/request-url";
import { WorkRunner } from "../../plugin/engine/work-runner";
import type { MemoryStore, RunReport } from "../../plugin/core/memory-core-api";
import { FakeTimers, drain } from "../support/fake-timers";
import { readDatabase } from "../support/plugin-fixtures";
import { ingestRequests, ingestedChunks, memoriesOf, rememberedPaths, replyByTool, startAnsweringFake, startVaultHost, waitForIdle, writeNotes, writeSettings } from "../support/vault-host";
import { type UiHost, askInPanel, rememberNotes, startUiHost, waitForMemories } from "./views-fixture";

let ui: UiHost | undefined;
afterEach(async () => {
	await ui?.close();
	ui = undefined;
});

const NOTES = Object.fromEntries(Array.from({ length: 8 }, (_, n) => [`Notes/n${n}.md`, `# Note ${n}\nAna met Bruno about plan ${n}.\n`]));

async function waitUntil(condition: () => boolean, what: string, ms = 20_000): Promise<void> {
	const deadline = Date.now() + ms;
	while (!condition()) {
		if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}`);
		await new Promise((resolve) => setTimeout(resolve, 10));
	}
}

test("after unload no request leaves the device, and the next start pays only for what was not finished", async () => {
	ui = await startUiHost({ notes: NOTES, settings: { quietDelaySeconds: 0, ingestBatchChunks: 1 } });
	const { host, fake } = ui;
	const answer = fake.respond;
	fake.respond = async (request) => ({ slow: 400, then: await answer(request) });
	const ingestCalls = () => fake.requests.filter((request) => request.body.includes('"name":"record_memory"')).length;
	const before = sentRequests.length;
	await waitUntil(() => sentRequests.length - before >= 2, "the first calls");
	await host.unloadPlugin();
	const atUnload = sentRequests.length;
	await new Promise((resolve) => setTimeout(resolve, 1_500));
	assert.equal(sentRequests.length, atUnload, "no request after onunload returned");

	// The next start finishes the queue without paying again for what was stored: only the
	// calls abandoned in flight at unload (at most one per parallel job) are made again.
	fake.respond = answer;
	await host.loadPlugin();
	await host.waitForCore();
	await waitUntil(() => /8\/8 notes/.test(host.statusBarText()), "every note remembered");
	assert.ok(ingestCalls() <= 8 + 3, `${ingestCalls()} ingest calls for 8 notes`);
});

test("a pause survives a restart of Obsidian until the user resumes", async () => {
	ui = await startUiHost({ notes: {} });
	const { host } = ui;
	await host.runCommand("toggle-pause");
	await host.settle();
	await host.unloadPlugin();
	await host.loadPlugin();
	await host.waitForCore();
	assert.match(host.statusBarText(), /paused/, "still paused after the restart");
	await host.runCommand("toggle-pause");
	await waitUntil(() => !/paused/.test(host.statusBarText()), "the resume");
});

test("an answer with remote images and HTML from a note fetches nothing; links and citations still work", async () => {
	ui = await startUiHost({ settings: { dailyConsolidation: false } });
	const { host, fake } = ui;
	await rememberNotes(host);
	await waitForMemories(host, 3);
	const answer = "Ana's photo: ![Sintra](https://tracker.example/p.png) <img src=\"https://tracker.example/i.gif\"> <iframe src=\"https://evil.example\"></iframe> See [the guide](https://example.org/guide). [run](javascript:alert(1)) [open](obsidian://open?vault=v) ![[Work/Budget]] [memory:m-never-given]";
	const remember = fake.respond;
	fake.respond = (request) => (request.body.includes("What did Ana send?") ? { text: answer } : remember(request));
	const exchange = await askInPanel(host, "What did Ana send?");
	const body = exchange.querySelector(".memory-agent-answer-body");
	assert.ok(body !== null, exchange.textContent ?? "");
	for (const element of body.querySelectorAll("img, iframe, video, audio, source, embed, object")) {
		assert.fail(`a media element was rendered: ${element.outerHTML}`);
	}
	assert.ok([...body.querySelectorAll("a")].some((link) => link.getAttribute("href") === "https://tracker.example/p.png"), "the image is a link to click");
	assert.match(body.textContent ?? "", /<img src=/, "raw HTML is shown as text");
	const hrefs = [...body.querySelectorAll("a")].map((link) => link.getAttribute("href") ?? "");
	assert.ok(hrefs.every((href) => /^https?:\/\//.test(href) || href === "#"), `only http(s) links and citations: ${JSON.stringify(hrefs)}`);
	assert.match(body.textContent ?? "", /run open !\[\[Work\/Budget\]\]/, "other schemes and an uncited embed are text");
	assert.equal(exchange.querySelector(".memory-agent-dropped-citations")?.textContent, "1 citation left out: the model cited a memory it was not given");
});

test("a retry runs when it is due, not at the next five-minute look", async () => {
	const timers = new FakeTimers();
	const due = timers.now + 60_000;
	const reports: RunReport[] = [{ done: 0, skipped: 0, retrying: 1, failed: 0, paused: null, ran: true, nextDueAt: due }];
	let runs = 0;
	const store = {
		runDueWork: () => {
			runs++;
			return Promise.resolve(reports.shift() ?? { done: 1, skipped: 0, retrying: 0, failed: 0, paused: null, ran: true, nextDueAt: null });
		},
	} as unknown as MemoryStore;
	const runner = new WorkRunner({ store: () => store, onReport: () => undefined, onError: (error) => assert.fail(String(error)), timers, now: () => timers.now });
	runner.kick();
	await runner.idle();
	assert.equal(runs, 1);
	timers.advance(59_000);
	await drain();
	assert.equal(runs, 1, "not before it is due");
	timers.advance(1_000);
	await drain();
	await runner.idle();
	assert.equal(runs, 2, "the retry ran when it came due");
	timers.advance(10 * 60_000);
	await drain();
	assert.equal(runs, 2, "nothing more was due");
	runner.stop();
});

test("each answer shows its tokens and cost; past the daily limit a question asks first", async () => {
	// Claude Haiku 4.5 typed: its price makes one long answer cost more than the limit.
	ui = await startUiHost({ settings: { dailyConsolidation: false, dailyLimitUsd: 1, modelId: "us.anthropic.claude-haiku-4-5-20251001-v1:0" } });
	const { host, fake } = ui;
	await rememberNotes(host);
	await waitForMemories(host, 3);
	const remember = fake.respond;
	// About 250,000 output tokens: more than a dollar at Haiku 4.5's price.
	fake.respond = (request) => (request.body.includes("Tell me everything") ? { text: `Everything: ${"word ".repeat(200_000)}` } : remember(request));
	const first = await askInPanel(host, "Tell me everything");
	assert.match(first.querySelector(".memory-agent-cost")?.textContent ?? "", /^[\d,]+ tokens in, [\d,]+ out · about \$1\.\d\d$/);

	fake.respond = (request) => (request.body.includes("And Ana?") ? { text: "Ana flies to Lisbon." } : remember(request));
	const before = fake.requests.length;
	const second = await askInPanel(host, "And Ana?");
	assert.match(second.querySelector(".memory-agent-over-limit")?.textContent ?? "", /would pass today's spending limit of \$1\.00.*Ask anyway\?/);
	assert.equal(fake.requests.length, before, "nothing was sent before the user agreed");
	second.querySelector<HTMLButtonElement>(".memory-agent-ask-anyway")?.click();
	await waitUntil(() => /Ana flies to Lisbon/.test(host.workspaceEl.querySelector(".memory-agent-ask")?.textContent ?? ""), "the answer after agreeing");
	await host.runCommand("show-memory-status");
	await host.settle();
	const status = host.workspaceEl.querySelector(".memory-agent-status-view")?.textContent ?? "";
	assert.match(status, /Spending limits: \$\d+\.\d\d of today's \$1\.00/);
});

test("a note deleted or renamed while the model reads it: nothing of the deleted one stays, the renamed one is remembered once under its new name", async () => {
	const fake = await startAnsweringFake();
	const host = await startVaultHost();
	try {
		await writeSettings(host, fake, { quietDelaySeconds: 0 });
		await writeNotes(host, { "gone.md": "# Gone\n\nBruno left the band.\n", "moved.md": "# Moved\n\nCarla joined the choir.\n" });
		// Slow answers: the vault events land while both notes wait on the model.
		fake.respond = (request) => ({ slow: 1_500, then: replyByTool(request) });
		await host.loadPlugin();
		await host.waitForCore();
		await waitUntil(() => ingestedChunks(fake) === 2, "both notes sent");
		await host.vault.delete(host.vault.getFileByPath("gone.md")!);
		await host.vault.rename(host.vault.getFileByPath("moved.md")!, "Choir/moved.md");
		await waitForIdle(host, "the answers to arrive and be settled");
		assert.deepEqual(await rememberedPaths(host), ["Choir/moved.md"], "no ghost at the old path, nothing of the deleted note");
		assert.equal((await memoriesOf(host, "gone.md")).length, 0);
		assert.equal(ingestedChunks(fake), 2, "the renamed note was not paid for twice");
	} finally {
		await host.stop();
		await fake.close();
	}
});

test("an excluded tag added while the note waits in the queue: its text is never sent", async () => {
	const fake = await startAnsweringFake();
	const host = await startVaultHost();
	try {
		// One chunk per call, so the last notes still wait in the queue, unread, when they change
		// (with batching, a worker reads several notes at once).
		await writeSettings(host, fake, { quietDelaySeconds: 0, excludedTags: ["private"], ingestBatchChunks: 1 });
		const notes = Object.fromEntries(Array.from({ length: 6 }, (_, n) => [`n${n}.md`, `# Note ${n}\n\nAna planned trip ${n}.\n`]));
		await writeNotes(host, notes);
		fake.respond = (request) => ({ slow: 800, then: replyByTool(request) });
		await host.loadPlugin();
		await host.waitForCore();
		await waitUntil(() => ingestedChunks(fake) >= 1, "the first note sent");
		// The last notes are still queued. One gains the excluded tag in Obsidian (the plugin's
		// vault event sees it); the other on disk, with no event at all: only the core's check,
		// when it reads the note, stands between its text and the model.
		await host.vault.modify(host.vault.getFileByPath("n4.md")!, "# Note 4\n\nMy diagnosis, told to Ana. #private\n");
		await fs.writeFile(host.diskPath("n5.md"), "# Note 5\n\nMy bank PIN, told to Ana. #private/money\n");
		await waitForIdle(host, "the queue");
		for (const secret of ["diagnosis", "bank PIN"]) assert.ok(!fake.requests.some((request) => request.body.includes(secret)), `"${secret}" was never sent`);
		assert.equal((await memoriesOf(host, "n4.md")).length + (await memoriesOf(host, "n5.md")).length, 0);
	} finally {
		await host.stop();
		await fake.close();
	}
});

test("forgetting remembered text takes it out of the database file's bytes", async () => {
	ui = await startUiHost({ notes: {} });
	const { host } = ui;
	const secret = "QX-4471-ZZ";
	await host.runCommand("remember-text");
	const modal = host.dom.document.querySelector<HTMLElement>(".modal-container .memory-agent-remember-modal")!;
	modal.querySelector<HTMLTextAreaElement>("textarea")!.value = `Zebulon's passport number is ${secret}.`;
	modal.querySelector<HTMLButtonElement>("button.mod-cta")!.click();
	await waitForMemories(host, 1);
	const contains = (bytes: Uint8Array | undefined, text: string) => bytes !== undefined && Buffer.from(bytes).includes(Buffer.from(text));
	await host.unloadPlugin();
	assert.ok(contains(await readDatabase(host), secret), "the typed text is kept (it has no note to come from)");
	await host.loadPlugin();
	await host.waitForCore();

	const [card] = await waitForMemories(host, 1);
	card!.querySelector<HTMLButtonElement>(".memory-agent-forget")!.click();
	host.dom.document.querySelector<HTMLButtonElement>(".modal-container .memory-agent-confirm")!.click();
	await waitForMemories(host, 0);
	await host.unloadPlugin();
	const bytes = await readDatabase(host);
	for (const text of [secret, "Zebulon", "zebulon", "qx"]) assert.ok(!contains(bytes, text), `"${text}" is gone from the file`);
});
