// plugin/worker/render-image.ts on a platform that does not turn a picture by its EXIF
// orientation (Skia here; Chromium does, tests/browser/render-image.test.ts): the worker code
// turns a quarter-turned picture itself, every one of EXIF's 5–8, and draws in slices where the
// platform yields between them.

import assert from "node:assert/strict";
import { test } from "node:test";
import { createCanvas, loadImage } from "@napi-rs/canvas";
import { type DrawingContext, type ImagePlatform, renderImage } from "../../plugin/worker/render-image";

/** Skia's decoder and canvas, counting the pauses between slices. */
function skiaPlatform(pauses: { count: number }, sliced: boolean): ImagePlatform {
	return {
		decode: async (bytes) => Object.assign(await loadImage(Buffer.from(bytes)), { close: () => undefined }),
		surface: (width, height) => {
			const canvas = createCanvas(width, height);
			return {
				context: canvas.getContext("2d") as unknown as DrawingContext,
				encodeJpeg: async (quality) => new Uint8Array(await canvas.encode("jpeg", Math.round(quality * 100))),
				release: () => undefined,
			};
		},
		...(sliced ? { betweenSlices: async () => void pauses.count++ } : {}),
	};
}

/** 400 × 300 stored: its left half red, its right half blue. */
async function storedPicture(): Promise<Uint8Array> {
	const canvas = createCanvas(400, 300);
	const context = canvas.getContext("2d");
	context.fillStyle = "#d01010";
	context.fillRect(0, 0, 200, 300);
	context.fillStyle = "#1010d0";
	context.fillRect(200, 0, 200, 300);
	return new Uint8Array(await canvas.encode("png"));
}

/** Red or blue at the top and bottom of the upright result's middle column. */
async function topAndBottom(bytes: Uint8Array): Promise<[string, string]> {
	const image = await loadImage(Buffer.from(bytes));
	const canvas = createCanvas(image.width, image.height);
	const context = canvas.getContext("2d");
	context.drawImage(image, 0, 0);
	const colour = (y: number) => {
		const [red = 0, , blue = 0] = context.getImageData(Math.floor(image.width / 2), y, 1, 1).data;
		return red > blue ? "red" : "blue";
	};
	return [colour(Math.floor(image.height / 4)), colour(Math.floor((image.height * 3) / 4))];
}

test("a quarter-turned picture the platform left as stored is turned upright here (EXIF 5–8)", async () => {
	const bytes = await storedPicture();
	// Upright, each orientation puts the stored left (red) half on top or at the bottom.
	const expected: Record<number, [string, string]> = { 5: ["red", "blue"], 6: ["red", "blue"], 7: ["blue", "red"], 8: ["blue", "red"] };
	for (const orientation of [5, 6, 7, 8]) {
		const result = await renderImage(skiaPlatform({ count: 0 }, false), bytes, { width: 150, height: 200, orientation, jpegQualities: [90], maxBytes: 1_000_000 });
		assert.deepEqual([result.width, result.height], [150, 200]);
		const image = await loadImage(Buffer.from(result.bytes));
		assert.deepEqual([image.width, image.height], [150, 200], `orientation ${orientation}`);
		assert.deepEqual(await topAndBottom(result.bytes), expected[orientation], `orientation ${orientation}`);
	}
});

test("drawn in slices where the platform yields between them, the picture is whole", async () => {
	const pauses = { count: 0 };
	const result = await renderImage(skiaPlatform(pauses, true), await storedPicture(), { width: 400, height: 600, orientation: 1, jpegQualities: [90], maxBytes: 1_000_000 });
	assert.ok(pauses.count >= 3, `${pauses.count} pauses for 600 rows`);
	const image = await loadImage(Buffer.from(result.bytes));
	const canvas = createCanvas(image.width, image.height);
	const context = canvas.getContext("2d");
	context.drawImage(image, 0, 0);
	for (const y of [5, 159, 161, 320, 480, 595]) {
		const [red = 0, , blue = 0] = context.getImageData(100, y, 1, 1).data;
		assert.ok(red > 150 && blue < 80, `row ${y} of the left half is red: ${red},${blue}`);
	}
});

test("bytes the platform cannot decode are the file's fault", async () => {
	// Rejected as Chromium's createImageBitmap rejects them (Skia's loadImage would crash the
	// process on such bytes; Chromium's own refusal is in tests/browser/render-image.test.ts).
	const refusing: ImagePlatform = { ...skiaPlatform({ count: 0 }, false), decode: () => Promise.reject(new DOMException("The source image could not be decoded.", "InvalidStateError")) };
	await assert.rejects(
		renderImage(refusing, new Uint8Array([0xff, 0xd8, 0xff, 0, 1, 2]), { width: 1, height: 1, orientation: 1, jpegQualities: [], maxBytes: 1 }),
		(error: { code?: string; message: string }) => error.code === "image.unreadable" && /could not be decoded/.test(error.message),
	);
});
