// The pure parts of the interface: citation markers, wiki links for the clipboard, the
// "considered" line, error advice and the memory browser's filter.

import assert from "node:assert/strict";
import { test } from "node:test";
import type { Citation } from "../../plugin/core/memory-core-api";
import { answerWithWikiLinks, linkText, numberCitations, splitCitations } from "../../plugin/views/citations";
import { consideredText, plannedText } from "../../plugin/views/considered-text";
import { adviceFor } from "../../plugin/views/error-advice";
import { EMPTY_FILTER, queryOf } from "../../plugin/views/memory-filter";

const memoryCitation = (id: string, sourcePath: string, heading: string | null, lineStart: number | null = 0): Citation => ({
	kind: "memory",
	id,
	summary: `summary ${id}`,
	sourcePath,
	heading,
	lineStart,
	lineEnd: lineStart,
	memoryIds: [],
});

test("citation markers are split out of the answer text and numbered in order", () => {
	assert.deepEqual(splitCitations("A [memory:m1] and B [consolidation:c_2].[memory:m1]"), [
		{ text: "A " },
		{ kind: "memory", id: "m1" },
		{ text: " and B " },
		{ kind: "consolidation", id: "c_2" },
		{ text: "." },
		{ kind: "memory", id: "m1" },
	]);
	const numbered = numberCitations([memoryCitation("m1", "a.md", null), memoryCitation("m2", "b.md", null), memoryCitation("m1", "a.md", null)]);
	assert.deepEqual([...numbered.entries()].map(([key, value]) => [key, value.number]), [
		["memory:m1", 1],
		["memory:m2", 2],
	]);
});

test("link texts chain nested headings and drop the .md extension", () => {
	assert.equal(linkText({ sourcePath: "Trips/Lisbon.md", heading: "Trip > Flights", lineStart: 4 }), "Trips/Lisbon#Trip#Flights");
	assert.equal(linkText({ sourcePath: "Inbox.md", heading: null, lineStart: null }), "Inbox");
	assert.equal(linkText({ sourcePath: "a.md", heading: "Q3 [draft] #1", lineStart: 0 }), "a#Q3 draft 1");
	assert.equal(linkText({ sourcePath: "", heading: "x", lineStart: 0 }), null, "typed text has no note");
});

test("the clipboard answer has wiki links for memories and for an insight's memories", () => {
	const citations: Citation[] = [
		memoryCitation("m1", "Trips/Lisbon.md", "Lisbon trip"),
		{ kind: "consolidation", id: "c1", summary: "insight", sourcePath: "", heading: null, lineStart: null, lineEnd: null, memoryIds: ["m2", "m3"] },
		memoryCitation("m4", "", null),
	];
	const places = new Map([
		["m2", { sourcePath: "Journal/2026-02-01.md", heading: "Sunday", lineStart: 0 }],
		["m3", { sourcePath: "Trips/Lisbon.md", heading: "Lisbon trip", lineStart: 3 }],
	]);
	const copied = answerWithWikiLinks("We fly on 14 March [memory:m1]. Ana wants Sintra [consolidation:c1]. Passport [memory:m4].", citations, (id) => places.get(id));
	assert.equal(copied, "We fly on 14 March [[Trips/Lisbon#Lisbon trip]]. Ana wants Sintra [[Journal/2026-02-01#Sunday]] [[Trips/Lisbon#Lisbon trip]]. Passport .");
});

test("the considered line counts memories, insights and tokens", () => {
	const considered = { memoriesTotal: 2104, insightsTotal: 0, memoriesPacked: 612, insightsPacked: 0, tokensPacked: 41_200, reasons: [], plannedKeywords: [], scoped: false };
	assert.equal(consideredText({ askedModel: true, considered }), `Considered ${(2104).toLocaleString()} memories, packed 612, 41k tokens`);
	assert.equal(consideredText({ askedModel: true, considered: { ...considered, insightsTotal: 31, insightsPacked: 12, tokensPacked: 850 } }), `Considered ${(2104).toLocaleString()} memories, packed 612 and 12 of 31 insights, 850 tokens`);
	assert.equal(consideredText({ askedModel: true, considered: { ...considered, memoriesTotal: 3, memoriesPacked: 3, scoped: true } }), "Considered 3 memories in scope, packed 3, 41k tokens");
	assert.equal(consideredText({ askedModel: false, considered }), "", "nothing to say when no model was asked");
	assert.equal(plannedText({ considered }), "", "no planning call, no line");
	assert.equal(plannedText({ considered: { ...considered, plannedKeywords: ["hiking", "camping"] } }), "Also searched for: hiking, camping");
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
	});
	assert.deepEqual(queryOf(EMPTY_FILTER), { text: null, source: null, entity: null, topic: null, from: null, to: null });
});
