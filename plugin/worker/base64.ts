// Decodes base64 text to bytes without atob or Buffer, so inlined WebAssembly loads on every platform.

const ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/** Maps a character code to its 6-bit value, or 255 for a character outside the alphabet. */
const VALUES: Uint8Array = (() => {
	const table = new Uint8Array(128).fill(255);
	for (let i = 0; i < ALPHABET.length; i++) table[ALPHABET.charCodeAt(i)] = i;
	return table;
})();

/**
 * Decodes standard base64 (with or without `=` padding). Throws on any other character,
 * because a damaged embedded module should fail loudly here rather than deep in WebAssembly.
 */
export function decodeBase64(text: string): Uint8Array {
	let end = text.length;
	while (end > 0 && text.charCodeAt(end - 1) === 61 /* '=' */) end--;
	if (end % 4 === 1) throw new Error("Invalid base64: impossible length");
	const out = new Uint8Array(Math.floor((end * 3) / 4));
	let bits = 0;
	let bitCount = 0;
	let written = 0;
	for (let i = 0; i < end; i++) {
		const code = text.charCodeAt(i);
		const value = code < 128 ? (VALUES[code] ?? 255) : 255;
		if (value === 255) throw new Error(`Invalid base64 character at ${i}`);
		bits = ((bits << 6) | value) & 0xffffff;
		bitCount += 6;
		if (bitCount >= 8) {
			bitCount -= 8;
			out[written++] = (bits >> bitCount) & 0xff;
		}
	}
	return out;
}
