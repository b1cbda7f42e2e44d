// Pictures for a worker that cannot draw (no `OffscreenCanvas` or `createImageBitmap` there, as
// on older phones): decoded here with the window's `createImageBitmap` (or an `<img>` where even
// that is missing) and drawn on a detached `<canvas>` in slices of rows, a turn of the event
// loop between them (render-image.ts), so no draw holds Obsidian for long.

import type { DecodedPicture, DrawingContext, DrawingSurface, ImagePlatform } from "../worker/render-image";

export function mainThreadImagePlatform(): ImagePlatform {
	return {
		decode: (bytes) => decode(bytes),
		surface: (width, height) => detachedCanvasSurface(width, height),
		betweenSlices: () => new Promise((resolve) => window.setTimeout(resolve, 0)),
	};
}

/** A surface on a `<canvas>` kept out of the document (here, and pdf.js's scans without `OffscreenCanvas`). */
export function detachedCanvasSurface(width: number, height: number): DrawingSurface {
	const canvas = createEl("canvas");
	canvas.width = width;
	canvas.height = height;
	const context = canvas.getContext("2d") as DrawingContext | null;
	if (context === null) throw new Error("the canvas has no 2D context");
	return {
		context,
		encodeJpeg: (quality) =>
			new Promise((resolve, reject) => {
				canvas.toBlob(
					(blob) => {
						if (blob === null) reject(new Error("the drawing could not be encoded as JPEG"));
						else blob.arrayBuffer().then((buffer) => resolve(new Uint8Array(buffer)), reject);
					},
					"image/jpeg",
					quality,
				);
			}),
		release: () => {
			canvas.width = 0;
			canvas.height = 0;
			canvas.remove();
		},
	};
}

async function decode(bytes: Uint8Array): Promise<DecodedPicture> {
	const blob = new Blob([bytes as BlobPart]);
	if (typeof activeWindow.createImageBitmap === "function") return activeWindow.createImageBitmap(blob, { imageOrientation: "from-image" });
	// An <img> turns the picture by its EXIF orientation too (CSS `image-orientation: from-image`).
	const url = URL.createObjectURL(blob);
	try {
		const image = createEl("img");
		image.src = url;
		await image.decode();
		return { width: image.naturalWidth, height: image.naturalHeight, close: () => image.remove() };
	} finally {
		URL.revokeObjectURL(url);
	}
}
