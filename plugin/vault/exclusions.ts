// Asking the core which vault files are left out, and why. The core decides every rule
// (`src/notes/scope.rs`); the plugin only hands over what Obsidian knows of a note — its
// metadata cache's properties and tags, as parsed — and the answers come back per path.

import type { ExclusionQuery, MemoryStore } from "../core/memory-core-api";
import { NOTE_BATCH_SIZE } from "./slices";

/** What Obsidian's metadata cache knows of a note, handed to the core as it is. */
export type NoteMetadata = NonNullable<ExclusionQuery["metadata"]>;

/** The shape of Obsidian's `CachedMetadata` that is passed on (types only, no import). */
export interface CachedNoteMetadata {
	frontmatter?: Record<string, unknown>;
	tags?: Array<{ tag: string }>;
}

/** The cache's entry as the core reads it: the properties object and the body's tags (`#tag`). */
export function metadataOf(cache: CachedNoteMetadata): NoteMetadata {
	return { frontmatter: cache.frontmatter, tags: cache.tags?.map((item) => item.tag) ?? [] };
}

/** The core's answer for each path: why it is left out, or null when it is in scope. */
export type Exclusions = Map<string, string | null>;

/**
 * Asks the core about `items`, one call per batch (a reconciliation of thousands of notes
 * makes a few calls, not one a note); `store` is asked again for each batch. Undefined when
 * the store went away meanwhile.
 */
export async function askExclusions(store: () => MemoryStore | undefined, items: readonly ExclusionQuery[]): Promise<Exclusions | undefined> {
	const decided: Exclusions = new Map();
	for (let at = 0; at < items.length; at += NOTE_BATCH_SIZE) {
		const current = store();
		if (current === undefined) return undefined;
		const batch = items.slice(at, at + NOTE_BATCH_SIZE);
		const reasons = await current.exclusions(batch);
		batch.forEach((item, index) => decided.set(item.path, reasons[index] ?? null));
	}
	return decided;
}
