// Tests of the fake Bedrock: its SigV4 check against AWS's signer and the Rust client's, its replies, faults and recording.

import assert from "node:assert/strict";
import { after, before, beforeEach, describe, it } from "node:test";
import {
	type FakeBedrock,
	DEFAULT_REPLY_TEXT,
	SIGNATURE_MISMATCH_MESSAGE,
	TEST_API_KEY,
	TEST_CREDENTIALS,
	TEST_EXPIRED_SESSION_TOKEN,
	TEST_SESSION_CREDENTIALS,
	startFakeBedrock,
} from "./index";
import { type WireRequest, TEST_MODEL_ID, converseBody, conversePath, errorType, send, signRequest, signedConverse } from "./signing-client";
import { cacheMinimumTokens } from "./usage";

/** 2026-01-15T10:20:30Z, the instant of the Rust golden requests below. */
const GOLDEN_TIME = Date.UTC(2026, 0, 15, 10, 20, 30);

/**
 * Requests signed by the Rust `aws-sigv4` 1.6.4 crate (the one in Cargo.toml, default SigningSettings,
 * service "bedrock", region us-east-1, at GOLDEN_TIME) for http://127.0.0.1:8123 + GOLDEN_PATH with
 * headers content-type and accept and GOLDEN_BODY; produced once by a scratch program and pasted here.
 */
const GOLDEN_PATH = "/model/us.anthropic.claude-haiku-4-5-20251001-v1%3A0/converse";
const GOLDEN_BODY = '{"messages":[{"role":"user","content":[{"text":"Hello: ünïcödé & 100%"}]}],"inferenceConfig":{"maxTokens":256}}';
const RUST_LONG_TERM_AUTHORIZATION =
	"AWS4-HMAC-SHA256 Credential=AKIDMEMORYAGENTTEST/20260115/us-east-1/bedrock/aws4_request, SignedHeaders=accept;content-type;host;x-amz-date, Signature=70ff0f618d4057306850d0b5ed51a119ba8235234a962be40e7575018fdc5a77";
const RUST_SESSION_AUTHORIZATION =
	"AWS4-HMAC-SHA256 Credential=ASIAMEMORYAGENTTEMP/20260115/us-east-1/bedrock/aws4_request, SignedHeaders=accept;content-type;host;x-amz-date;x-amz-security-token, Signature=3b9e82f2c64b612aec39a973a121b62820e62266bb5a68e776a8fe58922db7e4";

function goldenRequest(authorization: string, extra: Record<string, string> = {}): WireRequest {
	return {
		method: "POST",
		path: GOLDEN_PATH,
		headers: { host: "127.0.0.1:8123", "content-type": "application/json", accept: "application/json", "x-amz-date": "20260115T102030Z", authorization, ...extra },
		body: GOLDEN_BODY,
	};
}

function json(body: string): Record<string, unknown> {
	return JSON.parse(body) as Record<string, unknown>;
}

describe("the smithy signer", () => {
	it("reproduces AWS's published SigV4 test vector get-vanilla", async () => {
		const signed = await signRequest(
			"example.amazonaws.com",
			{ method: "GET", path: "/", headers: {}, body: "" },
			{
				credentials: { accessKeyId: "AKIDEXAMPLE", secretAccessKey: "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY" },
				region: "us-east-1",
				service: "service",
				signingDate: new Date("2015-08-30T12:36:00Z"),
			},
		);
		assert.equal(
			signed.headers.authorization,
			"AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20150830/us-east-1/service/aws4_request, SignedHeaders=host;x-amz-date, Signature=5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31",
		);
	});

	it("signs a Converse request exactly as Rust aws-sigv4 does (double-encoded %3A path, session token)", async () => {
		const base = { method: "POST", path: GOLDEN_PATH, headers: { "content-type": "application/json", accept: "application/json" }, body: GOLDEN_BODY };
		const signingDate = new Date(GOLDEN_TIME);
		const longTerm = await signRequest("127.0.0.1:8123", base, { credentials: TEST_CREDENTIALS, signingDate });
		assert.equal(longTerm.headers.authorization, RUST_LONG_TERM_AUTHORIZATION);
		const session = await signRequest("127.0.0.1:8123", base, { credentials: TEST_SESSION_CREDENTIALS, signingDate });
		assert.equal(session.headers.authorization, RUST_SESSION_AUTHORIZATION);
	});
});

describe("the fake's signature check", () => {
	let fake: FakeBedrock;
	let clock = GOLDEN_TIME;
	before(async () => {
		fake = await startFakeBedrock({ now: () => clock });
	});
	after(() => fake.close());
	beforeEach(() => {
		fake.reset();
		clock = GOLDEN_TIME;
	});

	it("accepts requests signed by the Rust client, as recorded", async () => {
		fake.script({ text: "from the script" });
		const longTerm = await send(fake.url, goldenRequest(RUST_LONG_TERM_AUTHORIZATION));
		assert.equal(longTerm.status, 200, longTerm.body);
		const session = await send(fake.url, goldenRequest(RUST_SESSION_AUTHORIZATION, { "x-amz-security-token": TEST_SESSION_CREDENTIALS.sessionToken }));
		assert.equal(session.status, 200, session.body);
		assert.deepEqual(
			fake.requests.map((request) => request.auth),
			[
				{ ok: true, scheme: "sigv4", accessKeyId: "AKIDMEMORYAGENTTEST" },
				{ ok: true, scheme: "sigv4", accessKeyId: "ASIAMEMORYAGENTTEMP", sessionToken: "memory-agent-session-token" },
			],
		);
	});

	it("answers a correctly signed Converse request with the scripted reply, and records it", async () => {
		fake.script({ text: "Scripted answer." });
		const request = await signedConverse(fake.url, { credentials: TEST_CREDENTIALS, signingDate: new Date(clock) });
		const response = await send(fake.url, request);
		assert.equal(response.status, 200, response.body);
		const body = json(response.body);
		assert.deepEqual(body.output, { message: { role: "assistant", content: [{ text: "Scripted answer." }] } });
		assert.equal(body.stopReason, "end_turn");
		assert.equal(typeof response.headers["x-amzn-requestid"], "string");
		const [recorded] = fake.requests;
		assert.ok(recorded);
		assert.equal(recorded.path, "/model/us.anthropic.claude-haiku-4-5-20251001-v1%3A0/converse");
		assert.equal(recorded.modelId, TEST_MODEL_ID);
		assert.equal(recorded.method, "POST");
		assert.equal(recorded.body, request.body);
		assert.deepEqual(recorded.json, JSON.parse(request.body));
		assert.equal(recorded.headers["content-type"], "application/json");
		assert.deepEqual(recorded.reply, { text: "Scripted answer." });
		assert.equal(recorded.response?.status, 200);
		assert.equal(recorded.receivedAt, clock);
	});

	it("accepts a signed x-amz-content-sha256 that matches the body and refuses one that does not", async () => {
		const request = await signedConverse(fake.url, { credentials: TEST_CREDENTIALS, signingDate: new Date(clock), applyChecksum: true });
		assert.ok(request.headers["x-amz-content-sha256"]);
		assert.equal((await send(fake.url, request)).status, 200);
		const forged = { ...request, body: converseBody("Something else") };
		const response = await send(fake.url, forged);
		assert.equal(response.status, 403);
		assert.equal(errorType(response), "InvalidSignatureException");
	});

	it("refuses a wrong secret with AWS's InvalidSignatureException and explains the canonical request", async () => {
		const request = await signedConverse(fake.url, {
			credentials: { accessKeyId: TEST_CREDENTIALS.accessKeyId, secretAccessKey: "not-the-secret" },
			signingDate: new Date(clock),
		});
		const response = await send(fake.url, request);
		assert.equal(response.status, 403);
		assert.equal(response.headers["x-amzn-errortype"], "InvalidSignatureException:http://internal.amazon.com/coral/com.amazon.coral.service/");
		const message = String(json(response.body).message);
		assert.ok(message.startsWith(SIGNATURE_MISMATCH_MESSAGE), message);
		assert.match(message, /\/model\/us\.anthropic\.claude-haiku-4-5-20251001-v1%253A0\/converse/);
		assert.equal(fake.requests[0]?.auth.ok, false);
		assert.equal(fake.requests[0]?.reply, undefined, "a refused request gets no reply from the script");
	});

	it("refuses a body changed after signing", async () => {
		const request = await signedConverse(fake.url, { credentials: TEST_CREDENTIALS, signingDate: new Date(clock) });
		const response = await send(fake.url, { ...request, body: request.body.replace("Hello", "Hellp") });
		assert.equal(response.status, 403);
		assert.equal(errorType(response), "InvalidSignatureException");
	});

	it("refuses a signed header changed after signing, and ignores unsigned ones", async () => {
		const request = await signedConverse(fake.url, { credentials: TEST_CREDENTIALS, signingDate: new Date(clock) });
		const changed = await send(fake.url, { ...request, headers: { ...request.headers, accept: "text/plain" } });
		assert.equal(errorType(changed), "InvalidSignatureException");
		const unsigned = await send(fake.url, { ...request, headers: { ...request.headers, "user-agent": "memory-agent/0.1", "x-extra": "1" } });
		assert.equal(unsigned.status, 200, unsigned.body);
	});

	it("checks headers the smithy signer would skip by itself when the client signed them", async () => {
		const base = { method: "POST", path: conversePath(), headers: { "content-type": "application/json", "user-agent": "memory-agent/0.1" }, body: converseBody() };
		const signed = await signRequest(new URL(fake.url).host, base, {
			credentials: TEST_CREDENTIALS,
			signingDate: new Date(clock),
			signableHeaders: new Set(["user-agent"]),
		});
		assert.match(signed.headers.authorization ?? "", /SignedHeaders=content-type;host;user-agent;x-amz-date,/);
		assert.equal((await send(fake.url, signed)).status, 200);
		const changed = await send(fake.url, { ...signed, headers: { ...signed.headers, "user-agent": "someone-else/1.0" } });
		assert.equal(errorType(changed), "InvalidSignatureException");
	});

	it("refuses an unknown access key", async () => {
		const request = await signedConverse(fake.url, {
			credentials: { accessKeyId: "AKIDSOMEONEELSE", secretAccessKey: TEST_CREDENTIALS.secretAccessKey },
			signingDate: new Date(clock),
		});
		const response = await send(fake.url, request);
		assert.equal(response.status, 403);
		assert.equal(errorType(response), "UnrecognizedClientException");
		assert.equal(json(response.body).message, "The security token included in the request is invalid.");
	});

	it("refuses a scope for another region or service", async () => {
		for (const [options, pattern] of [
			[{ region: "eu-west-1" }, /scoped to a valid region/],
			[{ service: "bedrock-runtime" }, /scoped to correct service: 'bedrock'/],
		] as const) {
			const request = await signedConverse(fake.url, { credentials: TEST_CREDENTIALS, signingDate: new Date(clock), ...options });
			const response = await send(fake.url, request);
			assert.equal(response.status, 403);
			assert.equal(errorType(response), "InvalidSignatureException");
			assert.match(String(json(response.body).message), pattern);
		}
	});

	it("needs the session token of a temporary key, signed", async () => {
		const signingDate = new Date(clock);
		const good = await signedConverse(fake.url, { credentials: TEST_SESSION_CREDENTIALS, signingDate });
		assert.equal(good.headers["x-amz-security-token"], TEST_SESSION_CREDENTIALS.sessionToken);
		assert.equal((await send(fake.url, good)).status, 200);

		const withoutToken = await signedConverse(fake.url, { credentials: { ...TEST_SESSION_CREDENTIALS, sessionToken: undefined }, signingDate });
		const missing = await send(fake.url, withoutToken);
		assert.equal(errorType(missing), "UnrecognizedClientException");

		const expired = await send(fake.url, await signedConverse(fake.url, { credentials: { ...TEST_SESSION_CREDENTIALS, sessionToken: TEST_EXPIRED_SESSION_TOKEN }, signingDate }));
		assert.equal(expired.status, 403);
		assert.equal(errorType(expired), "ExpiredTokenException");
		assert.equal(json(expired.body).message, "The security token included in the request is expired");

		const unsignedToken = await send(fake.url, { ...withoutToken, headers: { ...withoutToken.headers, "x-amz-security-token": TEST_SESSION_CREDENTIALS.sessionToken } });
		assert.equal(errorType(unsignedToken), "InvalidSignatureException");
	});

	it("accepts the configured Bedrock API key and refuses others and no auth at all", async () => {
		const base = { method: "POST", path: conversePath(), headers: { "content-type": "application/json" }, body: converseBody() };
		const right = await send(fake.url, { ...base, headers: { ...base.headers, authorization: `Bearer ${TEST_API_KEY}` } });
		assert.equal(right.status, 200, right.body);
		assert.deepEqual(fake.requests[0]?.auth, { ok: true, scheme: "apiKey" });
		const wrong = await send(fake.url, { ...base, headers: { ...base.headers, authorization: "Bearer ABSKsomeoneelse" } });
		assert.equal(wrong.status, 403);
		assert.equal(errorType(wrong), "UnrecognizedClientException");
		const none = await send(fake.url, base);
		assert.equal(none.status, 403);
		assert.equal(errorType(none), "MissingAuthenticationTokenException");
	});

	it("refuses a request signed 20 minutes away from its clock", async () => {
		const early = await signedConverse(fake.url, { credentials: TEST_CREDENTIALS, signingDate: new Date(clock - 20 * 60_000) });
		const expired = await send(fake.url, early);
		assert.equal(expired.status, 403);
		assert.equal(errorType(expired), "InvalidSignatureException");
		assert.equal(
			json(expired.body).message,
			"Signature expired: 20260115T100030Z is now earlier than 20260115T101530Z (20260115T102030Z - 5 min.)",
		);
		const late = await send(fake.url, await signedConverse(fake.url, { credentials: TEST_CREDENTIALS, signingDate: new Date(clock + 20 * 60_000) }));
		assert.match(String(json(late.body).message), /^Signature not yet current/);
		// Four minutes off is within AWS's window.
		const close = await send(fake.url, await signedConverse(fake.url, { credentials: TEST_CREDENTIALS, signingDate: new Date(clock - 4 * 60_000) }));
		assert.equal(close.status, 200, close.body);
	});
});

describe("the fake's Converse answers", () => {
	let fake: FakeBedrock;
	before(async () => {
		fake = await startFakeBedrock();
	});
	after(() => fake.close());
	beforeEach(() => fake.reset());

	async function converse(body?: string): Promise<Awaited<ReturnType<typeof send>>> {
		return send(fake.url, await signedConverse(fake.url, { credentials: TEST_CREDENTIALS, ...(body === undefined ? {} : { body }) }));
	}

	it("uses the script in order, then respond(), then the default answer", async () => {
		fake.script({ text: "one" }, { text: "two" });
		fake.respond = () => ({ text: "from respond" });
		const texts: unknown[] = [];
		for (let i = 0; i < 3; i++) texts.push(json((await converse()).body).output);
		fake.reset();
		texts.push(json((await converse()).body).output);
		assert.deepEqual(
			texts.map((output) => (output as { message: { content: { text: string }[] } }).message.content[0]?.text),
			["one", "two", "from respond", DEFAULT_REPLY_TEXT],
		);
	});

	it("answers tool calls with stopReason tool_use and Bedrock-shaped ids", async () => {
		fake.script({ toolUse: { name: "record_memory", input: { title: "T", facts: ["a"] } }, text: "Let me record that." });
		const body = json((await converse()).body);
		assert.equal(body.stopReason, "tool_use");
		const content = (body.output as { message: { content: Record<string, unknown>[] } }).message.content;
		assert.deepEqual(content[0], { text: "Let me record that." });
		const toolUse = content[1]?.toolUse as { toolUseId: string; name: string; input: unknown };
		assert.match(toolUse.toolUseId, /^tooluse_[A-Za-z0-9_-]{22}$/);
		assert.equal(toolUse.name, "record_memory");
		assert.deepEqual(toolUse.input, { title: "T", facts: ["a"] });
	});

	it("answers max_tokens", async () => {
		fake.script({ maxTokens: true, text: "cut sh" });
		const body = json((await converse()).body);
		assert.equal(body.stopReason, "max_tokens");
		assert.deepEqual((body.output as { message: unknown }).message, { role: "assistant", content: [{ text: "cut sh" }] });
	});

	it("counts tokens at about four characters each and models the prompt cache", async () => {
		const plain = converseBody("x".repeat(400));
		fake.script({ text: "y".repeat(40) });
		const usage = json((await converse(plain)).body).usage as Record<string, number>;
		assert.deepEqual(usage, {
			inputTokens: Math.ceil(plain.length / 4),
			outputTokens: 10,
			totalTokens: Math.ceil(plain.length / 4) + 10,
			cacheReadInputTokens: 0,
			cacheWriteInputTokens: 0,
		});

		const cached = (question: string, repeat = 1_000): string =>
			JSON.stringify({
				system: [{ text: "You keep memories. ".repeat(repeat) }, { cachePoint: { type: "default" } }],
				messages: [{ role: "user", content: [{ text: question }] }],
			});
		// Claude Haiku 4.5 caches a prefix only from 4,096 tokens: a short one is not cached at all.
		const short = json((await converse(cached("short", 50))).body).usage as Record<string, number>;
		assert.equal(short.cacheWriteInputTokens, 0, "a 240-token prefix is below Haiku 4.5's minimum");
		const first = json((await converse(cached("first question"))).body).usage as Record<string, number>;
		const second = json((await converse(cached("second question"))).body).usage as Record<string, number>;
		assert.ok(first.cacheWriteInputTokens! >= 4_096, JSON.stringify(first));
		assert.equal(first.cacheReadInputTokens, 0);
		assert.equal(second.cacheReadInputTokens, first.cacheWriteInputTokens);
		assert.equal(second.cacheWriteInputTokens, 0);
		assert.equal(second.totalTokens, second.inputTokens! + second.outputTokens! + second.cacheReadInputTokens!);
		assert.ok(second.inputTokens! < 30, JSON.stringify(second));
		assert.equal(cacheMinimumTokens("us.anthropic.claude-sonnet-4-5-20250929-v1:0"), 1_024);
	});

	it("refuses what each Claude model refuses, and answers with reasoning when it thinks", async () => {
		const on = async (modelId: string, extra: Record<string, unknown>) =>
			send(fake.url, await signedConverse(fake.url, { credentials: TEST_CREDENTIALS, modelId, body: converseBody("Hi", extra) }));
		const message = async (reply: Promise<Awaited<ReturnType<typeof send>>>) => {
			const answer = await reply;
			return answer.status === 200 ? "ok" : `${answer.status} ${errorType(answer)}: ${String(json(answer.body).message)}`;
		};
		const forced = { toolConfig: { tools: [{ toolSpec: { name: "record_memory", inputSchema: { json: {} } } }], toolChoice: { tool: { name: "record_memory" } } } };
		const disabled = { additionalModelRequestFields: { thinking: { type: "disabled" } } };
		const haiku55 = "us.anthropic.claude-haiku-5-5";
		assert.equal(
			await message(on(haiku55, { inferenceConfig: { maxTokens: 100, temperature: 0 } })),
			"400 ValidationException: The model returned the following errors: `temperature` is deprecated for this model.",
		);
		assert.equal(await message(on(haiku55, { ...forced, ...disabled })), "ok");
		assert.equal(await message(on(haiku55, forced)), "ok", "Haiku 5.5 takes a forced tool and skips its thinking");
		assert.equal(
			await message(on("global.anthropic.claude-opus-5-5", { ...forced, additionalModelRequestFields: { thinking: { type: "adaptive" } } })),
			'400 ValidationException: The model returned the following errors: tool_choice: type "tool" and "any" are not supported for this model.',
		);
		assert.match(await message(on("global.anthropic.claude-opus-5-5", disabled)), /^400 ValidationException: .*"disabled" is not supported/);
		assert.equal(
			await message(on(TEST_MODEL_ID, { ...forced, additionalModelRequestFields: { thinking: { type: "enabled", budget_tokens: 1024 } } })),
			"400 ValidationException: The model returned the following errors: Thinking may not be enabled when tool_choice forces tool use.",
		);
		assert.equal(await message(on(TEST_MODEL_ID, { inferenceConfig: { maxTokens: 100, temperature: 0 } })), "ok", "Haiku 4.5 takes a temperature");
		fake.script({ text: "An answer." }, { text: "An answer." });
		const thinking = json((await on(haiku55, {})).body);
		const content = (thinking.output as { message: { content: Array<Record<string, unknown>> } }).message.content;
		assert.ok("reasoningContent" in content[0]!, "thinking on by default: the answer starts with reasoning");
		assert.deepEqual(content[1], { text: "An answer." });
		const quiet = json((await on(haiku55, disabled)).body);
		assert.equal((quiet.output as { message: { content: unknown[] } }).message.content.length, 1);
		assert.ok((thinking.usage as { outputTokens: number }).outputTokens > (quiet.usage as { outputTokens: number }).outputTokens, "thinking is output");
		assert.equal(cacheMinimumTokens(haiku55), 512);
	});

	it("refuses a request without messages, and unknown routes", async () => {
		const empty = await converse(JSON.stringify({ messages: [] }));
		assert.equal(empty.status, 400);
		assert.equal(errorType(empty), "ValidationException");
		const missing = await converse(JSON.stringify({ system: [{ text: "hi" }] }));
		assert.equal(errorType(missing), "ValidationException");
		const assistantFirst = await converse(JSON.stringify({ messages: [{ role: "assistant", content: [{ text: "hi" }] }] }));
		assert.match(String(json(assistantFirst.body).message), /must start with a user message/);
		const route = await send(
			fake.url,
			await signRequest(new URL(fake.url).host, { method: "POST", path: `/model/${encodeURIComponent(TEST_MODEL_ID)}/invoke`, headers: {}, body: "{}" }, { credentials: TEST_CREDENTIALS }),
		);
		assert.equal(route.status, 404);
		assert.equal(fake.pendingReplies, 0);
	});

	for (const [fault, status, type, message] of [
		["throttle", 429, "ThrottlingException", "Too many requests, please wait before trying again."],
		["serverError", 500, "InternalServerException", undefined],
		["unavailable", 503, "ServiceUnavailableException", undefined],
		["modelNotReady", 429, "ModelNotReadyException", undefined],
		["accessDenied", 403, "AccessDeniedException", "You don't have access to the model with the specified model ID."],
		[
			"onDemandNotSupported",
			400,
			"ValidationException",
			`Invocation of model ID ${TEST_MODEL_ID} with on-demand throughput isn't supported. Retry your request with the ID or ARN of an inference profile that contains this model.`,
		],
	] as const) {
		it(`answers the fault ${fault} with ${status} ${type}`, async () => {
			fake.script(fault);
			const response = await converse();
			assert.equal(response.status, status);
			assert.equal(response.headers["x-amzn-errortype"], `${type}:http://internal.amazon.com/coral/com.amazon.bedrock/`);
			assert.equal(typeof response.headers["x-amzn-requestid"], "string");
			const body = json(response.body);
			assert.deepEqual(Object.keys(body), ["message"]);
			if (message !== undefined) assert.equal(body.message, message);
			assert.equal(fake.requests[0]?.response?.errorType, type);
		});
	}

	it("answers any status given", async () => {
		fake.script({ status: { code: 424, type: "ModelErrorException", message: "The model failed." } });
		const response = await converse();
		assert.equal(response.status, 424);
		assert.equal(errorType(response), "ModelErrorException");
		assert.equal(json(response.body).message, "The model failed.");
	});

	it("resets the connection without an answer", async () => {
		fake.script("reset");
		await assert.rejects(converse(), (error: NodeJS.ErrnoException) => error.code === "ECONNRESET" || /socket hang up/.test(error.message));
		assert.equal(fake.requests[0]?.response?.status, "reset");
		assert.equal(fake.inFlight, 0);
		assert.equal((await converse()).status, 200, "the next request is answered");
	});

	it("answers 200 with a body that is not JSON", async () => {
		fake.script("notJson");
		const response = await converse();
		assert.equal(response.status, 200);
		assert.throws(() => JSON.parse(response.body));
	});

	it("answers badToolInput with a call of the requested tool whose input breaks its schema", async () => {
		fake.script("badToolInput");
		const body = converseBody("Remember this", {
			toolConfig: {
				tools: [{ toolSpec: { name: "other_tool", inputSchema: { json: { type: "object" } } } }, { toolSpec: { name: "record_memory", inputSchema: { json: { type: "object", required: ["title"], additionalProperties: false } } } }],
				toolChoice: { tool: { name: "record_memory" } },
			},
		});
		const answer = json((await converse(body)).body);
		assert.equal(answer.stopReason, "tool_use");
		const toolUse = (answer.output as { message: { content: { toolUse: { name: string; input: unknown } }[] } }).message.content[0]?.toolUse;
		assert.equal(toolUse?.name, "record_memory");
		assert.deepEqual(toolUse?.input, { unexpected: true });
	});

	it("delays a slow reply, then answers it", async () => {
		fake.script({ slow: 150, then: { text: "late" } }, { slow: 10 });
		const started = Date.now();
		const response = await converse();
		assert.ok(Date.now() - started >= 140, `took ${Date.now() - started} ms`);
		assert.equal(((json(response.body).output as { message: { content: { text: string }[] } }).message.content[0])?.text, "late");
		assert.ok((json(response.body).metrics as { latencyMs: number }).latencyMs >= 140);
		const normal = json((await converse()).body).output as { message: { content: { text: string }[] } };
		assert.equal(normal.message.content[0]?.text, DEFAULT_REPLY_TEXT, "slow without then gives respond()'s answer");
	});

	it("records concurrency: five slow requests at once", async () => {
		fake.respond = () => ({ slow: 100 });
		const requests = await Promise.all(Array.from({ length: 5 }, (_, i) => signedConverse(fake.url, { credentials: TEST_CREDENTIALS, body: converseBody(`question ${i}`) })));
		const responses = await Promise.all(requests.map((request) => send(fake.url, request)));
		assert.deepEqual(responses.map((response) => response.status), [200, 200, 200, 200, 200]);
		assert.equal(fake.maxConcurrent, 5);
		assert.equal(fake.inFlight, 0);
		assert.equal(fake.requests.length, 5);
		for (let i = 0; i < 5; i++) assert.ok(fake.bodiesText().includes(`question ${i}`));
		assert.ok(!fake.bodiesText().includes("secret diary entry"));
		fake.reset();
		assert.equal(fake.maxConcurrent, 0);
		assert.equal(fake.requests.length, 0);
	});

	it("fails a seeded share of requests with retryable faults, the same ones for the same seed, without eating the script", async () => {
		async function run(): Promise<(number | "reset")[]> {
			fake.reset();
			fake.failRandomly(0.5, 42);
			fake.script({ text: "first scripted" });
			const outcomes: (number | "reset")[] = [];
			for (let i = 0; i < 12; i++) {
				try {
					outcomes.push((await converse()).status);
				} catch {
					outcomes.push("reset");
				}
			}
			return outcomes;
		}
		const first = await run();
		const injected = fake.requests.filter((request) => request.injected);
		assert.ok(injected.length >= 2 && injected.length <= 10, JSON.stringify(first));
		for (const request of injected) assert.ok(["throttle", "serverError", "unavailable", "reset"].includes(request.reply as string));
		const firstAnswered = fake.requests.find((request) => !request.injected);
		assert.deepEqual(firstAnswered?.reply, { text: "first scripted" });
		assert.deepEqual(await run(), first);
	});
});

describe("the fake's Claude models", () => {
	const HAIKU_5_5 = "us.anthropic.claude-haiku-5-5";
	const HAIKU_4_5 = TEST_MODEL_ID;
	const FORCED = { toolConfig: { tools: [{ toolSpec: { name: "record_memory", inputSchema: { json: { type: "object" } } } }], toolChoice: { tool: { name: "record_memory" } } } };
	const THINKING_OFF = { additionalModelRequestFields: { thinking: { type: "disabled" } } };
	let fake: FakeBedrock;
	before(async () => {
		fake = await startFakeBedrock();
	});
	after(() => fake.close());
	beforeEach(() => fake.reset());

	async function converse(modelId: string, extra: Record<string, unknown> = {}): Promise<Awaited<ReturnType<typeof send>>> {
		return send(fake.url, await signedConverse(fake.url, { credentials: TEST_CREDENTIALS, modelId, body: converseBody("Hello", extra) }));
	}

	function refusal(response: Awaited<ReturnType<typeof send>>): string {
		assert.equal(response.status, 400, response.body);
		assert.equal(errorType(response), "ValidationException");
		return (json(response.body) as { message: string }).message;
	}

	function content(response: Awaited<ReturnType<typeof send>>): Record<string, unknown>[] {
		assert.equal(response.status, 200, response.body);
		return (json(response.body).output as { message: { content: Record<string, unknown>[] } }).message.content;
	}

	it("refuses a non-default temperature, top_p or any top_k on Claude Haiku 5.5, in Bedrock's words", async () => {
		assert.equal(refusal(await converse(HAIKU_5_5, { inferenceConfig: { maxTokens: 256, temperature: 0 } })), "The model returned the following errors: `temperature` is deprecated for this model.");
		assert.equal(refusal(await converse(HAIKU_5_5, { inferenceConfig: { maxTokens: 256, temperature: 0.2 } })), "The model returned the following errors: `temperature` is deprecated for this model.");
		assert.match(refusal(await converse(HAIKU_5_5, { inferenceConfig: { maxTokens: 256, topP: 1 } })), /`top_p`/);
		assert.match(refusal(await converse(HAIKU_5_5, { inferenceConfig: { maxTokens: 256, temperature: 1, topP: 0.99 } })), /both/);
		assert.match(refusal(await converse(HAIKU_5_5, { additionalModelRequestFields: { top_k: 5 } })), /`top_k`/);
		// Its defaults are accepted (migration guide: temperature 1, top_p 0.99), and Haiku 4.5 takes any temperature.
		assert.equal((await converse(HAIKU_5_5, { inferenceConfig: { maxTokens: 256, temperature: 1 } })).status, 200);
		assert.equal((await converse(HAIKU_5_5, { inferenceConfig: { maxTokens: 256, topP: 0.99 } })).status, 200);
		assert.equal((await converse(HAIKU_4_5, { inferenceConfig: { maxTokens: 256, temperature: 0 } })).status, 200);
		// Haiku 4.5 takes temperature or top_p, not both.
		assert.match(refusal(await converse(HAIKU_4_5, { inferenceConfig: { maxTokens: 256, temperature: 0, topP: 0.9 } })), /cannot both be specified/);
		assert.equal(fake.requests.filter((request) => request.response?.status === 400).length, 6);
	});

	it("makes Claude Haiku 5.5 think by default: a reasoning block with a signature and an empty text, its tokens billed as output", async () => {
		fake.script({ text: "Answer.", thinking: "t".repeat(400) });
		const thinking = await converse(HAIKU_5_5);
		const blocks = content(thinking);
		assert.equal(blocks.length, 2);
		const reasoning = (blocks[0]?.reasoningContent as { reasoningText: { text: string; signature: string } }).reasoningText;
		assert.equal(reasoning.text, "", "Haiku 5.5 shows no thinking text unless asked for a summary");
		assert.ok(reasoning.signature.length > 20);
		assert.deepEqual(blocks[1], { text: "Answer." });
		// 7 + 400 characters, at 30% more tokens than four characters each (Haiku 5.5's tokenizer).
		assert.equal((json(thinking.body).usage as { outputTokens: number }).outputTokens, 3 + 130);

		fake.script({ text: "Answer.", thinking: "Summary of the thought." });
		const summarized = content(await converse(HAIKU_5_5, { additionalModelRequestFields: { thinking: { type: "adaptive", display: "summarized" } } }));
		assert.equal((summarized[0]?.reasoningContent as { reasoningText: { text: string } }).reasoningText.text, "Summary of the thought.");

		fake.script({ text: "Answer." });
		const off = await converse(HAIKU_5_5, THINKING_OFF);
		assert.deepEqual(content(off), [{ text: "Answer." }]);
		assert.equal((json(off.body).usage as { outputTokens: number }).outputTokens, 3);
		assert.equal((json(off.body).usage as { inputTokens: number }).inputTokens, Math.ceil((converseBody("Hello", THINKING_OFF).length / 4) * 1.3));
		// Haiku 4.5 thinks only when asked, with a budget.
		assert.deepEqual(content(await converse(HAIKU_4_5)), [{ text: DEFAULT_REPLY_TEXT }]);
		const budget = content(await converse(HAIKU_4_5, { additionalModelRequestFields: { thinking: { type: "enabled", budget_tokens: 1_024 } } }));
		assert.ok("reasoningContent" in budget[0]!);
		assert.notEqual((budget[0]?.reasoningContent as { reasoningText: { text: string } }).reasoningText.text, "", "Haiku 4.5 shows its thinking");
	});

	it("refuses a forced tool while thinking is on, per model", async () => {
		const thinkingMessage = "The model returned the following errors: Thinking may not be enabled when tool_choice forces tool use.";
		// Budget thinking (Haiku 4.5) and the adaptive 5.x models other than Haiku 5.5.
		const budgetThinking = { additionalModelRequestFields: { thinking: { type: "enabled", budget_tokens: 2_048 } } };
		assert.equal(refusal(await converse(HAIKU_4_5, { ...FORCED, ...budgetThinking })), thinkingMessage);
		assert.equal(refusal(await converse("global.anthropic.claude-opus-5", FORCED)), thinkingMessage, "Opus 5 thinks by default");
		assert.equal((await converse("global.anthropic.claude-opus-5", { ...FORCED, ...THINKING_OFF })).status, 200);
		assert.equal((await converse(HAIKU_4_5, FORCED)).status, 200);
		// Always-thinking models refuse any forced tool.
		assert.equal(
			refusal(await converse("global.anthropic.claude-opus-5-5", { ...FORCED, additionalModelRequestFields: { thinking: { type: "adaptive" } } })),
			'The model returned the following errors: tool_choice: type "tool" and "any" are not supported for this model.',
		);
		assert.equal(refusal(await converse("us.anthropic.claude-sonnet-5-5", { toolConfig: { ...FORCED.toolConfig, toolChoice: { any: {} } } })).includes("tool_choice"), true);
		// Haiku 5.5 takes it and answers with the tool call, without thinking (Anthropic's migration guide).
		fake.script({ toolUse: { name: "record_memory", input: { title: "T" } } });
		const forced = content(await converse(HAIKU_5_5, FORCED));
		assert.equal(forced.length, 1);
		assert.ok("toolUse" in forced[0]!);
		// An offered tool (auto) leaves the thinking on.
		fake.script({ toolUse: { name: "record_memory", input: { title: "T" } } });
		const offered = content(await converse(HAIKU_5_5, { toolConfig: { ...FORCED.toolConfig, toolChoice: { auto: {} } } }));
		assert.deepEqual(offered.map((block) => Object.keys(block)[0]), ["reasoningContent", "toolUse"]);
	});

	it("validates thinking and effort fields by the model's kind of thinking", async () => {
		const thinking = (value: unknown, effort?: string) => ({
			additionalModelRequestFields: { thinking: value, ...(effort === undefined ? {} : { output_config: { effort } }) },
		});
		// Adaptive-only Haiku 5.5: no budget; disabled only up to high effort; known efforts only.
		assert.match(refusal(await converse(HAIKU_5_5, thinking({ type: "enabled", budget_tokens: 2_048 }))), /thinking\.type/);
		assert.equal((await converse(HAIKU_5_5, thinking({ type: "disabled" }, "high"))).status, 200);
		assert.match(refusal(await converse(HAIKU_5_5, thinking({ type: "disabled" }, "xhigh"))), /effort/);
		assert.equal((await converse(HAIKU_5_5, thinking({ type: "adaptive" }, "max"))).status, 200);
		assert.match(refusal(await converse(HAIKU_5_5, thinking({ type: "adaptive" }, "extreme"))), /effort/);
		// Budget models: a budget of at least 1,024, never adaptive, no effort; thinking needs temperature 1.
		assert.match(refusal(await converse(HAIKU_4_5, thinking({ type: "enabled", budget_tokens: 100 }))), /budget_tokens/);
		assert.match(refusal(await converse(HAIKU_4_5, thinking({ type: "adaptive" }))), /thinking\.type/);
		assert.match(refusal(await converse(HAIKU_4_5, thinking({ type: "disabled" }, "low"))), /output_config/);
		assert.match(
			refusal(await converse(HAIKU_4_5, { inferenceConfig: { maxTokens: 2_000, temperature: 0 }, ...thinking({ type: "enabled", budget_tokens: 1_024 }) })),
			/temperature may only be set to 1/,
		);
		// Always-thinking models refuse `disabled`; models without thinking refuse the field.
		assert.match(refusal(await converse("global.anthropic.claude-opus-5-5", thinking({ type: "disabled" }))), /thinking\.type/);
		assert.match(refusal(await converse("anthropic.claude-3-haiku-20240307-v1:0", thinking({ type: "disabled" }))), /thinking/);
		// The 5.x models other than Haiku refuse temperature outright (vercel/ai's Opus 5 fixture), not top_k.
		assert.equal(
			refusal(await converse("global.anthropic.claude-opus-5", { inferenceConfig: { maxTokens: 256, temperature: 0.2 } })),
			"The model returned the following errors: `temperature` is deprecated for this model.",
		);
		assert.equal((await converse("global.anthropic.claude-opus-5", { additionalModelRequestFields: { top_k: 5 } })).status, 200);
		assert.match(refusal(await converse("global.anthropic.claude-opus-5", thinking({ type: "disabled" }, "max"))), /effort/);
		assert.match(refusal(await converse("global.anthropic.claude-opus-4-7", { inferenceConfig: { maxTokens: 256, temperature: 0 } })), /`temperature` is deprecated/);
		// Sonnet 5.5 cannot stop thinking, but thinks least with between_tools; Haiku 5.5 refuses that mode.
		assert.equal((await converse("us.anthropic.claude-sonnet-5-5", thinking({ type: "between_tools" }))).status, 200);
		assert.match(refusal(await converse(HAIKU_5_5, thinking({ type: "between_tools" }))), /thinking\.type/);
	});

	it("refuses prefill and the bare id on Claude Haiku 5.5, and calls its profiles only from their geography", async () => {
		const prefill = JSON.stringify({ messages: [{ role: "user", content: [{ text: "Hi" }] }, { role: "assistant", content: [{ text: "{" }] }] });
		const prefilled = await send(fake.url, await signedConverse(fake.url, { credentials: TEST_CREDENTIALS, modelId: HAIKU_5_5, body: prefill }));
		assert.match(refusal(prefilled), /Prefilling/);
		assert.match(refusal(await converse("anthropic.claude-haiku-5-5")), /on-demand throughput isn't supported/);
		assert.match(refusal(await converse("anthropic.claude-haiku-4-5-20251001-v1:0")), /on-demand throughput isn't supported/, "Haiku 4.5 has no in-Region endpoint either");
		assert.equal((await converse("anthropic.claude-sonnet-4-5-20250929-v1:0")).status, 200, "Sonnet 4.5 has one");
		assert.equal(refusal(await converse("eu.anthropic.claude-haiku-5-5")), "The provided model identifier is invalid.");
		assert.equal((await converse("global.anthropic.claude-haiku-5-5")).status, 200);
	});

	it("denies access to chosen models with AccessDeniedException, by base id for every profile", async () => {
		fake.deniedModels.add("anthropic.claude-haiku-5-5");
		for (const id of [HAIKU_5_5, "global.anthropic.claude-haiku-5-5"]) {
			const denied = await converse(id);
			assert.equal(denied.status, 403);
			assert.equal(errorType(denied), "AccessDeniedException");
			assert.equal(json(denied.body).message, "You don't have access to the model with the specified model ID.");
		}
		assert.equal((await converse(HAIKU_4_5)).status, 200);
		fake.reset();
		assert.equal((await converse(HAIKU_5_5)).status, 200, "reset() puts back the options' list (empty here)");
		const denying = await startFakeBedrock({ deniedModels: [HAIKU_5_5] });
		try {
			const denied = await send(denying.url, await signedConverse(denying.url, { credentials: TEST_CREDENTIALS, modelId: HAIKU_5_5 }));
			assert.equal(denied.status, 403);
		} finally {
			await denying.close();
		}
	});

	it("lists Claude Haiku 5.5's profiles the region may call, and it as a model only for inference profiles", async () => {
		// With a Bedrock API key: no signature to compute over the query string.
		const list = async (path: string) => json((await send(fake.url, { method: "GET", path, headers: { authorization: `Bearer ${TEST_API_KEY}` }, body: "" })).body);
		const profiles = (await list("/inference-profiles")).inferenceProfileSummaries as { inferenceProfileId: string }[];
		const ids = profiles.map((profile) => profile.inferenceProfileId);
		assert.ok(ids.includes("us.anthropic.claude-haiku-5-5") && ids.includes("global.anthropic.claude-haiku-5-5"));
		assert.ok(!ids.some((id) => id.startsWith("eu.") || id.startsWith("jp.")), "us-east-1 lists no other geography's profiles");
		const onDemand = (await list("/foundation-models?byOutputModality=TEXT&byInferenceType=ON_DEMAND")).modelSummaries as { modelId: string }[];
		assert.ok(!onDemand.some((model) => model.modelId === "anthropic.claude-haiku-5-5"), "no in-Region endpoint");
		const all = (await list("/foundation-models")).modelSummaries as { modelId: string; inferenceTypesSupported: string[] }[];
		assert.deepEqual(all.find((model) => model.modelId === "anthropic.claude-haiku-5-5")?.inferenceTypesSupported, ["INFERENCE_PROFILE"]);
	});

	it("caches Claude Haiku 5.5 prefixes from 512 tokens", () => {
		assert.equal(cacheMinimumTokens(HAIKU_5_5), 512);
		assert.equal(cacheMinimumTokens(HAIKU_4_5), 4_096);
	});
});
