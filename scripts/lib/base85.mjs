// Encodes bytes as the base85 text plugin/worker/base85.ts decodes (the scheme and why the
// alphabet is what it is are described there): 4 bytes → 5 digits, big-endian; a last group
// of 1–3 bytes → 2–4 digits.

/** Must equal BASE85_ALPHABET in plugin/worker/base85.ts (tests/plugin/base85.test.ts checks). */
export const BASE85_ALPHABET = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ.-:+=^!/*?()[]{}@%#_~,;";

const CODES = Buffer.from(BASE85_ALPHABET, "latin1");

/** @param {Uint8Array} bytes */
export function encodeBase85(bytes) {
	const tail = bytes.length % 4;
	const full = bytes.length - tail;
	const out = Buffer.alloc((full / 4) * 5 + (tail === 0 ? 0 : tail + 1));
	const digits = new Uint8Array(5);
	let written = 0;
	for (let i = 0; i < bytes.length; i += 4) {
		// The last group is zero-padded to 4 bytes; only its first (bytes + 1) digits are kept.
		let value = 0;
		for (let j = 0; j < 4; j++) value = value * 256 + (i + j < bytes.length ? bytes[i + j] : 0);
		for (let j = 4; j >= 0; j--) {
			digits[j] = value % 85;
			value = Math.floor(value / 85);
		}
		const keep = Math.min(5, bytes.length - i + 1);
		for (let j = 0; j < keep; j++) out[written++] = CODES[digits[j]];
	}
	return out.toString("latin1");
}

/** The inverse of `encodeBase85` (plugin/worker/base85.ts is the one main.js runs). */
export function decodeBase85(text) {
	const values = new Int16Array(128).fill(-1);
	for (let i = 0; i < BASE85_ALPHABET.length; i++) values[BASE85_ALPHABET.charCodeAt(i)] = i;
	const tail = text.length % 5;
	if (tail === 1) throw new Error("not base85: a last group of one digit");
	const out = Buffer.alloc(Math.floor(text.length / 5) * 4 + (tail === 0 ? 0 : tail - 1));
	let written = 0;
	for (let i = 0; i < text.length; i += 5) {
		const group = Math.min(5, text.length - i);
		let value = 0;
		for (let j = 0; j < 5; j++) {
			// A short last group was cut from a zero-padded one: padding with the top digit rounds it back.
			const digit = j < group ? values[text.charCodeAt(i + j)] : 84;
			if (digit < 0) throw new Error(`not base85: ${JSON.stringify(text[i + j])} at ${i + j}`);
			value = value * 85 + digit;
		}
		for (let j = 0; j < group - 1; j++) out[written++] = Math.floor(value / 256 ** (3 - j)) % 256;
	}
	return out;
}
