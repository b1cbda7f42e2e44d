// Which memories the memory browser shows: a filter by text, source, entity, topic, dates and
// the kind of file, which the core applies (no Obsidian imports: unit-testable).

import type { FileKind, Memory, MemoryQuery } from "../core/memory-core-api";
import { placeLabel } from "./citations";
import { placeOf } from "./memory-place";

export interface MemoryFilter {
	/** Words that must all be found (as words or word starts) in what a memory says. */
	text: string;
	/** Part of the source note's path. */
	source: string;
	entity: string;
	topic: string;
	/** `YYYY-MM-DD`, inclusive; "" for open-ended. */
	from: string;
	to: string;
	/** Memories of notes, PDFs or images only; "" for all. */
	kind: FileKind | "";
}

export const EMPTY_FILTER: MemoryFilter = { text: "", source: "", entity: "", topic: "", from: "", to: "", kind: "" };

/** The kind filter's choices, in the order the browser offers them. */
export const KIND_CHOICES: ReadonlyArray<{ value: FileKind | ""; label: string }> = [
	{ value: "", label: "All" },
	{ value: "note", label: "Notes" },
	{ value: "pdf", label: "PDFs" },
	{ value: "image", label: "Images" },
];

/** Where a memory came from, as its row says it: "Typed text", "Trips/Lisbon.md › Day 1", "Papers/report.pdf, page 2 › Results". */
export function memorySourceLabel(memory: Memory): string {
	return memory.source_path === "" ? "Typed text" : placeLabel(placeOf(memory));
}

/** The date a memory is about (when it happened), else the local date it was made. */
export function memoryDate(memory: Memory): string {
	if (memory.happened_on !== null) return memory.happened_on;
	const made = new Date(memory.created_at);
	const pad = (value: number) => String(value).padStart(2, "0");
	return `${made.getFullYear()}-${pad(made.getMonth() + 1)}-${pad(made.getDate())}`;
}

/**
 * What the browser says of a memory's date, and where it came from: the days its text names ("2026-02-01,
 * 2026-02-03"), the note's own date when the text names none ("2026-11-23 (the note's date)"), or undated (with
 * the day it was remembered).
 */
export function memoryDateLabel(memory: Memory): { text: string; title: string } {
	if (memory.happened_on === null) return { text: `Undated (remembered ${memoryDate(memory)})`, title: "The text names no day, and neither does the note's name or properties" };
	if (memory.date_source === "note_name") return { text: `${memory.happened_on} (the note's date)`, title: "The text names no day: this is the date in the note's name" };
	if (memory.date_source === "note_property") return { text: `${memory.happened_on} (the note's date)`, title: "The text names no day: this is the date in the note's properties" };
	return { text: [memory.happened_on, ...memory.also_on].join(", "), title: "The days the text says these events happened on" };
}

/** The core's query for the filled-in parts of `filter`. */
export function queryOf(filter: MemoryFilter): MemoryQuery {
	const filled = (value: string) => (value.trim() === "" ? null : value.trim());
	return {
		text: filled(filter.text),
		source: filled(filter.source),
		entity: filled(filter.entity),
		topic: filled(filter.topic),
		from: filled(filter.from),
		to: filled(filter.to),
		fileKind: filter.kind === "" ? null : filter.kind,
	};
}
