// The decoder the worker loads both WebAssembly modules with (plugin/worker/lzma.ts), against
// what the build's packer (tools/pack-wasm, built by `npm run build`) writes: every kind of
// input decodes to exactly its bytes, and damage fails loudly rather than giving other bytes.

import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { test } from "node:test";
import { crc32, decodeChecked, decodeLzma } from "../../plugin/worker/lzma";

const ROOT = path.resolve(import.meta.dirname, "..", "..");
const PACKER = path.join(ROOT, "target", "pack-wasm", "release", process.platform === "win32" ? "pack-wasm.exe" : "pack-wasm");

/** `bytes` as the build packs them. */
function pack(bytes: Uint8Array): Uint8Array {
	assert.ok(fs.existsSync(PACKER), `${PACKER} is missing: run npm run build`);
	const folder = fs.mkdtempSync(path.join(os.tmpdir(), "pack-wasm-"));
	try {
		const input = path.join(folder, "in");
		const output = path.join(folder, "out");
		fs.writeFileSync(input, bytes);
		const result = spawnSync(PACKER, [input, output], { encoding: "utf8" });
		assert.equal(result.status, 0, result.stderr);
		return new Uint8Array(fs.readFileSync(output));
	} finally {
		fs.rmSync(folder, { recursive: true, force: true });
	}
}

/** Inputs that reach every path of the decoder: literals, matched literals, short and long
 * repeats, overlapping copies (runs), distances of every slot, and incompressible data. */
function samples(): Array<[string, Uint8Array]> {
	const text = new TextEncoder().encode("the quick brown fox jumps over the lazy dog. ".repeat(500));
	const run = new Uint8Array(100_000).fill(7);
	const random = new Uint8Array(crypto.randomBytes(200_000));
	const mixed = new Uint8Array(300_000);
	let seed = 12345;
	for (let i = 0; i < mixed.length; i++) {
		seed = (seed * 1103515245 + 12345) >>> 0;
		// Mostly copies from near and far back, some fresh bytes: distances of every size.
		const back = i > 70_000 && seed % 5 === 0 ? 65_536 + (seed % 4096) : 1 + (seed % 300);
		mixed[i] = i >= back && seed % 11 !== 0 ? (mixed[i - back] as number) : seed >>> 24;
	}
	return [
		["empty", new Uint8Array(0)],
		["one byte", new Uint8Array([42])],
		["text", text],
		["one byte repeated", run],
		["random", random],
		["mixed distances", mixed],
	];
}

test("what the packer writes decodes to exactly the same bytes", () => {
	for (const [name, bytes] of samples()) {
		const packed = pack(bytes);
		assert.deepEqual(decodeLzma(packed), bytes, name);
		assert.deepEqual(decodeChecked(packed, crc32(bytes)), bytes, name);
	}
});

test("the CRC-32 is gzip's", () => {
	assert.equal(crc32(new TextEncoder().encode("123456789")), 0xcbf43926);
	assert.equal(crc32(new Uint8Array(0)), 0);
});

test("a damaged module fails loudly: cut short, a header out of range, a changed byte, another checksum", () => {
	const bytes = samples()[5]?.[1] as Uint8Array;
	const packed = pack(bytes);
	const checksum = crc32(bytes);
	assert.throws(() => decodeChecked(packed.subarray(0, packed.length - 100), checksum), /ends early|does not end|checksum/);
	assert.throws(() => decodeLzma(packed.subarray(0, 10)), /shorter than a header/);
	const badProperties = packed.slice();
	badProperties[0] = 225;
	assert.throws(() => decodeLzma(badProperties), /properties byte/);
	const unknownSize = packed.slice();
	unknownSize.fill(0xff, 5, 13);
	assert.throws(() => decodeLzma(unknownSize), /size is unknown/);
	assert.throws(() => decodeChecked(packed, checksum ^ 1), /checksum/);
	// A changed byte anywhere in the stream: the decoder or the checksum catches it, every time.
	for (let position = 14; position < packed.length; position += Math.max(1, Math.floor(packed.length / 200))) {
		const changed = packed.slice();
		changed[position] = (changed[position] as number) ^ 0x10;
		assert.throws(() => decodeChecked(changed, checksum), /Invalid LZMA data/, `byte ${position}`);
	}
});
