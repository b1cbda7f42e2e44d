// What queueing many notes at once will roughly cost is the core's estimate (its token count
// and the chosen model's prices); this file only words it.

import type { IngestEstimate } from "../core/memory-core-api";

export type BulkEstimate = IngestEstimate;

/** "$0.42", or "less than $0.01". */
export function formatUsd(amount: number): string {
	if (amount < 0.01) return "less than $0.01";
	return `$${amount.toFixed(2)}`;
}

/** The top-level folder of a path ("" for a note at the vault's root). */
export function topFolder(path: string): string {
	const slash = path.indexOf("/");
	return slash < 0 ? "" : path.slice(0, slash);
}
