// The status view's job rows: what each job is for, and for a waiting or failed one why and
// when its next try is, in the core's words.

import assert from "node:assert/strict";
import { test } from "node:test";
import type { Job } from "../../plugin/core/memory-core-api";
import { clockTime, failedRow, jobPath, queuedRow } from "../../plugin/views/job-rows";

const NOW = Date.UTC(2026, 11, 2, 9, 0);

function note(path: string, fields: Partial<Job> = {}): Job {
	return {
		id: 1, kind: "ingest_source", payload: { path }, key: `note:${path}`, state: "queued", attempts: 0,
		next_run_at: NOW, last_error: null, created_at: NOW, updated_at: NOW, ...fields,
	} as Job;
}

test("each job says what it is for", () => {
	assert.equal(jobPath(note("Daily/a.md")), "Daily/a.md");
	const text = { text: "Hi.", sourcePath: "", kind: "text", heading: null, lineStart: null, noteDate: null } as const;
	assert.equal(jobPath({ ...note("x"), kind: "ingest_text", payload: text }), "Typed text");
	assert.equal(jobPath({ ...note("x"), kind: "ingest_text", payload: { ...text, kind: "selection", sourcePath: "b.md" } }), "Selected text from b.md");
	assert.equal(jobPath({ ...note("x"), kind: "consolidate", payload: { trigger: "daily" } }), "Finding connections between memories");
});

test("a waiting job shows why it waits and when its next try is; a due one shows nothing more", () => {
	const retry = "Bedrock is unavailable right now (HTTP 503). Memory Agent tries again at 10:05 and keeps trying (waiting longer each time, at most an hour) until it works.";
	assert.deepEqual(queuedRow(note("a.md", { last_error: retry, next_run_at: NOW + 65 * 60_000 }), NOW), { path: "a.md", reason: retry });
	const later = NOW + 5 * 60_000;
	assert.deepEqual(queuedRow(note("b.md", { next_run_at: later }), NOW), {
		path: "b.md",
		reason: `waits until ${clockTime(later)}, for another device's memory of it`,
	});
	assert.deepEqual(queuedRow(note("c.md"), NOW), { path: "c.md" });
	assert.match(clockTime(later), /^\d\d:\d\d$/);
});

test("a failed job shows the core's words, which say how to try again", () => {
	const failed = "Failed after 5 tries: The model's answer was not usable twice in a row: summary is empty. Nothing more is tried until you choose Retry failed in the Memory status view.";
	assert.deepEqual(failedRow(note("a.md", { state: "failed", attempts: 5, last_error: failed })), { path: "a.md", reason: failed });
	assert.match(failedRow(note("b.md", { state: "failed" })).reason ?? "", /Retry failed/);
});
