// Which memories the memory browser shows: a filter by text, source, entity, topic and dates,
// which the core applies (no Obsidian imports: unit-testable).

import type { Memory, MemoryQuery } from "../core/memory-core-api";

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
}

export const EMPTY_FILTER: MemoryFilter = { text: "", source: "", entity: "", topic: "", from: "", to: "" };

/** The date a memory is about (when it happened), else the local date it was made. */
export function memoryDate(memory: Memory): string {
	if (memory.happened_on !== null) return memory.happened_on;
	const made = new Date(memory.created_at);
	const pad = (value: number) => String(value).padStart(2, "0");
	return `${made.getFullYear()}-${pad(made.getMonth() + 1)}-${pad(made.getDate())}`;
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
	};
}
