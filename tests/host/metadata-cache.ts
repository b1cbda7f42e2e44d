// Obsidian's MetadataCache for the hosts: what a test plants for a note, else null (not indexed yet).

import type { CachedMetadata, MetadataCache, TFile } from "obsidian";

export class HostMetadataCache implements Pick<MetadataCache, "getFileCache"> {
	readonly caches = new Map<string, CachedMetadata>();

	getFileCache(file: TFile): CachedMetadata | null {
		return this.caches.get(file.path) ?? null;
	}

	/** Plants the headings of a note as Obsidian's cache lists them (0-based lines). */
	setHeadings(path: string, headings: Array<{ heading: string; level: number; line: number }>): void {
		this.caches.set(path, {
			headings: headings.map(({ heading, level, line }) => ({
				heading,
				level,
				position: { start: { line, col: 0, offset: 0 }, end: { line, col: heading.length + level + 1, offset: 0 } },
			})),
		});
	}
}
