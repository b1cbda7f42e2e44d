// Where a memory came from, as a place to open (no Obsidian imports).

import type { Memory } from "../core/memory-core-api";
import type { SourcePlace } from "./citations";

export function placeOf(memory: Memory): SourcePlace {
	return { sourcePath: memory.source_path, heading: memory.position.heading, lineStart: memory.position.line_start };
}
