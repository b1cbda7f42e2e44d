// Encodes bytes as the text plugin/worker/bytes-text.ts decodes (the scheme and why are there).

/** Must equal ESCAPED_GROUPS in plugin/worker/bytes-text.ts (tests/plugin/bytes-text.test.ts checks). */
export const ESCAPED_GROUPS = [0x00, 0x0a, 0x0d, 0x22, 0x24, 0x27, 0x3c, 0x5c, 0x60];

const INDEX = new Int8Array(128).fill(-1);
ESCAPED_GROUPS.forEach((group, index) => (INDEX[group] = index));

/** `bytes` as text: a character a 7-bit group, an escaped group and the next one in one character. */
export function encodeBytesText(bytes) {
	const groups = [];
	let buffer = 0;
	let bits = 0;
	for (const byte of bytes) {
		buffer = ((buffer << 8) | byte) & 0x7fff;
		bits += 8;
		while (bits >= 7) {
			bits -= 7;
			groups.push((buffer >> bits) & 0x7f);
		}
	}
	if (bits > 0) groups.push((buffer << (7 - bits)) & 0x7f);
	const characters = [];
	for (let i = 0; i < groups.length; i++) {
		const index = INDEX[groups[i]];
		if (index < 0) {
			characters.push(groups[i]);
		} else {
			const next = i + 1 < groups.length ? groups[++i] : 0;
			characters.push(0x80 + ((index << 7) | next));
		}
	}
	let text = "";
	for (let at = 0; at < characters.length; at += 8192) text += String.fromCharCode(...characters.slice(at, at + 8192));
	return text;
}

/** The bytes of an embedded text whose length is not known (npm run extract-wasm): every whole byte it holds. */
export function decodeBytesTextUnsized(text) {
	const out = [];
	let buffer = 0;
	let bits = 0;
	for (let i = 0; i < text.length; i++) {
		const code = text.charCodeAt(i);
		if (code >= 0x80) {
			const first = ESCAPED_GROUPS[(code - 0x80) >> 7];
			if (first === undefined) throw new Error(`not embedded text: character ${code} at ${i}`);
			buffer = (buffer << 14) | (first << 7) | ((code - 0x80) & 0x7f);
			bits += 14;
		} else {
			buffer = (buffer << 7) | code;
			bits += 7;
		}
		while (bits >= 8) {
			bits -= 8;
			out.push((buffer >>> bits) & 0xff);
		}
		buffer &= (1 << bits) - 1;
	}
	return Uint8Array.from(out);
}
