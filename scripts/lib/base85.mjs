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
