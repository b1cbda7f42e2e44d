// A whole-number setting typed as text, checked against the core's bounds (plugin/settings.ts).

import { type MemoryAgentSettings, type NumberKey, numberBounds, parseNumberSetting } from "../settings";
import { type SettingsForm, addValidatedField } from "./settings-form";
import type { SettingRow } from "./setting-rows";

/** The row for the number `key`; its description ends with the allowed range. */
export function numberRow(form: SettingsForm, key: NumberKey, name: string, description: string): SettingRow {
	const bounds = numberBounds(key);
	return {
		name,
		desc: `${description} From ${bounds.min.toLocaleString()} to ${bounds.max.toLocaleString()}.`,
		render: (setting) =>
			addValidatedField(setting, form, {
				text: String(form.current[key]),
				parse: (text) => parseNumberSetting(key, text),
				patch: (value): Partial<MemoryAgentSettings> => ({ [key]: value }),
			}),
	};
}
