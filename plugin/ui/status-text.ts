// The words shown for the store's state, in the status bar and the status notice.

import type { StoreStatus } from "../core/memory-core-api";

function count(n: number, one: string, many: string): string {
	return `${n.toLocaleString()} ${n === 1 ? one : many}`;
}

export const STATUS_STARTING = "Memory: starting…";
export const STATUS_UNAVAILABLE = "Memory: unavailable";

/** "Memory: 12 memories · 3 insights · 0 queued" */
export function statusBarText(status: StoreStatus): string {
	return `Memory: ${count(status.memories, "memory", "memories")} · ${count(status.insights, "insight", "insights")} · ${status.queued.toLocaleString()} queued`;
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
