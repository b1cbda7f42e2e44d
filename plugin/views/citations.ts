// An answer's pieces as the core sends them (Markdown text, and citations by number) drawn as
// Markdown with note links, or with marks the panel turns into numbered links (no Obsidian
// imports: unit-testable). The core reads the model's citation markers; nothing here does.

import type { AnswerPiece, Citation, FileKind, QueryAnswer } from "../core/memory-core-api";
import { escapeText, inertMarkdown, isVaultTarget } from "./inert-markdown";

export type CitationKind = Citation["kind"];

/** A part of an answer to draw: Markdown text, or the citations cited together at one place. */
export type AnswerPart = { text: string } | { cited: Citation[] };

/** The pieces with adjacent citations gathered: `[memory:a, memory:b]` is one place citing two. */
export function answerParts(pieces: readonly AnswerPiece[], citations: readonly Citation[]): AnswerPart[] {
	const parts: AnswerPart[] = [];
	for (const piece of pieces) {
		if (piece.kind === "text") {
			parts.push({ text: piece.text });
			continue;
		}
		const citation = citations[piece.number - 1];
		if (citation === undefined) continue;
		const last = parts[parts.length - 1];
		if (last !== undefined && "cited" in last) last.cited.push(citation);
		else parts.push({ cited: [citation] });
	}
	return parts;
}

export function citationKey(kind: CitationKind, id: string): string {
	return `${kind}:${id}`;
}

/**
 * Where a memory came from, enough to open it or link to it: a note at its line or heading, a
 * PDF at its first page (`page`, 1-based), an image as a whole.
 */
export interface SourcePlace {
	sourcePath: string;
	heading: string | null;
	lineStart: number | null;
	/** The file's kind (absent: a note). */
	fileKind?: FileKind;
	/** A PDF memory's first page; null otherwise. */
	page?: number | null;
}

/**
 * The link text of a source, e.g. `Journal/2026-02-01#Trip#Lisbon` (the core writes nested
 * headings as `Trip > Lisbon`; Obsidian links chain them with `#`), `Papers/report.pdf#page=2`
 * (Obsidian's PDF viewer opens a link's `#page=N`), `Photos/board.jpg`. Null for typed text.
 */
export function linkText(place: SourcePlace): string | null {
	if (place.sourcePath === "") return null;
	if (place.fileKind === "image") return place.sourcePath;
	if (place.fileKind === "pdf") return place.page != null && place.page >= 1 ? `${place.sourcePath}#page=${place.page}` : place.sourcePath;
	const note = place.sourcePath.replace(/\.md$/i, "");
	if (place.heading === null || place.heading.trim() === "") return note;
	const chain = place.heading
		.split(" > ")
		// Obsidian's heading links leave out the characters that end or split a link.
		.map((part) => part.replace(/[#|[\]^]/g, " ").replace(/\s+/g, " ").trim())
		.filter((part) => part !== "");
	return chain.length === 0 ? note : `${note}#${chain.join("#")}`;
}

/** Where a place is, in words: "typed text", "Trips/Lisbon.md › Day 1", "Papers/report.pdf, page 2 › Results". */
export function placeLabel(place: SourcePlace): string {
	if (place.sourcePath === "") return "typed text";
	const file = place.fileKind === "pdf" && place.page != null ? `${place.sourcePath}, page ${place.page}` : place.sourcePath;
	return place.heading === null || place.heading === "" ? file : `${file} › ${place.heading}`;
}

/** The note of a cited place, as a link path without `.md` (what an embed of it may name). */
function citedNote(place: SourcePlace | undefined): string[] {
	return place === undefined || place.sourcePath === "" ? [] : [place.sourcePath.replace(/\.md$/i, "")];
}

/** The notes an answer cites (an insight's through its memories): their embeds may become links. */
export function citedNotes(citations: readonly Citation[], sourcesOf: (memoryId: string) => SourcePlace | undefined = () => undefined): string[] {
	const notes = citations.flatMap((citation) =>
		citation.kind === "memory" ? citedNote(citation) : citation.memoryIds.flatMap((memoryId) => citedNote(sourcesOf(memoryId))),
	);
	return [...new Set(notes)];
}

/**
 * The answer for the clipboard or a note: each citation becomes `[[note#heading]]` link(s). An
 * insight becomes links to the memories it connects (`sourcesOf` finds them); typed text, which
 * has no note, is dropped. Citations cited together give each link once. The text is written
 * inert (`inertMarkdown`: parsed and sanitised as the panel renders it, then escaped), so a
 * note or paste of it loads and runs nothing; `doc` is any document (the parse happens in a
 * new one of its implementation).
 */
export function answerWithWikiLinks(
	answer: Pick<QueryAnswer, "pieces" | "citations">,
	sourcesOf: (memoryId: string) => SourcePlace | undefined,
	doc: Document,
): string {
	const linkOf = (place: SourcePlace | undefined): string[] => {
		const link = place === undefined ? null : linkText(place);
		return link === null ? [] : [link];
	};
	const links = (citation: Citation): string[] =>
		citation.kind === "memory" ? linkOf(citation) : citation.memoryIds.flatMap((memoryId) => linkOf(sourcesOf(memoryId)));
	const { markdown, groups } = markdownWithMarks(answerParts(answer.pieces, answer.citations));
	const writeMarks = (text: string) => text.replace(MARK, (_, index: string) => [...new Set((groups[Number(index)] ?? []).flatMap(links))].map(citationLink).join(" "));
	return inertMarkdown(markdown, doc, { citedNotes: citedNotes(answer.citations, sourcesOf) }, writeMarks).trim();
}

/**
 * A place's link as the saved note writes it. A path or heading comes from a log any device can
 * write: on one line, without `[`, `]` or `|` that could end the link early; one that is no vault
 * note (a scheme, decoded or not; `<`, `>`) is written as escaped text, so Obsidian opening the
 * note loads and runs nothing.
 */
export function citationLink(link: string): string {
	const oneLine = link.replace(/[\p{Cc}\u2028\u2029]+/gu, " ").replace(/[[\]|]/g, " ").trim();
	return isVaultTarget(oneLine) && !/[<>]/.test(oneLine) ? `[[${oneLine}]]` : escapeText(oneLine);
}

/** Private-use characters around a mark's index: no model text or Markdown syntax uses them. */
const MARK_OPEN = "\uE000";
const MARK_CLOSE = "\uE001";
const MARK = /\uE000(\d+)\uE001/g;
const MARK_CHARACTERS = /[\uE000\uE001]/g;

/**
 * The answer as Markdown for the panel's renderer, each place of citations written as a mark
 * that `splitAtMarks` finds again in the rendered text; `groups[i]` are the citations of mark `i`.
 */
export function markdownWithMarks(parts: readonly AnswerPart[]): { markdown: string; groups: Citation[][] } {
	const groups: Citation[][] = [];
	const markdown = parts
		.map((part) => {
			if ("text" in part) return part.text.replace(MARK_CHARACTERS, "");
			groups.push(part.cited);
			return `${MARK_OPEN}${groups.length - 1}${MARK_CLOSE}`;
		})
		.join("");
	return { markdown, groups };
}

/** Rendered text split at the marks `markdownWithMarks` wrote: text, or the index of a group. */
export function splitAtMarks(text: string): Array<string | number> {
	const split: Array<string | number> = [];
	let last = 0;
	for (const match of text.matchAll(MARK)) {
		if (match.index > last) split.push(text.slice(last, match.index));
		split.push(Number(match[1]));
		last = match.index + match[0].length;
	}
	if (last < text.length) split.push(text.slice(last));
	return split;
}
