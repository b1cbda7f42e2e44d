// The fake Bedrock Runtime: serves POST /model/{modelId}/converse on loopback, records every request, answers as scripted.

import { createHash, randomUUID } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import {
	type AwsError,
	accessDenied,
	errorTypeHeader,
	internalServer,
	invalidModelIdentifier,
	onDemandNotSupported,
	profileCallableFrom,
	unknownOperation,
	validation,
} from "./aws-errors";
import { type AuthOutcome, authorize } from "./authorize";
import { type SentImage, checkConverseMediaRules, checkModelMedia, imagesIn } from "./content-blocks";
import { parseConverseRequest } from "./converse-request";
import { type FakeCredential, TEST_API_KEY, TEST_CREDENTIALS, TEST_EXPIRED_SESSION_TOKEN, TEST_REGION, TEST_SESSION_CREDENTIALS } from "./credentials";
import { DEFAULT_THINKING, type ThinkingRequest, baseModelId, checkModelRequest, isBareModelId, mediaRules, modelRules, reasoningBlock } from "./models";
import { seededRandom } from "./prng";
import { type Answer, type FaultName, type Reply, asRecord, toAnswer } from "./replies";
import { PromptCache } from "./usage";

export interface FakeBedrockOptions {
	/** The region the credential scope must name; default `us-east-1`. */
	region?: string;
	/** Known IAM keys; default TEST_CREDENTIALS and TEST_SESSION_CREDENTIALS. */
	credentials?: FakeCredential[];
	/** Accepted Bedrock API keys (`Authorization: Bearer <key>`); default [TEST_API_KEY]. */
	apiKeys?: string[];
	/** Session tokens answered with ExpiredTokenException; default [TEST_EXPIRED_SESSION_TOKEN]. */
	expiredSessionTokens?: string[];
	/** The fake's clock (ms since the epoch) for the 5-minute signature window and the prompt cache; default Date.now. */
	now?: () => number;
	/**
	 * Models this account may not call: each Converse call to one answers 403 AccessDeniedException. An entry
	 * is a model or profile id; a base id (`anthropic.claude-haiku-5-5`) denies every profile of it too.
	 */
	deniedModels?: string[];
}

/** What the fake answered; `status` is "reset" when it destroyed the socket instead. */
export interface RecordedResponse {
	status: number | "reset";
	/** The short error type for an error answer, e.g. "ThrottlingException". */
	errorType?: string;
	body: string;
}

/** One request as the fake received and answered it. */
export interface RecordedRequest {
	/** 1 for the first request since start or reset(), and so on. */
	seq: number;
	method: string;
	/** The path exactly as received, e.g. `/model/us.anthropic.claude-haiku-4-5-20251001-v1%3A0/converse`. */
	path: string;
	/** The query string without `?`, as received ("" when none). */
	query: string;
	/** The decoded model id from the path (`us.anthropic.claude-haiku-4-5-20251001-v1:0`), undefined off the converse route. */
	modelId: string | undefined;
	/** Lower-case names; repeated headers joined as Node joins them. */
	headers: Record<string, string>;
	/** The raw body, decoded as UTF-8. */
	body: string;
	/** The body parsed as JSON, undefined when it is not JSON. */
	json: unknown;
	auth: AuthOutcome;
	/** The reply chosen for it (scripted, from respond(), or injected by failRandomly); undefined when refused earlier. */
	reply?: Reply;
	/** True when failRandomly() chose the reply. */
	injected: boolean;
	/** Undefined while the request is in flight. */
	response?: RecordedResponse;
	/** The fake's clock when the request arrived and when it was answered. */
	receivedAt: number;
	answeredAt?: number;
}

/** The answer when nothing is scripted and `respond` was not replaced. */
export const DEFAULT_REPLY_TEXT = "This is an answer from the fake Bedrock.";

const RETRYABLE_FAULTS: readonly FaultName[] = ["throttle", "serverError", "unavailable", "reset"];
const CONVERSE_PATH = /^\/model\/([^/]+)\/converse$/;

export class FakeBedrock {
	/** Every request since start or reset(), in arrival order (in-flight ones included). */
	readonly requests: RecordedRequest[] = [];
	/** Decides the reply when the script is empty; replace it freely. */
	respond: (request: RecordedRequest) => Reply | Promise<Reply> = defaultRespond;
	/**
	 * The system-defined inference profiles the control plane lists (ListInferenceProfiles);
	 * only those callable from the fake's region are listed, as AWS lists a region's own.
	 */
	inferenceProfiles: Array<{ id: string; name: string }> = [
		{ id: "us.anthropic.claude-haiku-4-5-20251001-v1:0", name: "US Anthropic Claude Haiku 4.5" },
		{ id: "eu.anthropic.claude-haiku-4-5-20251001-v1:0", name: "EU Anthropic Claude Haiku 4.5" },
		{ id: "global.anthropic.claude-haiku-4-5-20251001-v1:0", name: "Global Anthropic Claude Haiku 4.5" },
		{ id: "jp.anthropic.claude-haiku-4-5-20251001-v1:0", name: "JP Anthropic Claude Haiku 4.5" },
		{ id: "au.anthropic.claude-haiku-4-5-20251001-v1:0", name: "AU Anthropic Claude Haiku 4.5" },
		{ id: "us.anthropic.claude-sonnet-4-5-20250929-v1:0", name: "US Anthropic Claude Sonnet 4.5" },
		// Claude Haiku 5.5 (2026-10-07) has geographic profiles for the US, the EU, Japan and Australia and a
		// global one, and no in-Region endpoint (AWS's model card; models-research §1).
		{ id: "us.anthropic.claude-haiku-5-5", name: "US Anthropic Claude Haiku 5.5" },
		{ id: "eu.anthropic.claude-haiku-5-5", name: "EU Anthropic Claude Haiku 5.5" },
		{ id: "jp.anthropic.claude-haiku-5-5", name: "JP Anthropic Claude Haiku 5.5" },
		{ id: "au.anthropic.claude-haiku-5-5", name: "AU Anthropic Claude Haiku 5.5" },
		{ id: "global.anthropic.claude-haiku-5-5", name: "Global Anthropic Claude Haiku 5.5" },
	];
	/**
	 * Foundation models (ListFoundationModels); `inferenceTypes` defaults to ON_DEMAND. A `byInferenceType`
	 * query keeps only the models that support it, as AWS does.
	 */
	foundationModels: Array<{ id: string; name: string; provider: string; inferenceTypes?: string[] }> = [
		{ id: "amazon.nova-lite-v1:0", name: "Nova Lite", provider: "Amazon" },
		{ id: "anthropic.claude-haiku-5-5", name: "Claude Haiku 5.5", provider: "Anthropic", inferenceTypes: ["INFERENCE_PROFILE"] },
	];
	/** Model or profile ids this account may not call (see `FakeBedrockOptions.deniedModels`); change freely. */
	readonly deniedModels: Set<string>;

	private readonly server: http.Server;
	private readonly region: string;
	private readonly credentials: FakeCredential[];
	private readonly apiKeys: string[];
	private readonly expiredSessionTokens: string[];
	private readonly now: () => number;
	private readonly initiallyDenied: readonly string[];
	private readonly queue: Reply[] = [];
	private readonly cache = new PromptCache();
	private readonly delays = new Set<{ timer: NodeJS.Timeout; resolve: () => void }>();
	private random: { rate: number; next: () => number } | undefined;
	private active = 0;
	private peak = 0;
	private toolUseCount = 0;
	private address = "";

	private constructor(options: FakeBedrockOptions) {
		this.region = options.region ?? TEST_REGION;
		this.credentials = options.credentials ?? [TEST_CREDENTIALS, TEST_SESSION_CREDENTIALS];
		this.apiKeys = options.apiKeys ?? [TEST_API_KEY];
		this.expiredSessionTokens = options.expiredSessionTokens ?? [TEST_EXPIRED_SESSION_TOKEN];
		this.now = options.now ?? Date.now;
		this.initiallyDenied = options.deniedModels ?? [];
		this.deniedModels = new Set(this.initiallyDenied);
		this.server = http.createServer((req, res) => this.accept(req, res));
	}

	/** Starts a fake on 127.0.0.1 at a free port. */
	static async start(options: FakeBedrockOptions = {}): Promise<FakeBedrock> {
		const fake = new FakeBedrock(options);
		await new Promise<void>((resolve, reject) => {
			fake.server.once("error", reject);
			fake.server.listen(0, "127.0.0.1", () => resolve());
		});
		fake.address = `http://127.0.0.1:${(fake.server.address() as AddressInfo).port}`;
		return fake;
	}

	/** `http://127.0.0.1:PORT`, the endpoint override to give a client. */
	get url(): string {
		return this.address;
	}

	/** Requests received and not yet answered. */
	get inFlight(): number {
		return this.active;
	}

	/** The most requests ever in flight at once since start or reset(). */
	get maxConcurrent(): number {
		return this.peak;
	}

	/** Scripted replies not yet used. */
	get pendingReplies(): number {
		return this.queue.length;
	}

	/** Queues replies, used one per accepted Converse request in order, before `respond` is asked. */
	script(...replies: Reply[]): void {
		this.queue.push(...replies);
	}

	/**
	 * Answers about `rate` (0..1) of accepted Converse requests with a random retryable fault (throttle,
	 * serverError, unavailable, reset), chosen by a PRNG seeded with `seed`; such requests leave the script
	 * alone, so scripted replies still arrive in order. A rate of 0 turns it off.
	 */
	failRandomly(rate: number, seed = 1): void {
		this.random = rate > 0 ? { rate, next: seededRandom(seed) } : undefined;
	}

	/** All request bodies joined by newlines: assert that some text never left the device. */
	bodiesText(): string {
		return this.requests.map((request) => request.body).join("\n");
	}

	/**
	 * Every image the recorded requests carried, refused ones included, with the request's `seq` and what the bytes
	 * say (format, size in bytes and pixels): assert what left the device and that it was within Bedrock's limits.
	 */
	sentImages(): Array<SentImage & { seq: number }> {
		return this.requests.flatMap((request) => {
			const json = asRecord(request.json);
			return json === undefined ? [] : imagesIn(json).map((image) => ({ seq: request.seq, ...image }));
		});
	}

	/** Forgets requests, script, prompt cache and random faults, puts back the default `respond` and the options' denied models. */
	reset(): void {
		this.deniedModels.clear();
		for (const id of this.initiallyDenied) this.deniedModels.add(id);
		this.requests.length = 0;
		this.queue.length = 0;
		this.cache.clear();
		this.random = undefined;
		this.respond = defaultRespond;
		this.peak = this.active;
	}

	/** ListInferenceProfiles' output (botocore `bedrock`): the profiles callable from this region. */
	private listInferenceProfiles(): Record<string, unknown> {
		const summaries = this.inferenceProfiles
			.filter((profile) => profileCallableFrom(profile.id, this.region))
			.map((profile) => ({
				inferenceProfileName: profile.name,
				inferenceProfileId: profile.id,
				inferenceProfileArn: `arn:aws:bedrock:${this.region}:123456789012:inference-profile/${profile.id}`,
				models: [{ modelArn: `arn:aws:bedrock:${this.region}::foundation-model/${profile.id.replace(/^[a-z]+\./, "")}` }],
				status: "ACTIVE",
				type: "SYSTEM_DEFINED",
				description: `Routes requests to ${profile.name}.`,
			}));
		return { inferenceProfileSummaries: summaries };
	}

	/** ListFoundationModels' output (botocore `bedrock`), filtered by `byInferenceType` when the query has it. */
	private listFoundationModels(query: string): Record<string, unknown> {
		const inferenceType = new URLSearchParams(query).get("byInferenceType");
		const models = this.foundationModels.filter((model) => inferenceType === null || (model.inferenceTypes ?? ["ON_DEMAND"]).includes(inferenceType));
		return {
			modelSummaries: models.map((model) => ({
				modelArn: `arn:aws:bedrock:${this.region}::foundation-model/${model.id}`,
				modelId: model.id,
				modelName: model.name,
				providerName: model.provider,
				inputModalities: ["TEXT"],
				outputModalities: ["TEXT"],
				inferenceTypesSupported: model.inferenceTypes ?? ["ON_DEMAND"],
				modelLifecycle: { status: "ACTIVE" },
			})),
		};
	}

	/** Stops the server, dropping open connections and pending delays. */
	async close(): Promise<void> {
		for (const delay of this.delays) {
			clearTimeout(delay.timer);
			delay.resolve();
		}
		this.delays.clear();
		this.server.closeAllConnections();
		await new Promise<void>((resolve) => this.server.close(() => resolve()));
	}

	private accept(req: http.IncomingMessage, res: http.ServerResponse): void {
		this.active += 1;
		this.peak = Math.max(this.peak, this.active);
		let finished = false;
		res.on("close", () => {
			if (finished) return;
			finished = true;
			this.active -= 1;
		});
		this.serve(req, res).catch((error: unknown) => {
			// A bug in the fake or a throwing respond(): say so loudly rather than leave the client hanging.
			console.error("fake-bedrock:", error);
			if (!res.headersSent && !res.destroyed) {
				const failure = internalServer();
				this.writeError(res, undefined, { ...failure, message: `${failure.message} (fake: ${String(error)})` });
			}
		});
	}

	private async serve(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
		const startedAt = Date.now();
		const receivedAt = this.now();
		const chunks: Buffer[] = [];
		for await (const chunk of req) chunks.push(chunk as Buffer);
		const bodyBytes = Buffer.concat(chunks);
		const target = req.url ?? "/";
		const queryAt = target.indexOf("?");
		const path = queryAt < 0 ? target : target.slice(0, queryAt);
		const query = queryAt < 0 ? "" : target.slice(queryAt + 1);
		const route = CONVERSE_PATH.exec(path);
		const method = req.method ?? "GET";
		const body = bodyBytes.toString("utf8");

		const auth = await authorize(
			{ method, path, query, rawHeaders: req.rawHeaders, body: bodyBytes },
			{ region: this.region, credentials: this.credentials, apiKeys: this.apiKeys, expiredSessionTokens: this.expiredSessionTokens, now: this.now },
		);
		const record: RecordedRequest = {
			seq: this.requests.length + 1,
			method,
			path,
			query,
			modelId: route ? decodePathSegment(route[1] ?? "") : undefined,
			headers: flattenHeaders(req.headers),
			body,
			json: tryParseJson(body),
			auth,
			injected: false,
			receivedAt,
		};
		this.requests.push(record);

		if (!auth.ok) return this.writeError(res, record, auth.error);
		if (method === "GET" && path === "/inference-profiles") return this.write(res, record, 200, JSON.stringify(this.listInferenceProfiles()), {});
		if (method === "GET" && path === "/foundation-models") return this.write(res, record, 200, JSON.stringify(this.listFoundationModels(query)), {});
		if (method !== "POST" || record.modelId === undefined) return this.writeError(res, record, unknownOperation());
		if (!profileCallableFrom(record.modelId, this.region)) return this.writeError(res, record, invalidModelIdentifier());
		const rules = modelRules(record.modelId);
		if (rules !== undefined && !rules.inRegion && isBareModelId(record.modelId)) return this.writeError(res, record, onDemandNotSupported(record.modelId));
		if (this.isDenied(record.modelId)) return this.writeError(res, record, accessDenied());
		const parsed = parseConverseRequest(body);
		if (!parsed.ok) return this.writeError(res, record, parsed.error);
		// Bedrock's own rules for images and documents, and whether this model takes images.
		const media = mediaRules(record.modelId);
		const mediaRefusal = checkConverseMediaRules(parsed.json, media);
		if (mediaRefusal) return this.writeError(res, record, mediaRefusal);
		// What this model refuses in a request (sampling, thinking, effort, forced tools), before any reply.
		const checked = rules === undefined ? { on: false, shown: false } : checkModelRequest(rules, parsed.json);
		if ("refusal" in checked) return this.writeError(res, record, validation(checked.refusal));
		// What the model provider refuses about the images (size, dimensions, real format, count).
		const modelMediaRefusal = checkModelMedia(parsed.json, record.modelId, media);
		if (modelMediaRefusal) return this.writeError(res, record, modelMediaRefusal);

		let reply: Reply;
		if (this.random && this.random.next() < this.random.rate) {
			reply = RETRYABLE_FAULTS[Math.floor(this.random.next() * RETRYABLE_FAULTS.length)] ?? "throttle";
			record.injected = true;
		} else {
			reply = this.queue.shift() ?? (await this.respond(record));
		}
		record.reply = reply;
		while (typeof reply === "object" && "slow" in reply) {
			await this.delay(reply.slow);
			reply = reply.then ?? (await this.respondAfterDelay(record));
		}
		if (res.destroyed) return;
		const answer = toAnswer(reply, { modelId: record.modelId, json: parsed.json, nextToolUseId: () => this.nextToolUseId() });
		this.writeAnswer(req, res, record, answer, parsed.json, startedAt, checked);
	}

	/** Whether the account may not call `modelId` (by its own id or its base model's). */
	private isDenied(modelId: string): boolean {
		return this.deniedModels.has(modelId) || this.deniedModels.has(baseModelId(modelId));
	}

	private writeAnswer(
		req: http.IncomingMessage,
		res: http.ServerResponse,
		record: RecordedRequest,
		answer: Answer,
		json: Record<string, unknown>,
		startedAt: number,
		thinking: ThinkingRequest,
	): void {
		switch (answer.kind) {
			case "error":
				return this.writeError(res, record, answer.error);
			case "reset":
				record.response = { status: "reset", body: "" };
				record.answeredAt = this.now();
				req.socket.destroy();
				return;
			case "notJson":
				return this.write(res, record, 200, answer.body, {});
			case "converse": {
				// A thinking model's answer starts with its reasoning, whose tokens are output tokens.
				const thought = thinking.on ? (answer.thinking ?? DEFAULT_THINKING) : "";
				const content = thinking.on ? [reasoningBlock(thought, thinking.shown), ...answer.content] : answer.content;
				const usage = this.cache.usage(record.modelId ?? "", record.body, json, content, this.now(), thought);
				const body = JSON.stringify({
					output: { message: { role: "assistant", content } },
					stopReason: answer.stopReason,
					usage,
					metrics: { latencyMs: Math.max(1, Date.now() - startedAt) },
				});
				return this.write(res, record, 200, body, {});
			}
		}
	}

	private writeError(res: http.ServerResponse, record: RecordedRequest | undefined, error: AwsError): void {
		this.write(res, record, error.status, JSON.stringify({ message: error.message }), { "x-amzn-ErrorType": errorTypeHeader(error.type) }, error.type);
	}

	private write(res: http.ServerResponse, record: RecordedRequest | undefined, status: number, body: string, headers: Record<string, string>, errorType?: string): void {
		if (record) {
			record.response = errorType === undefined ? { status, body } : { status, errorType, body };
			record.answeredAt = this.now();
		}
		if (res.destroyed) return;
		res.writeHead(status, {
			"Content-Type": "application/json",
			"Content-Length": Buffer.byteLength(body),
			"x-amzn-RequestId": randomUUID(),
			// AWS's own time, which the SDKs (and the core) correct a skewed clock from.
			Date: new Date(this.now()).toUTCString(),
			...headers,
		});
		res.end(body);
	}

	/**
	 * The reply after a `slow` without `then`: respond()'s, but a `slow` from respond() is not waited on
	 * again (`respond = () => ({ slow: 100 })` means "every answer 100 ms late", not "never answer").
	 */
	private async respondAfterDelay(record: RecordedRequest): Promise<Exclude<Reply, { slow: number }>> {
		let reply = await this.respond(record);
		while (typeof reply === "object" && "slow" in reply) reply = reply.then ?? defaultRespond();
		return reply;
	}

	private delay(ms: number): Promise<void> {
		return new Promise((resolve) => {
			const entry = {
				timer: setTimeout(() => {
					this.delays.delete(entry);
					resolve();
				}, ms),
				resolve,
			};
			this.delays.add(entry);
		});
	}

	/** Ids shaped like Bedrock's (`tooluse_` and 22 URL-safe characters), the same sequence in every run. */
	private nextToolUseId(): string {
		this.toolUseCount += 1;
		return `tooluse_${createHash("sha256").update(`tool-use-${this.toolUseCount}`).digest("base64url").slice(0, 22)}`;
	}
}

/** Starts a fake Bedrock Runtime on 127.0.0.1 at a free port. */
export function startFakeBedrock(options: FakeBedrockOptions = {}): Promise<FakeBedrock> {
	return FakeBedrock.start(options);
}

function defaultRespond(): Reply {
	return { text: DEFAULT_REPLY_TEXT };
}

function decodePathSegment(segment: string): string {
	try {
		return decodeURIComponent(segment);
	} catch {
		return segment;
	}
}

function tryParseJson(body: string): unknown {
	try {
		return JSON.parse(body);
	} catch {
		return undefined;
	}
}

function flattenHeaders(headers: http.IncomingHttpHeaders): Record<string, string> {
	const flat: Record<string, string> = {};
	for (const [name, value] of Object.entries(headers)) {
		if (value !== undefined) flat[name] = Array.isArray(value) ? value.join(", ") : value;
	}
	return flat;
}
