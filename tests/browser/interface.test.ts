// The interface in a real browser: headless Chromium (Debian's /usr/bin/chromium) loads the built
// main.js in the harness page, with the fake Bedrock behind the harness server. Questions are
// typed and answered, citations open notes, memories are forgotten, the settings tab renders;
// screenshots of each in light and dark go to test-artifacts/ (and, with
// UPDATE_SCREENSHOTS=1, to docs/screenshots/ for the README).

import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import fs from "node:fs/promises";
import path from "node:path";
import { after, before, test } from "node:test";
import { fileURLToPath } from "node:url";
import { type Browser, type Page, chromium } from "playwright-core";
import { type FakeBedrock, TEST_CREDENTIALS, startFakeBedrock } from "../fake-bedrock/index";
import { NOTES, PLANNED } from "../plugin/views-fixture";
import { type HarnessServer, startHarnessServer } from "./harness-server";
import type { HarnessConfig } from "./harness/page";
import { memoryModel } from "./memory-model";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");
const CHROMIUM = "/usr/bin/chromium";
const ARTIFACTS = path.join(ROOT, "test-artifacts");
const SCREENSHOTS = path.join(ROOT, "docs", "screenshots");
const CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"];

const skip = existsSync(CHROMIUM) ? false : `${CHROMIUM} is not installed (apt-get install chromium)`;

let fake: FakeBedrock;
let server: HarnessServer;
let browser: Browser;

before(async () => {
	if (skip) return;
	fake = await startFakeBedrock();
	fake.respond = memoryModel({ memories: PLANNED, insight: "Ana's wish to see Sintra shapes the Lisbon trip plans.", connects: ["Sintra", "Flying to Lisbon"] });
	server = await startHarnessServer({ bedrockUrl: fake.url });
	browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
	await fs.mkdir(ARTIFACTS, { recursive: true });
});

after(async () => {
	await browser?.close();
	await server?.close();
	await fake?.close();
});

/** A fresh page with the plugin loaded over the test notes, ingested through the fake Bedrock. */
async function openHarness(): Promise<Page> {
	const page = await browser.newPage({ viewport: { width: 1280, height: 860 } });
	const errors: string[] = [];
	page.on("pageerror", (error) => errors.push(error.message));
	await page.goto(server.url);
	const manifest = JSON.parse(await fs.readFile(path.join(ROOT, "manifest.json"), "utf8")) as HarnessConfig["manifest"];
	const config: HarnessConfig = {
		manifest,
		notes: NOTES,
		secrets: { "test-access-key-id": TEST_CREDENTIALS.accessKeyId, "test-secret-access-key": TEST_CREDENTIALS.secretAccessKey },
		data: { endpoint: server.url, region: "us-east-1", accessKeyIdSecret: "test-access-key-id", secretAccessKeySecret: "test-secret-access-key" },
	};
	await page.evaluate((config) => window.harness.start(config), config);
	for (const notePath of Object.keys(NOTES)) {
		await page.evaluate((notePath) => {
			window.harness.workspace.setActiveFile(window.harness.vault.getFileByPath(notePath) as never);
			window.harness.runCommand("remember-current-note");
		}, notePath);
	}
	// The memory browser shows the three memories once they are made.
	await page.waitForFunction(() => {
		window.harness.runCommand("open-memory-browser");
		return document.querySelectorAll(".memory-agent-browser .memory-agent-memory").length === 3;
	}, undefined, { timeout: 20_000, polling: 100 });
	assert.deepEqual(errors, []);
	return page;
}

async function ask(page: Page, question: string): Promise<void> {
	await page.evaluate(() => window.harness.runCommand("ask-memory"));
	const input = page.locator(".memory-agent-question-input");
	await input.click();
	await input.fill(question);
	await input.press("Enter");
	await page.locator(".memory-agent-exchange").last().locator(".memory-agent-answer-body, .memory-agent-error").waitFor();
}

/**
 * Saves a screenshot of `selector` in both themes to test-artifacts/. The README's copies in
 * docs/screenshots/ are refreshed only on request, so a test run never changes tracked files.
 */
async function screenshots(page: Page, selector: string, name: string): Promise<void> {
	await page.evaluate(() => window.harness.clearNotices());
	const updateReadme = process.env.UPDATE_SCREENSHOTS === "1";
	if (updateReadme) await fs.mkdir(SCREENSHOTS, { recursive: true });
	for (const theme of ["light", "dark"] as const) {
		await page.evaluate((theme) => window.harness.setTheme(theme), theme);
		const image = await page.locator(selector).screenshot({ animations: "disabled" });
		await fs.writeFile(path.join(ARTIFACTS, `${name}-${theme}.png`), image);
		if (updateReadme) await fs.writeFile(path.join(SCREENSHOTS, `${name}-${theme}.png`), image);
	}
	await page.evaluate(() => window.harness.setTheme("light"));
}

test("a question typed and sent with Enter is answered with citation links that open the note at its line", { skip }, async () => {
	const page = await openHarness();
	await ask(page, "When do we fly to Lisbon?");
	const answer = page.locator(".memory-agent-exchange").last();
	await assert.doesNotReject(answer.locator(".memory-agent-answer-body li").first().waitFor());
	assert.deepEqual(await answer.locator("a.memory-agent-cite.is-memory").allTextContents(), ["1", "2"], await answer.innerText());
	assert.doesNotMatch(await answer.locator(".memory-agent-answer-body").innerText(), /\[(memory|consolidation):/);
	assert.match(await answer.locator(".memory-agent-considered").innerText(), /^Considered 3 memories, packed 3( and 1 of 1 insight)?, \d+ tokens$/);

	// Citation 1 is the Lisbon memory (its aria-label is the memory's summary).
	const lisbon = answer.locator('a.memory-agent-cite[aria-label^="Flying to Lisbon"]');
	await lisbon.click();
	const opened = await page.evaluate(() => window.harness.opened());
	assert.deepEqual(opened.at(-1), { path: "Trips/Lisbon.md", line: 3, subpath: undefined });

	// The daily consolidation may already have made the insight; if the answer cites it, it expands.
	const insight = answer.locator("a.memory-agent-cite.is-consolidation");
	if ((await insight.count()) > 0) {
		await insight.click();
		const connected = answer.locator(".memory-agent-source.is-consolidation .memory-agent-connected .memory-agent-source-link");
		// The connected memories are asked of the core's worker when the insight opens.
		await connected.nth(1).waitFor();
		assert.equal(await connected.count(), 2);
		assert.equal(await connected.first().isVisible(), true);
	}

	// A second question stays below the first; the box is free again.
	await ask(page, "What is the marketing budget?");
	assert.equal(await page.locator(".memory-agent-exchange").count(), 2);
	assert.equal(await page.locator(".memory-agent-question-input").isDisabled(), false);
	await screenshots(page, ".mod-right-split", "ask-panel");
	await page.close();
});

test("the panel shows that it is working while Bedrock answers", { skip }, async () => {
	const page = await openHarness();
	fake.script({ slow: 800, then: { text: "Slow but sure." } });
	await page.evaluate(() => window.harness.runCommand("ask-memory"));
	const input = page.locator(".memory-agent-question-input");
	await input.fill("Anything?");
	await input.press("Enter");
	await page.locator(".memory-agent-thinking").waitFor();
	assert.equal(await input.isDisabled(), true, "the box is disabled while thinking");
	assert.equal(await page.locator(".memory-agent-thinking").innerText(), "Thinking…");
	await page.locator(".memory-agent-answer-body").waitFor();
	assert.equal(await input.isDisabled(), false);
	await page.close();
});

test("a memory is forgotten after confirmation and leaves the browser", { skip }, async () => {
	const page = await openHarness();
	await page.evaluate(() => window.harness.runCommand("open-memory-browser"));
	const cards = page.locator(".memory-agent-browser .memory-agent-memory");
	assert.equal(await cards.count(), 3);
	await screenshots(page, ".mod-root", "memory-browser");

	const budget = cards.filter({ hasText: "marketing budget" });
	await budget.locator(".memory-agent-forget").click();
	const dialog = page.locator(".modal-container .memory-agent-confirm-modal");
	await dialog.waitFor();
	await screenshots(page, ".modal-container .modal", "forget-dialog");
	await dialog.locator(".memory-agent-confirm").click();
	await page.waitForFunction(() => document.querySelectorAll(".memory-agent-browser .memory-agent-memory").length === 2);
	assert.equal(await cards.filter({ hasText: "marketing budget" }).count(), 0);
	assert.equal(await page.locator(".modal-container").count(), 0);

	// Filtering by a person narrows the list as one types.
	await page.locator('input[data-filter="entity"]').fill("sintra");
	await page.waitForFunction(() => document.querySelectorAll(".memory-agent-browser .memory-agent-memory").length === 1);
	assert.equal(await cards.count(), 1);
	await page.close();
});

test("the settings tab renders", { skip }, async () => {
	const page = await openHarness();
	await page.evaluate(() => window.harness.showSettings());
	const tab = page.locator(".harness-settings .vertical-tab-content-container");
	assert.ok((await tab.locator(".setting-item").count()) > 0, "the tab has settings");
	assert.match(await tab.innerText(), /Database file|database/i);
	await screenshots(page, ".harness-settings .modal", "settings-tab");
	await page.close();
});
