// Settings chosen rather than typed: a toggle or a dropdown, saved at once.

import type { MemoryAgentSettings } from "../settings";
import { type SettingsForm, saveChoice } from "./settings-form";
import type { SettingRow } from "./setting-rows";

type KeyOf<T> = { [K in keyof MemoryAgentSettings]: MemoryAgentSettings[K] extends T ? K : never }[keyof MemoryAgentSettings];

/** An on/off row for the boolean setting `key`. */
export function toggleRow(form: SettingsForm, key: KeyOf<boolean>, name: string, desc: string): SettingRow {
	return {
		name,
		desc,
		render: (setting) => {
			const save = saveChoice(setting, form);
			setting.addToggle((toggle) => toggle.setValue(form.current[key]).onChange((value) => save({ [key]: value })));
		},
	};
}

/** A dropdown row for the setting `key`, whose value is one of `options`' keys; `then` runs after a change is saved. */
export function dropdownRow<K extends KeyOf<string>>(
	form: SettingsForm,
	key: K,
	row: { name: string; desc: string; options: () => Record<string, string>; then?: () => void },
): SettingRow {
	return {
		name: row.name,
		desc: row.desc,
		render: (setting) => {
			const save = saveChoice(setting, form);
			setting.addDropdown((dropdown) =>
				dropdown
					.addOptions(row.options())
					.setValue(form.current[key])
					.onChange(async (value) => {
						await save({ [key]: value });
						row.then?.();
					}),
			);
		},
	};
}
