// Pictures decoded and drawn by Chromium itself, as the plugin does in Obsidian (the core asks,
// plugin/worker/render-image.ts draws): in a Web Worker with its own createImageBitmap and
// OffscreenCanvas, and on the main thread in slices for a worker without them. A photo taken
// sideways (EXIF orientation 6) comes out upright at the size asked, transparency on white, a
// broken file is refused as the file's fault.

import assert from "node:assert/strict";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { after, before, test } from "node:test";
import { createCanvas } from "@napi-rs/canvas";
import { build } from "esbuild";
import type { Rendered } from "./harness/image-page";
import { skip } from "./session";
import { type StaticFile, type StaticPages, serveStaticPages } from "./static-pages";

const HERE = path.dirname(fileURLToPath(import.meta.url));
const PAGE_HTML = `<!doctype html><html><head><meta charset="utf-8"></head><body><script src="/image-page.js"></script></body></html>`;

let pages: StaticPages | undefined;

/** An EXIF block whose only entry is the orientation (tag 0x0112, SHORT), in an APP1 segment. */
function withOrientation(jpeg: Uint8Array, orientation: number): Uint8Array {
	const tiff = Buffer.alloc(26);
	tiff.write("II", 0, "latin1");
	tiff.writeUInt16LE(42, 2);
	tiff.writeUInt32LE(8, 4);
	tiff.writeUInt16LE(1, 8);
	tiff.writeUInt16LE(0x0112, 10);
	tiff.writeUInt16LE(3, 12);
	tiff.writeUInt32LE(1, 14);
	tiff.writeUInt16LE(orientation, 18);
	tiff.writeUInt32LE(0, 22);
	const payload = Buffer.concat([Buffer.from("Exif\0\0", "latin1"), tiff]);
	const header = Buffer.from([0xff, 0xe1, 0, 0]);
	header.writeUInt16BE(payload.length + 2, 2);
	return new Uint8Array(Buffer.concat([jpeg.subarray(0, 2), header, payload, jpeg.subarray(2)]));
}

/** 1600 × 1200, its left half red and its right half blue, stored sideways: upright, red is on top. */
async function sidewaysPhoto(): Promise<Uint8Array> {
	const canvas = createCanvas(1600, 1200);
	const context = canvas.getContext("2d");
	context.fillStyle = "#d01010";
	context.fillRect(0, 0, 800, 1200);
	context.fillStyle = "#1010d0";
	context.fillRect(800, 0, 800, 1200);
	return withOrientation(new Uint8Array(await canvas.encode("jpeg", 90)), 6);
}

async function clearPng(): Promise<Uint8Array> {
	const canvas = createCanvas(400, 300);
	return new Uint8Array(await canvas.encode("png"));
}

before(async () => {
	if (skip !== false) return;
	const bundle = async (entry: string) =>
		(await build({ entryPoints: [path.join(HERE, "harness", entry)], bundle: true, format: "iife", platform: "browser", target: "es2022", write: false, logLevel: "silent" })).outputFiles[0]?.text ?? "";
	const photo = await sidewaysPhoto();
	const files: Record<string, StaticFile> = {
		"/": { type: "text/html", body: PAGE_HTML },
		"/image-page.js": { type: "text/javascript", body: await bundle("image-page.ts") },
		"/image-worker.js": { type: "text/javascript", body: await bundle("image-worker.ts") },
		"/sideways.jpg": { type: "image/jpeg", body: photo },
		"/clear.png": { type: "image/png", body: await clearPng() },
		"/broken.jpg": { type: "image/jpeg", body: photo.subarray(0, 200) },
	};
	pages = await serveStaticPages(files);
});

after(async () => {
	await pages?.close();
});

async function render(where: "renderInWorker" | "renderOnMainThread", url: string, request: Record<string, unknown>): Promise<Rendered> {
	assert.ok(pages);
	const page = await pages.browser.newPage();
	try {
		await page.goto(pages.origin);
		await page.waitForFunction((name) => typeof (window as unknown as Record<string, unknown>)[name] === "function", where);
		return (await page.evaluate(([name, target, asked]) => (window as unknown as Record<string, (url: string, request: unknown) => Promise<unknown>>)[name as string]?.(target as string, asked), [where, url, request] as const)) as Rendered;
	} finally {
		await page.close();
	}
}

const UPRIGHT = { width: 600, height: 800, orientation: 6, jpegQualities: [85, 75], maxBytes: 3_750_000 };

for (const where of ["renderInWorker", "renderOnMainThread"] as const) {
	test(`${where}: a photo taken sideways comes out upright at the size asked, as JPEG`, { skip }, async () => {
		const result = await render(where, "/sideways.jpg", UPRIGHT);
		assert.equal(result.error, undefined, JSON.stringify(result.error));
		assert.deepEqual([result.width, result.height], [600, 800]);
		assert.deepEqual([result.decoded?.width, result.decoded?.height], [600, 800], "Chromium decodes it at that size");
		const [red = 0, , blue = 0] = result.decoded?.upper ?? [];
		const [redBelow = 0, , blueBelow = 0] = result.decoded?.lower ?? [];
		assert.ok(red > 150 && blue < 80, `red on top: ${result.decoded?.upper}`);
		assert.ok(blueBelow > 150 && redBelow < 80, `blue below: ${result.decoded?.lower}`);
	});

	test(`${where}: transparency is drawn on white, and a broken file is the file's fault`, { skip }, async () => {
		const clear = await render(where, "/clear.png", { width: 200, height: 150, orientation: 1, jpegQualities: [85], maxBytes: 3_750_000 });
		assert.ok((clear.decoded?.upper ?? []).every((channel) => channel > 245), `white: ${clear.decoded?.upper}`);
		const checked = await render(where, "/sideways.jpg", { width: 0, height: 0, orientation: 6, jpegQualities: [], maxBytes: 0 });
		assert.deepEqual([checked.width, checked.height, checked.byteLength], [1200, 1600, 0], "decoded only: its upright size, no bytes");
		const broken = await render(where, "/broken.jpg", UPRIGHT);
		assert.equal(broken.error?.code, "image.unreadable", JSON.stringify(broken));
	});
}
