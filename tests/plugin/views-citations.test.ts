// The pure parts of the interface: an answer's pieces as parts and panel marks, wiki links for
// the clipboard, the "considered" line, error advice and the memory browser's filter.

import assert from "node:assert/strict";
import { after, test } from "node:test";
import type { AnswerPiece, Citation } from "../../plugin/core/memory-core-api";
import { answerParts, answerWithWikiLinks, linkText, markdownWithMarks, splitAtMarks } from "../../plugin/views/citations";
import { answerCostText, consideredText, droppedCitationsText, plannedText } from "../../plugin/views/considered-text";
import { adviceFor } from "../../plugin/views/error-advice";
import { EMPTY_FILTER, queryOf } from "../../plugin/views/memory-filter";
import { createDom } from "../host/dom";

/** A document to parse answers in (the written Markdown goes through the inert renderer). */
const dom = createDom();
after(() => dom.close());

const memoryCitation = (number: number, id: string, sourcePath: string, heading: string | null, lineStart: number | null = 0): Citation => ({
	fileKind: "note",
	page: null,
	number,
	kind: "memory",
	id,
	summary: `summary ${id}`,
	sourcePath,
	heading,
	lineStart,
	lineEnd: lineStart,
	memoryIds: [],
});

const text = (text: string): AnswerPiece => ({ kind: "text", text });
const cite = (number: number): AnswerPiece => ({ kind: "citation", number });

test("adjacent citation pieces are one place citing several; a repeated one keeps its citation", () => {
	const citations = [memoryCitation(1, "m1", "a.md", null), memoryCitation(2, "m2", "b.md", null)];
	const parts = answerParts([text("A "), cite(1), cite(2), text(". B "), cite(2), text("."), cite(9)], citations);
	assert.deepEqual(parts, [{ text: "A " }, { cited: citations }, { text: ". B " }, { cited: [citations[1]] }, { text: "." }], "an unknown number draws nothing");
});

test("the panel's Markdown marks each place of citations, and the rendered text is split at the marks", () => {
	const citations = [memoryCitation(1, "m1", "a.md", null), memoryCitation(2, "m2", "b.md", null)];
	// A model's text holding the mark characters cannot fake a mark.
	const { markdown, groups } = markdownWithMarks(answerParts([text("A\uE0007\uE001 "), cite(1), cite(2), text(" and "), cite(1)], citations));
	assert.deepEqual(groups, [citations, [citations[0]]]);
	assert.deepEqual(splitAtMarks(markdown), ["A7 ", 0, " and ", 1]);
	assert.deepEqual(splitAtMarks("no marks"), ["no marks"]);
});

test("link texts chain nested headings and drop the .md extension", () => {
	assert.equal(linkText({ sourcePath: "Trips/Lisbon.md", heading: "Trip > Flights", lineStart: 4 }), "Trips/Lisbon#Trip#Flights");
	assert.equal(linkText({ sourcePath: "Inbox.md", heading: null, lineStart: null }), "Inbox");
	assert.equal(linkText({ sourcePath: "a.md", heading: "Q3 [draft] #1", lineStart: 0 }), "a#Q3 draft 1");
	assert.equal(linkText({ sourcePath: "", heading: "x", lineStart: 0 }), null, "typed text has no note");
});

test("the clipboard answer has wiki links for memories, for an insight's memories, and two for a grouped bracket", () => {
	const citations: Citation[] = [
		memoryCitation(1, "m1", "Trips/Lisbon.md", "Lisbon trip"),
		{ number: 2, kind: "consolidation", id: "c1", summary: "insight", sourcePath: "", heading: null, lineStart: null, lineEnd: null, memoryIds: ["m2", "m3"], fileKind: "note", page: null },
		memoryCitation(3, "m4", "", null),
		memoryCitation(4, "m5", "Work/Budget.md", "Q3 budget"),
	];
	const places = new Map([
		["m2", { sourcePath: "Journal/2026-02-01.md", heading: "Sunday", lineStart: 0 }],
		["m3", { sourcePath: "Trips/Lisbon.md", heading: "Lisbon trip", lineStart: 3 }],
	]);
	const pieces = [text("We fly on 14 March "), cite(1), text(". Ana wants Sintra "), cite(2), text(". Passport "), cite(3), text(". Both "), cite(1), cite(4), text(".")];
	const copied = answerWithWikiLinks({ pieces, citations }, (id) => places.get(id), dom.document);
	assert.equal(
		copied,
		"We fly on 14 March [[Trips/Lisbon#Lisbon trip]]. Ana wants Sintra [[Journal/2026-02-01#Sunday]] [[Trips/Lisbon#Lisbon trip]]. Passport . Both [[Trips/Lisbon#Lisbon trip]] [[Work/Budget#Q3 budget]].",
	);
	// The same note cited twice in one place is linked once.
	assert.equal(answerWithWikiLinks({ pieces: [text("Twice "), cite(1), cite(2)], citations: [citations[0]!, { ...citations[0]!, number: 2, id: "m9" }] }, () => undefined, dom.document), "Twice [[Trips/Lisbon#Lisbon trip]]");
});

test("the considered line counts memories, insights and tokens", () => {
	const considered = { memoriesTotal: 2104, insightsTotal: 0, memoriesPacked: 612, insightsPacked: 0, tokensPacked: 41_200, passagesPacked: 0, passagesChanged: 0, reasons: [], plannedKeywords: [], scoped: false };
	assert.equal(consideredText({ askedModel: true, considered }), `Considered ${(2104).toLocaleString()} memories, packed 612, 41k tokens`);
	assert.equal(consideredText({ askedModel: true, considered: { ...considered, insightsTotal: 31, insightsPacked: 12, tokensPacked: 850 } }), `Considered ${(2104).toLocaleString()} memories, packed 612 and 12 of 31 insights, 850 tokens`);
	assert.equal(consideredText({ askedModel: true, considered: { ...considered, memoriesTotal: 3, memoriesPacked: 3, scoped: true } }), "Considered 3 memories in scope, packed 3, 41k tokens");
	assert.equal(consideredText({ askedModel: false, considered }), "", "nothing to say when no model was asked");
	assert.equal(plannedText({ considered }), "", "no planning call, no line");
	assert.equal(plannedText({ considered: { ...considered, plannedKeywords: ["hiking", "camping"] } }), "Also searched for: hiking, camping");
});

test("an answer's cost says when calls were billed at the model's long-prompt price", () => {
	const usage = { inputTokens: 120_000, outputTokens: 320, cacheReadTokens: 0, cacheWriteTokens: 0 };
	const cost = (longPromptCalls: number) => answerCostText({ cost: { usage, usd: 0.0608, priceKnown: true, longPromptCalls } });
	assert.equal(cost(0), `${(120_000).toLocaleString()} tokens in, 320 out · about $0.06`);
	assert.match(cost(1), /\(one call above the model's long-prompt price: a smaller context budget keeps questions below it\)$/);
	assert.match(cost(2), /\(2 calls above/);
});

test("errors become advice with the next step", () => {
	const coded = (code: string, message = "core words") => Object.assign(new Error(message), { code });
	assert.deepEqual(adviceFor(coded("llm.auth")), { title: "Bedrock rejected the keys — open settings and check the access key secrets.", detail: "core words", next: "settings" });
	assert.equal(adviceFor(coded("llm.throttled")).next, "retry");
	assert.equal(adviceFor(coded("llm.something_new")).next, "retry");
	assert.deepEqual(adviceFor(new Error("plain")), { title: "Something went wrong.", detail: "plain", next: "none" });
});

test("the memory filter becomes the core's query, with only what is filled in", () => {
	// The filter is the core's query: only what is filled in, trimmed.
	assert.deepEqual(queryOf({ ...EMPTY_FILTER, text: "  ANA lisbon ", to: "2026-03-13" }), {
		text: "ANA lisbon",
		source: null,
		entity: null,
		topic: null,
		from: null,
		to: "2026-03-13",
		fileKind: null,
	});
	assert.deepEqual(queryOf(EMPTY_FILTER), { text: null, source: null, entity: null, topic: null, from: null, to: null, fileKind: null });
});

test("the details say how many citations the core left out", () => {
	assert.equal(droppedCitationsText({ unknownCitations: [] }), "");
	assert.equal(droppedCitationsText({ unknownCitations: ["m-9"] }), "1 citation left out: the model cited a memory it was not given");
	assert.equal(droppedCitationsText({ unknownCitations: ["m-8", "m-9"] }), "2 citations left out: the model cited memories it was not given");
});
