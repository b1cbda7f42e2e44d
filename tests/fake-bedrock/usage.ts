// The fake's token accounting: about four characters a token, and a prompt cache keyed by the prefix before a cachePoint.

import { decodeBase64, readImageHeader } from "./media";
import { type ContentBlock, asRecord } from "./replies";

/** Converse's `usage` object. */
export interface TokenUsage {
	inputTokens: number;
	outputTokens: number;
	totalTokens: number;
	cacheReadInputTokens: number;
	cacheWriteInputTokens: number;
}

/** Bedrock keeps a cached prefix for five minutes after its last use. */
export const CACHE_TTL_MS = 5 * 60 * 1000;

export function estimateTokens(chars: number): number {
	return Math.ceil(chars / 4);
}

/**
 * Claude Haiku 5.5's tokenizer (that of Opus 4.7 and later) counts the same text as "approximately 30% more
 * tokens" than Haiku 4.5's (Anthropic's Haiku 5.5 overview and migration guide; models-research §1).
 */
const LARGER_TOKENIZER = /claude-(haiku-5-5|opus-4-7|opus-4-8|opus-5|sonnet-5)/;

/** The tokens `chars` characters make for `modelId`: about four characters a token, 30% more with the newer tokenizer. */
export function modelTokens(modelId: string, chars: number): number {
	return LARGER_TOKENIZER.test(modelId) ? Math.ceil((chars / 4) * 1.3) : estimateTokens(chars);
}

/**
 * A rough prompt cache: the prefix is everything before the request's last `cachePoint` block, in
 * Bedrock's order (tools, then system, then messages). The first request with a given prefix (per
 * model) writes it; later ones within the TTL read it. Cached tokens are not counted in inputTokens,
 * as on Bedrock; totalTokens is the sum of all four counts.
 */
export class PromptCache {
	private readonly lastUsed = new Map<string, number>();

	/** `thinking`: the text the model thought, billed as output whether or not the answer shows it. */
	usage(modelId: string, requestBody: string, json: Record<string, unknown>, content: readonly ContentBlock[], now: number, thinking = ""): TokenUsage {
		const requestTokens = promptTokens(modelId, requestBody.length, json);
		const outputTokens = Math.max(1, modelTokens(modelId, replyChars(content))) + modelTokens(modelId, thinking.length);
		const prefix = cachedPrefix(json);
		let cacheRead = 0;
		let cacheWrite = 0;
		const prefixTokens = prefix === undefined ? 0 : Math.min(promptTokens(modelId, prefix.json.length, prefix.blocks), requestTokens);
		// As on Bedrock, a prefix shorter than the model's minimum is simply not cached.
		if (prefix !== undefined && prefixTokens >= cacheMinimumTokens(modelId)) {
			const key = `${modelId}\n${prefix.json}`;
			const last = this.lastUsed.get(key);
			if (last !== undefined && now - last <= CACHE_TTL_MS) cacheRead = prefixTokens;
			else cacheWrite = prefixTokens;
			this.lastUsed.set(key, now);
		}
		const inputTokens = Math.max(1, requestTokens - cacheRead - cacheWrite);
		return {
			inputTokens,
			outputTokens,
			totalTokens: inputTokens + outputTokens + cacheRead + cacheWrite,
			cacheReadInputTokens: cacheRead,
			cacheWriteInputTokens: cacheWrite,
		};
	}

	clear(): void {
		this.lastUsed.clear();
	}
}

/**
 * The fewest tokens a cached prefix needs (Bedrock's prompt-caching table): 4,096 for Claude
 * Haiku 4.5 and Opus 4.5, 2,048 for Claude 3.5 Haiku, 1,024 for the other Claude models; 512 for
 * the 5.x models (the Bedrock cards of Opus 5, Fable 5 and Mythos 5; Anthropic's Haiku 5.5
 * overview — Bedrock's own Haiku 5.5 figure UNCONFIRMED, models-research §1).
 */
export function cacheMinimumTokens(modelId: string): number {
	if (/claude-(haiku|sonnet|opus)-5|claude-(fable|mythos)-5/.test(modelId)) return 512;
	if (/claude-haiku-4-5|claude-opus-4-5/.test(modelId)) return 4_096;
	if (/claude-3-5-haiku/.test(modelId)) return 2_048;
	return 1_024;
}

/** The blocks before the last cachePoint and their serialization, or undefined when the request has none. */
function cachedPrefix(json: Record<string, unknown>): { blocks: unknown[]; json: string } | undefined {
	const blocks: unknown[] = [];
	blocks.push(...arrayOf(asRecord(json.toolConfig)?.tools));
	blocks.push(...arrayOf(json.system));
	for (const message of arrayOf(json.messages)) {
		const record = asRecord(message);
		blocks.push({ role: record?.role }, ...arrayOf(record?.content));
	}
	let last = -1;
	blocks.forEach((block, index) => {
		if (asRecord(block)?.cachePoint !== undefined) last = index;
	});
	if (last < 0) return undefined;
	const prefix = blocks.slice(0, last);
	return { blocks: prefix, json: JSON.stringify(prefix) };
}

/**
 * The input tokens of `chars` characters of request JSON holding the media blocks found in `value`: the text at
 * about four characters a token, without the base64 of images and documents, and each image and document by what
 * it costs instead (`mediaTokens`).
 */
function promptTokens(modelId: string, chars: number, value: unknown): number {
	let base64Chars = 0;
	let tokens = 0;
	for (const media of mediaIn(value)) {
		base64Chars += media.base64.length;
		tokens += mediaTokens(media);
	}
	return modelTokens(modelId, Math.max(0, chars - base64Chars)) + tokens;
}

/** Anthropic's vision guide: an image whose long edge exceeds 1,568 px or that would cost over ~1,600 tokens is first scaled down. */
const IMAGE_LONG_EDGE = 1_568;
const IMAGE_MAX_TOKENS = 1_600;
/** Anthropic's vision guide: an image costs about width × height / 750 tokens. */
const PIXELS_PER_TOKEN = 750;

/** The tokens of width × height pixels once scaled down as Anthropic does (the proportions kept). */
export function imageTokens(width: number, height: number): number {
	const pixels = width * height;
	if (pixels === 0) return 0;
	const scale = Math.min(1, IMAGE_LONG_EDGE / Math.max(width, height), Math.sqrt((IMAGE_MAX_TOKENS * PIXELS_PER_TOKEN) / pixels));
	return Math.ceil((Math.round(width * scale) * Math.round(height * scale)) / PIXELS_PER_TOKEN);
}

interface MediaText {
	kind: "image" | "document";
	base64: string;
}

/**
 * What an image or a document costs: an image by its pixels (an unreadable one costs nothing: Bedrock refuses it
 * before the model); a document, roughly, as text of its decoded size (the fake's own simplification, PDFs included).
 */
function mediaTokens(media: MediaText): number {
	const bytes = decodeBase64(media.base64);
	if (bytes === undefined) return 0;
	if (media.kind === "document") return estimateTokens(bytes.length);
	const size = readImageHeader(bytes)?.size;
	return size === undefined ? 0 : imageTokens(size.width, size.height);
}

/** The `image` and `document` blocks with base64 bytes anywhere in `value` (messages, tool results, a cached prefix). */
function mediaIn(value: unknown): MediaText[] {
	const found: MediaText[] = [];
	const visit = (node: unknown): void => {
		if (Array.isArray(node)) {
			for (const item of node) visit(item);
			return;
		}
		const record = asRecord(node);
		if (!record) return;
		for (const kind of ["image", "document"] as const) {
			const bytes = asRecord(asRecord(record[kind])?.source)?.bytes;
			if (typeof bytes === "string") found.push({ kind, base64: bytes });
		}
		for (const child of Object.values(record)) visit(child);
	};
	visit(value);
	return found;
}

function arrayOf(value: unknown): unknown[] {
	return Array.isArray(value) ? value : [];
}

function replyChars(content: readonly ContentBlock[]): number {
	let chars = 0;
	for (const block of content) {
		// Reasoning is billed from what was thought (see `usage`), not from the text shown.
		if ("text" in block) chars += block.text.length;
		else if ("toolUse" in block) chars += block.toolUse.name.length + JSON.stringify(block.toolUse.input ?? null).length;
	}
	return chars;
}
