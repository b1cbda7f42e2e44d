// What the facade sends of a memory's file: `fileKind` and a PDF's first `page` on every memory
// and the browser's `fileKind` filter (serde's flattened fields through serde-wasm-bindgen), and
// the bulk estimate of files by kind.

import assert from "node:assert/strict";
import { test } from "node:test";
import { loadFacade } from "../support/facade";
import { withMemoryTerms } from "../support/sqlite-fixtures";

const NOW = Date.UTC(2026, 10, 30, 7, 14);

/** Memories of a note, a PDF's pages 2–3 and a photo, planted with plain sql.js. */
const PLANTED: Array<[id: string, path: string, lineStart: number | null, lineEnd: number | null]> = [
	["m-note", "Daily/2026-11-02.md", 0, 4],
	["m-pdf", "Papers/Budget.pdf", 2, 3],
	["m-photo", "Photos/IMG_0001.JPG", null, null],
];

async function coreWithPlantedFiles() {
	const { facade, SQL } = await loadFacade();
	const empty = facade.MemoryCore.open(SQL, undefined, NOW);
	const db = withMemoryTerms(new SQL.Database(empty.exportDatabase()));
	empty.free();
	PLANTED.forEach(([id, path, lineStart, lineEnd], at) => {
		db.run("INSERT INTO paths (path) VALUES (?)", [path]);
		const pathId = Number(db.exec("SELECT id FROM paths WHERE path = ?", [path])[0]?.values[0]?.[0]);
		db.run(
			`INSERT INTO memories (id, path_id, kind, line_start, line_end, summary, topics, importance, day, dated, created_at, updated_at)
			 VALUES (?, ?, 0, ?, ?, ?, '[]', 500, 20394, 1, ?, ?)`,
			[id, pathId, lineStart, lineEnd, `The Q3 budget, ${id}.`, NOW + at, NOW + at],
		);
	});
	db.run("INSERT INTO memories_fts (memories_fts) VALUES ('rebuild')");
	const bytes = db.export();
	db.close();
	return facade.MemoryCore.open(SQL, bytes, NOW);
}

test("every memory the facade sends names its file's kind, and a PDF's its first page", async () => {
	const core = await coreWithPlantedFiles();
	try {
		const page = core.browseMemories({});
		const places = page.memories.map((memory) => [memory.id, memory.fileKind, memory.page]);
		assert.deepEqual(places, [
			["m-photo", "image", null],
			["m-pdf", "pdf", 2],
			["m-note", "note", null],
		]);
		const [pdf] = core.getMemories(["m-pdf"]);
		assert.deepEqual([pdf?.fileKind, pdf?.page, pdf?.position.line_end], ["pdf", 2, 3]);
		const recalled = core.recall("What is the Q3 budget?", 4_000, undefined);
		assert.deepEqual(
			recalled.memories.map((memory) => [memory.id, memory.fileKind]).sort(),
			[["m-note", "note"], ["m-pdf", "pdf"], ["m-photo", "image"]],
		);
	} finally {
		core.free();
	}
});

test("the browser filters by the kind of a memory's file", async () => {
	const core = await coreWithPlantedFiles();
	try {
		const ids = (fileKind: "note" | "pdf" | "image") => core.browseMemories({ fileKind }).memories.map((memory) => memory.id);
		assert.deepEqual(ids("pdf"), ["m-pdf"]);
		assert.deepEqual(ids("image"), ["m-photo"]);
		assert.deepEqual(ids("note"), ["m-note"]);
		assert.equal(core.browseMemories({ fileKind: "pdf" }).matching, 1);
		assert.throws(() => core.browseMemories({ fileKind: "video" as "pdf" }), (error: { code?: string }) => error.code === "facade.invalid_argument");
	} finally {
		core.free();
	}
});

test("the bulk estimate counts notes, PDFs with their pages and images apart", async () => {
	const core = await coreWithPlantedFiles();
	try {
		const estimate = core.estimateIngest([
			{ path: "Daily/a.md", size: 4_000 },
			{ path: "Papers/Budget.pdf", size: 900_000, pages: 2 },
			{ path: "Photos/IMG_1.jpg", size: 3_000_000 },
			{ path: "Scans/page.heic", size: 1_000 },
		]);
		assert.deepEqual(
			[estimate.notes, estimate.pdfs, estimate.pdfPages, estimate.images, estimate.imageTokens],
			[1, 1, 2, 1, 1_534],
		);
		assert.ok(estimate.inputTokens > estimate.imageTokens + 2_000 && estimate.costUsd > 0, JSON.stringify(estimate));
		assert.throws(() => core.estimateIngest([{ path: "a.md" } as { path: string; size: number }]), (error: { code?: string }) => error.code === "facade.invalid_argument");
	} finally {
		core.free();
	}
});
