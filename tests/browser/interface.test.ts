// The interface in a real browser: headless Chromium (Debian's /usr/bin/chromium) loads the built
// main.js in the harness page, with the fake Bedrock behind the harness server. Questions are
// typed and answered, citations open notes, memories are forgotten, the settings tab renders;
// screenshots of each in light and dark go to test-artifacts/ (and, with
// UPDATE_SCREENSHOTS=1, to docs/screenshots/ for the README). The shared helpers: session.ts.

import assert from "node:assert/strict";
import { test } from "node:test";
import { SECRET_NAMES, ask, openHarness, screenshots, sharedSession, skip } from "./session";

const session = sharedSession();

test("a question typed and sent with Enter is answered with citation links that open the note at its line", { skip }, async () => {
	const page = await openHarness(session);
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
	// Tall enough to show the whole conversation, scrolled to its latest answer as after asking.
	await page.setViewportSize({ width: 1280, height: 1100 });
	await page.locator(".memory-agent-history").evaluate((history) => history.scrollTo(0, history.scrollHeight));
	await screenshots(page, ".mod-right-split", "ask-panel");

	// The plugin called AWS's own endpoint; the fake Bedrock verified each signature for that host.
	const calls = session.fake.requests.filter((request) => request.path.endsWith("/converse"));
	assert.ok(calls.length > 0);
	for (const call of calls) {
		assert.equal(call.headers.host, "bedrock-runtime.us-east-1.amazonaws.com");
		assert.equal(call.headers["x-harness-original-host"], undefined, "the harness's marker is not passed on");
		assert.equal(call.auth.ok, true, JSON.stringify(call.auth));
	}
	await page.close();
});

test("the panel shows that it is working while Bedrock answers", { skip }, async () => {
	const page = await openHarness(session);
	session.fake.script({ slow: 800, then: { text: "Slow but sure." } });
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
	const page = await openHarness(session);
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
	const page = await openHarness(session);
	await page.evaluate(() => window.harness.showSettings());
	const tab = page.locator(".harness-settings .vertical-tab-content-container");
	assert.ok((await tab.locator(".setting-item").count()) > 0, "the tab has settings");
	assert.match(await tab.innerText(), /Memory folder/);
	// Set up as a user's: AWS's own endpoint (none typed), the keys under the user's secret names.
	const fields = await tab.locator("input, textarea, select").evaluateAll((elements) => elements.map((element) => (element as HTMLInputElement).value));
	const shown = `${await tab.innerText()}\n${fields.join("\n")}`;
	assert.doesNotMatch(shown, /127\.0\.0\.1|localhost|test-/);
	assert.ok(shown.includes(SECRET_NAMES.accessKeyId) && shown.includes(SECRET_NAMES.secretAccessKey), `the secret names are shown: ${fields.join(", ")}`);
	await screenshots(page, ".harness-settings .modal", "settings-tab");
	await page.close();
});
