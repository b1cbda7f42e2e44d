// A stand-in for Claude behind the fake Bedrock, for the interface tests: it records a memory of
// each note section, connects memories into insights, and answers questions citing the memories
// whose summaries share words with the question — all read from the real prompts the core sends.

import type { RecordedRequest, Reply } from "../fake-bedrock/index";
import { requestedToolName } from "../fake-bedrock/replies";

/** A memory the model "extracts" from any note text that contains `phrase`. */
export interface PlannedMemory {
	phrase: string;
	summary: string;
	entities?: Array<{ name: string; kind: "person" | "place" | "organisation" | "thing" }>;
	topics?: string[];
	importance?: number;
	happenedOn?: string;
	/** The self-contained facts it records besides the summary. */
	facts?: string[];
}

export interface MemoryModelOptions {
	memories?: PlannedMemory[];
	/** The text of the one insight made of two memories of a batch. */
	insight?: string;
	/** Words that pick the insight's memories from the batch (the first two lines otherwise). */
	connects?: [string, string];
	/** What the query planner adds for a question containing the key (besides its own words). */
	plans?: Record<string, string[]>;
	/**
	 * Answer as a model would for the screenshots: the memories that share the most words with
	 * the question first (word forms too: "fly" finds "flying"), ones sharing less than half as
	 * many left out, and an insight only when it is about the question; the insight is made
	 * only of the memories `connects` picks (none when the batch lacks one of them).
	 */
	focused?: boolean;
	/** Notes containing the key are remembered after that many milliseconds (to order the memories). */
	later?: Record<string, number>;
}

/** A memory line of the query prompt: `[memory:ID] date · source · summary · …`. */
export interface PromptMemory {
	id: string;
	source: string;
	summary: string;
}

function requestText(request: RecordedRequest): string {
	const json = request.json as { messages?: Array<{ content?: Array<{ text?: string }> }> } | undefined;
	return (json?.messages ?? []).flatMap((message) => (message.content ?? []).map((block) => block.text ?? "")).join("\n");
}

/** The memories listed in a query prompt. */
export function promptMemories(text: string): PromptMemory[] {
	return [...text.matchAll(/^\[memory:([^\]]+)\] [^·]+ · ([^·]+) · ([^·\n]+)/gm)].map((match) => ({
		id: match[1] ?? "",
		source: (match[2] ?? "").trim(),
		summary: (match[3] ?? "").trim(),
	}));
}

function words(text: string): Set<string> {
	return new Set(text.toLowerCase().split(/[^\p{L}\p{N}]+/u).filter((word) => word.length > 3));
}

/** `fake.respond = memoryModel({...})`. */
export function memoryModel(options: MemoryModelOptions = {}): (request: RecordedRequest) => Reply {
	return (request) => {
		const json = (request.json ?? {}) as Record<string, unknown>;
		const text = requestText(request);
		const forced = (json.toolConfig as { toolChoice?: unknown } | undefined)?.toolChoice !== undefined;
		const tool = forced ? requestedToolName(json) : "";
		if (tool === "record_memory") {
			const delay = Object.entries(options.later ?? {}).find(([phrase]) => text.includes(phrase))?.[1];
			return delay === undefined ? recordMemory(text, options) : { slow: delay, then: recordMemory(text, options) };
		}
		if (tool === "plan_search") return planSearch(text, options);
		if (tool === "record_insights") {
			const lines = [...text.matchAll(/^\[([^\]]+)\] (.*)$/gm)].map((match) => ({ id: match[1] ?? "", line: match[2] ?? "" }));
			const picked = options.connects?.map((word) => lines.find((line) => line.line.includes(word))?.id);
			const found = picked?.every((id) => id !== undefined) === true;
			if (options.focused === true && !found) return { toolUse: { name: "record_insights", input: { insights: [] } } };
			const [from = "", to = ""] = found ? (picked as string[]) : lines.map((line) => line.id);
			if (from === "" || to === "" || from === to) return { toolUse: { name: "record_insights", input: { insights: [] } } };
			return {
				toolUse: {
					name: "record_insights",
					input: { insights: [{ insight: options.insight ?? "These memories are about the same plan.", memory_ids: [from, to], connections: [{ from, to, relationship: "same plan" }] }] },
				},
			};
		}
		return { text: options.focused === true ? focusedAnswer(text) : answer(text) };
	};
}

/** The question's own longer words, and the related words the options give for it. */
function planSearch(text: string, options: MemoryModelOptions): Reply {
	const question = /<question>\n([\s\S]*)\n<\/question>/.exec(text)?.[1] ?? "";
	const own = [...words(question)].filter((word) => word.length > 3);
	const related = Object.entries(options.plans ?? {}).find(([key]) => question.includes(key))?.[1] ?? [];
	return { toolUse: { name: "plan_search", input: { keywords: [...own, ...related], entities: [] } } };
}

function recordMemory(text: string, options: MemoryModelOptions): Reply {
	// The fence opens with the note's file name, section and properties, then a blank line.
	const note = (/<note>\n([\s\S]*)\n<\/note>/.exec(text)?.[1] ?? text).replace(/^(?:(?:File|Section|Properties): .*\n)+\n/, "");
	const planned = options.memories?.find((memory) => note.includes(memory.phrase));
	const input = planned
		? {
				nothing_to_remember: false,
				summary: planned.summary,
				entities: planned.entities ?? [],
				topics: planned.topics ?? [],
				importance: planned.importance ?? 0.5,
				happened_on: planned.happenedOn ? [planned.happenedOn] : [],
				facts: planned.facts ?? [],
			}
		: {
				nothing_to_remember: false,
				summary: note.replace(/^#+ .*$/gm, "").trim().split(/(?<=[.!?])\s/)[0]?.slice(0, 200) || "A note without words.",
				entities: [],
				topics: [],
				importance: 0.3,
				happened_on: [],
			};
	return { toolUse: { name: "record_memory", input } };
}

/**
 * Cites the memories sharing words with the question (else the first), and any insight listed.
 * The last two share one bracket, `[memory:a, memory:b]`, as Claude often writes them.
 */
function answer(text: string): string {
	const question = /Question: (.*)$/m.exec(text)?.[1] ?? "";
	const memories = promptMemories(text);
	const asked = words(question);
	const relevant = memories.filter((memory) => [...words(memory.summary)].some((word) => asked.has(word)));
	const cited = (relevant.length > 0 ? relevant : memories).slice(0, 3);
	if (cited.length === 0) return "That is not in your memories.";
	const insight = /^\[consolidation:([^\]]+)\] (.*?) \(from/m.exec(text);
	const single = cited.length >= 2 ? cited.slice(0, -2) : cited;
	const lines = single.map((memory) => `- ${memory.summary} [memory:${memory.id}]`);
	const together = cited.slice(single.length);
	if (together.length === 2) {
		lines.push(`- ${together.map((memory) => memory.summary).join(" ")} [${together.map((memory) => `memory:${memory.id}`).join(", ")}]`);
	}
	const closing = insight ? `\n\n**Together:** ${insight[2]} [consolidation:${insight[1]}]` : "";
	return `Here is what your notes say:\n\n${lines.join("\n")}${closing}`;
}

/** Words a question is not about. */
const QUESTION_WORDS = new Set(
	"the and are was were what when where which who whom why how does did our for with that this about from have has had you your they them their there into any".split(" "),
);

/** The words of `text` of three letters or more that say what it is about. */
function topicWords(text: string): string[] {
	return text
		.toLowerCase()
		.split(/[^\p{L}\p{N}]+/u)
		.filter((word) => word.length >= 3 && !QUESTION_WORDS.has(word));
}

/** How many of the question's words `text` has, in any form that starts like them. */
function overlap(question: readonly string[], text: string): number {
	const own = topicWords(text);
	return question.filter((asked) => own.some((word) => word.startsWith(asked) || asked.startsWith(word))).length;
}

/** The answer of `focused`: the best memories first, the insight when it is about the question. */
function focusedAnswer(text: string): string {
	// Earlier turns come first in the messages: the question asked now is the last one.
	const question = topicWords([...text.matchAll(/^Question: (.*)$/gm)].at(-1)?.[1] ?? "");
	const scored = promptMemories(text)
		.map((memory, index) => ({ memory, index, score: overlap(question, memory.summary) }))
		.filter((entry) => entry.score > 0)
		.sort((a, b) => b.score - a.score || a.index - b.index);
	const best = scored[0]?.score ?? 0;
	const cited = scored.filter((entry) => entry.score * 2 >= best).slice(0, 3);
	if (cited.length === 0) return "Your notes do not say.";
	const insight = /^\[consolidation:([^\]]+)\] (.*?) \(from/m.exec(text);
	const lines = cited.map(({ memory }) => `- ${memory.summary} [memory:${memory.id}]`);
	const closing = insight && overlap(question, insight[2] ?? "") > 0 ? `\n\n**Together:** ${insight[2]} [consolidation:${insight[1]}]` : "";
	return `Here is what your notes say:\n\n${lines.join("\n")}${closing}`;
}
