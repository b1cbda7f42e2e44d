// The fake's default test credentials: made-up keys, never real ones, shared by the fake and its clients.

/** An IAM key pair the fake accepts; `sessionToken` makes it a temporary one that must send the token. */
export interface FakeCredential {
	accessKeyId: string;
	secretAccessKey: string;
	sessionToken?: string;
}

/** The fake's region unless another is given. */
export const TEST_REGION = "us-east-1";

/** A long-term key pair. */
export const TEST_CREDENTIALS: FakeCredential = {
	accessKeyId: "AKIDMEMORYAGENTTEST",
	secretAccessKey: "memory-agent-test-secret/K7MDENG+bPxRfiCYEXAMPLEKEY",
};

/** A temporary key pair (like STS would hand out): requests must carry and sign `x-amz-security-token`. */
export const TEST_SESSION_CREDENTIALS: Required<FakeCredential> = {
	accessKeyId: "ASIAMEMORYAGENTTEMP",
	secretAccessKey: "memory-agent-temp-secret/K7MDENG+bPxRfiCYEXAMPLEKEY",
	sessionToken: "memory-agent-session-token",
};

/** A session token the fake treats as expired by default (ExpiredTokenException). */
export const TEST_EXPIRED_SESSION_TOKEN = "memory-agent-expired-session-token";

/** A Bedrock API key, sent as `Authorization: Bearer <key>`. */
export const TEST_API_KEY = "ABSKmemoryagenttestapikey";
