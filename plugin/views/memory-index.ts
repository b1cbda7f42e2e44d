// Every memory of the store, loaded page by page, and where each came from (no Obsidian imports).

import type { Memory, MemoryStore } from "../core/memory-core-api";
import type { SourcePlace } from "./citations";

const PAGE = 500;

/** All memories, newest first, read in pages so no single call builds a huge array in the core. */
export function loadAllMemories(store: Pick<MemoryStore, "listMemories">): Memory[] {
	const all: Memory[] = [];
	for (let offset = 0; ; offset += PAGE) {
		const page = store.listMemories(null, PAGE, offset);
		all.push(...page);
		if (page.length < PAGE) return all;
	}
}

export function placeOf(memory: Memory): SourcePlace {
	return { sourcePath: memory.source_path, heading: memory.position.heading, lineStart: memory.position.line_start };
}
