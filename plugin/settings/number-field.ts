// A whole-number setting typed as text, checked against its bounds in plugin/settings.ts.

import type { Setting } from "obsidian";
import { type MemoryAgentSettings, type NumberKey, NUMBER_BOUNDS, parseNumberSetting } from "../settings";
import { type SettingsForm, addValidatedField } from "./settings-form";

/** Adds the number field for `key`; the description gets the allowed range. */
export function addNumberField(setting: Setting, form: SettingsForm, key: NumberKey, description: string): Setting {
	const bounds = NUMBER_BOUNDS[key];
	setting.setDesc(`${description} From ${bounds.min.toLocaleString()} to ${bounds.max.toLocaleString()}.`);
	addValidatedField(setting, form, {
		text: String(form.current[key]),
		parse: (text) => parseNumberSetting(key, text),
		patch: (value): Partial<MemoryAgentSettings> => ({ [key]: value }),
	});
	return setting;
}
