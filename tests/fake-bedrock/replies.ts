// What a test can script the fake to answer, and how each reply turns into an HTTP answer.

import {
	type AwsError,
	accessDenied,
	internalServer,
	modelNotReady,
	onDemandNotSupported,
	serviceUnavailable,
	throttling,
} from "./aws-errors";

/** A tool call the model makes; `toolUseId` is made up when absent. */
export interface ToolCall {
	name: string;
	input: unknown;
	toolUseId?: string;
}

/** Faults without parameters, named by a string. */
export type FaultName =
	/** 429 ThrottlingException. */
	| "throttle"
	/** 500 InternalServerException. */
	| "serverError"
	/** 503 ServiceUnavailableException. */
	| "unavailable"
	/** 429 ModelNotReadyException. */
	| "modelNotReady"
	/** 403 AccessDeniedException. */
	| "accessDenied"
	/** 400 ValidationException: the model id needs an inference profile. */
	| "onDemandNotSupported"
	/** 400 ServiceQuotaExceededException: over a hard quota of the account. */
	| "quotaExceeded"
	/** 408 ModelTimeoutException. */
	| "modelTimeout"
	/** 424 ModelErrorException. */
	| "modelError"
	/** 404 ResourceNotFoundException: the account has not submitted Anthropic's use-case form. */
	| "useCaseFormMissing"
	/** The socket is destroyed without an answer (the client sees ECONNRESET / "socket hang up"). */
	| "reset"
	/** 200 with a body that is not JSON. */
	| "notJson"
	/** A tool call whose input breaks the requested tool's schema: `{"unexpected": true}`. */
	| "badToolInput";

export const FAULT_NAMES: readonly FaultName[] = [
	"throttle",
	"serverError",
	"unavailable",
	"modelNotReady",
	"accessDenied",
	"onDemandNotSupported",
	"reset",
	"notJson",
	"badToolInput",
];

/** One answer of the fake, scripted with `fake.script(...)` or returned by `fake.respond`. */
export type Reply =
	| FaultName
	/** A text answer, stopReason `end_turn`; `thinking` is what a thinking model thought first (a default when absent). */
	| { text: string; thinking?: string }
	/** One or more tool calls (after an optional text block), stopReason `tool_use`. */
	| { toolUse: ToolCall | ToolCall[]; text?: string }
	/** An answer cut short, stopReason `max_tokens`. */
	| { maxTokens: true; text?: string }
	/** A refusal or a filter: text, and one of Bedrock's stop reasons for it. */
	| { refused: "guardrail_intervened" | "content_filtered" | "malformed_tool_use" | "malformed_model_output" | "model_context_window_exceeded"; text?: string }
	/**
	 * Waits `slow` milliseconds, then answers `then`; without `then`, whatever `fake.respond` says (a `slow`
	 * from respond() at that point is not waited on again: its `then`, else the default text).
	 */
	| { slow: number; then?: Reply }
	/** Any error answer. */
	| { status: { code: number; type: string; message: string } };

/** A Converse content block the fake produces (botocore `bedrock-runtime` ContentBlock: text, toolUse, reasoningContent). */
export type ContentBlock =
	| { text: string }
	| { toolUse: { toolUseId: string; name: string; input: unknown } }
	| { reasoningContent: { reasoningText: { text: string; signature: string } } };

export type StopReason =
	| "end_turn"
	| "tool_use"
	| "max_tokens"
	| "guardrail_intervened"
	| "content_filtered"
	| "malformed_tool_use"
	| "malformed_model_output"
	| "model_context_window_exceeded";

/** A reply made concrete: what goes on the wire (after any delay). */
export type Answer =
	| { kind: "converse"; content: ContentBlock[]; stopReason: StopReason; thinking?: string }
	| { kind: "error"; error: AwsError }
	| { kind: "reset" }
	| { kind: "notJson"; body: string };

/** What a reply needs to know about the request it answers. */
export interface ReplyContext {
	modelId: string;
	/** The parsed Converse request. */
	json: Record<string, unknown>;
	/** Makes the next `tooluse_…` id. */
	nextToolUseId: () => string;
}

export const NOT_JSON_BODY = "<html><body><h1>502 Bad Gateway</h1></body></html>";

const CUT_SHORT_TEXT = "This answer stopped early because it reached the maximum number of output tok";

/** Turns any reply except `slow` (which the server resolves first, as it involves waiting) into an answer. */
export function toAnswer(reply: Exclude<Reply, { slow: number }>, context: ReplyContext): Answer {
	if (typeof reply === "string") return faultAnswer(reply, context);
	if ("status" in reply) return { kind: "error", error: { status: reply.status.code, type: reply.status.type, message: reply.status.message } };
	if ("toolUse" in reply) {
		const calls = Array.isArray(reply.toolUse) ? reply.toolUse : [reply.toolUse];
		const content: ContentBlock[] = reply.text === undefined ? [] : [{ text: reply.text }];
		for (const call of calls) {
			content.push({ toolUse: { toolUseId: call.toolUseId ?? context.nextToolUseId(), name: call.name, input: call.input } });
		}
		return { kind: "converse", content, stopReason: "tool_use" };
	}
	if ("maxTokens" in reply) return { kind: "converse", content: [{ text: reply.text ?? CUT_SHORT_TEXT }], stopReason: "max_tokens" };
	if ("refused" in reply) return { kind: "converse", content: [{ text: reply.text ?? "I can't help with that." }], stopReason: reply.refused };
	return { kind: "converse", content: [{ text: reply.text }], stopReason: "end_turn", ...(reply.thinking === undefined ? {} : { thinking: reply.thinking }) };
}

function faultAnswer(fault: FaultName, context: ReplyContext): Answer {
	switch (fault) {
		case "throttle":
			return { kind: "error", error: throttling() };
		case "serverError":
			return { kind: "error", error: internalServer() };
		case "unavailable":
			return { kind: "error", error: serviceUnavailable() };
		case "modelNotReady":
			return { kind: "error", error: modelNotReady() };
		case "accessDenied":
			return { kind: "error", error: accessDenied() };
		case "onDemandNotSupported":
			return { kind: "error", error: onDemandNotSupported(context.modelId) };
		case "quotaExceeded":
			return { kind: "error", error: { status: 400, type: "ServiceQuotaExceededException", message: "Your request exceeds the service quota for your account. You can view your quotas at https://docs.aws.amazon.com/servicequotas/latest/userguide/gs-request-quota.html." } };
		case "modelTimeout":
			return { kind: "error", error: { status: 408, type: "ModelTimeoutException", message: "The request took too long to process. Processing time exceeded the model timeout length." } };
		case "modelError":
			return { kind: "error", error: { status: 424, type: "ModelErrorException", message: "The request failed due to an error while processing the model." } };
		case "useCaseFormMissing":
			return { kind: "error", error: { status: 404, type: "ResourceNotFoundException", message: "Model use case details have not been submitted for this account. Fill out the Anthropic use case details form before using the model." } };
		case "reset":
			return { kind: "reset" };
		case "notJson":
			return { kind: "notJson", body: NOT_JSON_BODY };
		case "badToolInput":
			return {
				kind: "converse",
				content: [{ toolUse: { toolUseId: context.nextToolUseId(), name: requestedToolName(context.json), input: { unexpected: true } } }],
				stopReason: "tool_use",
			};
	}
}

/** The tool the request asks for (`toolChoice.tool.name`), else its first tool, else a made-up name. */
export function requestedToolName(json: Record<string, unknown>): string {
	const toolConfig = asRecord(json.toolConfig);
	const chosen = asRecord(asRecord(toolConfig?.toolChoice)?.tool)?.name;
	if (typeof chosen === "string") return chosen;
	const tools = Array.isArray(toolConfig?.tools) ? toolConfig.tools : [];
	for (const tool of tools) {
		const name = asRecord(asRecord(tool)?.toolSpec)?.name;
		if (typeof name === "string") return name;
	}
	return "unknown_tool";
}

export function asRecord(value: unknown): Record<string, unknown> | undefined {
	return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
}
