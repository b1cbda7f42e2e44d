// The settings tab's rows, written once and drawn two ways: by `display()` into the tab's own
// element (Obsidian before 1.13), or by Obsidian from `getSettingDefinitions()` (1.13 and
// later, where the settings search also finds every row by its name and description).

import { Setting, type SettingDefinitionItem } from "obsidian";

/** One row: its name and description, and how its control is drawn into a `Setting`. */
export interface SettingRow {
	name: string;
	desc: string;
	/** While this says false the row is not shown (nor found by the settings search). */
	visible?: () => boolean;
	render(setting: Setting): void;
}

/** Rows under one heading. */
export interface SettingSection {
	heading: string;
	rows: SettingRow[];
}

/** Draws `sections` into `containerEl`, the way Obsidian before 1.13 shows a settings tab. */
export function renderSections(containerEl: HTMLElement, sections: readonly SettingSection[]): void {
	for (const section of sections) {
		new Setting(containerEl).setName(section.heading).setHeading();
		for (const row of section.rows) {
			if (row.visible?.() === false) continue;
			row.render(new Setting(containerEl).setName(row.name).setDesc(row.desc));
		}
	}
}

/** The same sections as declarative definitions: one group a section, one drawn row an item. */
export function definitionsOf(sections: readonly SettingSection[]): SettingDefinitionItem[] {
	return sections.map((section) => ({
		type: "group",
		heading: section.heading,
		items: section.rows.map((row) => ({
			name: row.name,
			desc: row.desc,
			...(row.visible === undefined ? {} : { visible: row.visible }),
			render: (setting: Setting) => row.render(setting.setName(row.name).setDesc(row.desc)),
		})),
	}));
}
