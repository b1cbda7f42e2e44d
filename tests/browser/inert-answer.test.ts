// An answer full of things that fetch, in a real browser through the built main.js: Chromium
// asks for nothing (no request seen by Playwright, no resource timing entry), the panel holds no
// fetching element or attribute and no link but to a note or an http(s) URL. A control request
// made by the test itself is seen, so the watch is not blind.

import assert from "node:assert/strict";
import { test } from "node:test";
import { ask, openHarness, sharedSession, skip } from "./session";

const session = sharedSession();

const TRACKER = "tracker.example";
const QUESTION = "What did Ana send about the trip?";
const ANSWER = [
	`Ana sent a photo ![Sintra](https://${TRACKER}/md.png) <img src="https://${TRACKER}/raw.gif"> and ![ref][r]`,
	`<span style="background-image:url(https://${TRACKER}/style.png)">styled</span> <table background="https://${TRACKER}/table.png"><tr><td>x</td></tr></table>`,
	`<svg><image href="https://${TRACKER}/svg.png" /></svg> <img srcset="https://${TRACKER}/set.png 1x"> <iframe src="https://${TRACKER}/frame"></iframe>`,
	"``code` <img src=https://" + TRACKER + "/ticks.png>`` ![a\nb](https://" + TRACKER + "/two-lines.png)",
	`[run](javascript:alert(1)) [open](obsidian://open?vault=v) [ok](https://example.org/guide) ![[Work/Budget]] [[Trips/Lisbon]]`,
	"Tom &amp; Ana &copy; &notit; &bogus;",
	"",
	`[r]: https://${TRACKER}/ref.png`,
].join("\n");

test("an answer that would load remote content fetches nothing in Chromium", { skip }, async () => {
	const page = await openHarness(session);
	const requested: string[] = [];
	page.on("request", (request) => {
		if (request.url().includes(TRACKER)) requested.push(request.url());
	});
	const remember = session.fake.respond;
	session.fake.respond = (request) => (request.body.includes(QUESTION) ? { text: ANSWER } : remember(request));
	try {
		await ask(page, QUESTION);
		const body = page.locator(".memory-agent-exchange").last().locator(".memory-agent-answer-body");
		// Time for anything a parser or the layout would have started.
		await page.waitForTimeout(500);
		const seen = await body.evaluate((element, tracker) => ({
			resources: performance.getEntriesByType("resource").map((entry) => entry.name).filter((name) => name.includes(tracker)),
			fetching: [...element.querySelectorAll("img, picture, source, video, audio, iframe, embed, object, link, style, script, svg, image, input")].map((found) => found.localName),
			attributes: [...element.querySelectorAll("*")].flatMap((found) => [...found.attributes].filter((attribute) => /^(src|srcset|style|background|poster|data|xlink:href|on.*)$/i.test(attribute.name)).map((attribute) => `${found.localName}[${attribute.name}]`)),
			links: [...element.querySelectorAll("a[href]")].map((link) => link.getAttribute("href")).filter((href) => href !== "#"),
			text: element.textContent ?? "",
		}), TRACKER);
		assert.equal(requested.length, 0, `no request to the tracker: ${JSON.stringify(requested)}`);
		assert.deepEqual(seen.resources, [], "no resource timing entry for the tracker");
		assert.deepEqual(seen.fetching, []);
		assert.deepEqual(seen.attributes, []);
		for (const href of seen.links) assert.ok(/^https?:\/\//.test(href ?? "") || !/^[a-z][a-z0-9+.-]*:/i.test(href ?? ""), `link ${href}`);
		assert.ok(seen.links.includes("https://example.org/guide"), JSON.stringify(seen.links));
		assert.ok(seen.links.includes("Trips/Lisbon"), "a wiki link is a link to the note");
		assert.match(seen.text, /!\[\[Work\/Budget\]\]/, "an embed of a note the answer does not cite is text");
		assert.match(seen.text, /<img src="https:\/\/tracker\.example\/raw\.gif">/, "raw HTML is its characters");
		assert.match(seen.text, /Tom & Ana © &notit; &bogus;/, "named character references are decoded (main.js's own decoder)");

		// The control: a request the test makes itself is seen, so the watch above can fail.
		await page.evaluate((tracker) => {
			new Image().src = `https://${tracker}/control.png`;
		}, TRACKER);
		await page.waitForTimeout(500);
		assert.ok(requested.some((url) => url.endsWith("/control.png")), `the control request is seen: ${JSON.stringify(requested)}`);
	} finally {
		session.fake.respond = remember;
		await page.close();
	}
});
