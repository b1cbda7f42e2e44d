// What each Claude model on Bedrock accepts in a Converse request and how it thinks, as the fake enforces it.
//
// Sources (collected in /work/notes/models-research.md, 2026-12-02):
// - Anthropic's Claude Haiku 5.5 migration guide (platform.claude.com/docs/en/models/haiku-5-5/migration-guide):
//   sampling rules, thinking modes, forced tool_choice accepted (the answer then has no thinking), prefill refused.
// - AWS's model card for Claude Haiku 5.5 (docs.aws.amazon.com/bedrock/latest/userguide/model-card-anthropic-claude-haiku-5-5):
//   "adaptive thinking is on by default and can be turned off; effort level configurable — low, medium, high, xhigh,
//   max; default: medium; effort capped at high when thinking is disabled"; no in-Region endpoint.
// - Bedrock error bodies recorded by vercel/ai (packages/amazon-bedrock/src/__fixtures__/): Opus 5's
//   "`temperature` is deprecated for this model." / "`top_p` …", Opus 5.5's forced-tool refusal.
// - "Thinking may not be enabled when tool_choice forces tool use." as Bedrock relays it for Claude Sonnet 4.6
//   (github.com/can1357/oh-my-pi/issues/341) and Anthropic's extended-thinking guide ("Thinking isn't compatible
//   with … forced tool use", "… temperature or top_k modifications").
// Wording marked UNCONFIRMED below is the fake's own, in Bedrock's "The model returned the following errors: …"
// format: no recorded answer was found for it.

import { createHash } from "node:crypto";
import { asRecord } from "./replies";

/** How a model takes the `thinking` field of `additionalModelRequestFields`. */
export type ThinkingStyle =
	/** No extended thinking: any thinking field is refused. */
	| "none"
	/** `{"type":"enabled","budget_tokens":N}` or `{"type":"disabled"}`; off unless asked. */
	| "budget"
	/** `{"type":"adaptive"}` or `{"type":"disabled"}`; a budget is refused. */
	| "adaptive"
	/** Adaptive and always on: `disabled` is refused too. */
	| "alwaysOn";

/** What a model does with a forced tool (`toolChoice` `tool`/`any`). */
export type ForcedToolRule =
	/** Allowed only while thinking is off. */
	| "onlyWithoutThinking"
	/** Allowed; the answer is the tool call, without thinking (Haiku 5.5). */
	| "answersWithoutThinking"
	/** Never allowed (Opus 5.5, Sonnet 5.5). */
	| "refused";

/** Which sampling parameters (`inferenceConfig.temperature`/`topP`, `additionalModelRequestFields.top_k`) it takes. */
export type SamplingRule =
	/** Any value in range (no thinking on). */
	| "free"
	/** As `free`, but `temperature` and `top_p` not both (Haiku 4.5, Sonnet 4.5, Opus 4.5). */
	| "oneOfTemperatureTopP"
	/** Haiku 5.5: `temperature` only 1, `top_p` only 0.99, never both, never `top_k`. */
	| "defaultsOnly"
	/** Opus 5: `temperature` and `top_p` refused as deprecated; `top_k` accepted. */
	| "deprecated";

export interface ModelRules {
	/** The base id, without a profile prefix. */
	base: string;
	thinking: ThinkingStyle;
	/** Thinks when the request says nothing about thinking. */
	thinksByDefault: boolean;
	forcedTool: ForcedToolRule;
	sampling: SamplingRule;
	/** The `output_config.effort` values it accepts; empty: the field is refused. */
	efforts: readonly string[];
	/** The efforts allowed while thinking is disabled (Haiku 5.5 caps them at high). */
	effortsWithoutThinking: readonly string[];
	/** Whether the bare id may be called on demand (Haiku 5.5 has only inference profiles). */
	inRegion: boolean;
	/** Whether the thinking text is shown by default; Haiku 5.5's is empty unless `display: "summarized"`. */
	showsThinking: boolean;
}

const ALL_EFFORTS = ["low", "medium", "high", "xhigh", "max"] as const;
const UP_TO_HIGH = ["low", "medium", "high"] as const;

function rules(base: string, partial: Partial<ModelRules>): ModelRules {
	return {
		base,
		thinking: "none",
		thinksByDefault: false,
		forcedTool: "onlyWithoutThinking",
		sampling: "free",
		efforts: [],
		effortsWithoutThinking: [],
		inRegion: true,
		showsThinking: true,
		...partial,
	};
}

/**
 * Budget-thinking models of the 4.x generation (AWS model cards: "enabled+budget", off by default); only Sonnet 4.5
 * has an in-Region endpoint (models-research §1). The 4.5 models take `temperature` or `top_p`, not both.
 */
const budget = (base: string, sampling: SamplingRule = "free", inRegion = false) => rules(base, { thinking: "budget", sampling, inRegion });
/**
 * Adaptive models of 4.6–4.8: adaptive on request only (UNCONFIRMED whether 4.7/4.8 think by default); Opus 4.7 and
 * 4.8 refuse `temperature` as deprecated (ComfyUI#13923, copilot-sdk#1557; models-research §1).
 */
const adaptive4 = (base: string, sampling: SamplingRule = "free") =>
	rules(base, { thinking: "adaptive", sampling, efforts: ALL_EFFORTS, effortsWithoutThinking: ALL_EFFORTS, inRegion: false });

/** The Claude models the fake knows; any other id is accepted without these checks. */
export const MODEL_RULES: readonly ModelRules[] = [
	rules("anthropic.claude-3-haiku-20240307-v1:0", {}),
	rules("anthropic.claude-3-5-haiku-20241022-v1:0", {}),
	budget("anthropic.claude-haiku-4-5-20251001-v1:0", "oneOfTemperatureTopP"),
	budget("anthropic.claude-sonnet-4-20250514-v1:0"),
	budget("anthropic.claude-sonnet-4-5-20250929-v1:0", "oneOfTemperatureTopP", true),
	budget("anthropic.claude-opus-4-1-20250805-v1:0"),
	budget("anthropic.claude-opus-4-5-20251101-v1:0", "oneOfTemperatureTopP"),
	adaptive4("anthropic.claude-sonnet-4-6"),
	adaptive4("anthropic.claude-opus-4-6-v1"),
	adaptive4("anthropic.claude-opus-4-7", "deprecated"),
	adaptive4("anthropic.claude-opus-4-8", "deprecated"),
	// The 5.x generation thinks by default (issue 23; AWS's Haiku 5.5 card). Haiku 5.5 is the one whose
	// forced-tool answer skips thinking instead of failing (Anthropic's Haiku 5.5 migration guide).
	rules("anthropic.claude-haiku-5-5", {
		thinking: "adaptive",
		thinksByDefault: true,
		forcedTool: "answersWithoutThinking",
		sampling: "defaultsOnly",
		efforts: ALL_EFFORTS,
		effortsWithoutThinking: UP_TO_HIGH,
		inRegion: false,
		showsThinking: false,
	}),
	// Sonnet 5 and Opus 5: adaptive, on by default (UNCONFIRMED for Sonnet 5's sampling: treated as Opus 5's).
	rules("anthropic.claude-sonnet-5", { thinking: "adaptive", thinksByDefault: true, sampling: "deprecated", efforts: ALL_EFFORTS, effortsWithoutThinking: ALL_EFFORTS, inRegion: false }),
	// Opus 5: `disabled` only up to high effort, as Haiku 5.5 (models-research §1).
	rules("anthropic.claude-opus-5", { thinking: "adaptive", thinksByDefault: true, sampling: "deprecated", efforts: ALL_EFFORTS, effortsWithoutThinking: UP_TO_HIGH, inRegion: false }),
	// Always thinking; a forced tool is refused whatever the thinking field says (vercel/ai's Opus 5.5 fixture).
	// Sonnet 5.5's lowest setting is `{"type":"between_tools"}` (models-research §1), still thinking.
	rules("anthropic.claude-sonnet-5-5", { thinking: "alwaysOn", thinksByDefault: true, forcedTool: "refused", sampling: "deprecated", efforts: ALL_EFFORTS, inRegion: false }),
	rules("anthropic.claude-opus-5-5", { thinking: "alwaysOn", thinksByDefault: true, forcedTool: "refused", sampling: "deprecated", efforts: ALL_EFFORTS, inRegion: false }),
];

/** The geographic and global prefixes of system-defined inference profiles. */
const PROFILE_PREFIX = /^(us|eu|jp|au|apac|ca|us-gov|global)\./;

/** The model an id names: the id without its inference profile's prefix. */
export function baseModelId(modelId: string): string {
	return modelId.replace(PROFILE_PREFIX, "");
}

/** The rules for a model or inference profile id, or undefined for a model the fake does not know. */
export function modelRules(modelId: string): ModelRules | undefined {
	const base = baseModelId(modelId);
	return MODEL_RULES.find((model) => model.base === base);
}

/** Whether `modelId` is a bare model id (no profile prefix). */
export function isBareModelId(modelId: string): boolean {
	return !PROFILE_PREFIX.test(modelId);
}

/** Bedrock's wrapping of an error the model provider returned. */
function modelErrors(message: string): string {
	return `The model returned the following errors: ${message}`;
}

/** What the request asks of thinking, once read. */
export interface ThinkingRequest {
	/** The model will think on this request. */
	on: boolean;
	/** The thinking text is shown (`display: "summarized"`, or a model that shows it). */
	shown: boolean;
}

/**
 * Checks a parsed Converse request against the model's rules: the 400 message Bedrock answers with, or
 * what the request asks of thinking.
 */
export function checkModelRequest(model: ModelRules, json: Record<string, unknown>): { refusal: string } | ThinkingRequest {
	const extra = asRecord(json.additionalModelRequestFields) ?? {};
	const thinking = asRecord(extra.thinking);
	const sampling = samplingRefusal(model, json, extra);
	if (sampling !== undefined) return { refusal: sampling };
	const thinkingField = thinkingRefusal(model, thinking);
	if (thinkingField !== undefined) return { refusal: thinkingField };
	const type = typeof thinking?.type === "string" ? thinking.type : undefined;
	const on = type === undefined ? model.thinksByDefault : type !== "disabled";
	const effort = effortRefusal(model, asRecord(extra.output_config)?.effort, on);
	if (effort !== undefined) return { refusal: effort };
	const forced = forcedToolRefusal(model, json, on);
	if (forced !== undefined) return { refusal: forced };
	if (model.base === "anthropic.claude-haiku-5-5" && lastRole(json) === "assistant") {
		// Migration guide: prefill is refused "even with thinking turned off". Wording UNCONFIRMED.
		return { refusal: modelErrors("Prefilling assistant messages is not supported for this model.") };
	}
	// A forced tool on Haiku 5.5 is answered with the tool call and no thinking block.
	const thinks = on && !(model.forcedTool === "answersWithoutThinking" && forcesTool(json));
	return { on: thinks, shown: model.showsThinking || thinking?.display === "summarized" };
}

/** Anthropic's words for a request with both (models-research §1: "temperature OR top_p (both → 400)"); wording UNCONFIRMED on Bedrock. */
const BOTH_SAMPLING = "`temperature` and `top_p` cannot both be specified for this model. Please use only one.";

function samplingRefusal(model: ModelRules, json: Record<string, unknown>, extra: Record<string, unknown>): string | undefined {
	const inference = asRecord(json.inferenceConfig) ?? {};
	const temperature = inference.temperature;
	const topP = inference.topP;
	const topK = extra.top_k;
	switch (model.sampling) {
		case "deprecated":
			if (temperature !== undefined) return modelErrors("`temperature` is deprecated for this model.");
			if (topP !== undefined) return modelErrors("`top_p` is deprecated for this model.");
			return undefined;
		case "defaultsOnly":
			// Migration guide: temperature only 1, top_p only 0.99, never both, never top_k. The temperature
			// wording is the live record quoted in issue 23 (as Opus 5's fixture); the others are UNCONFIRMED.
			if (temperature !== undefined && temperature !== 1) return modelErrors("`temperature` is deprecated for this model.");
			if (topP !== undefined && topP !== 0.99) return modelErrors("`top_p` is deprecated for this model.");
			if (temperature !== undefined && topP !== undefined) return modelErrors(BOTH_SAMPLING);
			if (topK !== undefined) return modelErrors("`top_k` is deprecated for this model.");
			return undefined;
		case "oneOfTemperatureTopP":
		case "free": {
			if (model.sampling === "oneOfTemperatureTopP" && temperature !== undefined && topP !== undefined) return modelErrors(BOTH_SAMPLING);
			// Anthropic's extended-thinking guide: with thinking on, temperature may only be 1 and top_k not set.
			const type = asRecord(extra.thinking)?.type;
			const thinking = type === "enabled" || type === "adaptive";
			if (thinking && temperature !== undefined && temperature !== 1) return modelErrors("temperature may only be set to 1 when thinking is enabled.");
			if (thinking && topK !== undefined) return modelErrors("top_k is not supported when thinking is enabled.");
			return undefined;
		}
	}
}

function thinkingRefusal(model: ModelRules, thinking: Record<string, unknown> | undefined): string | undefined {
	if (thinking === undefined) return undefined;
	const type = thinking.type;
	switch (model.thinking) {
		case "none":
			// UNCONFIRMED wording: the model has no extended thinking, so the field is an unknown input.
			return modelErrors("thinking: Extra inputs are not permitted");
		case "budget":
			if (type === "disabled") return undefined;
			if (type !== "enabled") return modelErrors(`thinking.type: Input should be 'enabled' or 'disabled'`);
			if (typeof thinking.budget_tokens !== "number" || thinking.budget_tokens < 1_024) {
				return modelErrors("thinking.enabled.budget_tokens: Input should be greater than or equal to 1024");
			}
			return undefined;
		case "adaptive":
			if (type === "adaptive" || type === "disabled") return undefined;
			// Haiku 5.5 migration guide: a budget is a 400 on adaptive-only models. Wording UNCONFIRMED.
			return modelErrors(`thinking.type: "${String(type)}" is not supported for this model. Use "adaptive" or "disabled".`);
		case "alwaysOn":
			if (type === "adaptive" || (type === "between_tools" && model.base === "anthropic.claude-sonnet-5-5")) return undefined;
			// Research §3: "disabled returns 400". Wording UNCONFIRMED.
			return modelErrors(`thinking.type: "${String(type)}" is not supported for this model. Use "adaptive".`);
	}
}

function effortRefusal(model: ModelRules, effort: unknown, thinking: boolean): string | undefined {
	if (effort === undefined) return undefined;
	if (typeof effort !== "string" || !model.efforts.includes(effort)) {
		return model.efforts.length === 0
			? modelErrors("output_config: Extra inputs are not permitted")
			: modelErrors(`output_config.effort: Input should be ${model.efforts.map((level) => `'${level}'`).join(", ")}`);
	}
	// AWS's Haiku 5.5 card: "effort capped at high when thinking is disabled". Wording UNCONFIRMED.
	if (!thinking && !model.effortsWithoutThinking.includes(effort)) {
		return modelErrors(`output_config.effort: '${effort}' requires thinking; with thinking disabled use 'low', 'medium' or 'high'.`);
	}
	return undefined;
}

function forcedToolRefusal(model: ModelRules, json: Record<string, unknown>, thinking: boolean): string | undefined {
	if (!forcesTool(json)) return undefined;
	switch (model.forcedTool) {
		case "refused":
			return modelErrors('tool_choice: type "tool" and "any" are not supported for this model.');
		case "onlyWithoutThinking":
			return thinking ? modelErrors("Thinking may not be enabled when tool_choice forces tool use.") : undefined;
		case "answersWithoutThinking":
			return undefined;
	}
}

/** Converse's `toolChoice` of `tool` or `any` (`auto` leaves the choice to the model). */
export function forcesTool(json: Record<string, unknown>): boolean {
	const choice = asRecord(asRecord(json.toolConfig)?.toolChoice);
	return choice?.tool !== undefined || choice?.any !== undefined;
}

function lastRole(json: Record<string, unknown>): unknown {
	const messages = Array.isArray(json.messages) ? json.messages : [];
	return asRecord(messages[messages.length - 1])?.role;
}

/** What the fake thinks when a reply does not say. */
export const DEFAULT_THINKING = "The user asks something; I will answer from what the request gives.";

/**
 * The reasoning block a thinking model puts before its answer (botocore `ReasoningContentBlock`:
 * `reasoningText{text, signature}`). Haiku 5.5 sends an empty text with only the signature unless the
 * request asks for `display: "summarized"` (migration guide); the thinking is billed either way.
 */
export function reasoningBlock(thinking: string, shown: boolean): { reasoningContent: { reasoningText: { text: string; signature: string } } } {
	const signature = createHash("sha256").update(`fake-thinking\n${thinking}`).digest("base64");
	return { reasoningContent: { reasoningText: { text: shown ? thinking : "", signature } } };
}

/** What a model takes besides text, as the fake enforces it. */
export interface MediaRules {
	/** Whether the model takes `image` blocks at all. */
	images: boolean;
	/** The most images and documents together in one request ("too many images and documents: N + M > limit"). */
	maxImagesAndDocuments: number;
	/** Whether a PDF document may exceed Bedrock's 4.5 MB (Claude 4 and later, Nova: AWS's "API restrictions" page). */
	largePdfs: boolean;
}

/**
 * The models whose media rules the fake knows; any other id gets only the checks Bedrock makes for every model.
 * Sources:
 * - Bedrock's Message reference ("up to 20 images"; "up to five documents … no more than 4.5 MB") and its
 *   "API restrictions" page ("For Claude 4 and subsequent versions, the 4.5 MB document size restriction doesn't
 *   apply to PDF format"; "individual models may have specific image requirements").
 * - Recorded answers: "too many images and documents: 21 + 0 > 20" (Claude 3.x era, cline/cline#1844, 2025);
 *   "too many images and documents: 601 + 0 > 600" and "… 200 + 0 > 100" on the 1M-context models (2026-07
 *   measurements quoted in a public repository), matching Anthropic's vision guide (100 images a request for
 *   200k-context models, 600 for the others). Claude Haiku 5.5's context window is UNCONFIRMED: treated as 200k.
 * - Text-only models: Claude 3.5 Haiku (Bedrock's model card lists text input only; no recorded refusal found)
 *   and Amazon Nova Micro (AWS's Nova guide: the text-only model of the family).
 */
const MEDIA_RULES: ReadonlyMap<string, MediaRules> = new Map([
	["anthropic.claude-3-haiku-20240307-v1:0", media(true, 20, false)],
	["anthropic.claude-3-5-haiku-20241022-v1:0", media(false, 20, false)],
	["anthropic.claude-haiku-4-5-20251001-v1:0", media(true, 100, true)],
	["anthropic.claude-sonnet-4-20250514-v1:0", media(true, 100, true)],
	["anthropic.claude-sonnet-4-5-20250929-v1:0", media(true, 100, true)],
	["anthropic.claude-opus-4-1-20250805-v1:0", media(true, 100, true)],
	["anthropic.claude-opus-4-5-20251101-v1:0", media(true, 100, true)],
	["anthropic.claude-sonnet-4-6", media(true, 600, true)],
	["anthropic.claude-opus-4-6-v1", media(true, 600, true)],
	["anthropic.claude-opus-4-7", media(true, 600, true)],
	["anthropic.claude-opus-4-8", media(true, 600, true)],
	["anthropic.claude-haiku-5-5", media(true, 100, true)],
	["anthropic.claude-sonnet-5", media(true, 600, true)],
	["anthropic.claude-opus-5", media(true, 600, true)],
	["anthropic.claude-sonnet-5-5", media(true, 600, true)],
	["anthropic.claude-opus-5-5", media(true, 600, true)],
	// "For Nova models, the 4.5 MB document size restriction doesn't apply to PDF and DOCX formats" (API restrictions;
	// the fake lifts it for PDFs only).
	["amazon.nova-micro-v1:0", media(false, 20, true)],
	["amazon.nova-lite-v1:0", media(true, 20, true)],
	["amazon.nova-pro-v1:0", media(true, 20, true)],
]);

function media(images: boolean, maxImagesAndDocuments: number, largePdfs: boolean): MediaRules {
	return { images, maxImagesAndDocuments, largePdfs };
}

/** The media rules for a model or inference profile id, or undefined for a model the fake does not know. */
export function mediaRules(modelId: string): MediaRules | undefined {
	return MEDIA_RULES.get(baseModelId(modelId));
}

/** Whether the id names an Anthropic model, whose errors Bedrock relays in Anthropic's words. */
export function isAnthropicModel(modelId: string): boolean {
	return baseModelId(modelId).startsWith("anthropic.");
}
