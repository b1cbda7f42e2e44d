// "Read the notes behind memories" through the built main.js and the fake Bedrock: a question's
// request carries the passage a chosen memory came from, read from the vault when it is asked
// (a detail the memory's summary left out), and none with the setting off.

import assert from "node:assert/strict";
import { afterEach, test } from "node:test";
import { type UiHost, NOTES, askInPanel, rememberNotes, startUiHost, waitForMemories } from "./views-fixture";

/** The budget note with a line its memory's summary (its first sentence) leaves out. */
const NOTES_WITH_DETAIL: Record<string, string> = {
	...NOTES,
	"Work/Budget.md": "# Q3 budget\n\nThe Q3 marketing budget is 40k euros, approved by Marco.\nThe invoice number is INV-20931, due on 12 May.\n",
};

let ui: UiHost | undefined;
afterEach(async () => {
	await ui?.close();
	ui = undefined;
});

/** The user text of the last request that asked `question`. */
function questionRequestText(fake: UiHost["fake"], question: string): string {
	const request = fake.requests.filter((sent) => sent.body.includes(question)).at(-1);
	assert.ok(request, `the question was sent: ${question}`);
	const json = request.json as { messages: Array<{ content: Array<{ text?: string }> }> };
	return json.messages.flatMap((message) => message.content.map((block) => block.text ?? "")).join("\n");
}

test("a passage read from the vault reaches the question's request", async () => {
	ui = await startUiHost({ notes: NOTES_WITH_DETAIL, settings: { dailyConsolidation: false } });
	const { host, fake } = ui;
	await rememberNotes(host);
	await waitForMemories(host, 3);
	await askInPanel(host, "What is the marketing budget?");
	const text = questionRequestText(fake, "What is the marketing budget?");
	assert.match(text, /<passage of="memory:[^"]+">\n# Q3 budget\n/, text);
	assert.match(text, /The invoice number is INV-20931, due on 12 May\./, "the line only the note holds");
	assert.doesNotMatch(text, /\[memory:[^\]]+\][^\n]*INV-20931/, "no memory line holds it: it came from the note");
	assert.match(text, /Today is \w+day \d{4}-\d{2}-\d{2}\./, "today with its weekday");
});

test("with \"Read the notes behind memories\" off, no passage is sent", async () => {
	ui = await startUiHost({ notes: NOTES_WITH_DETAIL, settings: { dailyConsolidation: false, readPassages: false } });
	const { host, fake } = ui;
	await rememberNotes(host);
	await waitForMemories(host, 3);
	await askInPanel(host, "What is the marketing budget?");
	const text = questionRequestText(fake, "What is the marketing budget?");
	assert.doesNotMatch(text, /<passage/, text);
	assert.doesNotMatch(text, /INV-20931/);
});
