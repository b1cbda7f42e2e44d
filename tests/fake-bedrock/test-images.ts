// Pictures made in the tests, so that no binary sits in git: a real PNG (zlib from Node), and the headers of
// JPEG, GIF and WebP files, enough for the fake's format and size checks.

import { deflateSync } from "node:zlib";

/**
 * A valid grayscale PNG of `width` × `height` pixels (W3C PNG spec: signature, IHDR, IDAT holding the
 * zlib-deflated scanlines each after a filter-type byte, IEND), every pixel `shade`.
 */
export function encodePng(width: number, height: number, shade = 0x80): Buffer {
	const header = Buffer.alloc(13);
	header.writeUInt32BE(width, 0);
	header.writeUInt32BE(height, 4);
	header[8] = 8; // bit depth
	header[9] = 0; // colour type: grayscale
	// compression, filter and interlace methods stay 0
	const row = Buffer.alloc(1 + width, shade);
	row[0] = 0; // filter type None
	const scanlines = Buffer.concat(Array.from({ length: height }, () => row));
	return Buffer.concat([PNG_SIGNATURE, pngChunk("IHDR", header), pngChunk("IDAT", deflateSync(scanlines)), pngChunk("IEND", Buffer.alloc(0))]);
}

/**
 * The start of a baseline JPEG (ITU-T T.81): SOI, an APP0 JFIF segment, and a SOF0 frame header with the size
 * and one component, then EOI. Not decodable, but every reader of headers sees a `width` × `height` JPEG.
 */
export function jpegHeader(width: number, height: number): Buffer {
	const app0 = Buffer.from([0xff, 0xe0, 0x00, 0x10, 0x4a, 0x46, 0x49, 0x46, 0x00, 0x01, 0x01, 0x00, 0x00, 0x01, 0x00, 0x01, 0x00, 0x00]);
	const sof0 = Buffer.from([0xff, 0xc0, 0x00, 0x0b, 0x08, 0, 0, 0, 0, 0x01, 0x01, 0x11, 0x00]);
	sof0.writeUInt16BE(height, 5);
	sof0.writeUInt16BE(width, 7);
	return Buffer.concat([Buffer.from([0xff, 0xd8]), app0, sof0, Buffer.from([0xff, 0xd9])]);
}

/** A GIF89a signature and logical screen descriptor of `width` × `height`, then the trailer. */
export function gifHeader(width: number, height: number): Buffer {
	const screen = Buffer.alloc(7);
	screen.writeUInt16LE(width, 0);
	screen.writeUInt16LE(height, 2);
	return Buffer.concat([Buffer.from("GIF89a", "latin1"), screen, Buffer.from([0x3b])]);
}

/** A WebP file's container and first chunk (RFC 9649) for `width` × `height`, in the chunk kind asked for. */
export function webpHeader(width: number, height: number, kind: "VP8 " | "VP8L" | "VP8X"): Buffer {
	let data: Buffer;
	switch (kind) {
		case "VP8 ":
			// Frame tag (3 bytes), start code 9D 01 2A, then the 14-bit sizes (scale bits 0).
			data = Buffer.from([0x00, 0x00, 0x00, 0x9d, 0x01, 0x2a, 0, 0, 0, 0]);
			data.writeUInt16LE(width & 0x3fff, 6);
			data.writeUInt16LE(height & 0x3fff, 8);
			break;
		case "VP8L":
			data = Buffer.alloc(5);
			data[0] = 0x2f;
			data.writeUInt32LE(((width - 1) & 0x3fff) | (((height - 1) & 0x3fff) << 14), 1);
			break;
		case "VP8X":
			data = Buffer.alloc(10);
			data.writeUIntLE(width - 1, 4, 3);
			data.writeUIntLE(height - 1, 7, 3);
			break;
	}
	const chunkHeader = Buffer.alloc(8);
	chunkHeader.write(kind, 0, "latin1");
	chunkHeader.writeUInt32LE(data.length, 4);
	const riff = Buffer.alloc(12);
	riff.write("RIFF", 0, "latin1");
	riff.writeUInt32LE(4 + chunkHeader.length + data.length, 4);
	riff.write("WEBP", 8, "latin1");
	return Buffer.concat([riff, chunkHeader, data]);
}

/** A minimal one-page PDF (ISO 32000-1: header, catalog, pages, page, trailer) whose page shows nothing. */
export function minimalPdf(): Buffer {
	return Buffer.from(
		"%PDF-1.4\n1 0 obj << /Type /Catalog /Pages 2 0 R >> endobj\n2 0 obj << /Type /Pages /Kids [3 0 R] /Count 1 >> endobj\n3 0 obj << /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n",
		"latin1",
	);
}

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

function pngChunk(type: string, data: Buffer): Buffer {
	const length = Buffer.alloc(4);
	length.writeUInt32BE(data.length, 0);
	const typed = Buffer.concat([Buffer.from(type, "latin1"), data]);
	const crc = Buffer.alloc(4);
	crc.writeUInt32BE(crc32(typed), 0);
	return Buffer.concat([length, typed, crc]);
}

/** CRC-32 as the PNG spec's annex D computes it (polynomial 0xEDB88320), over the chunk type and data. */
function crc32(bytes: Buffer): number {
	let crc = 0xffffffff;
	for (const byte of bytes) {
		crc ^= byte;
		for (let bit = 0; bit < 8; bit += 1) crc = crc & 1 ? (crc >>> 1) ^ 0xedb88320 : crc >>> 1;
	}
	return (crc ^ 0xffffffff) >>> 0;
}
