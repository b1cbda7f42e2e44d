// The words shown for the store's state, in the status bar and the status notice.

import type { StoreStatus } from "../core/memory-core-api";

function count(n: number, one: string, many: string): string {
	return `${n.toLocaleString()} ${n === 1 ? one : many}`;
}

export const STATUS_STARTING = "Memory: starting…";
export const STATUS_UNAVAILABLE = "Memory: unavailable";

/** Remembered notes out of the notes in scope (from the vault sync); null before it is known. */
export interface NoteCoverage {
	remembered: number;
	inScope: number;
}

/** "Memory: 1,204/2,333 notes · 3 failed · paused"; parts that are zero are left out. */
export function statusBarText(status: StoreStatus, coverage: NoteCoverage | null): string {
	const parts = [
		coverage === null
			? "checking notes…"
			: `${coverage.remembered.toLocaleString()}/${coverage.inScope.toLocaleString()} ${coverage.inScope === 1 ? "note" : "notes"}`,
	];
	if (status.failed > 0) parts.push(`${status.failed.toLocaleString()} failed`);
	if (status.paused !== null) parts.push("paused");
	return `Memory: ${parts.join(" · ")}`;
}

/** The status bar item's tooltip: the counts the short text leaves out. */
export function statusBarLabel(status: StoreStatus): string {
	return `Memory Agent: ${count(status.memories, "memory", "memories")}, ${count(status.insights, "insight", "insights")}, ${status.queued.toLocaleString()} queued. Select to show details.`;
}

/** The longer text of the "Show memory status" notice. */
export function statusNoticeText(status: StoreStatus, databasePath: string): string {
	return [
		`Memory Agent: ${count(status.memories, "memory", "memories")}, ${count(status.insights, "insight", "insights")}.`,
		`Jobs: ${status.queued.toLocaleString()} queued, ${status.running.toLocaleString()} running, ${status.failed.toLocaleString()} failed.`,
		`Schema version ${status.schemaVersion}.`,
		`Database: ${databasePath}`,
	].join("\n");
}
