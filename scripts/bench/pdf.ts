// `npm run bench -- --only=pdf`: PDF text extraction as the plugin does it on Obsidian's main
// thread (plugin/host/pdf-text.ts), with pdfjs-dist in Node (the version package.json pins as
// Obsidian's): a generated 100-page text PDF (40 lines a page, headings every 10 lines), read
// three times. Prints ms per page and the main thread's longest block while it is read, measured
// two ways: a 1 ms interval's largest lateness, and perf_hooks.monitorEventLoopDelay's maximum.

import { monitorEventLoopDelay, performance } from "node:perf_hooks";
import { type PdfDocument, SliceBudget, extractPdf, joinLines } from "../../plugin/host/pdf-text";
import { loadNodePdfJs, napiScanSurface } from "../../tests/host/pdfjs-node";
import { type PdfTextLine, writePdf } from "../../tests/support/pdf-writer";

const PAGES = 100;
const RUNS = 3;

function reportPdf(): Uint8Array {
	const pages = Array.from({ length: PAGES }, (_, page) => ({
		lines: Array.from({ length: 40 }, (_, line): PdfTextLine =>
			line % 10 === 0
				? { text: `Section ${page + 1}.${line / 10 + 1}: maintenance of the heating system`, size: 16 }
				: { text: `Line ${line} of page ${page + 1}: the boiler was serviced and the pressure was checked at 1.5 bar.`, size: 9 },
		),
	}));
	return writePdf({ pages, info: { Title: "Bench report", CreationDate: "D:20260102093000Z" } });
}

/** The largest lateness of a 1 ms interval while `work` runs: how long the thread was held at once. */
async function withLateness<T>(work: () => Promise<T>): Promise<{ result: T; intervalMaxMs: number; histogramMaxMs: number }> {
	const histogram = monitorEventLoopDelay({ resolution: 1 });
	let last = performance.now();
	let intervalMaxMs = 0;
	const timer = setInterval(() => {
		const now = performance.now();
		intervalMaxMs = Math.max(intervalMaxMs, now - last - 1);
		last = now;
	}, 1);
	histogram.enable();
	try {
		const result = await work();
		return { result, intervalMaxMs, histogramMaxMs: histogram.max / 1e6 };
	} finally {
		histogram.disable();
		clearInterval(timer);
	}
}

export async function runPdfBench(): Promise<void> {
	const pdf = reportPdf();
	const deps = { loadPdfJs: loadNodePdfJs, scanSurface: napiScanSurface, yieldNow: () => new Promise<void>((resolve) => setTimeout(resolve, 0)) };
	const options = { maxPages: 200, renderScans: false, scanPixels: 1_150_000, scanBelowChars: 20, maxChars: 2_097_152 };
	// pdf.js's module and its fake worker load once, as in Obsidian after the first PDF.
	await extractPdf(deps, pdf, options);
	console.log(`\nPDF text extraction (plugin/host/pdf-text.ts, pdfjs-dist in Node): ${PAGES} pages, ${(pdf.byteLength / 1024).toFixed(0)} KB`);
	console.log("| run | total ms | ms per page | lines | longest block, 1 ms interval (ms) | longest block, monitorEventLoopDelay (ms) |");
	console.log("|---|---|---|---|---|---|");
	for (let run = 1; run <= RUNS; run++) {
		const started = performance.now();
		const { result, intervalMaxMs, histogramMaxMs } = await withLateness(() => extractPdf(deps, pdf, options));
		const total = performance.now() - started;
		const lines = result.pages.reduce((sum, page) => sum + page.lines.length, 0);
		if (result.problem !== null || result.pages.length !== PAGES) throw new Error(`the bench PDF was not read: ${JSON.stringify(result.problem)}`);
		console.log(`| ${run} | ${total.toFixed(0)} | ${(total / PAGES).toFixed(2)} | ${lines} | ${intervalMaxMs.toFixed(1)} | ${histogramMaxMs.toFixed(1)} |`);
	}
	const join = await joinAlone(pdf);
	console.log(`\nThe join alone (what runs on Obsidian's main thread; pdf.js's text items gathered first): ${join.totalMs.toFixed(1)} ms for ${PAGES} pages, longest slice between turns ${join.longestMs.toFixed(2)} ms`);
	console.log(
		"In Node, pdf.js's worker is a fake one on the same thread: its parsing counts in the longest block here, unlike in Obsidian, where it runs in pdf.js's own worker and only the join of lines runs on the main thread.",
	);
}

/** joinLines over every page's items, gathered from pdf.js beforehand: its total time and longest slice between turns. */
async function joinAlone(pdf: Uint8Array): Promise<{ totalMs: number; longestMs: number }> {
	const pdfjs = await loadNodePdfJs();
	const document = (await pdfjs.getDocument({ data: pdf.slice(), isEvalSupported: false }).promise) as PdfDocument;
	const pages: unknown[][] = [];
	for (let number = 1; number <= document.numPages; number++) pages.push((await (await document.getPage(number)).getTextContent()).items);
	await document.destroy();
	let sliceStart = performance.now();
	let longestMs = 0;
	const budget = new SliceBudget(
		() => performance.now(),
		async () => {
			longestMs = Math.max(longestMs, performance.now() - sliceStart);
			await new Promise((resolve) => setTimeout(resolve, 0));
			sliceStart = performance.now();
		},
	);
	const started = performance.now();
	sliceStart = started;
	for (const items of pages) {
		await budget.yieldIfDue();
		await joinLines(items, budget);
	}
	longestMs = Math.max(longestMs, performance.now() - sliceStart);
	return { totalMs: performance.now() - started, longestMs };
}
