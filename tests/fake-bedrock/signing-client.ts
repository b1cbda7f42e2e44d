// A test client for the fake: signs Converse requests with AWS's JS signer (as the AWS SDK would) and sends them with node:http.

import http from "node:http";
import { HttpRequest } from "@smithy/protocol-http";
import { SignatureV4 } from "@smithy/signature-v4";
import type { FakeCredential } from "./credentials";
import { Sha256 } from "./sigv4";

export const TEST_MODEL_ID = "us.anthropic.claude-haiku-4-5-20251001-v1:0";

/** A request ready to send: the path stays percent-encoded as it goes on the wire. */
export interface WireRequest {
	method: string;
	path: string;
	headers: Record<string, string>;
	body: string;
}

export interface WireResponse {
	status: number;
	headers: http.IncomingHttpHeaders;
	body: string;
}

/** The path a client sends for a model id: the id is one percent-encoded segment (`:` → `%3A`). */
export function conversePath(modelId: string = TEST_MODEL_ID): string {
	return `/model/${encodeURIComponent(modelId)}/converse`;
}

/** A minimal valid Converse body. */
export function converseBody(text = "Hello", extra: Record<string, unknown> = {}): string {
	return JSON.stringify({ messages: [{ role: "user", content: [{ text }] }], inferenceConfig: { maxTokens: 256 }, ...extra });
}

export interface SignOptions {
	credentials: FakeCredential;
	region?: string;
	service?: string;
	signingDate?: Date;
	/** Whether the signer adds (and signs) x-amz-content-sha256; the Rust client does not, so default false. */
	applyChecksum?: boolean;
	/** Headers to sign even where the smithy signer would skip them (user-agent, expect, …). */
	signableHeaders?: Set<string>;
}

/**
 * Signs `request` for `host` (e.g. `127.0.0.1:PORT`). The smithy signer does not add the Host header
 * itself (the SDK's middleware does), so it is set here before signing, as the Rust signer does.
 */
export async function signRequest(host: string, request: WireRequest, options: SignOptions): Promise<WireRequest> {
	const [hostname, port] = host.split(":");
	const signer = new SignatureV4({
		credentials: options.credentials,
		region: options.region ?? "us-east-1",
		service: options.service ?? "bedrock",
		sha256: Sha256,
		applyChecksum: options.applyChecksum ?? false,
	});
	const signed = await signer.sign(
		new HttpRequest({
			method: request.method,
			protocol: "http:",
			hostname,
			port: port === undefined ? undefined : Number(port),
			path: request.path,
			headers: { ...request.headers, host },
			body: request.body,
		}),
		{ signingDate: options.signingDate ?? new Date(), signableHeaders: options.signableHeaders },
	);
	return { ...request, headers: signed.headers };
}

/** A signed Converse request to the fake at `url`. */
export async function signedConverse(url: string, options: SignOptions & { body?: string; modelId?: string }): Promise<WireRequest> {
	const request: WireRequest = {
		method: "POST",
		path: conversePath(options.modelId),
		headers: { "content-type": "application/json", accept: "application/json" },
		body: options.body ?? converseBody(),
	};
	return signRequest(new URL(url).host, request, options);
}

/** Sends exactly these headers and body (Host included when given) and reads the whole answer. */
export function send(url: string, request: WireRequest): Promise<WireResponse> {
	const target = new URL(url);
	return new Promise((resolve, reject) => {
		const outgoing = http.request(
			{ host: target.hostname, port: target.port, method: request.method, path: request.path, headers: request.headers, agent: false },
			(res) => {
				const chunks: Buffer[] = [];
				res.on("data", (chunk: Buffer) => chunks.push(chunk));
				res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString("utf8") }));
				res.on("error", reject);
			},
		);
		outgoing.on("error", reject);
		outgoing.end(request.body);
	});
}

/** The short error type of an AWS error answer (`x-amzn-ErrorType` up to the colon). */
export function errorType(response: WireResponse): string | undefined {
	const header = response.headers["x-amzn-errortype"];
	return typeof header === "string" ? header.split(":")[0] : undefined;
}
