// Conversations in a real browser, through the built main.js: ask, a follow-up that carries the
// earlier turn, "Save as note", reopening the saved note and carrying it on; a question scoped
// by typing `[[` and picking a note in the suggester; "Insert last answer here" into a note.
// Screenshots of a scoped conversation in light and dark.

import assert from "node:assert/strict";
import { test } from "node:test";
import type { Page } from "playwright-core";
import { NOTES } from "../plugin/views-fixture";
import { promptMemories } from "./memory-model";
import { ask, openHarness, screenshots, sharedSession, skip } from "./session";

const session = sharedSession();

/** The messages of the latest question sent to the fake Bedrock. */
function lastQuestion(): { messages: Array<{ role: string; content: Array<{ text?: string }> }> } {
	const request = [...session.fake.requests].reverse().find((recorded) => recorded.body.includes("Question: "));
	assert.ok(request, "a question reached Bedrock");
	return request.json as { messages: Array<{ role: string; content: Array<{ text?: string }> }> };
}

function lastPromptSources(): string[] {
	const text = lastQuestion().messages.at(-1)!.content.map((block) => block.text ?? "").join("\n");
	return promptMemories(text).map((memory) => memory.source.split("#")[0]!.trim());
}

async function savedConversations(page: Page): Promise<string[]> {
	return page.evaluate(() => window.harness.vault.getMarkdownFiles().map((file) => file.path).filter((path) => path.startsWith("Memory conversations/")));
}

test("a conversation: a follow-up carries the earlier turn, it is saved as a note, reopened and carried on", { skip }, async () => {
	const page = await openHarness(session);
	await ask(page, "When do we fly to Lisbon?");
	await ask(page, "And who is coming along?");
	const followUp = lastQuestion();
	assert.equal(followUp.messages.length, 3, "the earlier question, its answer, the follow-up");
	assert.equal(followUp.messages[0]?.content[0]?.text, "Question: When do we fly to Lisbon?");
	assert.equal(followUp.messages[1]?.role, "assistant");

	await page.locator(".memory-agent-save-conversation").click();
	await page.waitForFunction(() => window.harness.vault.getMarkdownFiles().some((file) => file.path.startsWith("Memory conversations/")));
	const [saved] = await savedConversations(page);
	const text = await page.evaluate((path) => window.harness.vault.adapter.read(path!), saved);
	assert.match(text, /^## When do we fly to Lisbon\?$/m);
	assert.match(text, /^## And who is coming along\?$/m);
	assert.match(text, /\[\[Trips\/Lisbon#Lisbon trip\]\]/, "citations are links to the notes");

	// A new conversation empties the panel; the saved note brings it back and carries it on.
	await page.locator(".memory-agent-new-conversation").click();
	assert.equal(await page.locator(".memory-agent-exchange").count(), 0);
	await page.evaluate((path) => {
		window.harness.workspace.setActiveFile(window.harness.vault.getFileByPath(path!) as never);
		window.harness.runCommand("continue-conversation");
	}, saved);
	await page.locator(".memory-agent-exchange.is-saved").nth(1).waitFor();
	assert.deepEqual(await page.locator(".memory-agent-exchange.is-saved .memory-agent-question").allTextContents(), ["When do we fly to Lisbon?", "And who is coming along?"]);
	const input = page.locator(".memory-agent-question-input");
	await input.fill("Where is the hotel?");
	await input.press("Enter");
	await page.locator(".memory-agent-exchange:not(.is-saved) .memory-agent-answer-body").waitFor();
	assert.equal(lastQuestion().messages.length, 5, "the two saved turns and the new question");
	await page.locator(".memory-agent-save-conversation").click();
	await page.waitForFunction(async (path) => (await window.harness.vault.adapter.read(path!)).includes("## Where is the hotel?"), saved);
	assert.deepEqual(await savedConversations(page), [saved], "carried on in the same note");
	await page.close();
});

test("typing [[ opens the note suggester; the picked note scopes the question, and the chip removes it", { skip }, async () => {
	const page = await openHarness(session);
	await page.evaluate(() => window.harness.runCommand("ask-memory"));
	const input = page.locator(".memory-agent-question-input");
	await input.click();
	await input.pressSequentially("Who approved [[");
	const suggester = page.locator(".modal-container .prompt-input");
	await suggester.waitFor();
	await suggester.pressSequentially("budg");
	await page.locator(".suggestion-item", { hasText: "Work/Budget" }).click();
	assert.equal(await input.inputValue(), "Who approved [[Budget]] ");
	assert.deepEqual(await page.locator(".memory-agent-scope-chip .memory-agent-scope-label").allTextContents(), ["Budget"]);
	await input.pressSequentially("the money?");
	await input.press("Enter");
	await page.locator(".memory-agent-exchange .memory-agent-answer-body").waitFor();
	assert.deepEqual(lastPromptSources(), ["Work/Budget.md"], "only the mentioned note's memory is sent");
	assert.match(await page.locator(".memory-agent-considered").last().innerText(), /^Considered 1 memory in scope, packed 1\b/);
	assert.equal(await page.locator(".memory-agent-asked-about").last().innerText(), "About Budget");

	// "Add scope" → "A folder…" narrows the next question to the Trips folder too.
	await page.locator(".memory-agent-add-scope").click();
	await page.locator(".menu .menu-item", { hasText: "A folder…" }).click();
	await page.locator(".modal-container .prompt-input").pressSequentially("trips");
	await page.locator(".suggestion-item", { hasText: "Trips/" }).click();
	await ask(page, "What is planned with the budget and the trip?");
	assert.deepEqual(lastPromptSources().sort(), ["Trips/Lisbon.md", "Work/Budget.md"]);
	await screenshots(page, ".mod-right-split", "ask-scoped");

	// Removing the chips asks the whole memory again.
	for (let left = 2; left > 0; left--) await page.locator(".memory-agent-scope-remove").first().click();
	await ask(page, "What is planned with the budget and the trip?");
	assert.deepEqual(lastPromptSources().sort(), ["Journal/2026-02-01.md", "Trips/Lisbon.md", "Work/Budget.md"]);
	await page.close();
});

test("\"Ask about selection\" scopes to the passage; \"Insert last answer here\" puts the answer at the cursor with links", { skip }, async () => {
	const page = await openHarness(session);
	const note = NOTES["Trips/Lisbon.md"]!;
	assert.equal(await page.evaluate((note) => window.harness.runEditorCommand("ask-about-selection", note, "Trips/Lisbon.md", "The hotel is in Alfama"), note), true);
	await page.locator(".memory-agent-scope-chip", { hasText: "Selection in Lisbon" }).waitFor();
	await ask(page, "When do we fly there?");
	assert.match(lastQuestion().messages.at(-1)!.content.at(-1)!.text ?? "", /<passage>\nThe hotel is in Alfama\n<\/passage>/);

	const plans = "# Plans\n\nFlights: ";
	assert.equal(await page.evaluate((plans) => window.harness.runEditorCommand("insert-answer", plans, "Trips/Lisbon.md"), plans), true);
	await page.waitForFunction((plans) => window.harness.editor?.getValue() !== plans, plans);
	const inserted = await page.evaluate(() => window.harness.editor!.getValue());
	assert.ok(inserted.startsWith(`${plans}Here is what your notes say:`), inserted);
	assert.match(inserted, /\[\[Trips\/Lisbon#Lisbon trip\]\]/);
	assert.doesNotMatch(inserted, /\[memory:/);
	await page.close();
});
