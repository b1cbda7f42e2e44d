// Failures in plain words, each with the next step (no Obsidian imports: unit-testable).

import { errorCode, errorMessage } from "../core/core-error";

/** What the user can do about a failure: open the settings, or simply ask again. */
export type NextStep = "settings" | "retry" | "none";

export interface ErrorAdvice {
	/** One sentence: what went wrong. */
	title: string;
	/** The core's own words, shown smaller (they name the model, region or status). */
	detail: string;
	next: NextStep;
}

const ADVICE: Record<string, { title: string; next: NextStep }> = {
	"llm.auth": { title: "Bedrock rejected the keys — open settings and check the access key secrets.", next: "settings" },
	"llm.expired_token": { title: "The AWS session token has expired — put fresh keys in settings.", next: "settings" },
	"llm.access_denied": {
		title: "Your AWS account may not use this model — enable it under Model access in the Bedrock console, or choose another model in settings.",
		next: "settings",
	},
	"llm.needs_inference_profile": {
		title: "This model needs an inference profile id (for example one starting with us.) — change the model in settings.",
		next: "settings",
	},
	"llm.model_not_found": { title: "Bedrock does not know this model in this region — check the model and region in settings.", next: "settings" },
	"llm.config": { title: "The connection settings are incomplete — open settings.", next: "settings" },
	"settings.invalid": { title: "A setting is not valid — open settings.", next: "settings" },
	"llm.throttled": { title: "Bedrock is busy right now — wait a minute, then ask again.", next: "retry" },
	"llm.timeout": { title: "Bedrock did not answer in time — ask again.", next: "retry" },
	"llm.offline": { title: "There is no connection to Bedrock — ask again when you are online.", next: "retry" },
	"llm.clock_skew": { title: "This device's clock is off, so Bedrock refuses the request — correct the clock, then ask again.", next: "retry" },
};

/** Advice for anything thrown by the core (or by the plugin). */
export function adviceFor(error: unknown): ErrorAdvice {
	const code = errorCode(error);
	const detail = errorMessage(error);
	const known = code === undefined ? undefined : ADVICE[code];
	if (known !== undefined) return { ...known, detail };
	if (code?.startsWith("llm.") === true) return { title: "The model call failed — ask again.", detail, next: "retry" };
	return { title: "Something went wrong.", detail, next: "none" };
}

/** Advice when the connection cannot be built yet (e.g. no secrets chosen). */
export function connectionAdvice(issue: string): ErrorAdvice {
	return { title: "Memory Agent is not connected to Bedrock yet — open settings.", detail: issue, next: "settings" };
}
