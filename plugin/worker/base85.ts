// Decodes the base85 text the build inlines WebAssembly as (scripts/lib/base85.mjs encodes it),
// without atob or Buffer, so the modules load on every platform.
//
// The scheme is Z85's (4 bytes → 5 digits, big-endian: 1.25× the bytes, base64 is 1.33×), with
// Ascii85's short last group (1–3 bytes → 2–4 digits, so no padding and no separate length),
// and an alphabet with nothing a JavaScript string literal of any quote would escape — no
// quotes, backtick, backslash or `$` — and no `<` (no `</script`), so the text stays as is in
// the worker script and again in main.js, which embeds that script as a string.

/** Digit i is character i: Z85's alphabet with its `&<>$` replaced by `_~,;`. */
export const BASE85_ALPHABET = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ.-:+=^!/*?()[]{}@%#_~,;";

/** Maps a character code below 128 to its digit, or to 255 for a character outside the alphabet. */
const DIGITS: Uint8Array = (() => {
	const table = new Uint8Array(128).fill(255);
	for (let i = 0; i < BASE85_ALPHABET.length; i++) table[BASE85_ALPHABET.charCodeAt(i)] = i;
	return table;
})();

/**
 * Decodes the text to bytes. Throws on a character outside the alphabet, an impossible length
 * or a group above 2³² − 1, because a damaged embedded module should fail loudly here rather
 * than deep in WebAssembly.
 */
export function decodeBase85(text: string): Uint8Array {
	const length = text.length;
	const tail = length % 5;
	if (tail === 1) throw new Error("Invalid base85: impossible length");
	const full = length - tail;
	const out = new Uint8Array((full / 5) * 4 + (tail === 0 ? 0 : tail - 1));
	let written = 0;
	// The hot loop (about 1.3 million characters at start-up): written out, no calls.
	for (let i = 0; i < full; i += 5) {
		const c0 = text.charCodeAt(i);
		const c1 = text.charCodeAt(i + 1);
		const c2 = text.charCodeAt(i + 2);
		const c3 = text.charCodeAt(i + 3);
		const c4 = text.charCodeAt(i + 4);
		const d0 = DIGITS[c0 & 127] ?? 255;
		const d1 = DIGITS[c1 & 127] ?? 255;
		const d2 = DIGITS[c2 & 127] ?? 255;
		const d3 = DIGITS[c3 & 127] ?? 255;
		const d4 = DIGITS[c4 & 127] ?? 255;
		// A code of 128 or more (the `& 127` above would alias it) or a digit of 255.
		if (((c0 | c1 | c2 | c3 | c4) & ~127) !== 0 || ((d0 | d1 | d2 | d3 | d4) & 128) !== 0) throw badCharacter(i);
		const value = (((d0 * 85 + d1) * 85 + d2) * 85 + d3) * 85 + d4;
		if (value > 0xffffffff) throw tooLarge(i);
		out[written] = value >>> 24;
		out[written + 1] = value >>> 16;
		out[written + 2] = value >>> 8;
		out[written + 3] = value;
		written += 4;
	}
	if (tail > 0) {
		// The missing digits count as the highest one (84), which leaves the kept top bytes exact.
		let value = 0;
		for (let j = 0; j < 5; j++) {
			let digit = 84;
			if (j < tail) {
				const code = text.charCodeAt(full + j);
				digit = code < 128 ? (DIGITS[code] ?? 255) : 255;
				if (digit === 255) throw badCharacter(full);
			}
			value = value * 85 + digit;
		}
		if (value > 0xffffffff) throw tooLarge(full);
		for (let shift = 24; written < out.length; shift -= 8) out[written++] = value >>> shift;
	}
	return out;
}

function badCharacter(group: number): Error {
	return new Error(`Invalid base85 character in the group at ${group}`);
}

function tooLarge(group: number): Error {
	return new Error(`Invalid base85: the group at ${group} exceeds 32 bits`);
}
