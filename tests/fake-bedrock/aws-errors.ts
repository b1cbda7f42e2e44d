// The AWS errors the fake answers with, in Bedrock's REST-JSON shape (status, x-amzn-ErrorType, {"message"}).

/** An error as Bedrock Runtime reports it. */
export interface AwsError {
	status: number;
	/** The short type, e.g. `ThrottlingException`; the `x-amzn-ErrorType` header adds a namespace after a colon. */
	type: string;
	message: string;
}

/**
 * AWS's front door (Coral) reports authentication failures under its own namespace, the service's
 * errors under the service's; clients should read the type up to the first colon either way.
 */
const AUTH_TYPES = new Set([
	"MissingAuthenticationTokenException",
	"IncompleteSignatureException",
	"InvalidSignatureException",
	"UnrecognizedClientException",
	"ExpiredTokenException",
]);

/** The `x-amzn-ErrorType` header value for an error type. */
export function errorTypeHeader(type: string): string {
	const namespace = AUTH_TYPES.has(type) ? "com.amazon.coral.service" : "com.amazon.bedrock";
	return `${type}:http://internal.amazon.com/coral/${namespace}/`;
}

export const SIGNATURE_MISMATCH_MESSAGE =
	"The request signature we calculated does not match the signature you provided. Check your AWS Secret Access Key and signing method. Consult the service documentation for details.";

export function missingAuthenticationToken(): AwsError {
	return { status: 403, type: "MissingAuthenticationTokenException", message: "Missing Authentication Token" };
}

export function incompleteSignature(message: string): AwsError {
	return { status: 403, type: "IncompleteSignatureException", message };
}

export function invalidSignature(message: string): AwsError {
	return { status: 403, type: "InvalidSignatureException", message };
}

export function unrecognizedClient(): AwsError {
	return { status: 403, type: "UnrecognizedClientException", message: "The security token included in the request is invalid." };
}

export function expiredToken(): AwsError {
	return { status: 403, type: "ExpiredTokenException", message: "The security token included in the request is expired" };
}

export function validation(message: string): AwsError {
	return { status: 400, type: "ValidationException", message };
}

export function unknownOperation(): AwsError {
	return { status: 404, type: "UnknownOperationException", message: "The requested operation is not recognized by the fake Bedrock." };
}

export function throttling(): AwsError {
	return { status: 429, type: "ThrottlingException", message: "Too many requests, please wait before trying again." };
}

export function internalServer(): AwsError {
	return {
		status: 500,
		type: "InternalServerException",
		message: "The system encountered an unexpected error during processing. Try your request again.",
	};
}

export function serviceUnavailable(): AwsError {
	return { status: 503, type: "ServiceUnavailableException", message: "Bedrock is unable to process your request." };
}

export function modelNotReady(): AwsError {
	return {
		status: 429,
		type: "ModelNotReadyException",
		message: "Model is not ready to serve inference requests. Try your request again later.",
	};
}

export function accessDenied(): AwsError {
	return { status: 403, type: "AccessDeniedException", message: "You don't have access to the model with the specified model ID." };
}

export function onDemandNotSupported(modelId: string): AwsError {
	return validation(
		`Invocation of model ID ${modelId} with on-demand throughput isn't supported. Retry your request with the ID or ARN of an inference profile that contains this model.`,
	);
}

export function invalidModelIdentifier(): AwsError {
	return validation("The provided model identifier is invalid.");
}

/**
 * Which source regions a geographic inference profile may be called from (AWS's table of
 * cross-Region inference profiles): a `us.` profile only from the US, `eu.` from the EU,
 * `jp.` from Tokyo and Osaka, `au.` from Sydney and Melbourne, `apac.` from Asia Pacific;
 * `global.` from any commercial region. Called from elsewhere, AWS says the id is invalid.
 */
export function profileCallableFrom(modelId: string, region: string): boolean {
	const prefix = /^([a-z]+)\./.exec(modelId)?.[1];
	switch (prefix) {
		case "us":
			return ["us-east-1", "us-east-2", "us-west-1", "us-west-2"].includes(region);
		case "eu":
			return region.startsWith("eu-");
		case "jp":
			return ["ap-northeast-1", "ap-northeast-3"].includes(region);
		case "au":
			return ["ap-southeast-2", "ap-southeast-4"].includes(region);
		case "apac":
			return region.startsWith("ap-");
		case "ca":
			return region.startsWith("ca-");
		default:
			return true;
	}
}
