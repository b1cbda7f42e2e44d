// sha256Hex computed in Rust must equal Node's SHA-256 for inputs around every block boundary.

import assert from "node:assert/strict";
import { createHash, randomBytes } from "node:crypto";
import { test } from "node:test";
import { loadFacade } from "../support/facade";

const SIZES = [0, 1, 2, 3, 55, 56, 57, 63, 64, 65, 119, 120, 127, 128, 129, 1000, 4096, 65_537, 1024 * 1024 + 3];

const nodeSha256 = (bytes: Uint8Array) => createHash("sha256").update(bytes).digest("hex");

test("sha256Hex equals Node's sha256 on random inputs of many sizes", async () => {
	const { facade } = await loadFacade();
	for (const size of SIZES) {
		const input = new Uint8Array(randomBytes(size));
		assert.equal(facade.sha256Hex(input), nodeSha256(input), `size ${size}`);
	}
});

test("sha256Hex matches the published test vectors", async () => {
	const { facade } = await loadFacade();
	const text = (s: string) => new TextEncoder().encode(s);
	assert.equal(facade.sha256Hex(text("")), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
	assert.equal(facade.sha256Hex(text("abc")), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
});

test("sha256Hex reads only the view, not the whole underlying buffer", async () => {
	const { facade } = await loadFacade();
	const buffer = new Uint8Array(randomBytes(300));
	const view = buffer.subarray(17, 217);
	assert.equal(facade.sha256Hex(view), nodeSha256(view));
});

test("sha256Hex output is 64 lower-case hex digits", async () => {
	const { facade } = await loadFacade();
	for (let i = 0; i < 20; i++) {
		const input = new Uint8Array(randomBytes(1 + Math.floor(Math.random() * 5000)));
		assert.match(facade.sha256Hex(input), /^[0-9a-f]{64}$/);
	}
});
