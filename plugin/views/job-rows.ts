// What the status view says of one job: what it is for, and for a waiting or failed job why
// and what happens next (no Obsidian imports: unit-testable).

import type { Job } from "../core/memory-core-api";

/** One row of the status view's job lists. */
export interface JobRow {
	path: string;
	reason?: string;
}

/** What the job is for: its note, or the text or work it stands for. */
export function jobPath(job: Job): string {
	switch (job.kind) {
		case "ingest_source":
			return job.payload.path;
		case "consolidate":
			return "Finding connections between memories";
		case "ingest_text":
			return job.payload.sourcePath !== "" ? `Selected text from ${job.payload.sourcePath}` : "Typed text";
	}
}

/** `HH:MM` in the user's time zone. */
export function clockTime(at: number): string {
	const date = new Date(at);
	return `${String(date.getHours()).padStart(2, "0")}:${String(date.getMinutes()).padStart(2, "0")}`;
}

/**
 * A queued job's row. One that failed before says why and when it tries again, in the core's
 * words; one that waits without having failed (for another device's memory of the note) says
 * until when; one that is due says nothing more.
 */
export function queuedRow(job: Job, now: number): JobRow {
	const path = jobPath(job);
	if (job.last_error !== null) return { path, reason: job.last_error };
	if (job.next_run_at > now) return { path, reason: `waits until ${clockTime(job.next_run_at)}, for another device's memory of it` };
	return { path };
}

/** A failed job's row: the core's words say why and that Retry failed tries it again. */
export function failedRow(job: Job): JobRow {
	return { path: jobPath(job), reason: job.last_error ?? "Failed; choose Retry failed to try again." };
}
