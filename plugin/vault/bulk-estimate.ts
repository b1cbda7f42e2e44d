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

/** "1 note", "3 PDFs": a count with its noun. */
function counted(count: number, one: string, many: string): string {
	return `${count.toLocaleString()} ${count === 1 ? one : many}`;
}

/** What is to be queued, by kind: "12 notes", "2 PDFs", "5 images". */
export function filesSummary(estimate: BulkEstimate): string {
	const parts = [counted(estimate.notes, "note", "notes")];
	if (estimate.pdfs > 0) parts.push(counted(estimate.pdfs, "PDF", "PDFs"));
	if (estimate.images > 0) parts.push(counted(estimate.images, "image", "images"));
	return parts.length === 1 ? (parts[0] ?? "") : `${parts.slice(0, -1).join(", ")} and ${parts[parts.length - 1] ?? ""}`;
}

/** One line a kind of file, each with what it sends and what it costs (shown before anything is sent). */
export function kindLines(estimate: BulkEstimate): string[] {
	const cost = (usd: number): string => (usd < 0.01 ? `, ${formatUsd(usd)}` : `, about ${formatUsd(usd)}`);
	const lines = [`${counted(estimate.notes, "note", "notes")}: their text${cost(estimate.notesCostUsd)}`];
	if (estimate.pdfs > 0) {
		// Pages are known only once a PDF is read (see bulkQuestion in vault-sync.ts).
		const pages = estimate.pdfPages > 0 ? counted(estimate.pdfPages, "page", "pages") : "pages counted when read";
		lines.push(`${counted(estimate.pdfs, "PDF", "PDFs")} (${pages}): their text, read on this device; pages without text as images when images are on${cost(estimate.pdfsCostUsd)}`);
	}
	if (estimate.images > 0) {
		lines.push(`${counted(estimate.images, "image", "images")}: each downscaled to about 1.15 megapixels, about ${estimate.imageTokens.toLocaleString()} input tokens in all${cost(estimate.imagesCostUsd)}`);
	}
	return lines;
}
