// A saved conversation's note and back: questions, times, answers with links, cited ids and
// the scope each question was limited to survive the round trip; other notes are not one.

import assert from "node:assert/strict";
import { after, test } from "node:test";
import type { AnswerPiece, Citation } from "../../plugin/core/memory-core-api";
import { answerWithWikiLinks } from "../../plugin/views/citations";
import { conversationToMarkdown, parseConversation } from "../../plugin/views/conversation-note";
import { createDom } from "../host/dom";

/** A document to parse answers in (the written Markdown goes through the inert renderer). */
const dom = createDom();
after(() => dom.close());

const AT = new Date(2026, 11, 1, 15, 20).getTime();

test("a conversation reads back as it was saved, with each question's scope", () => {
	const turns = [
		{ question: "When do we fly?", answer: "On 14 March [[Trips/Lisbon#Lisbon trip]].", cited: ["m1"], askedAt: AT },
		{ question: "And the hotel?\nIn Alfama?", answer: "Yes.", cited: [], askedAt: AT + 60_000, scope: ["Lisbon", "#travel"] },
	];
	const text = conversationToMarkdown(turns, AT);
	assert.match(text, /^\*2026-12-01 15:21 · about Lisbon, \\#travel\*$/m, "escaped: a scope name is not a tag of the note");
	assert.match(text, /^## And the hotel\? In Alfama\?$/m, "a question stays one heading");
	assert.deepEqual(parseConversation(text), [turns[0], { ...turns[1], question: "And the hotel? In Alfama?" }]);
	assert.equal(parseConversation("# Just a note\n\n## A heading\n"), null);
});

test("an answer citing two memories in one bracket is saved with two links, and reads back with both", () => {
	const citation = (number: number, id: string, sourcePath: string, heading: string): Citation => ({ number, kind: "memory", id, summary: id, sourcePath, heading, lineStart: 0, lineEnd: 0, memoryIds: [], fileKind: "note", page: null });
	// The core's pieces of "We fly with Ana, who wants Sintra [memory:m1, memory:m2]."
	const answer = {
		pieces: [{ kind: "text", text: "We fly with Ana, who wants Sintra " }, { kind: "citation", number: 1 }, { kind: "citation", number: 2 }, { kind: "text", text: "." }] satisfies AnswerPiece[],
		citations: [citation(1, "m1", "Trips/Lisbon.md", "Lisbon trip"), citation(2, "m2", "Journal/2026-02-01.md", "Sunday")],
	};
	const saved = { question: "Who comes?", answer: answerWithWikiLinks(answer, () => undefined, dom.document), cited: ["m1", "m2"], askedAt: AT };
	const text = conversationToMarkdown([saved], AT);
	assert.match(text, /^We fly with Ana, who wants Sintra \[\[Trips\/Lisbon#Lisbon trip\]\] \[\[Journal\/2026-02-01#Sunday\]\]\.$/m);
	assert.doesNotMatch(text, /\[memory:/);
	assert.deepEqual(parseConversation(text), [saved]);
});

test("a question and scope names are written inert and read back as typed", () => {
	const turns = [{ question: "What is <img src=https://t.example/p.png> and ![[Secret]] #tag *x*?", answer: "Nothing.", cited: [], askedAt: AT, scope: ["a_b*", "#travel"] }];
	const text = conversationToMarkdown(turns, AT);
	assert.match(text, /^## What is \\<img src\\=https:\/\/t\.example\/p\.png\\> and \\!\\\[\\\[Secret\\\]\\\] \\#tag \\\*x\\\*\?$/m);
	assert.doesNotMatch(text, /[^\\]<img|[^\\]!\[\[/);
	assert.deepEqual(parseConversation(text), turns);
});

test("a cited place whose path or heading holds a newline, HTML or a scheme is written as inert text, never a link or a line of HTML", () => {
	const citation = (number: number, sourcePath: string, heading: string | null): Citation => ({ number, kind: "memory", id: `m${number}`, summary: "s", sourcePath, heading, lineStart: 0, lineEnd: 0, memoryIds: [], fileKind: "note", page: null });
	const forged = [
		citation(1, 'Notes/x\n<img src="https://t.example/p.gif">.md', null),
		citation(2, "Notes/y.md", 'Day\n<img src="https://t.example/q.gif">'),
		citation(3, "javascript%3Aalert(1).md", null),
		citation(4, "obsidian%3A%2F%2Fnew%3Fvault%3Dv.md", null),
		citation(5, "Trips/Lisbon.md", "Lisbon trip"),
	];
	const answer = {
		pieces: [{ kind: "text", text: "Facts " }, ...forged.map((cited) => ({ kind: "citation", number: cited.number }) as AnswerPiece), { kind: "text", text: "." }] satisfies AnswerPiece[],
		citations: forged,
	};
	const written = answerWithWikiLinks(answer, () => undefined, dom.document);
	const text = conversationToMarkdown([{ question: "Q?", answer: written, cited: [], askedAt: AT }], AT);
	assert.doesNotMatch(text, /(^|[^\\])<img/m, text);
	assert.doesNotMatch(text, /\[\[(?:javascript|obsidian|data)/i, text);
	assert.doesNotMatch(text, /\[\[[^\]]*%3A/i, text);
	assert.match(text, /\[\[Trips\/Lisbon#Lisbon trip\]\]/, "a real place is still a link");
	assert.equal(written.split("\n").length, 1, `one line: ${written}`);
});
