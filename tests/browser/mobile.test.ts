// Obsidian on a phone, in headless Chromium: the harness plays Obsidian mobile (`Platform.isMobile`
// and `isPhone`, body classes `is-mobile is-phone`, no status bar, a 390×844 viewport, side
// panels as a full-width drawer). The ribbon icon opens the ask panel, which shows the status
// line a phone has no status bar for; Enter makes a new line and the Ask button sends; the panel
// fits the phone's width. Screenshots: ask-panel-mobile-{light,dark}.png.

import assert from "node:assert/strict";
import { test } from "node:test";
import { PHONE_VIEWPORT, openHarness, screenshots, sharedSession, skip } from "./session";

const session = sharedSession();

test("on a phone the ribbon icon opens the ask panel, the Ask button sends, and the panel fits the width", { skip }, async () => {
	const page = await openHarness(session, { mobile: true });
	// The plugin sees a phone.
	assert.deepEqual(await page.evaluate(() => [...document.body.classList].filter((name) => name.startsWith("is-")).sort()), ["is-mobile", "is-phone"]);
	assert.equal(await page.locator(".status-bar").count(), 0, "a phone has no status bar");
	assert.equal(await page.locator(".memory-agent-status").count(), 0, "the status bar item is shown nowhere");

	// The ribbon's "Ask memory" opens the panel, as a drawer over the whole width.
	const ribbon = page.locator('.side-dock-ribbon-action[aria-label="Ask memory"]');
	await ribbon.click();
	const panel = page.locator(".memory-agent-ask");
	await panel.waitFor();
	const drawer = await page.locator(".mod-right-split").boundingBox();
	assert.equal(drawer?.width, PHONE_VIEWPORT.width, "the side panel is as wide as the phone");

	// The status line the status bar would show on a desktop, as a button to the status view.
	const status = panel.locator(".memory-agent-ask-status");
	await status.waitFor();
	await page.waitForFunction(() => /^Memory: 3\/3 notes/.test(document.querySelector(".memory-agent-ask-status")?.textContent ?? ""), undefined, { timeout: 20_000 });
	assert.equal(await status.getAttribute("role"), "button");
	assert.equal(await panel.locator(".memory-agent-hint").innerText(), "Tap Ask to send");

	// Enter makes a new line; the Ask button sends.
	const input = panel.locator(".memory-agent-question-input");
	await input.click();
	await input.fill("What does Ana want to visit?");
	await input.press("Enter");
	assert.equal(await input.inputValue(), "What does Ana want to visit?\n", "Enter is a new line on a phone");
	assert.equal(await panel.locator(".memory-agent-exchange").count(), 0, "Enter sent nothing");
	await input.fill("What does Ana want to visit?");
	await panel.locator(".memory-agent-ask-button").click();
	const answer = panel.locator(".memory-agent-exchange").last();
	await answer.locator(".memory-agent-answer-body").waitFor();
	assert.equal(await answer.locator(".memory-agent-question").innerText(), "What does Ana want to visit?");
	assert.match(await answer.locator(".memory-agent-answer-body").innerText(), /Ana wants to visit Sintra during the Lisbon trip\./);
	assert.ok((await answer.locator("a.memory-agent-cite.is-memory").count()) > 0, "the answer cites its memory");
	assert.equal(await input.inputValue(), "", "the box is emptied for the next question");

	// The panel fits: nothing scrolls sideways, and the buttons are tap targets.
	// (No named functions inside evaluate: tsx's helpers for their names do not exist in the page.)
	const fit = await page.evaluate(() => ({
		sideways: Object.fromEntries(
			[
				["panel", ".memory-agent-ask"],
				["content", ".mod-right-split .view-content"],
				["page", "html"],
			].map(([name, selector]) => {
				const el = document.querySelector(selector ?? "");
				return [name, el === null ? null : { scroll: el.scrollWidth, client: el.clientWidth }];
			}),
		) as Record<string, { scroll: number; client: number } | null>,
		buttons: [...document.querySelectorAll<HTMLElement>(".memory-agent-ask button")]
			.filter((button) => button.offsetParent !== null)
			.map((button) => ({ text: button.textContent, height: button.getBoundingClientRect().height, right: button.getBoundingClientRect().right })),
		input: document.querySelector(".memory-agent-question-input")?.getBoundingClientRect().width ?? 0,
		inner: document.querySelector(".memory-agent-ask-form")?.getBoundingClientRect().width ?? 0,
	}));
	for (const [name, size] of Object.entries(fit.sideways)) {
		assert.ok(size !== null && size.scroll <= size.client, `the ${name} does not scroll sideways: ${JSON.stringify(size)}`);
	}
	assert.ok(fit.buttons.length >= 4, `the panel's buttons: ${JSON.stringify(fit.buttons)}`);
	for (const button of fit.buttons) {
		assert.ok(button.height >= 44, `"${button.text}" is at least 44 px high: ${button.height}`);
		assert.ok(button.right <= PHONE_VIEWPORT.width, `"${button.text}" is inside the screen: ${button.right}`);
	}
	assert.equal(fit.input, fit.inner, "the question box takes the whole width");

	await screenshots(page, ".app-container", "ask-panel-mobile");

	// Tapping the status line opens the status view.
	await status.click();
	await page.locator(".memory-agent-status-view").waitFor();
	await page.close();
});
