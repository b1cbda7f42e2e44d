// The plugin's small parts for PDFs and images, without the built plugin: which files the sync
// forwards (the schema's extension lists), the links and labels of PDF and image memories, the
// browser's kind filter, the bulk dialog's lines by kind, the PDF host call through the main
// thread's handlers (real pdf.js), and which buffers cross the worker boundary by transfer.

import assert from "node:assert/strict";
import { after, test } from "node:test";
import type { Citation, IngestEstimate, Memory } from "../../plugin/core/memory-core-api";
import { SETTINGS_SCHEMA } from "../../plugin/generated/settings-schema";
import { createHostHandlers } from "../../plugin/host/core-host";
import { MemoryPort } from "../support/memory-port";
import { filesSummary, kindLines } from "../../plugin/vault/bulk-estimate";
import { fileKindOfPath, isMediaFile, isRememberable } from "../../plugin/vault/file-kinds";
import { answerWithWikiLinks, linkText, placeLabel } from "../../plugin/views/citations";
import { EMPTY_FILTER, memorySourceLabel, queryOf } from "../../plugin/views/memory-filter";
import { placeOf } from "../../plugin/views/memory-place";
import { transferablesOf } from "../../plugin/worker/protocol";
import { createDom } from "../host/dom";
import { loadNodePdfJs } from "../host/pdfjs-node";
import { writePdf } from "../support/pdf-writer";

test("the files forwarded to the core are the schema's extensions, case-insensitively; others are not", () => {
	assert.deepEqual(SETTINGS_SCHEMA.fileExtensions.image, ["png", "jpg", "jpeg", "gif", "webp"]);
	const kinds = ["Notes/a.md", "b.TXT", "Papers/Report.PDF", "x/photo.JPG", "y.webp", "scan.heic", "draw.svg", "a.docx", "noext", "dir.md/file", ".pdf"].map(fileKindOfPath);
	assert.deepEqual(kinds, ["note", "note", "pdf", "image", "image", "unsupportedImage", "unsupportedImage", null, null, null, null]);
	assert.equal(isRememberable("scan.heic"), true, "the core records why it is skipped");
	assert.equal(isRememberable("movie.mp4"), false);
	assert.deepEqual(["a.md", "a.pdf", "a.png", "a.avif"].map(isMediaFile), [false, true, true, true]);
});

function memory(fields: Partial<Memory>): Memory {
	return {
		id: "m-1", source_path: "Papers/report.pdf", source_kind: "note", position: { heading: "Results", line_start: 2, line_end: 3 },
		raw_text: "", summary: "The boiler was replaced.", entities: [], topics: [], importance: 0.5, happened_on: null, also_on: [],
		date_source: "text", facts: [], created_at: 0, updated_at: 0, consolidated: false, content_hash: null, fileKind: "pdf", page: 2,
		...fields,
	};
}

test("a PDF memory links and opens at its page, an image as itself, a note as before", () => {
	const pdf = placeOf(memory({}));
	assert.deepEqual(pdf, { sourcePath: "Papers/report.pdf", heading: "Results", lineStart: null, fileKind: "pdf", page: 2 });
	assert.equal(linkText(pdf), "Papers/report.pdf#page=2");
	// Without the DTO's page, the position's first page is the page.
	assert.equal(linkText(placeOf(memory({ page: null, position: { heading: null, line_start: 7, line_end: 9 } }))), "Papers/report.pdf#page=7");
	assert.equal(linkText(placeOf(memory({ source_path: "Photos/board.jpg", fileKind: "image", page: null, position: { heading: null, line_start: null, line_end: null } }))), "Photos/board.jpg");
	const note = placeOf(memory({ source_path: "Trips/Lisbon.md", fileKind: "note", page: null, position: { heading: "Day 1", line_start: 4, line_end: 9 } }));
	assert.equal(note.lineStart, 4);
	assert.equal(linkText(note), "Trips/Lisbon#Day 1");
});

test("a memory row names a PDF's page; the kind filter reaches the core's query", () => {
	assert.equal(memorySourceLabel(memory({})), "Papers/report.pdf, page 2 › Results");
	assert.equal(memorySourceLabel(memory({ position: { heading: null, line_start: 5, line_end: 5 }, page: 5 })), "Papers/report.pdf, page 5");
	assert.equal(memorySourceLabel(memory({ source_path: "a.png", fileKind: "image", page: null, position: { heading: null, line_start: null, line_end: null } })), "a.png");
	assert.equal(memorySourceLabel(memory({ source_path: "" })), "Typed text");
	// The ask panel's source list says the same of a citation.
	assert.equal(placeLabel({ sourcePath: "Papers/report.pdf", heading: null, lineStart: 3, fileKind: "pdf", page: 3 }), "Papers/report.pdf, page 3");
	assert.equal(placeLabel({ sourcePath: "Trips/Lisbon.md", heading: "Day 1", lineStart: 3 }), "Trips/Lisbon.md › Day 1");
	assert.equal(queryOf(EMPTY_FILTER).fileKind, null);
	assert.equal(queryOf({ ...EMPTY_FILTER, kind: "pdf" }).fileKind, "pdf");
});

const ESTIMATE: IngestEstimate = { notes: 3, pdfs: 2, pdfPages: 0, images: 4, imageTokens: 6_132, inputTokens: 9_000, outputTokens: 1_000, costUsd: 0.05, notesCostUsd: 0.02, pdfsCostUsd: 0.01, imagesCostUsd: 0.02, modelId: "m", priceKnown: true };

test("the bulk dialog counts notes, PDFs and images, each with what it sends", () => {
	assert.equal(filesSummary(ESTIMATE), "3 notes, 2 PDFs and 4 images");
	assert.equal(filesSummary({ ...ESTIMATE, pdfs: 0, images: 0 }), "3 notes");
	assert.equal(filesSummary({ ...ESTIMATE, notes: 1, pdfs: 1, images: 0 }), "1 note and 1 PDF");
	const lines = kindLines(ESTIMATE);
	assert.equal(lines.length, 3);
	assert.match(lines[1] ?? "", /^2 PDFs \(pages counted when read\)/);
	assert.match(lines[2] ?? "", /^4 images: .*6,132 input tokens in all, about \$0\.02$/);
	assert.match(lines[0] ?? "", /^3 notes: their text, about \$0\.02$/);
	assert.match(kindLines({ ...ESTIMATE, pdfPages: 31 })[1] ?? "", /^2 PDFs \(31 pages\)/);
	assert.deepEqual(kindLines({ ...ESTIMATE, pdfs: 0, images: 0, notesCostUsd: 0.001 }), ["3 notes: their text, less than $0.01"]);
});

test("the main thread's extractPdf handler reads a PDF with pdf.js", async () => {
	const handlers = createHostHandlers({
		requestUrl: () => Promise.reject(new Error("no HTTP in this test")),
		files: new MemoryPort(),
		vault: { getFileByPath: () => null, readBinary: () => Promise.reject(new Error("no reads")) },
		pdf: { loadPdfJs: loadNodePdfJs, yieldNow: () => new Promise((resolve) => setTimeout(resolve, 0)) },
	});
	const content = await handlers.extractPdf(writePdf({ pages: [{ lines: [{ text: "One" }] }, { lines: [{ text: "Two" }] }] }), {
		maxPages: 200, renderScans: false, scanPixels: 1_150_000, scanBelowChars: 20, maxChars: 2_097_152,
	});
	assert.deepEqual(content.pages.map((page) => page.lines.map((line) => line.text)), [["One"], ["Two"]]);
});

test("a PDF's scans are transferred across the worker boundary; views into a larger buffer are not", () => {
	const whole = new Uint8Array([1, 2, 3]);
	const other = new Uint8Array([4]);
	const shared = new Uint8Array(new ArrayBuffer(16), 4, 4);
	const content = {
		problem: null, pageCount: 3, info: { title: null, author: null, creationDate: null, modDate: null },
		pages: [
			{ number: 1, lines: [], scan: { bytes: whole, format: "jpeg", width: 1, height: 1 } },
			{ number: 2, lines: [{ text: "t", height: 1 }], scan: null },
			{ number: 3, lines: [], scan: { bytes: shared, format: "jpeg", width: 1, height: 1 } },
			{ number: 4, lines: [], scan: { bytes: other, format: "jpeg", width: 1, height: 1 } },
		],
	};
	assert.deepEqual(transferablesOf(content), [whole.buffer, other.buffer]);
	// The PDF's bytes as the host call's first argument.
	assert.deepEqual(transferablesOf(whole), [whole.buffer]);
});

const dom = createDom();
after(() => dom.close());

test("a saved conversation links a PDF citation to its page and an image as itself, an insight through its memories", () => {
	const citation = (number: number, fields: Partial<Citation>): Citation => ({
		number, kind: "memory", id: `m${number}`, summary: "s", sourcePath: "", heading: null, lineStart: null, lineEnd: null, memoryIds: [], fileKind: "note", page: null, ...fields,
	});
	const citations = [
		citation(1, { sourcePath: "Papers/boiler.pdf", heading: "Service history", lineStart: 2, lineEnd: 2, fileKind: "pdf", page: 2 }),
		citation(2, { sourcePath: "Photos/board.jpg", fileKind: "image" }),
		citation(3, { kind: "consolidation", id: "c1", memoryIds: ["m-pdf"] }),
	];
	const pieces = [
		{ kind: "text" as const, text: "Replaced in March " },
		{ kind: "citation" as const, number: 1 },
		{ kind: "text" as const, text: ", drawn on the board " },
		{ kind: "citation" as const, number: 2 },
		{ kind: "text" as const, text: ", and connected " },
		{ kind: "citation" as const, number: 3 },
		{ kind: "text" as const, text: "." },
	];
	const places = new Map([["m-pdf", placeOf(memory({ page: 7, position: { heading: null, line_start: 7, line_end: 8 } }))]]);
	assert.equal(
		answerWithWikiLinks({ pieces, citations }, (id) => places.get(id), dom.document),
		"Replaced in March [[Papers/boiler.pdf#page=2]], drawn on the board [[Photos/board.jpg]], and connected [[Papers/report.pdf#page=7]].",
	);
});
