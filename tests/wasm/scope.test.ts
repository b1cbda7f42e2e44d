// The built WebAssembly in Node: the core decides exclusion when it reads a note, with
// Obsidian's `/regex/` "Excluded files" matched by JavaScript's own RegExp in the worker.

import assert from "node:assert/strict";
import { test } from "node:test";
import { NO_IMAGES, NO_LOG_FILES, loadFacade } from "../support/facade";

test("a note matched by a /regex/ filter, a folder or a tag is never read or sent", async () => {
	const { facade, SQL } = await loadFacade();
	const core = facade.MemoryCore.open(SQL, undefined, Date.now(), 7);
	const reads: string[] = [];
	const sent: string[] = [];
	const text = (path: string) => (path === "tagged.md" ? "Private. #diary/2026" : `Notes of ${path}`);
	core.attachHost({
		send: (request) => {
			sent.push(new TextDecoder().decode(request.body));
			return Promise.reject(Object.assign(new Error("offline"), { code: "offline" }));
		},
		sleep: () => Object.assign(Promise.resolve(), { cancel: () => undefined }),
		now: () => Date.now(),
		readFile: (path) => {
			reads.push(path);
			const bytes = new TextEncoder().encode(text(path));
			return Promise.resolve({ bytes, mtime: 1, size: bytes.length });
		},
		utcOffsetMinutes: () => 0,
		progress: () => undefined,
		extractPdf: () => Promise.reject(new Error("no PDFs in this test")),
		...NO_LOG_FILES,
		...NO_IMAGES,
	});
	core.configure({
		engine: {
			dailyConsolidation: false,
			scope: { excludedFolders: ["Private"], excludedTags: ["diary"], ignoreFilters: ["/^scratch\\//i", "/[broken/"] },
		},
		connection: { region: "us-east-1", auth: { kind: "accessKey", accessKeyId: "AKIDEXAMPLE", secretAccessKey: "secret" } },
	});
	for (const path of ["Scratch/a.md", "Private/b.md", "tagged.md"]) core.enqueueNote(path);
	const report = await core.runDueWork();
	assert.equal(report.skipped, 3, JSON.stringify(report));
	assert.deepEqual(reads, ["tagged.md"], "path rules are decided before the note is read; the tag once it is read");
	assert.deepEqual(sent, [], "nothing was sent");
	assert.equal(core.status().memories, 0);
	core.free();
});
