// Runs "Test connection": one model call through the open core, reported as a line of plain words.

import { ErrorCode, errorCode, errorMessage } from "../core/core-error";
import type { ConnectionCheck, ModelChoice } from "../core/memory-core-api";
import type { MemoryAgentSettings, SecretReader } from "../settings";
import { connectionErrorText } from "./connection-error-text";
import { defaultModelFor } from "./regions";
import { chosenSecretValues, missingConnectionSetting } from "./connection-problem";
import { redactSecrets } from "./redact";

/** What the test needs from the runtime. */
export interface ConnectionTestPort {
	/** Hands the current settings and secret values to the core. */
	applySettings(): Promise<void>;
	/** The open store, waiting up to `timeoutMs` while the memory is still starting. */
	readyStore(timeoutMs: number): Promise<{ testConnection(): Promise<ConnectionCheck>; listModels(): Promise<ModelChoice[]> } | undefined>;
	/** Why the core has no connection (e.g. a malformed setting it rejected), or null. */
	connectionIssue(): string | null;
	/** The core's code for that reason, when the core gave it. */
	connectionIssueCode(): string | null;
}

/** How long a test pressed while the memory starts waits for it. */
export const STARTING_WAIT_MS = 20_000;

export interface ConnectionTestResult {
	ok: boolean;
	/** Safe to show: never contains a secret value. */
	text: string;
	/** The core's error code when the test failed there. */
	code?: string;
}

/** Asks this device's user to confirm a custom endpoint; true on yes (settings applied again). */
export interface EndpointConfirmPort {
	ask(endpoint: string): Promise<boolean>;
}

export async function runConnectionTest(
	runtime: ConnectionTestPort,
	settings: MemoryAgentSettings,
	secrets: SecretReader,
	endpointTrust?: EndpointConfirmPort,
): Promise<ConnectionTestResult> {
	const hide = (text: string) => redactSecrets(text, chosenSecretValues(settings, secrets));
	const recommended = defaultModelFor(settings.region);
	const modelId = settings.modelId !== "" ? settings.modelId : (recommended ?? "the default model");
	const facts = { region: settings.region, modelId, recommended, authMethod: settings.authMethod, endpoint: settings.endpoint };

	const missing = missingConnectionSetting(settings, secrets);
	if (missing !== null) return { ok: false, code: "llm.config", text: hide(connectionErrorText("llm.config", missing, facts)) };
	// Pressed while the memory starts (the first second after Obsidian opens): the test waits for it.
	const store = await runtime.readyStore(STARTING_WAIT_MS);
	if (store === undefined) return { ok: false, text: "Memory Agent has not started. Reload it (turn it off and on in Community plugins) and test again." };
	// Re-read the secrets: a key just pasted into secret storage keeps its name, so nothing else applied it.
	await runtime.applySettings();
	// The core sends nothing to a custom endpoint this device never confirmed: a test is the moment to ask.
	if (runtime.connectionIssueCode() === ErrorCode.endpointUnconfirmed) await endpointTrust?.ask(settings.endpoint);
	const issue = runtime.connectionIssue();
	if (issue !== null) {
		const code = runtime.connectionIssueCode() ?? "llm.config";
		return { ok: false, code, text: hide(connectionErrorText(code, issue, facts)) };
	}

	try {
		const check = await store.testConnection();
		const minutes = Math.round(check.clockOffsetMs / 60_000);
		const clock =
			minutes === 0 ? "" : ` This device's clock is ${Math.abs(minutes).toLocaleString()} minutes ${minutes < 0 ? "fast" : "slow"}; requests are signed with AWS's time.`;
		const fallback = check.fallback === null ? "" : ` ${check.fallback}`;
		return { ok: true, text: `Connected to ${check.modelId} in ${check.region} in ${Math.round(check.latencyMs).toLocaleString()} ms.${fallback}${clock}` };
	} catch (error) {
		const code = errorCode(error);
		return { ok: false, code, text: hide(connectionErrorText(code, errorMessage(error), facts)) };
	}
}
