// The inlined-WebAssembly codec: the build's encoder (scripts/lib/base85.mjs) against the
// worker's decoder (plugin/worker/base85.ts), the short last group, the alphabet and bad input.

import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { test } from "node:test";
import { transformSync } from "esbuild";
import { BASE85_ALPHABET as ENCODER_ALPHABET, encodeBase85 } from "../../scripts/lib/base85.mjs";
import { BASE85_ALPHABET, decodeBase85 } from "../../plugin/worker/base85";

test("the encoder and the decoder share one alphabet of 85 distinct characters", () => {
	assert.equal(ENCODER_ALPHABET, BASE85_ALPHABET);
	assert.equal(new Set(BASE85_ALPHABET).size, 85);
	assert.equal(BASE85_ALPHABET.length, 85);
});

test("the alphabet needs no escaping in a string literal of any quote, nor in HTML", () => {
	for (const char of BASE85_ALPHABET) {
		const code = char.charCodeAt(0);
		assert.ok(code > 0x20 && code < 0x7f, `${JSON.stringify(char)} is printable ASCII`);
		assert.ok(!"\"'`\\$<".includes(char), `${char} needs no escaping`);
	}
	// What esbuild prints: a minified literal of every digit pair, and the same code again
	// embedded as a string (as main.js embeds the worker), keeps the text byte for byte.
	const text = [...BASE85_ALPHABET].flatMap((a) => [...BASE85_ALPHABET].map((b) => a + b)).join("");
	const once = transformSync(`export const t = ${JSON.stringify(text)};`, { minify: true, format: "esm" }).code;
	assert.ok(once.includes(`"${text}"`) || once.includes(`'${text}'`) || once.includes(`\`${text}\``), "kept as is once");
	const twice = transformSync(`export const s = ${JSON.stringify(once)};`, { minify: true, format: "esm" }).code;
	assert.ok(twice.includes(text), "kept as is inside a string");
});

test("round-trips every length from 0 to 9, around the 4-byte groups", () => {
	for (let size = 0; size <= 9; size++) {
		for (let round = 0; round < 200; round++) {
			const bytes = randomBytes(size);
			const text = encodeBase85(bytes);
			assert.equal(text.length, Math.ceil((size * 5) / 4), `size ${size}`);
			assert.deepEqual(Buffer.from(decodeBase85(text)), bytes, `size ${size}`);
		}
	}
});

test("round-trips the extremes of a group and 1 MB of random bytes", () => {
	for (const bytes of [[0, 0, 0, 0], [0xff, 0xff, 0xff, 0xff], [0xff], [0xff, 0xff], [0xff, 0xff, 0xff], [0], [0, 0, 0, 0, 0xff]]) {
		assert.deepEqual([...decodeBase85(encodeBase85(Uint8Array.from(bytes)))], bytes);
	}
	const big = randomBytes(1024 * 1024 + 3);
	const text = encodeBase85(big);
	assert.equal(text.length, (1024 * 1024 * 5) / 4 + 4);
	assert.deepEqual(Buffer.from(decodeBase85(text)), big);
});

test("matches Z85's test vector, and round-trips the WebAssembly magic number", () => {
	// Z85's test vector 86 4F D2 6F B5 59 F7 5B is "HelloWorld"; these letters mean the same here.
	assert.equal(encodeBase85(Uint8Array.from([0x86, 0x4f, 0xd2, 0x6f, 0xb5, 0x59, 0xf7, 0x5b])), "HelloWorld");
	assert.deepEqual([...decodeBase85(encodeBase85(Uint8Array.from([0, 0x61, 0x73, 0x6d, 1, 0, 0, 0])))], [0, 0x61, 0x73, 0x6d, 1, 0, 0, 0]);
});

test("rejects characters outside the alphabet, impossible lengths and groups above 32 bits", () => {
	const valid = encodeBase85(randomBytes(12));
	for (const bad of [" ", "\"", "\\", "$", "<", "é", "\u0100", "\u2028"]) {
		assert.throws(() => decodeBase85(bad + valid.slice(1)), /Invalid base85 character/, JSON.stringify(bad));
		assert.throws(() => decodeBase85(valid.slice(0, -1) + bad), /Invalid base85 character/, JSON.stringify(bad));
	}
	// "\u0130" & 127 is "0", a valid digit: the decoder must not alias it.
	assert.throws(() => decodeBase85("\u0130" + valid.slice(1)), /Invalid base85 character/);
	assert.throws(() => decodeBase85("0"), /impossible length/);
	assert.throws(() => decodeBase85(`${valid}0`), /impossible length/);
	assert.throws(() => decodeBase85(";;;;;"), /exceeds 32 bits/);
	assert.throws(() => decodeBase85(";;"), /exceeds 32 bits/);
});
