// The inlined-WebAssembly decoder against Node's base64, including padding and bad input.

import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { test } from "node:test";
import { decodeBase64 } from "../../plugin/worker/base64";

test("decodes what Node encodes, for every length around the 3-byte groups", () => {
	for (let size = 0; size < 70; size++) {
		const bytes = randomBytes(size);
		assert.deepEqual(Buffer.from(decodeBase64(bytes.toString("base64"))), bytes, `size ${size}`);
	}
	const big = randomBytes(1024 * 1024 + 1);
	assert.deepEqual(Buffer.from(decodeBase64(big.toString("base64"))), big);
});

test("accepts input without padding", () => {
	const bytes = randomBytes(31);
	assert.deepEqual(Buffer.from(decodeBase64(bytes.toString("base64").replace(/=+$/, ""))), bytes);
});

test("decodes the WebAssembly magic number", () => {
	assert.deepEqual([...decodeBase64("AGFzbQEAAAA=")], [0, 0x61, 0x73, 0x6d, 1, 0, 0, 0]);
});

test("rejects characters outside the alphabet and impossible lengths", () => {
	assert.throws(() => decodeBase64("AGFz bQ=="), /Invalid base64/);
	assert.throws(() => decodeBase64("AGF-"), /Invalid base64/);
	assert.throws(() => decodeBase64("AGFzb"), /Invalid base64/);
});
