// A PDF's text per page, read on the main thread with the pdf.js Obsidian ships (`loadPdfJs()`),
// for the core's `Host::extract_pdf`. pdf.js parses in its own worker; what runs here is the
// join of its text items into lines, which yields to the event loop whenever it has held the
// thread for longer than a frame's share (between pages, and within a page of many items).
// Pages with (almost) no text are rendered to a JPEG when the core asks for scans. Only web
// APIs: it runs on phones too. The `obsidian` module is never imported here: the loader is
// injected (Obsidian's in the plugin, pdfjs-dist's in the headless host and the tests).

import { offscreenCanvasSurface } from "../worker/render-image";
import { detachedCanvasSurface } from "./image-canvas";
import type { PdfContentData, PdfExtractOptions, PdfInfo, PdfLine, PdfPageData, PdfScan } from "../../build/pkg/memory_agent.js";

/** The part of pdf.js's module used here (pdf.js `src/display/api.js`). */
export interface PdfJsModule {
	getDocument(params: Record<string, unknown>): PdfLoadingTask;
}
export interface PdfLoadingTask {
	promise: Promise<PdfDocument>;
	destroy(): Promise<void>;
}
export interface PdfDocument {
	numPages: number;
	getPage(number: number): Promise<PdfPage>;
	getMetadata(): Promise<{ info?: unknown }>;
	destroy(): Promise<void>;
}
export interface PdfPage {
	getTextContent(): Promise<{ items: unknown[] }>;
	/** pdf.js's text in pieces as it is parsed (since pdf.js 2.0): read until the cap, then cancelled. */
	streamTextContent?(): ReadableStream<{ items: unknown[] }>;
	getViewport(params: { scale: number }): { width: number; height: number };
	render(params: { canvasContext: unknown; viewport: unknown; background?: string }): { promise: Promise<void> };
	cleanup(): void;
}

/** A canvas a scan is drawn on and encoded from. */
export interface ScanSurface {
	/** The 2D context pdf.js draws with. */
	context: unknown;
	encodeJpeg(quality: number): Promise<Uint8Array>;
	release(): void;
}
export type ScanSurfaceFactory = (width: number, height: number) => ScanSurface;

export interface PdfTextDeps {
	loadPdfJs: () => Promise<unknown>;
	/** Where scans are drawn; by default an `OffscreenCanvas`, else a detached `<canvas>`. */
	scanSurface?: ScanSurfaceFactory;
	/** Gives the event loop a turn (default: a zero-delay timer). */
	yieldNow?: () => Promise<void>;
	/** Milliseconds, monotonic (default: `performance.now`). */
	now?: () => number;
}

/** The longest the join holds the main thread before it yields: well inside a 16 ms frame. */
export const SLICE_MS = 8;
/** JPEG quality of a rendered scan. */
export const SCAN_QUALITY = 0.85;
/** How many text items are joined between two looks at the clock. */
const ITEMS_PER_CHECK = 64;
/** A page is never drawn larger than this many times its size at 72 dpi (a tiny page stays small). */
const MAX_SCAN_SCALE = 4;

/** Reads `bytes` as a PDF. Rejects only when pdf.js itself cannot be loaded (the core retries). */
export async function extractPdf(deps: PdfTextDeps, bytes: Uint8Array, options: PdfExtractOptions): Promise<PdfContentData> {
	const pdfjs = (await deps.loadPdfJs()) as PdfJsModule;
	const budget = new SliceBudget(deps.now ?? (() => performance.now()), deps.yieldNow ?? yieldWithTimer);
	// pdf.js transfers `data` to its worker (detaching it): it gets a copy, the caller keeps its bytes.
	const task = pdfjs.getDocument({ data: bytes.slice(), isEvalSupported: false, stopAtErrors: false });
	let document: PdfDocument;
	try {
		document = await task.promise;
	} catch (error) {
		await task.destroy().catch(() => undefined);
		return withProblem(isPasswordError(error) ? "encrypted" : "broken", messageOf(error), 0);
	}
	try {
		if (document.numPages > options.maxPages) {
			return withProblem("tooManyPages", `${document.numPages} pages, more than the ${options.maxPages} read`, document.numPages);
		}
		const info = await readInfo(document);
		const pages: PdfPageData[] = [];
		let room = options.maxChars;
		for (let number = 1; number <= document.numPages; number++) {
			await budget.yieldIfDue();
			const page = await readPage(deps, document, number, options, budget, room);
			if (page === null) return withProblem("tooMuchText", `more than ${options.maxChars} characters of text`, document.numPages);
			room -= textChars(page.lines);
			pages.push(page);
		}
		return { problem: null, pageCount: document.numPages, info, pages };
	} catch (error) {
		// A page pdf.js cannot parse: the file is damaged past what its recovery reads.
		return withProblem("broken", messageOf(error), document.numPages);
	} finally {
		await document.destroy().catch(() => undefined);
	}
}

function withProblem(kind: "encrypted" | "broken" | "tooManyPages" | "tooMuchText", message: string, pageCount: number): PdfContentData {
	return { problem: { kind, message }, pageCount, info: emptyInfo(), pages: [] };
}

function emptyInfo(): PdfInfo {
	return { title: null, author: null, creationDate: null, modDate: null };
}

/** pdf.js rejects a protected file with a `PasswordException` (pdf.js `src/shared/util.js`); matched by name, across realms. */
function isPasswordError(error: unknown): boolean {
	return typeof error === "object" && error !== null && (error as { name?: unknown }).name === "PasswordException";
}

function messageOf(error: unknown): string {
	if (error instanceof Error) return error.message;
	if (typeof error === "object" && error !== null && "message" in error) return String(error.message);
	return String(error);
}

/** The information dictionary's Title, Author and dates, raw; a damaged dictionary is no info, not a failure. */
async function readInfo(document: PdfDocument): Promise<PdfInfo> {
	let raw: Record<string, unknown>;
	try {
		const metadata = await document.getMetadata();
		raw = typeof metadata.info === "object" && metadata.info !== null ? (metadata.info as Record<string, unknown>) : {};
	} catch {
		return emptyInfo();
	}
	const text = (key: string): string | null => {
		const value = raw[key];
		return typeof value === "string" && value.trim() !== "" ? value : null;
	};
	return { title: text("Title"), author: text("Author"), creationDate: text("CreationDate"), modDate: text("ModDate") };
}

/** The page's text and scan; null when its text passes `room` characters (reading stops there). */
async function readPage(deps: PdfTextDeps, document: PdfDocument, number: number, options: PdfExtractOptions, budget: SliceBudget, room: number): Promise<PdfPageData | null> {
	const page = await document.getPage(number);
	try {
		const items = await textItemsWithin(page, room);
		if (items === null) return null;
		const lines = await joinLines(items, budget);
		const wantsScan = options.renderScans && nonSpaceChars(lines) < options.scanBelowChars;
		const scan = wantsScan ? await renderScan(deps, page, options.scanPixels) : null;
		return { number, lines, scan };
	} finally {
		page.cleanup();
	}
}

/**
 * The page's text items while their text fits in `room` characters, else null. Read piece by
 * piece where pdf.js streams them, and cancelled once past the room: a page that draws the same
 * text 20,000 times is never held whole (one such page held 35.9M characters).
 */
async function textItemsWithin(page: PdfPage, room: number): Promise<unknown[] | null> {
	const items: unknown[] = [];
	let chars = 0;
	const take = (piece: readonly unknown[]): boolean => {
		for (const item of piece) {
			if (isTextItem(item)) chars += item.str.length;
			if (chars > room) return false;
			items.push(item);
		}
		return true;
	};
	if (page.streamTextContent === undefined) return take((await page.getTextContent()).items) ? items : null;
	const reader = page.streamTextContent().getReader();
	for (;;) {
		const { done, value } = await reader.read();
		if (done) return items;
		if (!take(value.items)) {
			// pdf.js asks for an Error as the reason (its stream's cancel asserts it). Not awaited:
			// on some damaged files pdf.js never settles it (found by the seeded fuzz), and the
			// page and the document are let go right after anyway.
			void reader.cancel(new Error("the PDF's text is past the cap")).catch(() => undefined);
			return null;
		}
	}
}

/** Characters of text in `lines`, as `textItemsWithin` counts them. */
function textChars(lines: readonly PdfLine[]): number {
	return lines.reduce((sum, line) => sum + line.text.length, 0);
}

/** A text item of pdf.js's `getTextContent` (marked-content items have no `str` and are skipped). */
interface TextItem {
	str: string;
	transform: number[];
	height?: number;
	hasEOL?: boolean;
}

function isTextItem(item: unknown): item is TextItem {
	const fields = item as { str?: unknown; transform?: unknown };
	return typeof fields.str === "string" && Array.isArray(fields.transform);
}

/**
 * Items into lines in pdf.js's reading order: an item with `hasEOL` ends a line, a change of
 * the baseline (transform[5]) starts one. A line's height is its tallest item's font height.
 */
export async function joinLines(items: unknown[], budget: SliceBudget): Promise<PdfLine[]> {
	const lines: PdfLine[] = [];
	let text = "";
	let height = 0;
	let baseline: number | null = null;
	const end = (): void => {
		const trimmed = text.replace(/\s+/g, " ").trim();
		if (trimmed !== "") lines.push({ text: trimmed, height: roundHeight(height) });
		text = "";
		height = 0;
		baseline = null;
	};
	for (const [index, item] of items.entries()) {
		// The clock is read every few items: a page of thousands of items still yields within a slice.
		if (index % ITEMS_PER_CHECK === 0) await budget.yieldIfDue();
		if (!isTextItem(item)) continue;
		const y = item.transform[5] ?? 0;
		const itemHeight = fontHeight(item);
		// Items on one baseline differ by rounding only; a tenth of the font's height is a new line.
		if (baseline !== null && item.str !== "" && Math.abs(y - baseline) > Math.max(0.5, itemHeight * 0.1)) end();
		if (item.str !== "") {
			text += item.str;
			height = Math.max(height, itemHeight);
			baseline = y;
		}
		if (item.hasEOL === true) end();
	}
	end();
	return lines;
}

/** The item's font height: pdf.js's `height`, else the transform's vertical scale. */
function fontHeight(item: TextItem): number {
	if (typeof item.height === "number" && item.height > 0) return item.height;
	const [, , c = 0, d = 0] = item.transform;
	return Math.hypot(c, d);
}

function roundHeight(height: number): number {
	return Math.round(height * 100) / 100;
}

function nonSpaceChars(lines: PdfLine[]): number {
	let count = 0;
	for (const line of lines) count += line.text.replace(/\s/g, "").length;
	return count;
}

/** The page drawn at the largest scale within `maxPixels`, as a JPEG; null when it cannot be drawn here. */
async function renderScan(deps: PdfTextDeps, page: PdfPage, maxPixels: number): Promise<PdfScan | null> {
	const natural = page.getViewport({ scale: 1 });
	const { width, height, scale } = scanSize(natural.width, natural.height, maxPixels);
	if (width < 1 || height < 1) return null;
	const surface = (deps.scanSurface ?? defaultScanSurface)(width, height);
	try {
		// pdf.js draws in steps of at most 15 ms, continuing on the next animation frame
		// (pdf.js `src/display/canvas.js` EXECUTION_TIME, `api.js` InternalRenderTask): a scan
		// does not hold the thread for longer than a frame either.
		await page.render({ canvasContext: surface.context, viewport: page.getViewport({ scale }), background: "white" }).promise;
		const bytes = await surface.encodeJpeg(SCAN_QUALITY);
		debugAssert(width * height <= maxPixels, "a scan holds more pixels than asked");
		return { bytes, format: "jpeg", width, height };
	} finally {
		surface.release();
	}
}

/** Whole pixels at a scale whose area stays within `maxPixels` (rounded down, so never over). */
export function scanSize(pageWidth: number, pageHeight: number, maxPixels: number): { width: number; height: number; scale: number } {
	if (!(pageWidth > 0 && pageHeight > 0 && maxPixels > 0)) return { width: 0, height: 0, scale: 0 };
	const scale = Math.min(MAX_SCAN_SCALE, Math.sqrt(maxPixels / (pageWidth * pageHeight)));
	return { width: Math.floor(pageWidth * scale), height: Math.floor(pageHeight * scale), scale };
}

/** An `OffscreenCanvas` where there is one (desktop, recent phones), else a detached `<canvas>`. */
function defaultScanSurface(width: number, height: number): ScanSurface {
	return typeof OffscreenCanvas !== "undefined" ? offscreenCanvasSurface(OffscreenCanvas, width, height) : detachedCanvasSurface(width, height);
}

/** Counts the time the join holds the thread and gives the event loop a turn once a slice is used up. */
export class SliceBudget {
	private sliceStart: number;

	constructor(
		private readonly now: () => number,
		private readonly yieldNow: () => Promise<void>,
		private readonly sliceMs: number = SLICE_MS,
	) {
		this.sliceStart = now();
	}

	async yieldIfDue(): Promise<void> {
		if (this.now() - this.sliceStart < this.sliceMs) return;
		await this.yieldNow();
		this.sliceStart = this.now();
	}
}

function yieldWithTimer(): Promise<void> {
	return new Promise((resolve) => window.setTimeout(resolve, 0));
}

function debugAssert(condition: boolean, message: string): void {
	if (!condition) throw new Error(`invariant: ${message}`);
}
