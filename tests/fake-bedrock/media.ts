// What the fake reads from the bytes of an image or document block: the picture's real format and size from its
// header, whether a PDF is one, and the base64 of the JSON protocol.

/** The `format` values of botocore's `ImageBlock` (bedrock-runtime service-2.json, `ImageFormat`). */
export const IMAGE_FORMATS = ["png", "jpeg", "gif", "webp"] as const;
export type ImageFormatName = (typeof IMAGE_FORMATS)[number];

/** The `format` values of botocore's `DocumentBlock` (`DocumentFormat`). */
export const DOCUMENT_FORMATS = ["pdf", "csv", "doc", "docx", "xls", "xlsx", "html", "txt", "md"] as const;

/** What an image's header says: its format and size, or only its format when the header is cut short. */
export interface ImageHeader {
	format: ImageFormatName;
	/** Undefined when the format's magic bytes are there but the header giving the size is not. */
	size: { width: number; height: number } | undefined;
}

/**
 * Decodes a blob member as the JSON protocol carries it (standard base64, padded: smithy's
 * restJson1 blobs), or undefined when the text is not base64.
 */
export function decodeBase64(text: string): Buffer | undefined {
	if (text.length % 4 !== 0 || !/^[A-Za-z0-9+/]*={0,2}$/.test(text)) return undefined;
	return Buffer.from(text, "base64");
}

/** The picture's format by its magic bytes and its size from its header; undefined when it is none of the four. */
export function readImageHeader(bytes: Buffer): ImageHeader | undefined {
	if (startsWith(bytes, PNG_SIGNATURE)) return { format: "png", size: pngSize(bytes) };
	if (bytes.length >= 3 && bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) return { format: "jpeg", size: jpegSize(bytes) };
	if (startsWith(bytes, ascii("GIF87a")) || startsWith(bytes, ascii("GIF89a"))) return { format: "gif", size: gifSize(bytes) };
	if (startsWith(bytes, ascii("RIFF")) && bytes.subarray(8, 12).equals(ascii("WEBP"))) return { format: "webp", size: webpSize(bytes) };
	return undefined;
}

/** Whether the bytes are a PDF: the header `%PDF-` (ISO 32000-1, 7.5.2; readers allow it within the first 1,024 bytes). */
export function isPdf(bytes: Buffer): boolean {
	return bytes.subarray(0, 1024).includes(ascii("%PDF-"));
}

/** Whether the bytes read as UTF-8 text without control characters other than tab, newline and carriage return. */
export function looksLikePlainText(bytes: Buffer): boolean {
	const text = bytes.toString("utf8");
	if (text.includes("\uFFFD")) return false;
	return !/[\u0000-\u0008\u000B\u000C\u000E-\u001F]/.test(text);
}

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/** PNG (W3C PNG spec, 5.2 and 11.2.2): the signature, then the IHDR chunk whose data starts with width and height, big-endian. */
function pngSize(bytes: Buffer): ImageHeader["size"] {
	if (bytes.length < 24 || !bytes.subarray(12, 16).equals(ascii("IHDR"))) return undefined;
	return { width: bytes.readUInt32BE(16), height: bytes.readUInt32BE(20) };
}

/**
 * JPEG (ITU-T T.81, B.1.1 and B.2.2): marker segments after SOI; the frame header (SOF0–SOF15 but DHT C4, JPG C8
 * and DAC CC) holds precision, then height and width, big-endian. Segments without a length (RSTn, TEM) are stepped
 * over; the scan (SOS) or the end (EOI) before a frame header means no size.
 */
function jpegSize(bytes: Buffer): ImageHeader["size"] {
	let at = 2;
	while (at + 4 <= bytes.length) {
		if (bytes[at] !== 0xff) return undefined;
		const marker = bytes[at + 1] ?? 0;
		if (marker === 0xff) {
			at += 1; // fill byte
			continue;
		}
		if (marker === 0x01 || (marker >= 0xd0 && marker <= 0xd7)) {
			at += 2;
			continue;
		}
		if (marker === 0xd9 || marker === 0xda) return undefined;
		const length = bytes.readUInt16BE(at + 2);
		const isFrame = marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc;
		if (isFrame) {
			if (at + 9 > bytes.length) return undefined;
			return { height: bytes.readUInt16BE(at + 5), width: bytes.readUInt16BE(at + 7) };
		}
		at += 2 + length;
	}
	return undefined;
}

/** GIF (GIF89a spec, 18: Logical Screen Descriptor): width and height, little-endian, after the six-byte signature. */
function gifSize(bytes: Buffer): ImageHeader["size"] {
	if (bytes.length < 10) return undefined;
	return { width: bytes.readUInt16LE(6), height: bytes.readUInt16LE(8) };
}

/**
 * WebP (RFC 9649, the WebP container): the first chunk after `RIFF....WEBP` is
 * - `VP8 ` (lossy): after a 3-byte frame tag, the start code 9D 01 2A, then 14-bit width and height (RFC 6386, 9.1);
 * - `VP8L` (lossless): the signature 0x2F, then 14 bits width − 1 and 14 bits height − 1, little-endian bit order;
 * - `VP8X` (extended): flags and reserved bytes, then 24-bit canvas width − 1 and height − 1, little-endian.
 */
function webpSize(bytes: Buffer): ImageHeader["size"] {
	const chunk = bytes.subarray(12, 16).toString("latin1");
	const data = 20;
	switch (chunk) {
		case "VP8 ":
			if (bytes.length < data + 10 || bytes[data + 3] !== 0x9d || bytes[data + 4] !== 0x01 || bytes[data + 5] !== 0x2a) return undefined;
			return { width: bytes.readUInt16LE(data + 6) & 0x3fff, height: bytes.readUInt16LE(data + 8) & 0x3fff };
		case "VP8L": {
			if (bytes.length < data + 5 || bytes[data] !== 0x2f) return undefined;
			const bits = bytes.readUInt32LE(data + 1);
			return { width: (bits & 0x3fff) + 1, height: ((bits >>> 14) & 0x3fff) + 1 };
		}
		case "VP8X":
			if (bytes.length < data + 10) return undefined;
			return { width: bytes.readUIntLE(data + 4, 3) + 1, height: bytes.readUIntLE(data + 7, 3) + 1 };
		default:
			return undefined;
	}
}

function startsWith(bytes: Buffer, prefix: Buffer): boolean {
	return bytes.length >= prefix.length && bytes.subarray(0, prefix.length).equals(prefix);
}

function ascii(text: string): Buffer {
	return Buffer.from(text, "latin1");
}
