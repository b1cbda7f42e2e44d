// Where a selection comes from: the heading path above it and a daily note's date.

import assert from "node:assert/strict";
import { test } from "node:test";
import { dailyNoteDate, headingAbove, scanHeadings } from "../../plugin/commands/selection-source";

const NOTE = ["# Trip", "intro", "## Flights", "```", "# not a heading", "```", "TAP 14:05", "## Hotel", "Alfama", "# Budget", "40k"];
const headings = scanHeadings(NOTE.length, (line) => NOTE[line] ?? "");

test("headings are read from the lines, skipping fenced code", () => {
	assert.deepEqual(headings.map((item) => [item.heading, item.level, item.line]), [
		["Trip", 1, 0],
		["Flights", 2, 2],
		["Hotel", 2, 7],
		["Budget", 1, 9],
	]);
});

test("the heading path above a line names every enclosing heading", () => {
	assert.equal(headingAbove(headings, 1), "Trip");
	assert.equal(headingAbove(headings, 6), "Trip > Flights");
	assert.equal(headingAbove(headings, 8), "Trip > Hotel", "a sibling replaces the previous one");
	assert.equal(headingAbove(headings, 10), "Budget", "a higher level closes the lower ones");
	assert.equal(headingAbove(headings, 7), "Trip > Hotel", "a selection starting on a heading belongs to it");
	assert.equal(headingAbove(scanHeadings(2, (line) => ["text", "# Later"][line] ?? ""), 0), null);
});

test("only real dates make a daily note", () => {
	assert.equal(dailyNoteDate("2026-02-01"), "2026-02-01");
	assert.equal(dailyNoteDate("2026-02-30"), null);
	assert.equal(dailyNoteDate("2026-2-1"), null);
	assert.equal(dailyNoteDate("Meeting 2026-02-01"), null);
});
