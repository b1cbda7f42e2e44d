// What each Claude model refuses in a Converse request, and how it thinks, as Bedrock has it
// (research notes of issue 23: Anthropic's Haiku 5.5 migration guide, the AWS model cards, and
// Bedrock's answers recorded in vercel/ai's amazon-bedrock fixtures and strands-agents PR #1495).

import { type AwsError, validation } from "./aws-errors";
import { asRecord } from "./replies";

/** How a model thinks: as `src/llm/models.rs` names it. */
type Thinking = "none" | "budget" | "adaptiveOptional" | "adaptiveOnByDefault" | "adaptiveAlways";

/** Most specific first, as in the core's table. */
const STYLES: Array<[RegExp, Thinking]> = [
	[/claude-haiku-5-5|claude-sonnet-5(?!-5)|claude-opus-5(?!-5)/, "adaptiveOnByDefault"],
	[/claude-sonnet-5-5|claude-opus-5-5|claude-fable-5|claude-mythos-5/, "adaptiveAlways"],
	[/claude-sonnet-4-6|claude-opus-4-[678]/, "adaptiveOptional"],
	[/claude-haiku-4-5|claude-sonnet-4|claude-opus-4|claude-3-7-sonnet/, "budget"],
];

function styleOf(modelId: string): Thinking {
	return STYLES.find(([pattern]) => pattern.test(modelId))?.[1] ?? "none";
}

/** Models whose sampling parameters are fixed: Claude 4.7 and later. */
const FIXED_SAMPLING = /claude-haiku-5-5|claude-sonnet-5|claude-opus-5|claude-opus-4-[78]|claude-fable-5|claude-mythos-5/;

const refused = (message: string): AwsError => validation(`The model returned the following errors: ${message}`);

/** Whether the model thinks on this request (`thinking` as sent, or the model's default). */
export function thinksOn(modelId: string, json: Record<string, unknown>): boolean {
	const type = asRecord(asRecord(json.additionalModelRequestFields)?.thinking)?.type;
	switch (styleOf(modelId)) {
		case "none":
			return false;
		case "adaptiveAlways":
			return true;
		case "adaptiveOnByDefault":
			return type !== "disabled";
		default:
			return type === "enabled" || type === "adaptive";
	}
}

/** The 400 Bedrock answers `json` with on `modelId`, or undefined when the model takes it. */
export function modelRefusal(modelId: string, json: Record<string, unknown>): AwsError | undefined {
	const style = styleOf(modelId);
	const inference = asRecord(json.inferenceConfig) ?? {};
	// Haiku 5.5: "If a request includes `temperature`, it must be `1`" (Anthropic's migration guide).
	if (FIXED_SAMPLING.test(modelId) && inference.temperature !== undefined && inference.temperature !== 1) {
		return refused("`temperature` is deprecated for this model.");
	}
	const type = asRecord(asRecord(json.additionalModelRequestFields)?.thinking)?.type;
	if (style === "adaptiveAlways" && type === "disabled") return refused("thinking.type: \"disabled\" is not supported for this model.");
	if (type === "enabled" && style !== "budget") return refused("thinking.type: \"enabled\" is not supported for this model. Use \"adaptive\".");
	const choice = asRecord(asRecord(json.toolConfig)?.toolChoice);
	const forced = choice?.tool !== undefined || choice?.any !== undefined;
	if (forced && style === "adaptiveAlways") return refused("tool_choice: type \"tool\" and \"any\" are not supported for this model.");
	// Haiku 5.5 accepts a forced tool with thinking on and skips the thinking; the others refuse it.
	if (forced && thinksOn(modelId, json) && !/claude-haiku-5-5/.test(modelId)) {
		return refused("Thinking may not be enabled when tool_choice forces tool use.");
	}
	return undefined;
}

/** The reasoning block a thinking model's answer starts with (Haiku 5.5 sends only a signature by default). */
export const REASONING_BLOCK = { reasoningContent: { reasoningText: { text: "", signature: "ZmFrZS10aGlua2luZw==" } } };
/** The output tokens that thinking costs, counted in `outputTokens` as on Bedrock. */
export const REASONING_TOKENS = 120;

/** Whether an answer to `json` on `modelId` carries reasoning: it thinks and no tool was forced. */
export function answersWithReasoning(modelId: string, json: Record<string, unknown>): boolean {
	const choice = asRecord(asRecord(json.toolConfig)?.toolChoice);
	return thinksOn(modelId, json) && choice?.tool === undefined && choice?.any === undefined;
}
