// The page of the image browser test: plugin/worker/render-image.ts as the plugin runs it in
// Obsidian's Chromium — in a Web Worker with the worker's own `createImageBitmap` and
// `OffscreenCanvas`, and on the main thread (the fallback for a worker without them) with a
// `<canvas>` drawn in slices. Each result comes back with how Chromium decodes it again.

import type { ImageRender } from "../../../build/pkg/memory_agent.js";
import { mainThreadImagePlatform } from "../../../plugin/host/image-canvas";
import { renderImage } from "../../../plugin/worker/render-image";
import { installDomHelpers } from "./dom-helpers";

export interface Rendered {
	width: number;
	height: number;
	byteLength: number;
	/** The JPEG decoded again by Chromium: its size and the colours at a quarter and three quarters down its middle. */
	decoded: { width: number; height: number; upper: number[]; lower: number[] } | null;
	error?: { message: string; code?: string };
}

interface ImagePageWindow {
	renderInWorker?: (url: string, request: ImageRender) => Promise<Rendered>;
	renderOnMainThread?: (url: string, request: ImageRender) => Promise<Rendered>;
}

installDomHelpers();
const page = window as unknown as ImagePageWindow;

async function described(result: { width: number; height: number; bytes: Uint8Array }): Promise<Rendered> {
	if (result.bytes.byteLength === 0) return { width: result.width, height: result.height, byteLength: 0, decoded: null };
	const bitmap = await createImageBitmap(new Blob([result.bytes as Uint8Array<ArrayBuffer>], { type: "image/jpeg" }));
	const canvas = new OffscreenCanvas(bitmap.width, bitmap.height);
	const context = canvas.getContext("2d");
	context?.drawImage(bitmap, 0, 0);
	const at = (y: number) => [...(context?.getImageData(Math.floor(bitmap.width / 2), Math.floor(y), 1, 1).data ?? [])].slice(0, 3);
	return {
		width: result.width,
		height: result.height,
		byteLength: result.bytes.byteLength,
		decoded: { width: bitmap.width, height: bitmap.height, upper: at(bitmap.height / 4), lower: at((bitmap.height * 3) / 4) },
	};
}

async function settled(run: () => Promise<{ width: number; height: number; bytes: Uint8Array }>): Promise<Rendered> {
	try {
		return await described(await run());
	} catch (error) {
		const { message, code } = error as { message: string; code?: string };
		return { width: 0, height: 0, byteLength: 0, decoded: null, error: { message, code } };
	}
}

page.renderOnMainThread = async (url, request) => {
	const bytes = new Uint8Array(await (await fetch(url)).arrayBuffer());
	return settled(() => renderImage(mainThreadImagePlatform(), bytes, request));
};

page.renderInWorker = async (url, request) => {
	const bytes = new Uint8Array(await (await fetch(url)).arrayBuffer());
	const worker = new Worker("/image-worker.js");
	try {
		const answer = await new Promise<{ ok: boolean; value?: { width: number; height: number; bytes: Uint8Array }; error?: { message: string; code?: string } }>((resolve) => {
			worker.onmessage = (event) => resolve(event.data);
			worker.postMessage({ bytes, request });
		});
		if (!answer.ok) return { width: 0, height: 0, byteLength: 0, decoded: null, error: answer.error };
		return described(answer.value as { width: number; height: number; bytes: Uint8Array });
	} finally {
		worker.terminate();
	}
};
