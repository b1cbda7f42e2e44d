// SigV4 as the fake checks it: parse the Authorization header, then recompute the signature with AWS's own JS signer.

import { Hash } from "@smithy/hash-node";
import { HttpRequest } from "@smithy/protocol-http";
import { SignatureV4 } from "@smithy/signature-v4";

/** The parts of `Authorization: AWS4-HMAC-SHA256 Credential=…, SignedHeaders=…, Signature=…`. */
export interface SigV4Authorization {
	accessKeyId: string;
	/** The scope: `yyyymmdd/region/service/aws4_request`. */
	scopeDate: string;
	scopeRegion: string;
	scopeService: string;
	scopeTerminator: string;
	/** Lower-case names as listed, in the client's order. */
	signedHeaders: string[];
	signature: string;
}

const SIGV4_ALGORITHM = "AWS4-HMAC-SHA256";

/** SHA-256 for the smithy signer, backed by Node's crypto (what the AWS SDK uses in Node). */
export const Sha256 = Hash.bind(null, "sha256");

/** Parses a SigV4 Authorization header; a string names what is missing or malformed. */
export function parseSigV4Authorization(value: string): SigV4Authorization | string {
	if (!value.startsWith(`${SIGV4_ALGORITHM} `)) return `Unsupported Authorization scheme; expected ${SIGV4_ALGORITHM}.`;
	const params = new Map<string, string>();
	for (const part of value.slice(SIGV4_ALGORITHM.length + 1).split(",")) {
		const eq = part.indexOf("=");
		if (eq > 0) params.set(part.slice(0, eq).trim(), part.slice(eq + 1).trim());
	}
	const missing = ["Credential", "SignedHeaders", "Signature"].filter((name) => !params.get(name));
	if (missing.length > 0) {
		return missing.map((name) => `Authorization header requires '${name}' parameter.`).join(" ");
	}
	const credential = (params.get("Credential") ?? "").split("/");
	if (credential.length !== 5 || credential.some((piece) => piece === "")) {
		return `Authorization header has a malformed Credential: '${params.get("Credential")}'.`;
	}
	const [accessKeyId, scopeDate, scopeRegion, scopeService, scopeTerminator] = credential as [string, string, string, string, string];
	return {
		accessKeyId,
		scopeDate,
		scopeRegion,
		scopeService,
		scopeTerminator,
		signedHeaders: (params.get("SignedHeaders") ?? "").split(";").map((name) => name.toLowerCase()),
		signature: params.get("Signature") ?? "",
	};
}

/** `20260115T102030Z` → the instant, or undefined when it is not in that basic ISO-8601 form. */
export function parseAmzDate(value: string | undefined): Date | undefined {
	const match = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(value ?? "");
	if (!match) return undefined;
	const [year, month, day, hour, minute, second] = match.slice(1).map(Number) as [number, number, number, number, number, number];
	return new Date(Date.UTC(year, month - 1, day, hour, minute, second));
}

/** An instant in x-amz-date's form. */
export function formatAmzDate(time: number): string {
	return new Date(time).toISOString().replace(/\.\d{3}Z$/, "Z").replace(/[-:]/g, "");
}

/** A request as it arrived, before any interpretation. */
export interface RawRequest {
	method: string;
	/** The request target's path, exactly as received (still percent-encoded). */
	path: string;
	/** The query string without `?`, exactly as received. */
	query: string;
	/** Node's `rawHeaders`: names in the client's case, alternating with values. */
	rawHeaders: string[];
	body: Uint8Array;
}

export interface RecomputedSignature {
	signature: string;
	/** The canonical request and string to sign that AWS's signer built, for error messages and debugging. */
	canonicalRequest: string;
	stringToSign: string;
}

/**
 * The smithy signer keeps its canonical request to itself (protected methods); this subclass writes
 * down what it built so a mismatch can be explained the way AWS explains it.
 */
class InspectingSignatureV4 extends SignatureV4 {
	canonicalRequest = "";
	stringToSign = "";

	protected override createCanonicalRequest(...args: Parameters<SignatureV4["createCanonicalRequest"]>): string {
		this.canonicalRequest = super.createCanonicalRequest(...args);
		return this.canonicalRequest;
	}

	protected override async createStringToSign(...args: Parameters<SignatureV4["createStringToSign"]>): Promise<string> {
		this.stringToSign = await super.createStringToSign(...args);
		return this.stringToSign;
	}
}

/**
 * Recomputes the signature of `raw` with `SignatureV4.sign()`, given the secret of the access key it claims.
 *
 * Only the headers listed in SignedHeaders go in (so unsigned headers cannot change anything), and
 * `signableHeaders` makes the signer take them even where it would skip them on its own (user-agent,
 * expect, …): the client chose what to sign, the verifier must follow that list.
 */
export async function recomputeSignature(
	raw: RawRequest,
	auth: SigV4Authorization,
	secretAccessKey: string,
	signingDate: Date,
): Promise<RecomputedSignature> {
	const signedNames = new Set(auth.signedHeaders);
	const headers: Record<string, string> = {};
	for (const name of signedNames) {
		const value = headerValue(raw.rawHeaders, name);
		if (value !== undefined) headers[name] = value;
	}
	const [hostname, port] = splitHost(headers.host ?? "");
	const request = new HttpRequest({
		method: raw.method,
		protocol: "http:",
		hostname,
		port,
		path: raw.path,
		query: parseQuery(raw.query),
		headers,
		body: raw.body,
	});
	const signer = new InspectingSignatureV4({
		credentials: { accessKeyId: auth.accessKeyId, secretAccessKey },
		region: auth.scopeRegion,
		service: auth.scopeService,
		sha256: Sha256,
		// The client decides whether x-amz-content-sha256 is sent; the verifier must not add it.
		applyChecksum: false,
	});
	const signed = await signer.sign(request, { signingDate, signableHeaders: signedNames });
	const match = /Signature=([0-9a-f]+)/.exec(signed.headers.authorization ?? "");
	return { signature: match?.[1] ?? "", canonicalRequest: signer.canonicalRequest, stringToSign: signer.stringToSign };
}

/** A header's value from Node's rawHeaders (any case), repeated ones joined by commas as SigV4 does. */
export function headerValue(rawHeaders: readonly string[], name: string): string | undefined {
	let value: string | undefined;
	for (let i = 0; i + 1 < rawHeaders.length; i += 2) {
		if ((rawHeaders[i] ?? "").toLowerCase() !== name) continue;
		const next = rawHeaders[i + 1] ?? "";
		value = value === undefined ? next : `${value},${next}`;
	}
	return value;
}

function splitHost(host: string): [string, number | undefined] {
	const match = /^(.*):(\d+)$/.exec(host);
	return match ? [match[1] ?? "", Number(match[2])] : [host, undefined];
}

/** The query as the signer wants it: decoded names and values (it re-encodes them), repeated names as arrays. */
function parseQuery(query: string): Record<string, string | string[]> {
	const parsed: Record<string, string | string[]> = {};
	for (const pair of query.split("&")) {
		if (pair === "") continue;
		const eq = pair.indexOf("=");
		const name = safeDecode(eq < 0 ? pair : pair.slice(0, eq));
		const value = safeDecode(eq < 0 ? "" : pair.slice(eq + 1));
		const existing = parsed[name];
		parsed[name] = existing === undefined ? value : [...(Array.isArray(existing) ? existing : [existing]), value];
	}
	return parsed;
}

function safeDecode(text: string): string {
	try {
		return decodeURIComponent(text);
	} catch {
		return text;
	}
}
