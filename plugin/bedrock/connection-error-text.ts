// The words shown when the connection test fails: what happened and what to do next, per error code.

import type { AuthMethod } from "../settings";

/** What the words may mention: never a secret, only the settings a person can see anyway. */
export interface ConnectionFacts {
	region: string;
	modelId: string;
	/** The model the core recommends for the region (its profile is one the region may call). */
	recommended?: string;
	authMethod: AuthMethod;
	endpoint: string;
}

const PROFILE_PREFIXES = ["us.", "eu.", "apac.", "global.", "us-gov.", "jp.", "au."];

/**
 * The message for a failed test. The core's own message is used only where it names a setting
 * (`llm.config`) or for codes without words here; AWS's detail is left out because for a signature
 * mismatch it repeats the signed request, which can carry the session token.
 */
export function connectionErrorText(code: string | undefined, coreMessage: string, facts: ConnectionFacts): string {
	const { region, modelId } = facts;
	const keys =
		facts.authMethod === "apiKey"
			? "Check that the secret chosen for \"Bedrock API key\" holds a current key for this account."
			: "Check that the secrets chosen for \"Access key ID\" and \"Secret access key\" hold a matching pair (and the session token, for temporary keys).";
	switch (code) {
		case "llm.auth":
			return `Bedrock did not accept the credentials. ${keys}`;
		case "llm.clock_skew":
			return "Bedrock rejected the request because this device's clock is more than 5 minutes off, even after Memory Agent corrected for it from AWS's time. Set the date and time to update automatically, then test again.";
		case "llm.expired_token":
			return "The temporary keys have expired. Paste fresh temporary keys (access key ID, secret access key and session token) into their secrets, or use a long-term key.";
		case "llm.access_denied":
			return `These credentials may not use ${modelId} in ${region}. Enable model access in the Bedrock console for ${region}, and check that the IAM policy allows bedrock:InvokeModel.`;
		case "llm.needs_inference_profile":
			return `${modelId} cannot be called on demand in ${region}. Use an inference profile ID such as ${profileFor(facts, bareModel(modelId))} (a profile only works from its own geography; global. works from any region).`;
		case "llm.model_not_found":
			return `Bedrock does not know the model ${modelId} in ${region}. Check the model ID and the region (model IDs are listed in the Bedrock console).`;
		case "llm.throttled":
			return "Bedrock is throttling requests (too many at once, or over the account's quota). Wait a minute and test again.";
		case "llm.unavailable":
			return "Bedrock is unavailable right now. Try again in a few minutes.";
		case "llm.model_not_ready":
			return "The model is not ready yet. Try again in a few minutes.";
		case "llm.timeout":
			return "Bedrock did not answer in time. Check the internet connection and test again.";
		case "llm.offline":
			return "Cannot reach Bedrock: this device seems to be offline. Connect to the internet and test again.";
		case "llm.network":
			return facts.endpoint === ""
				? "The connection to Bedrock failed. Check the internet connection, and any proxy or firewall, then test again."
				: `The connection to ${facts.endpoint} failed. Check the endpoint under Advanced, the internet connection, and any proxy or firewall.`;
		case "llm.config":
			return `The connection settings are incomplete: ${coreMessage}`;
		case "llm.endpoint_unconfirmed":
			return `Nothing was sent: ${facts.endpoint} is not one of AWS's own Bedrock endpoints, and sending your AWS credentials there was not confirmed on this device. If you set up this endpoint yourself, test again and confirm it; otherwise clear "Advanced: endpoint".`;
		default:
			return `The connection test failed: ${coreMessage}`;
	}
}

/** `bare` through the profile the core recommends for the region (`global.` without one). */
function profileFor(facts: ConnectionFacts, bare: string): string {
	const prefix = /^([a-z]+)\./.exec(facts.recommended ?? "")?.[1] ?? "global";
	return `${prefix}.${bare}`;
}

/** `anthropic.claude-…` from `us.anthropic.claude-…` or a bare id. */
function bareModel(modelId: string): string {
	const prefix = PROFILE_PREFIXES.find((candidate) => modelId.startsWith(candidate));
	return prefix === undefined ? modelId : modelId.slice(prefix.length);
}
