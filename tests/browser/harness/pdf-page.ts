// The page of the PDF browser test: plugin/host/pdf-text.ts as the plugin runs it in Obsidian's
// Chromium, with pdf.js loaded the way Obsidian's `loadPdfJs()` gives it (the browser build, its
// own worker, `window.pdfjsLib`), and the default scan surface (OffscreenCanvas) and yields.

import type { PdfExtractOptions } from "../../../build/pkg/memory_agent.js";
import { extractPdf } from "../../../plugin/host/pdf-text";

interface PdfPageWindow {
	pdfjsLib?: unknown;
	pdfjsReady?: Promise<unknown>;
	readPdf?: (url: string, options: PdfExtractOptions) => Promise<unknown>;
}

const page = window as unknown as PdfPageWindow;

/** What Obsidian's loadPdfJs resolves to: the pdf.js module the page loaded. */
async function loadPdfJs(): Promise<unknown> {
	return page.pdfjsLib ?? (await page.pdfjsReady);
}

/** Reads the PDF at `url`; a scan comes back with its size as decoded by the browser and its centre pixel. */
page.readPdf = async (url, options) => {
	const bytes = new Uint8Array(await (await fetch(url)).arrayBuffer());
	const content = await extractPdf({ loadPdfJs }, bytes, options);
	const pages = await Promise.all(
		content.pages.map(async (pdfPage) => {
			if (pdfPage.scan === null) return { number: pdfPage.number, lines: pdfPage.lines, scan: null };
			const { width, height, format } = pdfPage.scan;
			const bitmap = await createImageBitmap(new Blob([pdfPage.scan.bytes as Uint8Array<ArrayBuffer>], { type: `image/${format}` }));
			const canvas = new OffscreenCanvas(bitmap.width, bitmap.height);
			const context = canvas.getContext("2d");
			context?.drawImage(bitmap, 0, 0);
			const centre = [...(context?.getImageData(Math.floor(bitmap.width / 2), Math.floor(bitmap.height / 2), 1, 1).data ?? [])];
			return { number: pdfPage.number, lines: pdfPage.lines, scan: { width, height, format, byteLength: pdfPage.scan.bytes.byteLength, decoded: [bitmap.width, bitmap.height], centre } };
		}),
	);
	return { problem: content.problem, pageCount: content.pageCount, info: content.info, pages };
};
