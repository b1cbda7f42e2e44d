// A saved conversation's note and back: questions, times, answers with links, cited ids and
// the scope each question was limited to survive the round trip; other notes are not one.

import assert from "node:assert/strict";
import { test } from "node:test";
import { conversationToMarkdown, parseConversation } from "../../plugin/views/conversation-note";

const AT = new Date(2026, 11, 1, 15, 20).getTime();

test("a conversation reads back as it was saved, with each question's scope", () => {
	const turns = [
		{ question: "When do we fly?", answer: "On 14 March [[Trips/Lisbon#Lisbon trip]].", cited: ["m1"], askedAt: AT },
		{ question: "And the hotel?\nIn Alfama?", answer: "Yes.", cited: [], askedAt: AT + 60_000, scope: ["Lisbon", "#travel"] },
	];
	const text = conversationToMarkdown(turns, AT);
	assert.match(text, /^\*2026-12-01 15:21 · about Lisbon, #travel\*$/m);
	assert.match(text, /^## And the hotel\? In Alfama\?$/m, "a question stays one heading");
	assert.deepEqual(parseConversation(text), [turns[0], { ...turns[1], question: "And the hotel? In Alfama?" }]);
	assert.equal(parseConversation("# Just a note\n\n## A heading\n"), null);
});
