// `extractPdf` (plugin/host/pdf-text.ts) against the real pdf.js (pdfjs-dist, the version
// Obsidian ships) on PDFs written by the tests: lines and their heights, the info dictionary,
// the problems (encrypted, empty, broken, too many pages), scans within the pixel budget, and
// the main thread given a turn within a slice.

import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { test } from "node:test";
import { createCanvas, loadImage } from "@napi-rs/canvas";
import type { PdfExtractOptions } from "../../build/pkg/memory_agent.js";
import { type PdfTextDeps, SliceBudget, extractPdf, joinLines, scanSize } from "../../plugin/host/pdf-text";
import { loadNodePdfJs, napiScanSurface } from "../host/pdfjs-node";
import { manyPagesPdf, writePdf } from "../support/pdf-writer";

const OPTIONS: PdfExtractOptions = { maxPages: 200, renderScans: false, scanPixels: 1_150_000, scanBelowChars: 20, maxChars: 2_097_152 };

function deps(overrides: Partial<PdfTextDeps> = {}): PdfTextDeps {
	return { loadPdfJs: loadNodePdfJs, scanSurface: napiScanSurface, yieldNow: () => new Promise((resolve) => setTimeout(resolve, 0)), ...overrides };
}

async function photoJpeg(width: number, height: number): Promise<Uint8Array> {
	const canvas = createCanvas(width, height);
	const context = canvas.getContext("2d");
	context.fillStyle = "#2a6";
	context.fillRect(0, 0, width, height);
	context.fillStyle = "#fff";
	context.fillRect(width / 4, height / 4, width / 2, height / 2);
	return new Uint8Array(await canvas.encode("jpeg", 90));
}

test("a text PDF's lines come back per page in order, each with its font height", async () => {
	const pdf = writePdf({
		pages: [
			{ lines: [{ text: "Annual Report", size: 24 }, { text: "Revenue grew in every quarter.", size: 11 }] },
			{ lines: [{ text: "Heating", size: 16 }, { text: "The boiler (model K2) was replaced on 3 March.", size: 11 }] },
		],
	});
	const content = await extractPdf(deps(), pdf, OPTIONS);
	assert.equal(content.problem, null);
	assert.equal(content.pageCount, 2);
	assert.deepEqual(
		content.pages.map((page) => ({ number: page.number, lines: page.lines, scan: page.scan })),
		[
			{ number: 1, lines: [{ text: "Annual Report", height: 24 }, { text: "Revenue grew in every quarter.", height: 11 }], scan: null },
			{ number: 2, lines: [{ text: "Heating", height: 16 }, { text: "The boiler (model K2) was replaced on 3 March.", height: 11 }], scan: null },
		],
	);
});

test("the information dictionary's title, author and raw dates are returned; missing ones are null", async () => {
	const info = { Title: "Boiler manual", Author: "Ann Lee", CreationDate: "D:20260102093000+01'00'", ModDate: "D:20260305120000Z" };
	const content = await extractPdf(deps(), writePdf({ pages: [{ lines: [{ text: "Hello" }] }], info }), OPTIONS);
	assert.deepEqual(content.info, { title: "Boiler manual", author: "Ann Lee", creationDate: "D:20260102093000+01'00'", modDate: "D:20260305120000Z" });
	const bare = await extractPdf(deps(), writePdf({ pages: [{ lines: [{ text: "Hello" }] }] }), OPTIONS);
	assert.deepEqual(bare.info, { title: null, author: null, creationDate: null, modDate: null });
});

test("a password-protected PDF is `encrypted`, with pdf.js's words, and no pages", async () => {
	const content = await extractPdf(deps(), writePdf({ pages: [{ lines: [{ text: "Secret" }] }], encrypted: true }), OPTIONS);
	assert.equal(content.problem?.kind, "encrypted");
	assert.match(content.problem?.message ?? "", /password/i);
	assert.deepEqual(content.pages, []);
});

test("a 0-byte PDF and a file that is no PDF are `broken`, with pdf.js's message", async () => {
	const empty = await extractPdf(deps(), new Uint8Array(0), OPTIONS);
	assert.equal(empty.problem?.kind, "broken");
	assert.match(empty.problem?.message ?? "", /empty|zero bytes/i);
	const garbage = await extractPdf(deps(), new TextEncoder().encode("this is a text file renamed to .pdf"), OPTIONS);
	assert.equal(garbage.problem?.kind, "broken");
	assert.notEqual(garbage.problem?.message, "");
	assert.deepEqual(garbage.pages, []);
});

test("a PDF over the page limit is `tooManyPages` with its count, and no page is read", async () => {
	const content = await extractPdf(deps(), manyPagesPdf(300), OPTIONS);
	assert.equal(content.problem?.kind, "tooManyPages");
	assert.equal(content.pageCount, 300);
	assert.deepEqual(content.pages, []);
	const within = await extractPdf(deps(), manyPagesPdf(300), { ...OPTIONS, maxPages: 300 });
	assert.equal(within.problem, null);
	assert.equal(within.pages.length, 300);
	assert.deepEqual(within.pages[299]?.lines, [{ text: "Page 300 of a long report.", height: 11 }]);
});

test("a PDF whose text passes maxChars is `tooMuchText`, and its pages are read no further than the page that passes it", async () => {
	// 24 characters a page ("Page 1 of a long report."): a cap of 100 falls inside page 5.
	const pdf = manyPagesPdf(10);
	const fits = await extractPdf(deps(), pdf, { ...OPTIONS, maxChars: 10 * 30 });
	assert.equal(fits.problem, null);
	assert.equal(fits.pages.length, 10);
	const pagesRead: number[] = [];
	const counting = deps({
		loadPdfJs: async () => {
			const pdfjs = (await loadNodePdfJs()) as { getDocument: (source: unknown) => { promise: Promise<{ getPage: (n: number) => Promise<unknown> }> } };
			return {
				...pdfjs,
				getDocument: (source: unknown) => {
					const task = pdfjs.getDocument(source);
					const promise = task.promise.then((document) => {
						const getPage = document.getPage.bind(document);
						document.getPage = (number: number) => {
							pagesRead.push(number);
							return getPage(number);
						};
						return document;
					});
					return { ...task, promise, destroy: () => (task as unknown as { destroy: () => Promise<void> }).destroy() };
				},
			};
		},
	});
	const capped = await extractPdf(counting, pdf, { ...OPTIONS, maxChars: 100 });
	assert.equal(capped.problem?.kind, "tooMuchText");
	assert.match(capped.problem?.message ?? "", /more than 100 characters/);
	assert.equal(capped.pageCount, 10);
	assert.deepEqual(capped.pages, []);
	assert.deepEqual(pagesRead, [1, 2, 3, 4, 5], "no page after the one that passes the cap is read");
});

test("the caller's bytes are left whole (pdf.js is given a copy to transfer)", async () => {
	const pdf = writePdf({ pages: [{ lines: [{ text: "Kept" }] }] });
	const length = pdf.byteLength;
	await extractPdf(deps(), pdf, OPTIONS);
	assert.equal(pdf.byteLength, length);
});

test("a page without a text layer is rendered as a JPEG within scanPixels, only when scans are asked for", async () => {
	const pdf = writePdf({ pages: [{ lines: [{ text: "A page with enough text to be no scan." }] }, { jpeg: { bytes: await photoJpeg(800, 600), width: 800, height: 600 } }] });
	const without = await extractPdf(deps(), pdf, OPTIONS);
	assert.equal(without.pages[1]?.scan, null);
	assert.deepEqual(without.pages[1]?.lines, []);

	const scanPixels = 300_000;
	const content = await extractPdf(deps(), pdf, { ...OPTIONS, renderScans: true, scanPixels });
	assert.equal(content.pages[0]?.scan, null, "a page with text is not rendered");
	const scan = content.pages[1]?.scan;
	assert.ok(scan !== null && scan !== undefined);
	assert.equal(scan.format, "jpeg");
	assert.ok(scan.width * scan.height <= scanPixels, `${scan.width}×${scan.height} is over ${scanPixels} pixels`);
	assert.ok(scan.width * scan.height > scanPixels * 0.95, "the scan uses the budget");
	// The bytes are a real JPEG of that size, showing the page's image (green, not blank).
	assert.deepEqual([...scan.bytes.subarray(0, 3)], [0xff, 0xd8, 0xff]);
	const decoded = await loadImage(Buffer.from(scan.bytes));
	assert.deepEqual([decoded.width, decoded.height], [scan.width, scan.height]);
	const canvas = createCanvas(decoded.width, decoded.height);
	canvas.getContext("2d").drawImage(decoded, 0, 0);
	const [red = 0, green = 0, blue = 0] = canvas.getContext("2d").getImageData(5, 5, 1, 1).data;
	assert.ok(green > 120 && red < 100 && blue < 140, `the corner pixel is the photo's green, got ${red},${green},${blue}`);
});

test("scanSize keeps within the budget and the page's proportions", () => {
	for (const [width, height, budget] of [
		[612, 792, 1_150_000],
		[595.28, 841.89, 1_150_000],
		[2000, 100, 50_000],
		[10, 10, 1_150_000],
	] as const) {
		const size = scanSize(width, height, budget);
		assert.ok(size.width * size.height <= budget);
		assert.ok(Math.abs(size.width / size.height - width / height) < 0.05 * (width / height));
	}
	assert.equal(scanSize(10, 10, 1_150_000).width, 40, "a tiny page is drawn at most 4 times its size");
	assert.deepEqual(scanSize(0, 792, 1000), { width: 0, height: 0, scale: 0 });
});

test("joinLines: hasEOL ends a line, a new baseline starts one, marked content is skipped", async () => {
	const item = (str: string, y: number, size: number, hasEOL = false) => ({ str, transform: [size, 0, 0, size, 72, y], height: size, hasEOL });
	const budget = new SliceBudget(() => 0, async () => undefined);
	const lines = await joinLines(
		[item("Title", 700, 18), item("", 700, 0, true), { type: "beginMarkedContent" }, item("first ", 680, 10), item("part", 680.2, 10), item("next line", 660, 10), item("same", 640, 10, true), item("after eol", 640, 10)],
		budget,
	);
	assert.deepEqual(lines, [
		{ text: "Title", height: 18 },
		{ text: "first part", height: 10 },
		{ text: "next line", height: 10 },
		{ text: "same", height: 10 },
		{ text: "after eol", height: 10 },
	]);
});

test("the join gives the event loop a turn once a slice is used up, between pages and within a page", async () => {
	let clock = 0;
	let turns = 0;
	// Every look at the clock costs 5 ms: with 8 ms slices, a turn is due every second look.
	const content = await extractPdf(
		deps({
			now: () => (clock += 5),
			yieldNow: async () => {
				turns++;
				await new Promise((resolve) => setTimeout(resolve, 0));
			},
		}),
		manyPagesPdf(10),
		OPTIONS,
	);
	assert.equal(content.pages.length, 10);
	assert.ok(turns >= 5, `expected a turn at least every other page, got ${turns}`);

	const items = Array.from({ length: 1000 }, (_, index) => ({ str: `w${index}`, transform: [10, 0, 0, 10, 72, 700 - index], height: 10 }));
	let within = 0;
	let now = 0;
	await joinLines(items, new SliceBudget(() => (now += 5), async () => void within++));
	assert.ok(within >= 7, `a 1000-item page gives turns within it, got ${within}`);
});

test("when pdf.js cannot be loaded at all the call rejects (the core retries later)", async () => {
	await assert.rejects(extractPdf(deps({ loadPdfJs: () => Promise.reject(new Error("pdf.js failed to load")) }), new Uint8Array(0), OPTIONS), /failed to load/);
});

test("damaged and hostile PDFs give text or a problem, never a rejection, never more text than maxChars or pages than maxPages (seeded)", () => {
	// In a process of its own: Node has no worker for pdf.js, whose worker code then runs here and
	// leaves rejections of its own unhandled (tests/plugin/pdf-fuzz-run.ts says which are allowed).
	const run = spawnSync(process.execPath, ["--import", "tsx", fileURLToPath(new URL("./pdf-fuzz-run.ts", import.meta.url))], {
		encoding: "utf8",
		env: { ...process.env, PDF_FUZZ_SEEDS: process.env.PDF_FUZZ_SEEDS ?? "200" },
		timeout: 600_000,
	});
	assert.equal(run.status, 0, run.stderr);
	const report = JSON.parse(run.stdout.trim().split("\n").at(-1) ?? "{}") as { seeds: number; failures: string[]; problems: number };
	assert.deepEqual(report.failures, []);
	assert.equal(report.seeds, Number(process.env.PDF_FUZZ_SEEDS ?? "200"));
	assert.ok(report.problems > 0 && report.problems < report.seeds, `mutations that pdf.js refuses and ones it reads: ${report.problems} of ${report.seeds}`);
});
