// Decodes the text the build inlines the WebAssembly modules as (scripts/lib/bytes-text.mjs
// encodes it), without atob or Buffer, so the modules load on every platform.
//
// The scheme is base-122's (Kevin Albertson's "base-122", 2016): the bytes as a stream of 7-bit
// groups, each one character of one UTF-8 byte, except the groups a JavaScript string literal
// of any quote would have to escape (NUL, line feed, carriage return, " $ ' < \ `; `<` for no
// `</script`): such a group and the next one go together into one character of two UTF-8
// bytes (U+0080–U+04FF: 4 bits say which group it was, 7 bits the next). 8 bytes become about
// 9.14 bytes of main.js where base85 made 10: 83 KB less for both modules. The text stays as is
// in the worker script and again in main.js, which embeds that script as a string (both built
// with esbuild's `charset: "utf8"`, which keeps these characters unescaped).

/** The 7-bit groups never written as themselves, in the order their 4-bit index names them. */
export const ESCAPED_GROUPS: readonly number[] = [0x00, 0x0a, 0x0d, 0x22, 0x24, 0x27, 0x3c, 0x5c, 0x60];

/** The first character of the two-byte range: its 11 bits are the index and the next group. */
const PAIR_BASE = 0x80;

/**
 * Decodes `text` to `length` bytes (the build records the length: the last character may
 * carry padding bits). Throws on a character outside the scheme or a text of another length,
 * because a damaged embedded module should fail loudly here rather than deep in WebAssembly.
 */
export function decodeBytesText(text: string, length: number): Uint8Array {
	const out = new Uint8Array(length);
	let written = 0;
	let buffer = 0;
	let bits = 0;
	const count = text.length;
	// The hot loop (about 900,000 characters at start-up): written out, no calls.
	for (let i = 0; i < count; i++) {
		const code = text.charCodeAt(i);
		let groups: number;
		let pair: number;
		if (code < PAIR_BASE) {
			groups = 1;
			pair = code;
		} else {
			const payload = code - PAIR_BASE;
			const first = ESCAPED_GROUPS[payload >> 7];
			if (first === undefined) throw new Error(`Invalid embedded text: character ${code} at ${i}`);
			groups = 2;
			pair = (first << 7) | (payload & 0x7f);
		}
		buffer = (buffer << (7 * groups)) | pair;
		bits += 7 * groups;
		while (bits >= 8) {
			bits -= 8;
			if (written < length) out[written] = (buffer >>> bits) & 0xff;
			written++;
		}
		buffer &= (1 << bits) - 1;
	}
	// What is left is padding: fewer than 8 bits, or one whole byte of an escaped last group's partner.
	if (written < length || written > length + 1) throw new Error(`Invalid embedded text: ${written} bytes where ${length} were recorded`);
	return out;
}
