// Pictures decoded and downscaled by the platform for the core's `ImageRenderer` (the core
// decides the size, the qualities and the byte limit; src/images/mod.rs): `createImageBitmap`
// decodes (EXIF orientation applied), a canvas draws on white and encodes JPEG. In the worker
// with `OffscreenCanvas` where the platform has both there; else on the main thread with a
// `<canvas>`, in slices of rows with a frame between them, so no draw holds the thread long.

import type { ImageRender, RenderedImageData } from "../../build/pkg/memory_agent.js";

/** What drawing needs of a decoded picture. */
export interface DecodedPicture {
	readonly width: number;
	readonly height: number;
	close(): void;
}

/** The 2D context calls used here (`OffscreenCanvasRenderingContext2D` and `CanvasRenderingContext2D` both have them). */
export interface DrawingContext {
	fillStyle: unknown;
	imageSmoothingEnabled: boolean;
	imageSmoothingQuality: "low" | "medium" | "high";
	fillRect(x: number, y: number, width: number, height: number): void;
	setTransform(a: number, b: number, c: number, d: number, e: number, f: number): void;
	drawImage(image: never, sx: number, sy: number, sw: number, sh: number, dx: number, dy: number, dw: number, dh: number): void;
}

export interface DrawingSurface {
	context: DrawingContext;
	/** The surface as JPEG at `quality` (0–1). */
	encodeJpeg(quality: number): Promise<Uint8Array>;
	release(): void;
}

export interface ImagePlatform {
	/** Decodes the picture upright (EXIF orientation applied, as `imageOrientation: "from-image"` does). */
	decode(bytes: Uint8Array): Promise<DecodedPicture>;
	surface(width: number, height: number): DrawingSurface;
	/** Between slices of rows (the main thread waits a frame); none: drawn in one go. */
	betweenSlices?(): Promise<void>;
}

/** Rows drawn at a time on the main thread: a 1.15 MP target in about six slices. */
const SLICE_ROWS = 160;

/** Does what the core asks: decode only (checked), or draw upright at its size and encode. */
export async function renderImage(platform: ImagePlatform, bytes: Uint8Array, request: ImageRender): Promise<RenderedImageData> {
	let picture: DecodedPicture;
	try {
		picture = await platform.decode(bytes);
	} catch (error) {
		// The platform's decoder refused the bytes: the file's fault (an image skipped until it changes).
		throw Object.assign(new Error(`it could not be decoded (${error instanceof Error ? error.message : String(error)})`), { code: "image.unreadable" });
	}
	try {
		if (request.jpegQualities.length === 0) return { width: picture.width, height: picture.height, bytes: new Uint8Array(0) };
		const surface = platform.surface(request.width, request.height);
		try {
			await draw(platform, surface.context, picture, request);
			let encoded: Uint8Array = new Uint8Array(0);
			for (const quality of request.jpegQualities) {
				encoded = await surface.encodeJpeg(quality / 100);
				if (encoded.byteLength <= request.maxBytes) break;
			}
			// Over the limit at every quality: the core refuses it with its reason.
			return { width: request.width, height: request.height, bytes: encoded };
		} finally {
			surface.release();
		}
	} finally {
		picture.close();
	}
}

/** The picture on white at the asked size; turned here when the platform did not turn it. */
async function draw(platform: ImagePlatform, context: DrawingContext, picture: DecodedPicture, request: ImageRender): Promise<void> {
	const { width, height } = request;
	context.fillStyle = "#ffffff";
	context.fillRect(0, 0, width, height);
	context.imageSmoothingEnabled = true;
	context.imageSmoothingQuality = "high";
	const source = picture as never;
	const quarterTurn = request.orientation >= 5;
	const turnedByPlatform = !quarterTurn || picture.width > picture.height === width > height || picture.width === picture.height;
	if (!turnedByPlatform) {
		// EXIF 5–8 by hand (transpose, 90° clockwise, transverse, 90° counter-clockwise): the
		// stored picture drawn into the upright box with its sides swapped.
		const transforms: Record<number, [number, number, number, number, number, number]> = {
			5: [0, 1, 1, 0, 0, 0],
			6: [0, 1, -1, 0, width, 0],
			7: [0, -1, -1, 0, width, height],
			8: [0, -1, 1, 0, 0, height],
		};
		const [a, b, c, d, e, f] = transforms[request.orientation] ?? [1, 0, 0, 1, 0, 0];
		context.setTransform(a, b, c, d, e, f);
		context.drawImage(source, 0, 0, picture.width, picture.height, 0, 0, height, width);
		context.setTransform(1, 0, 0, 1, 0, 0);
		return;
	}
	const rows = platform.betweenSlices === undefined ? height : SLICE_ROWS;
	for (let top = 0; top < height; top += rows) {
		const slice = Math.min(rows, height - top);
		const sourceTop = (top / height) * picture.height;
		const sourceRows = (slice / height) * picture.height;
		context.drawImage(source, 0, sourceTop, picture.width, sourceRows, 0, top, width, slice);
		if (top + slice < height) await platform.betweenSlices?.();
	}
}

/** The constructor of an `OffscreenCanvas`, as far as drawing here uses it. */
export type OffscreenCanvasClass = new (
	width: number,
	height: number,
) => {
	width: number;
	height: number;
	getContext(kind: "2d"): unknown;
	convertToBlob(options: { type: string; quality: number }): Promise<Blob>;
};

/** A surface on an `OffscreenCanvas` (in the worker, and pdf.js's scans on the main thread). */
export function offscreenCanvasSurface(Canvas: OffscreenCanvasClass, width: number, height: number): DrawingSurface {
	const canvas = new Canvas(width, height);
	const context = canvas.getContext("2d") as DrawingContext | null;
	if (context === null) throw new Error("the canvas has no 2D context");
	return {
		context,
		encodeJpeg: async (quality) => new Uint8Array(await (await canvas.convertToBlob({ type: "image/jpeg", quality })).arrayBuffer()),
		release: () => {
			canvas.width = 0;
			canvas.height = 0;
		},
	};
}

/** The worker's own platform, when it has `createImageBitmap` and `OffscreenCanvas` (desktop, recent phones). */
export function workerImagePlatform(scope: {
	createImageBitmap?: (image: Blob, options?: { imageOrientation?: "from-image" | "flipY" }) => Promise<DecodedPicture>;
	OffscreenCanvas?: OffscreenCanvasClass;
}): ImagePlatform | undefined {
	const { createImageBitmap, OffscreenCanvas } = scope;
	if (typeof createImageBitmap !== "function" || typeof OffscreenCanvas !== "function") return undefined;
	return {
		decode: (bytes) => createImageBitmap(new Blob([bytes as BlobPart]), { imageOrientation: "from-image" }),
		surface: (width, height) => offscreenCanvasSurface(OffscreenCanvas, width, height),
	};
}
