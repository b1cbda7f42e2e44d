// pdf.js for the headless host, the tests and the bench: pdfjs-dist's legacy build (the one for
// Node), pinned in package.json to 4.10.38. Obsidian does not publish its pdf.js version; what
// is public: it shipped 3.x (an annotator plugin waited for it to "merge the pdf.js 4.x
// version"), PDF++ types Obsidian's `window.pdfjsLib` against pdfjs-dist 4.x, and Obsidian
// 1.13 (our `obsidian` devDependency) is later than both — so the last 4.x release. pdf-text.ts
// uses only API that 3.x to 5.x share (getDocument, getTextContent, getMetadata, render with a
// canvasContext). Scans are drawn on @napi-rs/canvas, the canvas pdf.js uses in Node (≥ 4.x).

import { createRequire } from "node:module";
import path from "node:path";
import { createCanvas } from "@napi-rs/canvas";
import type { PdfJsModule, ScanSurface } from "../../plugin/host/pdf-text";

const require = createRequire(import.meta.url);
const PDFJS_DIR = path.dirname(require.resolve("pdfjs-dist/package.json"));
/** Helvetica and the other standard fonts, which pdf.js loads by URL (a path in Node). */
const STANDARD_FONTS = `${path.join(PDFJS_DIR, "standard_fonts")}${path.sep}`;

let loaded: Promise<PdfJsModule> | undefined;
/** How many times a document was opened: tests count reads of PDFs. */
export const pdfJsOpened = { count: 0 };

/** What Obsidian's `loadPdfJs()` gives, here from pdfjs-dist: the module, with the fonts' location set. */
export function loadNodePdfJs(): Promise<PdfJsModule> {
	loaded ??= import("pdfjs-dist/legacy/build/pdf.mjs").then((pdfjs) => ({
		getDocument: (params: Record<string, unknown>) => {
			pdfJsOpened.count++;
			return pdfjs.getDocument({ standardFontDataUrl: STANDARD_FONTS, verbosity: 0, ...params } as never) as never;
		},
	}));
	return loaded;
}

/** A scan's canvas in Node. */
export function napiScanSurface(width: number, height: number): ScanSurface {
	const canvas = createCanvas(width, height);
	return {
		context: canvas.getContext("2d"),
		encodeJpeg: async (quality) => new Uint8Array(await canvas.encode("jpeg", Math.round(quality * 100))),
		release: () => undefined,
	};
}

/**
 * The plugin realm's `OffscreenCanvas` in the headless host (Obsidian's Chromium has one): a
 * Skia canvas of @napi-rs/canvas, so pdf.js really draws a scan and it is really encoded.
 */
export class NodeOffscreenCanvas {
	private canvas;

	constructor(width: number, height: number) {
		this.canvas = createCanvas(width, height);
	}

	get width(): number {
		return this.canvas.width;
	}
	set width(value: number) {
		this.canvas.width = value;
	}
	get height(): number {
		return this.canvas.height;
	}
	set height(value: number) {
		this.canvas.height = value;
	}

	getContext(kind: string): unknown {
		return kind === "2d" ? this.canvas.getContext("2d") : null;
	}

	async convertToBlob(options: { type?: string; quality?: number } = {}): Promise<Blob> {
		const quality = Math.round((options.quality ?? 0.92) * 100);
		if (options.type === "image/jpeg") return new Blob([new Uint8Array(await this.canvas.encode("jpeg", quality))], { type: "image/jpeg" });
		return new Blob([new Uint8Array(await this.canvas.encode("png"))], { type: "image/png" });
	}
}
