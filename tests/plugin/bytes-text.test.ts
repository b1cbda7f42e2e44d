// The inlined-WebAssembly text: the build's encoder (scripts/lib/bytes-text.mjs) against the
// worker's decoder (plugin/worker/bytes-text.ts), every length of a last group, the characters
// it may never write, its size, and bad input.

import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { test } from "node:test";
import { transformSync } from "esbuild";
import { ESCAPED_GROUPS as ENCODER_GROUPS, decodeBytesTextUnsized, encodeBytesText } from "../../scripts/lib/bytes-text.mjs";
import { ESCAPED_GROUPS, decodeBytesText } from "../../plugin/worker/bytes-text";

test("the build and the worker escape the same groups", () => {
	assert.deepEqual([...ENCODER_GROUPS], [...ESCAPED_GROUPS]);
});

test("what is encoded decodes to the same bytes, at every length and for every group", () => {
	for (let size = 0; size <= 64; size++) {
		const bytes = randomBytes(size);
		assert.deepEqual(Buffer.from(decodeBytesText(encodeBytesText(bytes), size)), bytes, `size ${size}`);
	}
	// Every escaped group at every position, last included (its partner is padding).
	for (const group of ESCAPED_GROUPS) {
		for (let size = 1; size <= 16; size++) {
			const bits = "".padStart(size * 8, group.toString(2).padStart(7, "0"));
			const bytes = Uint8Array.from({ length: size }, (_, i) => Number.parseInt(bits.slice(i * 8, i * 8 + 8), 2));
			assert.deepEqual(decodeBytesText(encodeBytesText(bytes), size), bytes, `group ${group}, size ${size}`);
		}
	}
	const big = randomBytes(300_000);
	const text = encodeBytesText(big);
	assert.deepEqual(Buffer.from(decodeBytesText(text, big.length)), big);
	assert.ok(Buffer.byteLength(text) < big.length * 1.15, `${Buffer.byteLength(text)} UTF-8 bytes for ${big.length}: about 8/7`);
	assert.deepEqual(Buffer.from(decodeBytesTextUnsized(text)).subarray(0, big.length), big, "extract-wasm's reading agrees");
});

test("the text holds no character a string literal would escape, and is itself inside any literal, nested too", () => {
	const text = encodeBytesText(randomBytes(100_000));
	for (const forbidden of ["\0", "\n", "\r", '"', "$", "'", "<", "\\", "`", "\u2028", "\u2029"]) assert.ok(!text.includes(forbidden), JSON.stringify(forbidden));
	// As main.js carries it: raw inside the worker script's literal, itself raw inside main.js's
	// (the build fills it in after esbuild, which would print its control characters as escapes).
	for (const [open, close] of [['"', '"'], ["'", "'"], ["`", "`"]] as const) {
		const workerScript = new Function(`return ${open}const TEXT = \\"${text}\\"; return TEXT;${close};`)() as string;
		assert.equal(new Function(workerScript)(), text, `inside ${open}…${close}`);
	}
	assert.ok(transformSync(`export default "${text}";`, { charset: "utf8", minify: true, format: "esm" }).code.includes("\\x"), "esbuild escapes control characters: hence the filling after it");
});

test("a damaged text fails loudly", () => {
	const valid = encodeBytesText(randomBytes(32));
	assert.throws(() => decodeBytesText(`${valid}\u0600`, 32), /Invalid embedded text: character/);
	assert.throws(() => decodeBytesText(valid.slice(0, -3), 32), /bytes where 32 were recorded/);
	assert.throws(() => decodeBytesText(`${valid}abcdefgh`, 32), /bytes where 32 were recorded/);
});
