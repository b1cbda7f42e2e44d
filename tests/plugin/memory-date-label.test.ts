// What the memory browser says of a memory's date: every day the text names, the note's own date
// (by its name or its properties) when the text names none, or undated.

import assert from "node:assert/strict";
import { test } from "node:test";
import type { Memory } from "../../plugin/core/memory-core-api";
import { memoryDateLabel } from "../../plugin/views/memory-filter";

function memory(fields: Partial<Memory>): Memory {
	return {
		id: "m-0123456789", source_path: "Daily/2026-11-23.md", source_kind: "note", position: { heading: null, line_start: 0, line_end: 1 },
		raw_text: "", summary: "Standup.", entities: [], topics: [], importance: 0.5, happened_on: "2026-11-23", also_on: [],
		date_source: "text", facts: [], created_at: Date.UTC(2026, 10, 30, 12), updated_at: 0, consolidated: false, content_hash: null,
		fileKind: "note", page: null,
		...fields,
	};
}

test("a memory's date says what it is", () => {
	assert.deepEqual(memoryDateLabel(memory({ also_on: ["2026-11-25", "2026-11-27"] })).text, "2026-11-23, 2026-11-25, 2026-11-27");
	const byName = memoryDateLabel(memory({ date_source: "note_name" }));
	assert.equal(byName.text, "2026-11-23 (the note's date)");
	assert.match(byName.title, /note's name/);
	assert.match(memoryDateLabel(memory({ date_source: "note_property" })).title, /note's properties/);
	assert.match(memoryDateLabel(memory({ happened_on: null })).text, /^Undated \(remembered 2026-11-30\)$/);
});
