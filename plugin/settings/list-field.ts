// A list setting edited as a text area, one item a line, checked and normalised by the core
// (tags are kept without their #).

import { type SettingsForm, addCoreCheckedField } from "./settings-form";
import type { SettingRow } from "./setting-rows";

type ListKey = "excludedFolders" | "excludedPatterns" | "excludedTags";

export interface ListFieldSpec {
	name: string;
	desc: string;
	placeholder: string;
}

export function listRow(form: SettingsForm, key: ListKey, spec: ListFieldSpec): SettingRow {
	return {
		name: spec.name,
		desc: spec.desc,
		render: (setting) => addCoreCheckedField(setting, form, key, { text: form.current[key].join("\n"), placeholder: spec.placeholder, multiline: true }),
	};
}
