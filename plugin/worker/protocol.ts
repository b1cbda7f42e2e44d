// The one message protocol between Obsidian's main thread and the core's Web Worker.
//
// The main thread calls the core (`call` → `result`, matched by id); the core asks the main
// thread for what only it can do — HTTP through `requestUrl`, reading vault files, reading
// PDFs with Obsidian's pdf.js, and the device log's file operations (`host` → `reply`) — and
// pushes what happened (`event`). Errors keep the core's stable `code`. Large byte arrays (the
// database file, a note's bytes, a log file's) are transferred, not copied.

import type {
	CoreStatus,
	HostRequest,
	HostResponse,
	ImageRender,
	PdfContentData,
	PdfExtractOptions,
	Progress,
	RenderedImageData,
	VaultFileData,
	VaultListing,
} from "../../build/pkg/memory_agent.js";
import type { CoreMethod } from "./contract";

// The calls themselves, their arguments and results are declared once, in the contract.
export type { CoreArgs, CoreInfo, CoreMethod, CoreResult } from "./contract";

/** What the core asks of the main thread. */
export interface HostMethods {
	send(request: HostRequest): HostResponse;
	/** A file over `maxBytes` (the core's limit) comes back measured, not read: no bytes. */
	readFile(path: string, maxBytes: number): VaultFileData | null;
	/** A PDF's text per page by Obsidian's pdf.js; the PDF's bytes go over and rendered scans come back, both transferred. */
	extractPdf(bytes: Uint8Array, options: PdfExtractOptions): PdfContentData;
	/** A picture decoded and drawn by the main thread's canvas, for a worker without `OffscreenCanvas` or `createImageBitmap` (render-image.ts). */
	renderImage(bytes: Uint8Array, request: ImageRender): RenderedImageData;
	// The device log's file operations, carried out over Obsidian's DataAdapter (host/vault-files.ts).
	/** A folder's files (names, with sizes) and subfolders (names); empty when it does not exist. */
	listFolder(path: string): VaultListing;
	/** The file's bytes from `offset` to its end (transferred); null when it does not exist. */
	readFrom(path: string, offset: number): Uint8Array | null;
	/** Appends, making the file and its folders when missing; the file's size in bytes after. */
	appendText(path: string, text: string): number;
	/** Writes a new file whole (folders made when missing); refuses an existing one. */
	createFile(path: string, text: string): void;
	/** Removes the file; already gone is fine. */
	removeFile(path: string): void;
}
export type HostMethod = keyof HostMethods;

/** What the core pushes without being asked. */
export interface CoreEvents {
	/** After every finished job, and after any call that changed the store. */
	status: CoreStatus;
	/** The engine's own progress report, after every job. */
	progress: Progress;
	/** The store changed and is not saved yet. */
	changed: null;
}
export type CoreEvent = keyof CoreEvents;

/** An error as it crosses the boundary: the message and the core's stable code. */
export interface WireError {
	name: string;
	message: string;
	code?: string;
}

/** Main thread → worker. */
export type ToWorker =
	| { kind: "call"; id: number; method: CoreMethod; args: unknown[] }
	| { kind: "reply"; id: number; ok: true; value: unknown }
	| { kind: "reply"; id: number; ok: false; error: WireError };

/** Worker → main thread. */
export type FromWorker =
	| { kind: "result"; id: number; ok: true; value: unknown }
	| { kind: "result"; id: number; ok: false; error: WireError }
	| { kind: "host"; id: number; method: HostMethod; args: unknown[] }
	| { kind: "event"; event: CoreEvent; data: unknown };

/** The part of a Worker (or of `self` inside one) the protocol uses. */
export interface MessageChannelEnd {
	postMessage(message: unknown, transfer?: Transferable[]): void;
	onmessage: ((event: { data: unknown }) => void) | null;
}

/** The error as plain data, keeping `code` when it has one. */
export function toWireError(error: unknown): WireError {
	if (error instanceof Error) {
		const code = (error as { code?: unknown }).code;
		return { name: error.name, message: error.message, ...(typeof code === "string" ? { code } : {}) };
	}
	if (typeof error === "object" && error !== null && "message" in error) {
		const code = (error as { code?: unknown }).code;
		return { name: "Error", message: String(error.message), ...(typeof code === "string" ? { code } : {}) };
	}
	return { name: "Error", message: String(error) };
}

/** A real Error again, with the core's code. */
export function fromWireError(wire: WireError): Error {
	const error = new Error(wire.message);
	error.name = wire.name;
	if (wire.code !== undefined) Object.assign(error, { code: wire.code });
	return error;
}

/** Whether `value` is a byte array (checked by tag: values may come from another realm). */
export function isBytes(value: unknown): value is Uint8Array {
	return Object.prototype.toString.call(value) === "[object Uint8Array]";
}

/** The buffers worth transferring in a value (bytes, `{ bytes }`, `{ body }`, a PDF's scans): ones a byte array owns whole. */
export function transferablesOf(value: unknown): Transferable[] {
	const fields = value as { bytes?: unknown; body?: unknown; pages?: unknown } | null;
	if (Array.isArray(fields?.pages)) return scanTransferables(fields.pages);
	const bytes = isBytes(value) ? value : isBytes(fields?.bytes) ? fields.bytes : fields?.body;
	return ownedBuffer(bytes);
}

/** The scans' buffers of a PDF's pages (`PdfContentData.pages[].scan.bytes`). */
function scanTransferables(pages: unknown[]): Transferable[] {
	return pages.flatMap((page) => ownedBuffer((page as { scan?: { bytes?: unknown } | null } | null)?.scan?.bytes));
}

function ownedBuffer(bytes: unknown): Transferable[] {
	if (!isBytes(bytes)) return [];
	const buffer = bytes.buffer;
	const whole = Object.prototype.toString.call(buffer) === "[object ArrayBuffer]" && bytes.byteOffset === 0 && bytes.byteLength === buffer.byteLength;
	return whole ? [buffer as ArrayBuffer] : [];
}
