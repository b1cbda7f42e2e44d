// The regions offered in the settings and each one's recommended model: the core's, written into
// plugin/generated/settings-schema.ts at build time, so they are there before the worker starts.

import { SETTINGS_SCHEMA } from "../generated/settings-schema";

/** The core's `BEDROCK_REGIONS` (src/llm/config.rs). */
export const BEDROCK_REGIONS: readonly string[] = SETTINGS_SCHEMA.bedrockRegions;

const DEFAULT_MODELS: Readonly<Record<string, string>> = SETTINGS_SCHEMA.defaultModels;
const FALLBACK_MODELS: Readonly<Record<string, string>> = SETTINGS_SCHEMA.fallbackModels;

/** The model the core uses in `region` when none is chosen (`default_model_for`), when it is one of the list. */
export function defaultModelFor(region: string): string | undefined {
	return DEFAULT_MODELS[region];
}

/** The model the default gives way to when the account may not call it (`previous_default_model_for`). */
export function fallbackModelFor(region: string): string | undefined {
	return FALLBACK_MODELS[region];
}

/** The regions to offer; `current` is kept even when the list no longer has it, so it stays visible. */
export function regionChoices(current: string): string[] {
	const regions = [...BEDROCK_REGIONS];
	if (current !== "" && !regions.includes(current)) regions.unshift(current);
	return regions;
}
