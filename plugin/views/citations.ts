// Citations in an answer: finding `[memory:ID]` / `[consolidation:ID]`, numbering them, and
// turning them into note links (no Obsidian imports: unit-testable).

import type { Citation } from "../core/memory-core-api";

/** One citation marker as the core writes it into an answer. */
export const CITATION_PATTERN = /\[(memory|consolidation):([^\]\s]+)\]/g;

export type CitationKind = Citation["kind"];

/** A piece of answer text: plain text, or a citation marker. */
export type AnswerPiece = { text: string } | { kind: CitationKind; id: string };

/** Splits `text` at citation markers, keeping both. */
export function splitCitations(text: string): AnswerPiece[] {
	const pieces: AnswerPiece[] = [];
	let last = 0;
	for (const match of text.matchAll(CITATION_PATTERN)) {
		const at = match.index;
		if (at > last) pieces.push({ text: text.slice(last, at) });
		pieces.push({ kind: match[1] as CitationKind, id: match[2] ?? "" });
		last = at + match[0].length;
	}
	if (last < text.length) pieces.push({ text: text.slice(last) });
	return pieces;
}

export function citationKey(kind: CitationKind, id: string): string {
	return `${kind}:${id}`;
}

/** The number each cited item gets ([1], [2] …), in the order the core listed them (first citation first). */
export function numberCitations(citations: readonly Citation[]): Map<string, { number: number; citation: Citation }> {
	const numbered = new Map<string, { number: number; citation: Citation }>();
	for (const citation of citations) {
		const key = citationKey(citation.kind, citation.id);
		if (!numbered.has(key)) numbered.set(key, { number: numbered.size + 1, citation });
	}
	return numbered;
}

/** Where a memory came from, enough to open it or link to it. */
export interface SourcePlace {
	sourcePath: string;
	heading: string | null;
	lineStart: number | null;
}

/**
 * The link text of a source, e.g. `Journal/2026-02-01#Trip#Lisbon` (the core writes nested
 * headings as `Trip > Lisbon`; Obsidian links chain them with `#`). Null for typed text.
 */
export function linkText(place: SourcePlace): string | null {
	if (place.sourcePath === "") return null;
	const note = place.sourcePath.replace(/\.md$/i, "");
	if (place.heading === null || place.heading.trim() === "") return note;
	const chain = place.heading
		.split(" > ")
		// Obsidian's heading links leave out the characters that end or split a link.
		.map((part) => part.replace(/[#|[\]^]/g, " ").replace(/\s+/g, " ").trim())
		.filter((part) => part !== "");
	return chain.length === 0 ? note : `${note}#${chain.join("#")}`;
}

/**
 * The answer for the clipboard: each citation becomes `[[note#heading]]` link(s). An insight
 * becomes links to the memories it connects (`sourcesOf` finds them); typed text, which has no
 * note, is dropped.
 */
export function answerWithWikiLinks(
	answer: string,
	citations: readonly Citation[],
	sourcesOf: (memoryId: string) => SourcePlace | undefined,
): string {
	const byKey = numberCitations(citations);
	const links = (kind: CitationKind, id: string): string[] => {
		const citation = byKey.get(citationKey(kind, id))?.citation;
		if (kind === "memory") {
			const place = citation ?? sourcesOf(id);
			const link = place === undefined ? null : linkText(place);
			return link === null ? [] : [link];
		}
		const memoryIds = citation?.memoryIds ?? [];
		return memoryIds.flatMap((memoryId) => {
			const place = sourcesOf(memoryId);
			const link = place === undefined ? null : linkText(place);
			return link === null ? [] : [link];
		});
	};
	return splitCitations(answer)
		.map((piece) => {
			if ("text" in piece) return piece.text;
			const unique = [...new Set(links(piece.kind, piece.id))];
			return unique.map((link) => `[[${link}]]`).join(" ");
		})
		.join("")
		.trim();
}
