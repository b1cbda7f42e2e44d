// The fake Bedrock's public face: import from here in tests.

export { DEFAULT_REPLY_TEXT, type FakeBedrock, type FakeBedrockOptions, type RecordedRequest, type RecordedResponse, startFakeBedrock } from "./server";
export { FAULT_NAMES, type ContentBlock, type FaultName, type Reply, type StopReason, type ToolCall } from "./replies";
export { type AuthOutcome, MAX_CLOCK_SKEW_MS } from "./authorize";
export { type AwsError, SIGNATURE_MISMATCH_MESSAGE } from "./aws-errors";
export type { TokenUsage } from "./usage";
export {
	type FakeCredential,
	TEST_API_KEY,
	TEST_CREDENTIALS,
	TEST_EXPIRED_SESSION_TOKEN,
	TEST_REGION,
	TEST_SESSION_CREDENTIALS,
} from "./credentials";
export {
	MAX_DOCUMENT_BYTES,
	MAX_DOCUMENTS,
	MAX_IMAGE_BASE64_BYTES,
	MAX_IMAGE_SIDE,
	MAX_MANY_IMAGE_SIDE,
	MANY_IMAGES,
	type SentImage,
} from "./content-blocks";
export { imageTokens } from "./usage";
export { encodePng, gifHeader, jpegHeader, minimalPdf, webpHeader } from "./test-images";
