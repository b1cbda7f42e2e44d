// Which vault files Memory Agent may remember: by path (type, folders, patterns, Obsidian's
// "Excluded files", the plugin's own files) and by content (`memory: false`, excluded tags).

import { GlobList } from "./glob";
import type { NoteMetadata } from "./note-metadata";

export interface ScopeRules {
	configDir: string;
	databasePath: string;
	includePlainText: boolean;
	excludedFolders: readonly string[];
	excludedPatterns: readonly string[];
	excludedTags: readonly string[];
	/** Obsidian's "Excluded files": folder or file paths, or `/regex/`. */
	ignoreFilters: readonly string[];
}

function trimSlashes(path: string): string {
	return path.trim().replace(/^\/+|\/+$/g, "");
}

/** True when `path` is `folder` itself or inside it. */
function inFolder(path: string, folder: string): boolean {
	return folder !== "" && (path === folder || path.startsWith(`${folder}/`));
}

export class NoteScope {
	private readonly folders: string[];
	private readonly patterns: GlobList;
	private readonly ignorePrefixes: string[];
	private readonly ignoreRegExps: RegExp[];
	private readonly tags: string[];

	constructor(private readonly rules: ScopeRules) {
		this.folders = rules.excludedFolders.map(trimSlashes).filter((folder) => folder !== "");
		this.patterns = new GlobList(rules.excludedPatterns);
		this.tags = rules.excludedTags.map((tag) => tag.trim().replace(/^#/, "").toLowerCase()).filter((tag) => tag !== "");
		this.ignorePrefixes = [];
		this.ignoreRegExps = [];
		for (const filter of rules.ignoreFilters) {
			const regex = /^\/(.+)\/([a-z]*)$/.exec(filter.trim());
			if (regex) {
				try {
					this.ignoreRegExps.push(new RegExp(regex[1] ?? "", regex[2]));
				} catch {
					// A broken expression in Obsidian's settings excludes nothing (as in Obsidian).
				}
			} else if (filter.trim() !== "") {
				this.ignorePrefixes.push(filter.trim());
			}
		}
	}

	/** True when excluded tags are set, so notes must be looked at before they are queued. */
	get checksTags(): boolean {
		return this.tags.length > 0;
	}

	/** Why a file is not remembered because of its path or type, or null when it may be. */
	pathExclusion(path: string): string | null {
		const extension = path.slice(path.lastIndexOf(".") + 1).toLowerCase();
		if (extension !== "md" && !(extension === "txt" && this.rules.includePlainText)) return "not a note";
		if (inFolder(path, trimSlashes(this.rules.configDir))) return "in the vault's configuration folder";
		if (path === trimSlashes(this.rules.databasePath) || path.startsWith(`${trimSlashes(this.rules.databasePath)}.`)) {
			return "Memory Agent's database";
		}
		const folder = this.folders.find((excluded) => inFolder(path, excluded));
		if (folder !== undefined) return `in the excluded folder ${folder}`;
		if (this.patterns.matches(path)) return "matches an excluded pattern";
		const ignored =
			this.ignorePrefixes.some((prefix) => path.startsWith(prefix) || inFolder(path, trimSlashes(prefix))) ||
			this.ignoreRegExps.some((regex) => regex.test(path));
		if (ignored) return "in Obsidian's excluded files";
		return null;
	}

	/** Why a note is not remembered because of its properties or tags, or null when it may be. */
	contentExclusion(metadata: NoteMetadata): string | null {
		if (!metadata.memory) return "its properties say memory: false";
		const tag = metadata.tags.find((noteTag) => this.tags.some((excluded) => noteTag === excluded || noteTag.startsWith(`${excluded}/`)));
		return tag === undefined ? null : `it has the excluded tag #${tag}`;
	}
}
