// What the scope pickers list and how a tag becomes its notes: read from Obsidian's metadata
// cache in slices, yielding between them, so a vault of any size never holds the main thread.

import type { App, CachedMetadata, TFile } from "obsidian";
import { hasTag } from "../views/question-scope";

/** Notes read between two yields to the event loop. */
const SLICE = 2_000;

const nextTask = () => new Promise<void>((resolve) => window.setTimeout(resolve, 0));

/**
 * A note's tags for the scope pickers (lower case, no `#`): the cache's body tags and its
 * `tags`/`tag` property. Only for choosing what a question covers; which notes are left out
 * of the memory is the core's decision, not this list's.
 */
function cacheTags(cache: CachedMetadata): string[] {
	const normalise = (tag: string) => tag.trim().replace(/^#/, "").toLowerCase();
	const tags = (cache.tags ?? []).map((item) => normalise(item.tag));
	for (const key of ["tags", "tag"]) {
		const value: unknown = cache.frontmatter?.[key];
		const items: unknown[] = Array.isArray(value) ? value : typeof value === "string" ? value.split(/[,\s]+/) : [];
		for (const item of items) if (typeof item === "string" && normalise(item) !== "") tags.push(normalise(item));
	}
	return tags;
}

/** Calls `visit` for every Markdown note with its tags (lower case, no `#`), a slice at a time. */
async function eachNoteTags(app: App, visit: (file: TFile, tags: readonly string[]) => void): Promise<void> {
	const files = app.vault.getMarkdownFiles();
	for (let start = 0; start < files.length; start += SLICE) {
		if (start > 0) await nextTask();
		for (const file of files.slice(start, start + SLICE)) {
			const cache = app.metadataCache.getFileCache(file);
			if (cache !== null) visit(file, cacheTags(cache));
		}
	}
}

/** The paths of the notes tagged `tag` or a tag nested under it. */
export async function notesWithTag(app: App, tag: string): Promise<string[]> {
	const paths: string[] = [];
	await eachNoteTags(app, (file, tags) => {
		if (hasTag(tags, tag)) paths.push(file.path);
	});
	return paths;
}

/** Every tag in the vault with how many notes carry it, the most used first. */
export async function vaultTags(app: App): Promise<Array<{ tag: string; notes: number }>> {
	const counts = new Map<string, number>();
	await eachNoteTags(app, (_file, tags) => {
		for (const tag of new Set(tags)) counts.set(tag, (counts.get(tag) ?? 0) + 1);
	});
	return [...counts].map(([tag, notes]) => ({ tag, notes })).sort((a, b) => b.notes - a.notes || a.tag.localeCompare(b.tag));
}

/** Every folder holding a note, directly or below, in path order. */
export function vaultFolders(app: App): string[] {
	const folders = new Set<string>();
	for (const file of app.vault.getMarkdownFiles()) {
		const parts = file.path.split("/").slice(0, -1);
		for (let depth = 1; depth <= parts.length; depth++) folders.add(parts.slice(0, depth).join("/"));
	}
	return [...folders].sort((a, b) => a.localeCompare(b));
}
