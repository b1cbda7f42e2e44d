// A real PDF through pdf.js in Chromium: the page loads pdfjs-dist's browser build (the version
// package.json pins as Obsidian's) as Obsidian's `loadPdfJs()` gives it — its own worker,
// `window.pdfjsLib` —, and plugin/host/pdf-text.ts reads a PDF the tests wrote: page 2's text
// with its heading's height, and a scanned page drawn on an OffscreenCanvas and encoded as JPEG.

import assert from "node:assert/strict";
import { createRequire } from "node:module";
import fs from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { after, before, test } from "node:test";
import { createCanvas } from "@napi-rs/canvas";
import { build } from "esbuild";
import { writePdf } from "../support/pdf-writer";
import { skip } from "./session";
import { type StaticFile, type StaticPages, serveStaticPages } from "./static-pages";

const HERE = path.dirname(fileURLToPath(import.meta.url));
const PDFJS_BUILD = path.join(path.dirname(createRequire(import.meta.url).resolve("pdfjs-dist/package.json")), "build");

const PAGE_HTML = `<!doctype html><html><head><meta charset="utf-8"></head><body>
<script type="module">
  window.pdfjsReady = import("/pdfjs/pdf.mjs").then((pdfjs) => {
    pdfjs.GlobalWorkerOptions.workerSrc = "/pdfjs/pdf.worker.mjs";
    window.pdfjsLib = pdfjs;
    return pdfjs;
  });
</script>
<script src="/pdf-page.js"></script>
</body></html>`;

let pages: StaticPages | undefined;

async function scanJpeg(): Promise<Uint8Array> {
	const canvas = createCanvas(600, 800);
	const context = canvas.getContext("2d");
	context.fillStyle = "#1060c0";
	context.fillRect(0, 0, 600, 800);
	return new Uint8Array(await canvas.encode("jpeg", 90));
}

before(async () => {
	if (skip !== false) return;
	const bundle = await build({ entryPoints: [path.join(HERE, "harness", "pdf-page.ts")], bundle: true, format: "iife", platform: "browser", target: "es2022", write: false, logLevel: "silent" });
	const files: Record<string, StaticFile> = {
		"/": { type: "text/html", body: PAGE_HTML },
		"/pdf-page.js": { type: "text/javascript", body: bundle.outputFiles[0]?.text ?? "" },
		"/pdfjs/pdf.mjs": { type: "text/javascript", body: await fs.readFile(path.join(PDFJS_BUILD, "pdf.mjs")) },
		"/pdfjs/pdf.worker.mjs": { type: "text/javascript", body: await fs.readFile(path.join(PDFJS_BUILD, "pdf.worker.mjs")) },
		"/report.pdf": {
			type: "application/pdf",
			body: writePdf({
				info: { Title: "Boiler log", CreationDate: "D:20260302090000+01'00'" },
				pages: [
					{ lines: [{ text: "Heating", size: 20 }, { text: "The house is heated by a gas boiler.", size: 11 }] },
					{ lines: [{ text: "Service history", size: 16 }, { text: "The boiler was replaced on 3 March 2026.", size: 11 }] },
					{ jpeg: { bytes: await scanJpeg(), width: 600, height: 800 } },
				],
			}),
		},
		"/locked.pdf": { type: "application/pdf", body: writePdf({ pages: [{ lines: [{ text: "Secret" }] }], encrypted: true }) },
	};
	pages = await serveStaticPages(files);
});

after(async () => {
	await pages?.close();
});

interface PageResult {
	problem: { kind: string; message: string } | null;
	pageCount: number;
	info: { title: string | null; creationDate: string | null };
	pages: Array<{ number: number; lines: Array<{ text: string; height: number }>; scan: { width: number; height: number; format: string; byteLength: number; decoded: number[]; centre: number[] } | null }>;
}

async function readInPage(url: string, scanPixels: number): Promise<PageResult> {
	assert.ok(pages);
	const page = await pages.browser.newPage();
	try {
		await page.goto(pages.origin);
		await page.waitForFunction(() => typeof (window as unknown as { readPdf?: unknown }).readPdf === "function");
		return (await page.evaluate(
			([target, pixels]) => (window as unknown as { readPdf: (url: string, options: unknown) => Promise<unknown> }).readPdf(target as string, { maxPages: 200, renderScans: true, scanPixels: pixels, scanBelowChars: 20 }),
			[url, scanPixels] as const,
		)) as PageResult;
	} finally {
		await page.close();
	}
}

test("Chromium's pdf.js reads page 2's text and renders the scanned page within scanPixels", { skip }, async () => {
	const result = await readInPage("/report.pdf", 400_000);
	assert.equal(result.problem, null);
	assert.equal(result.pageCount, 3);
	assert.equal(result.info.title, "Boiler log");
	assert.equal(result.info.creationDate, "D:20260302090000+01'00'");
	assert.deepEqual(result.pages[1]?.lines, [
		{ text: "Service history", height: 16 },
		{ text: "The boiler was replaced on 3 March 2026.", height: 11 },
	]);
	assert.equal(result.pages[0]?.scan, null);
	const scan = result.pages[2]?.scan;
	assert.ok(scan, "the page without text was rendered");
	assert.equal(scan.format, "jpeg");
	assert.ok(scan.width * scan.height <= 400_000 && scan.width * scan.height > 380_000, `${scan.width}×${scan.height}`);
	assert.deepEqual(scan.decoded, [scan.width, scan.height], "the browser decodes the JPEG at the size given");
	const [red = 0, green = 0, blue = 0] = scan.centre;
	assert.ok(blue > 150 && red < 60 && green > 60 && green < 140, `the page's blue image was drawn, centre ${red},${green},${blue}`);
});

test("Chromium's pdf.js answers a password-protected PDF with `encrypted`", { skip }, async () => {
	const result = await readInPage("/locked.pdf", 400_000);
	assert.equal(result.problem?.kind, "encrypted");
	assert.deepEqual(result.pages, []);
});
