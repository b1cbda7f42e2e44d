// The benchmark's stand-in for Claude: answers shaped like a real model's, made from the note
// text the core sends, so that memories have realistic sizes — a summary of one or two
// sentences (at most 260 characters, as Haiku writes them), a few entities and topics, the
// note's date — and consolidations connect memories that share a name.

import type { RecordedRequest, Reply } from "../../tests/fake-bedrock/index";
import { requestedToolName } from "../../tests/fake-bedrock/replies";

/** The user message the core sent (every text block). */
export function userText(request: RecordedRequest): string {
	const json = (request.json ?? {}) as { messages?: Array<{ content?: Array<{ text?: string }> }> };
	return (json.messages ?? []).flatMap((message) => message.content ?? []).map((block) => block.text ?? "").join("\n");
}

export function hash(text: string): number {
	let h = 2166136261;
	for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 16777619);
	return h >>> 0;
}

/** The note's prose without Markdown: headings, list marks, code ticks, links. */
export function prose(note: string): string {
	return note
		.replace(/^---\n[\s\S]*?\n---\n/, "")
		.replace(/^#+ .*$/gm, "")
		.replace(/`([^`]*)`/g, "$1")
		.replace(/\[\[([^\]|]+)(\|[^\]]+)?\]\]/g, "$1")
		.replace(/\[([^\]]+)\]\([^)]+\)/g, "$1")
		.replace(/<https?:[^>]+>/g, "")
		.replace(/^\s*(>|-|\*|\d+\.)\s*(\[.\]\s*)?/gm, "")
		.replace(/\s+/g, " ")
		.trim();
}

/** The summary of a text without prose (its own words are not in it). */
export const NO_PROSE_SUMMARY = "A note without prose.";

export function summaryOf(note: string): string {
	const sentences = prose(note).split(/(?<=[.!?。])\s+/).filter((sentence) => sentence.length > 0);
	let summary = sentences.slice(0, 2).join(" ");
	if (summary.length > 260) summary = `${summary.slice(0, 257).replace(/\s+\S*$/, "")}…`;
	return summary || NO_PROSE_SUMMARY;
}

export function entitiesOf(note: string): Array<{ name: string; kind: string }> {
	const found = new Map<string, string>();
	for (const match of note.matchAll(/\b(\p{Lu}\p{Ll}+(?: \p{Lu}\p{Ll}+)+)\b/gu)) found.set(match[1]!, "person");
	for (const match of note.matchAll(/\[\[([^\]|]+)/g)) found.set(match[1]!, "thing");
	// A short title is what the note is about (a tldr page's command); a sentence-like one is not a name.
	const heading = /^# (.+)$/m.exec(note)?.[1];
	if (heading !== undefined && heading.split(/\s+/).length <= 3 && !/\d/.test(heading)) found.set(heading, "thing");
	return [...found]
		.map(([name, kind]) => [name.trim(), kind] as const)
		.filter(([name]) => name.length > 0 && name.length <= 60)
		.slice(0, 5)
		.map(([name, kind]) => ({ name, kind }));
}

export function topicsOf(note: string, path: string): string[] {
	const folder = path.split("/").slice(-2, -1)[0] ?? "notes";
	const words = prose(note).toLowerCase().match(/\p{L}{5,}/gu) ?? [];
	const counts = new Map<string, number>();
	for (const word of words) counts.set(word, (counts.get(word) ?? 0) + 1);
	const common = [...counts].sort((a, b) => b[1] - a[1]).slice(0, 2).map(([word]) => word);
	return [folder.toLowerCase(), ...common].slice(0, 3);
}

function recordMemory(text: string): Reply {
	// The fence opens with the note's file name, section and properties, then a blank line.
	const fenced = /<note>\n([\s\S]*)\n<\/note>/.exec(text)?.[1] ?? "";
	const note = fenced.replace(/^(?:(?:File|Section|Properties): .*\n)+\n/, "");
	const path = /^File: (.*)$/m.exec(fenced)?.[1] ?? "";
	const date = /\b(\d{4}-\d{2}-\d{2})\b/.exec(note)?.[1];
	return {
		toolUse: {
			name: "record_memory",
			input: {
				nothing_to_remember: false,
				summary: summaryOf(note),
				entities: entitiesOf(note),
				topics: topicsOf(note, path),
				importance: 0.2 + (hash(note) % 60) / 100,
				happened_on: date === undefined ? [] : [date],
			},
		},
	};
}

/** Insights over memories of the batch that share an entity (one per name, at most three). */
function recordInsights(text: string): Reply {
	const lines = [...text.matchAll(/^\[(m-[^\]]+)\] (.*)$/gm)].map((match) => ({ id: match[1]!, line: match[2]! }));
	const byName = new Map<string, string[]>();
	for (const { id, line } of lines) {
		for (const name of line.match(/\p{Lu}\p{Ll}+ \p{Lu}\p{Ll}+/gu) ?? []) byName.set(name, [...(byName.get(name) ?? []), id]);
	}
	const insights = [...byName]
		.filter(([, ids]) => new Set(ids).size >= 2)
		.slice(0, 3)
		.map(([name, ids]) => {
			const [from, to, third] = [...new Set(ids)];
			const memoryIds = [from!, to!, ...(third === undefined ? [] : [third])];
			return {
				insight: `${name} comes up again across these notes: the same people and plans, worth reading together before the next meeting.`,
				memory_ids: memoryIds,
				connections: [{ from: from!, to: to!, relationship: `both mention ${name}` }],
			};
		});
	return { toolUse: { name: "record_insights", input: { insights } } };
}

/** An answer citing the first memories of the prompt, as the QueryAgent asks. */
function answer(text: string): Reply {
	const ids = [...text.matchAll(/^\[memory:([^\]]+)\]/gm)].slice(0, 3).map((match) => match[1]!);
	if (ids.length === 0) return { text: "That is not in your memories." };
	return { text: `From your notes:\n\n${ids.map((id) => `- A fact from this memory [memory:${id}]`).join("\n")}` };
}

/** `fake.respond` for the benchmark. */
export function benchModel(request: RecordedRequest): Reply {
	const json = (request.json ?? {}) as Record<string, unknown>;
	const forced = (json.toolConfig as { toolChoice?: unknown } | undefined)?.toolChoice !== undefined;
	const tool = forced ? requestedToolName(json) : "";
	const text = userText(request);
	if (tool === "record_memory") return recordMemory(text);
	if (tool === "record_insights") return recordInsights(text);
	return answer(text);
}
