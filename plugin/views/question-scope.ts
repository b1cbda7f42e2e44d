// What a question is limited to, as the ask panel holds it (no Obsidian imports): notes,
// folders, tags, days and a selected passage, their labels, and the scope the core applies.

import type { QuestionScope } from "../core/memory-core-api";

export type ScopeItem =
	| { kind: "note"; path: string }
	| { kind: "folder"; path: string }
	/** Lower case, without `#`; nested tags count (`travel` holds `travel/europe`). */
	| { kind: "tag"; tag: string }
	/** `YYYY-MM-DD`, inclusive. */
	| { kind: "days"; from: string; to: string }
	| { kind: "selection"; path: string; text: string };

/** The most text of a selection a question carries (the core cuts it there too). */
export const MAX_PASSAGE_CHARS = 4_000;

function noteName(path: string): string {
	return (path.split("/").pop() ?? path).replace(/\.md$/, "");
}

/** How the panel names an item: `Lisbon`, `Trips/`, `#travel`, `2026-03-01 to 2026-03-31`, `Selection in Lisbon`. */
export function scopeLabel(item: ScopeItem): string {
	switch (item.kind) {
		case "note":
			return noteName(item.path);
		case "folder":
			return `${item.path}/`;
		case "tag":
			return `#${item.tag}`;
		case "days":
			return item.from === item.to ? item.from : `${item.from} to ${item.to}`;
		case "selection":
			return `Selection in ${noteName(item.path)}`;
	}
}

/** What the model is told the scope is: paths in full, so "this note" is unambiguous. */
function modelLabel(item: ScopeItem): string {
	if (item.kind === "note") return item.path;
	if (item.kind === "tag") return `notes tagged #${item.tag}`;
	if (item.kind === "days") return item.from === item.to ? `the day ${item.from}` : `the days ${item.from} to ${item.to}`;
	if (item.kind === "selection") return `a passage selected in ${item.path}`;
	return `the folder ${item.path}/`;
}

/** Two items are the same scope when this is equal (a second pick of one note is not added). */
export function scopeKey(item: ScopeItem): string {
	switch (item.kind) {
		case "note":
		case "folder":
			return `${item.kind}:${item.path}`;
		case "tag":
			return `tag:${item.tag}`;
		case "days":
			// One range at a time: a new one replaces the old.
			return "days";
		case "selection":
			return "selection";
	}
}

/** A tag as the scope keeps it: lower case, no `#`, no spaces; "" when nothing is left. */
export function normaliseTag(tag: string): string {
	return tag.trim().replace(/^#+/, "").toLowerCase();
}

/** Whether a note with `tags` (normalised) carries `tag` or one nested under it. */
export function hasTag(tags: readonly string[], tag: string): boolean {
	return tags.some((candidate) => candidate === tag || candidate.startsWith(`${tag}/`));
}

export type ScopeResult = { scope: QuestionScope | undefined } | { problem: string };

/**
 * The scope the core applies for `items`, with each tag given as its notes (`notesWithTag`);
 * undefined when nothing limits the question. A tag no note carries is a problem, not "all".
 */
export function questionScope(items: readonly ScopeItem[], notesWithTag: (tag: string) => readonly string[]): ScopeResult {
	if (items.length === 0) return { scope: undefined };
	const notes = new Set<string>();
	const folders: string[] = [];
	const scope: QuestionScope = { labels: items.map(modelLabel) };
	for (const item of items) {
		if (item.kind === "note") notes.add(item.path);
		else if (item.kind === "folder") folders.push(item.path);
		else if (item.kind === "tag") {
			const tagged = notesWithTag(item.tag);
			if (tagged.length === 0) return { problem: `No note is tagged #${item.tag}: remove the tag from the question's scope.` };
			for (const path of tagged) notes.add(path);
		} else if (item.kind === "days") {
			scope.from = item.from;
			scope.to = item.to;
		} else {
			scope.passage = item.text.slice(0, MAX_PASSAGE_CHARS);
			scope.passagePath = item.path;
		}
	}
	scope.notes = [...notes];
	scope.folders = folders;
	return { scope };
}
