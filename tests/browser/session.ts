// What every browser test file shares: headless Chromium (Debian's /usr/bin/chromium), the fake
// Bedrock behind a memory model, the harness server; a page with the built main.js loaded over
// the test notes as a user would have it set up (AWS's own endpoint, the user's secret names);
// asking a question; and screenshots in light and dark to test-artifacts/ (and, with
// UPDATE_SCREENSHOTS=1, to docs/screenshots/ for the README).

import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import fs from "node:fs/promises";
import path from "node:path";
import { after, before } from "node:test";
import { fileURLToPath } from "node:url";
import { type Browser, type Page, chromium } from "playwright-core";
import { type FakeBedrock, TEST_CREDENTIALS, startFakeBedrock } from "../fake-bedrock/index";
import { NOTES, PLANNED } from "../plugin/views-fixture";
import { type HarnessServer, startHarnessServer } from "./harness-server";
import type { HarnessConfig } from "./harness/page";
import { type MemoryModelOptions, memoryModel } from "./memory-model";

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");
const CHROMIUM = "/usr/bin/chromium";
export const ARTIFACTS = path.join(ROOT, "test-artifacts");
const SCREENSHOTS = path.join(ROOT, "docs", "screenshots");
const CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"];

/** `test(…, { skip })`: the reason the browser tests cannot run here, or false. */
export const skip: string | false = existsSync(CHROMIUM) ? false : `${CHROMIUM} is not installed (apt-get install chromium)`;

/** What a user would name the secrets holding their AWS keys. */
export const SECRET_NAMES = { accessKeyId: "aws-access-key-id", secretAccessKey: "aws-secret-access-key" } as const;

/** A phone's viewport (an iPhone 14's, in CSS pixels). */
export const PHONE_VIEWPORT = { width: 390, height: 844 } as const;
const DESKTOP_VIEWPORT = { width: 1280, height: 860 } as const;

/** The model the tests' notes are remembered and answered with (answers that fit their questions). */
export const MEMORY_MODEL: MemoryModelOptions = {
	memories: PLANNED,
	insight: "Ana's wish to see Sintra shapes the Lisbon trip plans.",
	connects: ["Sintra", "Flying to Lisbon"],
	focused: true,
	// The budget note is remembered last, so the first consolidation (as soon as two memories
	// wait) finds the two about Lisbon: the insight the screenshots show.
	later: { "marketing budget": 1_000 },
};

export interface Session {
	fake: FakeBedrock;
	server: HarnessServer;
	browser: Browser;
	close(): Promise<void>;
}

/**
 * The session a test file's tests share: launched before them (unless the browser tests are
 * skipped here), closed after them. Its parts are read when a test uses them.
 */
export function sharedSession(): Session {
	let current: Session | undefined;
	before(async () => {
		if (skip) return;
		current = await launch();
	});
	after(async () => {
		await current?.close();
	});
	const started = (): Session => {
		if (current === undefined) throw new Error("The browser session has not started");
		return current;
	};
	return {
		get fake() {
			return started().fake;
		},
		get server() {
			return started().server;
		},
		get browser() {
			return started().browser;
		},
		close: () => started().close(),
	};
}

/** Debian's headless Chromium, as every browser test drives it. */
export function launchChromium(): Promise<Browser> {
	return chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
}

/** Starts the fake Bedrock (answering as `MEMORY_MODEL`), the harness server and Chromium. */
export async function launch(): Promise<Session> {
	const fake = await startFakeBedrock();
	fake.respond = memoryModel(MEMORY_MODEL);
	const server = await startHarnessServer({ bedrockUrl: fake.url });
	const browser = await launchChromium();
	await fs.mkdir(ARTIFACTS, { recursive: true });
	return {
		fake,
		server,
		browser,
		close: async () => {
			await browser.close();
			await server.close();
			await fake.close();
		},
	};
}

export interface OpenOptions {
	/** The vault's notes (the three test notes by default). */
	notes?: Record<string, string>;
	/** Settings added to data.json. */
	data?: Record<string, unknown>;
	/** Play Obsidian on a phone, at a phone's viewport. */
	mobile?: boolean;
	/**
	 * Remember each note and wait until the memory browser lists this many memories (3, the
	 * test notes', by default); false opens the page without waiting for anything.
	 */
	memories?: number | false;
}

/**
 * A fresh page with the plugin loaded as a user has it set up: no custom endpoint (the plugin
 * calls AWS's own, which the harness routes to the fake Bedrock), keys under the user's
 * secret names; by default with the test notes remembered through the fake Bedrock.
 */
export async function openHarness(session: Session, options: OpenOptions = {}): Promise<Page> {
	const { notes = NOTES, data = {}, mobile = false, memories = 3 } = options;
	const page = await session.browser.newPage({ viewport: mobile ? PHONE_VIEWPORT : DESKTOP_VIEWPORT });
	const errors: string[] = [];
	page.on("pageerror", (error) => errors.push(error.message));
	await page.goto(session.server.url);
	const manifest = JSON.parse(await fs.readFile(path.join(ROOT, "manifest.json"), "utf8")) as HarnessConfig["manifest"];
	const config: HarnessConfig = {
		manifest,
		notes,
		secrets: { [SECRET_NAMES.accessKeyId]: TEST_CREDENTIALS.accessKeyId, [SECRET_NAMES.secretAccessKey]: TEST_CREDENTIALS.secretAccessKey },
		data: { region: "us-east-1", accessKeyIdSecret: SECRET_NAMES.accessKeyId, secretAccessKeySecret: SECRET_NAMES.secretAccessKey, ...data },
		mobile,
	};
	await page.evaluate((config) => window.harness.start(config), config);
	if (memories !== false) {
		for (const notePath of Object.keys(notes)) {
			await page.evaluate((notePath) => {
				window.harness.workspace.setActiveFile(window.harness.vault.getFileByPath(notePath) as never);
				window.harness.runCommand("remember-current-note");
			}, notePath);
		}
		// The memory browser shows the memories once they are made.
		await page.waitForFunction(
			(count) => {
				window.harness.runCommand("open-memory-browser");
				return document.querySelectorAll(".memory-agent-browser .memory-agent-memory").length === count;
			},
			memories,
			{ timeout: 20_000, polling: 100 },
		);
	}
	assert.deepEqual(errors, []);
	return page;
}

/**
 * Opens the ask panel and asks `question`: sent with Enter (the desktop's way) or by clicking
 * the Ask button (a phone's: there Enter makes a new line). Resolves when the answer is shown.
 */
export async function ask(page: Page, question: string, { send = "enter" }: { send?: "enter" | "button" } = {}): Promise<void> {
	await page.evaluate(() => window.harness.runCommand("ask-memory"));
	const input = page.locator(".memory-agent-question-input");
	await input.click();
	await input.fill(question);
	if (send === "enter") await input.press("Enter");
	else await page.locator(".memory-agent-ask-button").click();
	await page.locator(".memory-agent-exchange").last().locator(".memory-agent-answer-body, .memory-agent-error").waitFor();
}

/**
 * Saves a screenshot of `selector` in both themes to test-artifacts/ as `<name>-<theme>.png`.
 * The README's copies in docs/screenshots/ are refreshed only on request, so a test run never
 * changes tracked files.
 */
export async function screenshots(page: Page, selector: string, name: string): Promise<void> {
	await page.evaluate(() => window.harness.clearNotices());
	// No hover state in the picture: the pointer leaves the page's content.
	await page.mouse.move(0, 0);
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
