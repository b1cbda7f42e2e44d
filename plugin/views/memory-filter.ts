// Which memories the memory browser shows: a filter by text, source, entity, topic and dates
// (no Obsidian imports: unit-testable).

import type { Memory } from "../core/memory-core-api";

export interface MemoryFilter {
	/** Words that must all appear in the summary, raw text, entities or topics. */
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

const fold = (value: string) => value.toLocaleLowerCase().normalize("NFC");

/** True when `memory` passes every part of `filter` that is filled in. */
export function matchesFilter(memory: Memory, filter: MemoryFilter): boolean {
	const source = fold(filter.source.trim());
	if (source !== "" && !fold(memory.source_path).includes(source)) return false;
	const entity = fold(filter.entity.trim());
	if (entity !== "" && !memory.entities.some((item) => fold(item.name).includes(entity))) return false;
	const topic = fold(filter.topic.trim());
	if (topic !== "" && !memory.topics.some((item) => fold(item).includes(topic))) return false;
	if (filter.from !== "" || filter.to !== "") {
		const date = memoryDate(memory);
		if (filter.from !== "" && date < filter.from) return false;
		if (filter.to !== "" && date > filter.to) return false;
	}
	const words = fold(filter.text).split(/\s+/).filter((word) => word !== "");
	if (words.length > 0) {
		const haystack = fold(
			[memory.summary, memory.raw_text, memory.source_path, ...memory.entities.map((item) => item.name), ...memory.topics].join("\n"),
		);
		if (!words.every((word) => haystack.includes(word))) return false;
	}
	return true;
}
