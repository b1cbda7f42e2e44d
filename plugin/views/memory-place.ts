// Where a memory came from, as a place to open (no Obsidian imports).

import type { Memory } from "../core/memory-core-api";
import type { SourcePlace } from "./citations";

/** A PDF memory's `position` holds pages, not lines: its place is its first page. */
export function placeOf(memory: Memory): SourcePlace {
	if (memory.fileKind === "pdf") {
		return { sourcePath: memory.source_path, heading: memory.position.heading, lineStart: null, fileKind: "pdf", page: memory.page ?? memory.position.line_start };
	}
	return { sourcePath: memory.source_path, heading: memory.position.heading, lineStart: memory.position.line_start, fileKind: memory.fileKind, page: null };
}
