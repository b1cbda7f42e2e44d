// The vault's side of the interface in a real browser: the confirmation before a large first
// ingest (how many notes, tokens and dollars; Start, Pause, Only some folders…, Cancel) and the
// status view (what is remembered, today's tokens and cost, pause and resume), opened from the
// status bar item. Screenshots: bulk-confirm-{light,dark}.png and status-view-{light,dark}.png.

import assert from "node:assert/strict";
import { test } from "node:test";
import type { Page } from "playwright-core";
import { NOTES } from "../plugin/views-fixture";
import { type Session, openHarness, screenshots, sharedSession, skip } from "./session";

const session = sharedSession();

const TOPICS = ["the garden", "the Lisbon trip", "the Q3 budget", "Ana's birthday", "the new bike", "the book club", "the kitchen paint", "Marco's offsite"];

/** A vault of some months of daily notes, meeting notes and projects: more than the 200 notes the dialog asks at. */
function largeVault(): Record<string, string> {
	const notes: Record<string, string> = { ...NOTES };
	const start = Date.UTC(2025, 6, 1);
	for (let day = 0; day < 180; day++) {
		const date = new Date(start + day * 86_400_000).toISOString().slice(0, 10);
		const topic = TOPICS[day % TOPICS.length];
		notes[`Journal/${date}.md`] =
			`# ${date}\n\nSpent the morning on ${topic}. Wrote down what is left to do and who to ask.\n\n` +
			`## Later\n\nTalked about ${TOPICS[(day + 3) % TOPICS.length]} over dinner; nothing decided yet.\n`;
	}
	for (let week = 0; week < 40; week++) {
		notes[`Work/Meetings/Weekly ${week + 1}.md`] =
			`# Weekly ${week + 1}\n\nAttendees: Marco, Ana, Priya.\n\n- Status of ${TOPICS[week % TOPICS.length]}\n- Next steps agreed, owners named.\n`;
	}
	for (const [index, topic] of TOPICS.entries()) {
		notes[`Projects/Project ${index + 1}.md`] = `# Project ${index + 1}\n\nAbout ${topic}: goals, open questions and a rough plan for the next months.\n`;
	}
	return notes;
}

/** How many notes the fake Bedrock was asked to remember. */
function ingestCalls(session: Session): number {
	return session.fake.requests.filter((request) => request.body.includes('"record_memory"') && request.path.endsWith("/converse")).length;
}

async function openStatusView(page: Page): Promise<void> {
	// The status bar item is a button to the status view.
	await page.locator(".status-bar .memory-agent-status").click();
	await page.locator(".memory-agent-status-view").waitFor();
}

test("a large first ingest asks first, with the notes, tokens and cost; Pause queues them paused", { skip }, async () => {
	const notes = largeVault();
	const count = Object.keys(notes).length;
	const before = ingestCalls(session);
	const page = await openHarness(session, { notes, memories: false });
	const dialog = page.locator(".modal-container .modal");
	await dialog.locator(".memory-agent-bulk").waitFor({ timeout: 20_000 });
	const text = await dialog.innerText();
	assert.match(text, new RegExp(`Remember ${count} notes\\?`));
	assert.match(text, /About [\d,]+ tokens/);
	assert.match(text, /About (\$\d+\.\d\d|less than \$0\.01) \(at the prices of us\.anthropic\.claude-haiku-5-5\)/);
	assert.deepEqual(await dialog.locator("button").allInnerTexts(), ["Start", "Pause", "Only some folders…", "Cancel"]);
	await screenshots(page, ".modal-container .modal", "bulk-confirm");

	// "Only some folders…" lists the top folders with their notes; Back returns.
	await dialog.getByRole("button", { name: "Only some folders…" }).click();
	await dialog.locator(".memory-agent-bulk-folder").first().waitFor();
	assert.deepEqual((await dialog.locator(".memory-agent-bulk-folder").allInnerTexts()).sort(), ["Journal (181)", "Projects (8)", "Trips (1)", "Work (41)"]);
	await dialog.getByRole("button", { name: "Back" }).click();

	await dialog.getByRole("button", { name: "Pause" }).click();
	await page.locator(".modal-container").waitFor({ state: "detached" });
	await openStatusView(page);
	const view = page.locator(".memory-agent-status-view");
	await page.waitForFunction((count) => (document.querySelector(".memory-agent-status-view")?.textContent ?? "").includes(`Queued (${count})`), count, { timeout: 20_000 });
	assert.match(await view.innerText(), /Paused: /);
	assert.equal(ingestCalls(session), before, "nothing is sent while paused");
	await page.close();
});

test("the status view shows what is remembered and today's tokens and cost, and pauses and resumes", { skip }, async () => {
	const page = await openHarness(session);
	await openStatusView(page);
	const view = page.locator(".memory-agent-status-view");
	await page.waitForFunction(() => /3 of 3 notes remembered/.test(document.querySelector(".memory-agent-status-view")?.textContent ?? ""), undefined, { timeout: 20_000 });
	const text = await view.innerText();
	assert.match(text, /3 memories, (1 insight|\d+ insights)\. Jobs: 0 queued, 0 running, 0 failed\./);
	assert.match(text, /Today: [\d,]+ tokens in \d+ model calls, (about \$\d+\.\d\d|less than \$0\.01) \(an estimate at the prices of us\.anthropic\.claude-haiku-5-5\)\./);
	await screenshots(page, ".mod-right-split", "status-view");

	const button = (name: string) => view.getByRole("button", { name, exact: true });
	assert.equal(await button("Resume").isDisabled(), true);
	await button("Pause").click();
	await view.locator(".memory-agent-status-paused").waitFor();
	assert.equal(await button("Pause").isDisabled(), true);
	await button("Resume").click();
	await view.locator(".memory-agent-status-paused").waitFor({ state: "detached" });
	assert.equal(await button("Pause").isDisabled(), false);
	await page.close();
});
