// The main thread's vault reads for the core: the size first, and a file over the core's limit
// is handed over as its size alone, never read (a 200 MB note once cost 840 MB at its peak).

import assert from "node:assert/strict";
import { test } from "node:test";
import { createHostHandlers } from "../../plugin/host/core-host";
import { MemoryPort } from "../support/memory-port";

interface FakeFile {
	path: string;
	stat: { mtime: number; size: number };
	bytes: Uint8Array;
}

function vaultOf(files: FakeFile[]): { reads: string[]; handlers: ReturnType<typeof createHostHandlers> } {
	const reads: string[] = [];
	const handlers = createHostHandlers({
		requestUrl: () => Promise.reject(new Error("no HTTP in this test")),
		files: new MemoryPort(),
		pdf: { loadPdfJs: () => Promise.reject(new Error("no pdf.js in this test")) },
		vault: {
			getFileByPath: (path) => files.find((file) => file.path === path) ?? null,
			readBinary: (file: never) => {
				const { path, bytes } = file as FakeFile;
				reads.push(path);
				return Promise.resolve(bytes.slice().buffer);
			},
		},
	});
	return { reads, handlers };
}

test("a note over the core's limit is measured, not read; one within it is read whole", async () => {
	const small = { path: "small.md", stat: { mtime: 5, size: 6 }, bytes: new TextEncoder().encode("# Hi\n\n") };
	const huge = { path: "huge.md", stat: { mtime: 7, size: 200 * 1024 * 1024 }, bytes: new Uint8Array(0) };
	const { reads, handlers } = vaultOf([small, huge]);
	const read = await handlers.readFile("small.md", 1024);
	assert.deepEqual(read, { bytes: small.bytes, mtime: 5, size: 6 });
	const measured = await handlers.readFile("huge.md", 2 * 1024 * 1024);
	assert.deepEqual(measured, { bytes: new Uint8Array(0), mtime: 7, size: 200 * 1024 * 1024 });
	assert.deepEqual(reads, ["small.md"], "the huge note was never read");
	assert.equal(await handlers.readFile("gone.md", 1024), null);
});

test("a note that grew past the limit since Obsidian measured it is handed over as too large", async () => {
	const grown = { path: "grown.md", stat: { mtime: 9, size: 10 }, bytes: new Uint8Array(5_000) };
	const { handlers } = vaultOf([grown]);
	assert.deepEqual(await handlers.readFile("grown.md", 1024), { bytes: new Uint8Array(0), mtime: 9, size: 5_000 });
});
