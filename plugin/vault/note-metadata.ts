// What the exclusion rules need to know about a note's content: its `memory` property and
// its tags, from Obsidian's metadata cache or, when the cache has not seen it, from the text.

/** The part of a note's properties and tags that decides whether it is remembered. */
export interface NoteMetadata {
	/** False when the note's properties say `memory: false`. */
	memory: boolean;
	/** Lower-case tags without `#`, from the properties and the body. */
	tags: string[];
}

/** The shape of Obsidian's `CachedMetadata` that is read here (types only, no import). */
export interface CachedNoteMetadata {
	frontmatter?: Record<string, unknown>;
	tags?: Array<{ tag: string }>;
}

function normaliseTag(tag: string): string {
	return tag.trim().replace(/^#/, "").toLowerCase();
}

/** Tags in a `tags`/`tag` property: a list, or a string of comma- or space-separated tags. */
function propertyTags(frontmatter: Record<string, unknown>): string[] {
	const tags: string[] = [];
	for (const key of ["tags", "tag"]) {
		const value = frontmatter[key];
		const items = Array.isArray(value) ? value : typeof value === "string" ? value.split(/[,\s]+/) : [];
		for (const item of items) if (typeof item === "string" && normaliseTag(item) !== "") tags.push(normaliseTag(item));
	}
	return tags;
}

function memoryDisabled(frontmatter: Record<string, unknown>): boolean {
	const value = frontmatter.memory;
	return value === false || (typeof value === "string" && value.trim().toLowerCase() === "false");
}

/** From the metadata cache's entry for a note. */
export function metadataFromCache(cache: CachedNoteMetadata): NoteMetadata {
	const frontmatter = cache.frontmatter ?? {};
	const tags = [...propertyTags(frontmatter), ...(cache.tags ?? []).map((item) => normaliseTag(item.tag))];
	return { memory: !memoryDisabled(frontmatter), tags };
}

/** A minimal YAML reading of the properties block: scalars, inline lists and `- item` lists. */
function parseFrontmatter(block: string): Record<string, unknown> {
	const properties: Record<string, unknown> = {};
	let listKey: string | null = null;
	for (const line of block.split("\n")) {
		const item = /^\s+-\s*(.*)$/.exec(line) ?? /^-\s+(.*)$/.exec(line);
		if (item && listKey !== null) {
			(properties[listKey] as string[]).push(unquote(item[1] ?? ""));
			continue;
		}
		const pair = /^([^\s:#][^:]*):\s*(.*)$/.exec(line);
		if (!pair) continue;
		const key = (pair[1] ?? "").trim();
		const value = (pair[2] ?? "").trim();
		listKey = null;
		if (value === "") {
			properties[key] = [];
			listKey = key;
		} else if (value.startsWith("[") && value.endsWith("]")) {
			properties[key] = value.slice(1, -1).split(",").map(unquote).filter((part) => part !== "");
		} else {
			properties[key] = /^false$/i.test(value) ? false : unquote(value);
		}
	}
	return properties;
}

function unquote(value: string): string {
	return value.trim().replace(/^(["'])(.*)\1$/, "$2");
}

/** Inline `#tags` of the body, outside code blocks and inline code. */
function inlineTags(body: string): string[] {
	const withoutCode = body.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, "").replace(/`[^`\n]*`/g, "");
	const tags: string[] = [];
	for (const match of withoutCode.matchAll(/(?:^|[\s(,;])#([^\s#,;:.!?()[\]{}"'`]+)/gu)) {
		const tag = match[1] ?? "";
		// A tag needs something other than digits (`#123` is not a tag in Obsidian).
		if (/[^\d/]/.test(tag)) tags.push(normaliseTag(tag));
	}
	return tags;
}

/** From a note's text, when the metadata cache has no entry for it yet. */
export function metadataFromText(text: string): NoteMetadata {
	const normalised = text.replace(/^\ufeff/, "").replace(/\r\n?/g, "\n");
	const match = /^---\n([\s\S]*?)\n---(?:\n|$)/.exec(normalised);
	const frontmatter = match ? parseFrontmatter(match[1] ?? "") : {};
	const body = match ? normalised.slice(match[0].length) : normalised;
	return { memory: !memoryDisabled(frontmatter), tags: [...propertyTags(frontmatter), ...inlineTags(body)] };
}
