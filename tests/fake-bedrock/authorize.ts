// Decides whether a request is authenticated: SigV4 with a known key, or a Bedrock API key; else the AWS error.

import { createHash } from "node:crypto";
import {
	type AwsError,
	SIGNATURE_MISMATCH_MESSAGE,
	expiredToken,
	incompleteSignature,
	invalidSignature,
	missingAuthenticationToken,
	unrecognizedClient,
} from "./aws-errors";
import type { FakeCredential } from "./credentials";
import { type RawRequest, formatAmzDate, headerValue, parseAmzDate, parseSigV4Authorization, recomputeSignature } from "./sigv4";

/** What the fake accepts. */
export interface AuthConfig {
	region: string;
	credentials: readonly FakeCredential[];
	apiKeys: readonly string[];
	expiredSessionTokens: readonly string[];
	/** The fake's clock, in milliseconds since the epoch. */
	now: () => number;
}

/** How a request fared at the door; recorded with the request. */
export type AuthOutcome =
	| { ok: true; scheme: "sigv4"; accessKeyId: string; sessionToken?: string }
	| { ok: true; scheme: "apiKey" }
	| {
			ok: false;
			scheme: "sigv4" | "apiKey" | "none";
			error: AwsError;
			/** For a signature mismatch: what AWS's signer built from the request as received. */
			canonicalRequest?: string;
			stringToSign?: string;
	  };

/** AWS's allowed difference between the request's time and its own. */
export const MAX_CLOCK_SKEW_MS = 5 * 60 * 1000;

const SERVICE = "bedrock";

export async function authorize(raw: RawRequest, config: AuthConfig): Promise<AuthOutcome> {
	const header = (name: string): string | undefined => headerValue(raw.rawHeaders, name);
	const authorization = header("authorization");
	if (authorization === undefined || authorization.trim() === "") {
		return { ok: false, scheme: "none", error: missingAuthenticationToken() };
	}
	if (/^Bearer /i.test(authorization)) {
		const key = authorization.slice("Bearer ".length).trim();
		return config.apiKeys.includes(key) ? { ok: true, scheme: "apiKey" } : { ok: false, scheme: "apiKey", error: unrecognizedClient() };
	}
	const fail = (error: AwsError): AuthOutcome => ({ ok: false, scheme: "sigv4", error });

	const auth = parseSigV4Authorization(authorization);
	if (typeof auth === "string") return fail(incompleteSignature(auth));
	const amzDate = header("x-amz-date");
	const signingDate = parseAmzDate(amzDate);
	if (!signingDate) {
		return fail(incompleteSignature("Authorization header requires existence of either a 'X-Amz-Date' or a 'Date' header."));
	}

	// AWS looks at the token before the key: an expired token is reported as such whatever key it came with.
	const token = header("x-amz-security-token");
	if (token !== undefined && config.expiredSessionTokens.includes(token)) return fail(expiredToken());
	const credential = config.credentials.find((known) => known.accessKeyId === auth.accessKeyId);
	if (!credential) return fail(unrecognizedClient());
	if ((credential.sessionToken ?? undefined) !== token) return fail(unrecognizedClient());

	const scopeError = checkScope(auth, amzDate ?? "", config.region);
	if (scopeError) return fail(scopeError);
	if (!auth.signedHeaders.includes("host")) {
		return fail(incompleteSignature("'Host' or ':authority' must be a 'SignedHeader' in the AWS Authorization."));
	}
	const skewError = checkClock(signingDate.getTime(), config.now());
	if (skewError) return fail(skewError);

	// The smithy signer trusts a signed x-amz-content-sha256 as the payload's hash; the fake checks it against the body.
	const claimedHash = header("x-amz-content-sha256");
	if (claimedHash !== undefined && auth.signedHeaders.includes("x-amz-content-sha256")) {
		const actualHash = createHash("sha256").update(raw.body).digest("hex");
		if (claimedHash !== actualHash) return fail(invalidSignature(SIGNATURE_MISMATCH_MESSAGE));
	}

	// A session token must be signed too: adding it to the verifier's headers makes an unsigned one a mismatch.
	const verified = await recomputeSignature(
		raw,
		{ ...auth, signedHeaders: token === undefined ? auth.signedHeaders : [...auth.signedHeaders, "x-amz-security-token"] },
		credential.secretAccessKey,
		signingDate,
	);
	if (verified.signature !== auth.signature) {
		// AWS's own message goes on with the canonical request it expected, which is what makes such bugs findable.
		const message =
			`${SIGNATURE_MISMATCH_MESSAGE}\n\nThe Canonical String for this request should have been\n'${verified.canonicalRequest}'\n\n` +
			`The String-to-Sign should have been\n'${verified.stringToSign}'\n`;
		return {
			ok: false,
			scheme: "sigv4",
			error: invalidSignature(message),
			canonicalRequest: verified.canonicalRequest,
			stringToSign: verified.stringToSign,
		};
	}
	return token === undefined
		? { ok: true, scheme: "sigv4", accessKeyId: auth.accessKeyId }
		: { ok: true, scheme: "sigv4", accessKeyId: auth.accessKeyId, sessionToken: token };
}

function checkScope(auth: { scopeDate: string; scopeRegion: string; scopeService: string; scopeTerminator: string }, amzDate: string, region: string): AwsError | undefined {
	if (auth.scopeTerminator !== "aws4_request") {
		return invalidSignature(`Credential should be scoped with a valid terminator: 'aws4_request', not '${auth.scopeTerminator}'.`);
	}
	if (auth.scopeService !== SERVICE) return invalidSignature(`Credential should be scoped to correct service: '${SERVICE}'.`);
	if (auth.scopeRegion !== region) return invalidSignature(`Credential should be scoped to a valid region, not '${auth.scopeRegion}'.`);
	if (auth.scopeDate !== amzDate.slice(0, 8)) {
		return invalidSignature(
			`Date in Credential scope does not match YYYYMMDD from ISO-8601 version of date from HTTP: '${auth.scopeDate}' != '${amzDate.slice(0, 8)}', from '${amzDate}'.`,
		);
	}
	return undefined;
}

function checkClock(signedAt: number, now: number): AwsError | undefined {
	if (signedAt < now - MAX_CLOCK_SKEW_MS) {
		return invalidSignature(
			`Signature expired: ${formatAmzDate(signedAt)} is now earlier than ${formatAmzDate(now - MAX_CLOCK_SKEW_MS)} (${formatAmzDate(now)} - 5 min.)`,
		);
	}
	if (signedAt > now + MAX_CLOCK_SKEW_MS) {
		return invalidSignature(
			`Signature not yet current: ${formatAmzDate(signedAt)} is still later than ${formatAmzDate(now + MAX_CLOCK_SKEW_MS)} (${formatAmzDate(now)} + 5 min.)`,
		);
	}
	return undefined;
}
