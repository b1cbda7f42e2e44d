// What the main thread does for the core in its worker: HTTP through Obsidian's requestUrl,
// reading the vault's files (their bytes are transferred to the worker, not copied), reading
// PDFs with Obsidian's pdf.js (pdf-text.ts), pictures for a worker that cannot draw
// (image-canvas.ts), and the device log's file operations over the
// vault's adapter (vault-files.ts). A file over the core's limit is measured, not read: a
// 200 MB note costs no memory.

import type { HostHandlers } from "../core/core-client";
import type { VaultFileData } from "../core/memory-core-api";
import { renderImage } from "../worker/render-image";
import { mainThreadImagePlatform } from "./image-canvas";
import { type PdfTextDeps, extractPdf } from "./pdf-text";
import { type RequestUrlFn, requestUrlSend } from "./request-url-transport";
import { type VaultFilesPort, vaultFileHandlers } from "./vault-files";

/** Reads vault files (Obsidian's `Vault`, narrowed to what the core needs). */
export interface VaultReadPort {
	getFileByPath(path: string): { stat: { mtime: number; size: number } } | null;
	readBinary(file: never): Promise<ArrayBuffer>;
}

export interface CoreHostDeps {
	requestUrl: RequestUrlFn;
	vault: VaultReadPort;
	/** Obsidian's `loadPdfJs` (the headless host passes pdfjs-dist's), and where scans are drawn. */
	pdf: PdfTextDeps;
	/** The vault's adapter, for the device log's file operations (Obsidian's `DataAdapter`). */
	files: VaultFilesPort;
}

export function createHostHandlers(deps: CoreHostDeps): HostHandlers {
	return {
		send: requestUrlSend(deps.requestUrl),
		readFile: async (path, maxBytes): Promise<VaultFileData | null> => {
			const file = deps.vault.getFileByPath(path);
			if (file === null) return null;
			const { mtime, size } = file.stat;
			// The core decides the limit and says "too large" from the size alone.
			if (size > maxBytes) return { bytes: new Uint8Array(0), mtime, size };
			const bytes = new Uint8Array(await deps.vault.readBinary(file as never));
			// Grown past the limit since Obsidian last measured it: handed over as too large too.
			if (bytes.byteLength > maxBytes) return { bytes: new Uint8Array(0), mtime, size: bytes.byteLength };
			return { bytes, mtime, size };
		},
		extractPdf: (bytes, options) => extractPdf(deps.pdf, bytes, options),
		renderImage: (bytes, request) => renderImage(mainThreadImagePlatform(), bytes, request),
		...vaultFileHandlers(deps.files),
	};
}
