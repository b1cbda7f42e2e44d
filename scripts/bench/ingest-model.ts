// The first-ingest benchmark's stand-in for Claude: answers `record_memory` (one chunk) and the
// batched `record_memories` (one entry per `<note id="cN">` fence, keyed by its id) with
// outputs sized like Claude's, so that output tokens scale with the text as a real model's
// would: a summary of one or two sentences, about one fact for every 40 words of the chunk
// (what the IngestAgent's system prompt asks for, `WORDS_PER_FACT` in src/agents/ingest.rs),
// a few entities and topics, the dates the text names.

import type { RecordedRequest, Reply } from "../../tests/fake-bedrock/index";
import { requestedToolName } from "../../tests/fake-bedrock/replies";
import { benchModel, entitiesOf, hash, prose, summaryOf, topicsOf, userText } from "./model";

/** src/agents/ingest.rs: a fact for every 40 words, at least 3 and at most 30 allowed. */
const WORDS_PER_FACT = 40;
const MIN_FACT_LIMIT = 3;
const MAX_FACT_LIMIT = 30;
/** A fact is one short sentence (Haiku's run 60–160 characters); the core refuses over 300. */
const FACT_CHARS = 160;

/** src/tokens.rs's estimate: a token per CJK, Hangul or Thai character, a quarter per other. */
function coreTokens(text: string): number {
	const dense = text.match(/[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}\p{Script=Thai}]/gu)?.length ?? 0;
	return dense + Math.ceil((text.length - dense) / 4);
}

/** The core's `fact_limit`, which a valid answer must keep to. */
function factLimit(text: string): number {
	return Math.min(MAX_FACT_LIMIT, Math.max(MIN_FACT_LIMIT, Math.floor((coreTokens(text) * 3) / 4 / WORDS_PER_FACT) + 1));
}

/** About one fact per 40 words (words by the core's ¾ of a token, so scripts without spaces count), within the limit. */
function factsOf(text: string): string[] {
	const words = (coreTokens(text) * 3) / 4;
	const wanted = Math.min(factLimit(text), Math.max(1, Math.round(words / WORDS_PER_FACT)));
	const pieces = prose(text)
		.split(/(?<=[.!?。:：])\s+/)
		.map((piece) => piece.trim())
		.filter((piece) => piece.length >= 8);
	if (pieces.length === 0) return [];
	const facts: string[] = [];
	for (let i = 0; i < wanted; i++) {
		// Evenly spread over the text, as a model's facts cover the whole chunk.
		const piece = pieces[Math.floor((i * pieces.length) / wanted)]!;
		const fact = piece.length > FACT_CHARS ? `${piece.slice(0, FACT_CHARS - 1).replace(/\s+\S*$/, "")}…` : piece;
		if (!facts.includes(fact)) facts.push(fact);
	}
	return facts;
}

/** A fence's inside: "File:", "Section:" and "Properties:" lines, a blank line, then the text. */
function parseFence(inside: string): { path: string; text: string } {
	const text = inside.replace(/^(?:(?:File|Section|Properties): .*\n)+\n/, "");
	return { path: /^File: (.*)$/m.exec(inside)?.[1] ?? "", text };
}

/** One memory of a chunk, the fields of `record_memory`. */
function memoryOf(inside: string): Record<string, unknown> {
	const { path, text } = parseFence(inside);
	const dates = [...new Set(text.match(/\b\d{4}-\d{2}-\d{2}\b/g) ?? [])].slice(0, 5);
	return {
		nothing_to_remember: false,
		summary: summaryOf(text),
		facts: factsOf(text),
		entities: entitiesOf(text),
		topics: topicsOf(text, path),
		importance: 0.2 + (hash(text) % 60) / 100,
		happened_on: dates,
	};
}

/** `record_memory`: the one `<note>` fence of the message. */
function recordMemory(message: string): Reply {
	const inside = /<note>\n([\s\S]*)\n<\/note>/.exec(message)?.[1] ?? "";
	return { toolUse: { name: "record_memory", input: memoryOf(inside) } };
}

/** `record_memories`: one entry per `<note id="cN">` fence (other attributes allowed), in the message's order. */
function recordMemories(message: string): Reply {
	const memories = [...message.matchAll(/<note id="([^"]+)"[^>]*>\n([\s\S]*?)\n<\/note>/g)].map((match) => ({ chunk: match[1]!, ...memoryOf(match[2]!) }));
	return { toolUse: { name: "record_memories", input: { memories } } };
}

/** How many chunks a request carries (1 for `record_memory`), for the per-call figures. */
export function chunksIn(request: RecordedRequest): number {
	const message = userText(request);
	const batched = message.match(/<note id="[^"]+"[^>]*>\n/g)?.length ?? 0;
	return batched > 0 ? batched : /<note>\n/.test(message) ? 1 : 0;
}

/** `fake.respond` for the ingest benchmark; other calls (consolidation, questions) as `benchModel`. */
export function ingestModel(request: RecordedRequest): Reply {
	const json = (request.json ?? {}) as Record<string, unknown>;
	const forced = (json.toolConfig as { toolChoice?: unknown } | undefined)?.toolChoice !== undefined;
	const tool = forced ? requestedToolName(json) : "";
	if (tool === "record_memory") return recordMemory(userText(request));
	if (tool === "record_memories") return recordMemories(userText(request));
	return benchModel(request);
}
