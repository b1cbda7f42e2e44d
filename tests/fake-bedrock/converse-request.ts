// Parses and validates a Converse request body the way Bedrock rejects malformed ones (400 ValidationException).

import { type AwsError, validation } from "./aws-errors";
import { checkMediaShapes } from "./content-blocks";
import { asRecord } from "./replies";

/** The parsed body, or the error Bedrock would answer with. */
export type ParsedConverse = { ok: true; json: Record<string, unknown> } | { ok: false; error: AwsError };

/** Parses `body`; checks only what Bedrock itself refuses before the model sees anything. */
export function parseConverseRequest(body: string): ParsedConverse {
	let parsed: unknown;
	try {
		parsed = JSON.parse(body);
	} catch {
		return { ok: false, error: validation("Malformed input request, please reformat your input and try again.") };
	}
	const json = asRecord(parsed);
	if (!json) return { ok: false, error: validation("Malformed input request, please reformat your input and try again.") };
	const messages = json.messages;
	if (!Array.isArray(messages)) {
		return { ok: false, error: validation("1 validation error detected: Value null at 'messages' failed to satisfy constraint: Member must not be null") };
	}
	if (messages.length === 0) {
		return {
			ok: false,
			error: validation("1 validation error detected: Value at 'messages' failed to satisfy constraint: Member must have length greater than or equal to 1"),
		};
	}
	// Image and document blocks the service's model of the request refuses (base64, formats, names, empty bytes),
	// checked as the service reads the body, before Bedrock's own rules about the conversation.
	const media = checkMediaShapes(json);
	if (media) return { ok: false, error: media };
	let expected = "user";
	for (const [index, message] of messages.entries()) {
		const record = asRecord(message);
		if (index === 0 && record?.role !== "user") {
			return { ok: false, error: validation("A conversation must start with a user message. Try again with a conversation that starts with a user message.") };
		}
		if (record?.role !== expected) {
			return {
				ok: false,
				error: validation("A conversation must alternate between user and assistant roles. Make sure the conversation alternates between user and assistant roles and try again."),
			};
		}
		if (!Array.isArray(record.content) || record.content.length === 0) {
			return { ok: false, error: validation(`The content field in the Message object at messages.${index} is empty. Add a ContentBlock object to the content field and try again.`) };
		}
		expected = expected === "user" ? "assistant" : "user";
	}
	return { ok: true, json };
}
