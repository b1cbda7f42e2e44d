// A list setting edited as a text area, one item a line.

import { type MemoryAgentSettings, linesOf } from "../settings";
import { type SettingsForm, addValidatedField } from "./settings-form";
import type { SettingRow } from "./setting-rows";

type ListKey = "excludedFolders" | "excludedPatterns" | "excludedTags";

export interface ListFieldSpec {
	name: string;
	desc: string;
	placeholder: string;
	/** Why the lines are not acceptable, or null. */
	validate(items: string[]): string | null;
	/** How the items are stored (e.g. tags without #). */
	normalize?(items: string[]): string[];
}

export function listRow(form: SettingsForm, key: ListKey, spec: ListFieldSpec): SettingRow {
	return {
		name: spec.name,
		desc: spec.desc,
		render: (setting) =>
			addValidatedField(setting, form, {
				text: form.current[key].join("\n"),
				placeholder: spec.placeholder,
				multiline: true,
				parse: (text) => {
					const items = linesOf(text);
					const problem = spec.validate(items);
					return problem === null ? { value: spec.normalize?.(items) ?? items } : { problem };
				},
				patch: (items): Partial<MemoryAgentSettings> => ({ [key]: items }),
			}),
	};
}
