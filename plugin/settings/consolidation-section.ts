// Settings → Consolidation: when new memories are combined into insights.

import { Setting } from "obsidian";
import { addNumberField } from "./number-field";
import { type SettingsForm, saveChoice } from "./settings-form";

export function renderConsolidationSection(containerEl: HTMLElement, form: SettingsForm): void {
	new Setting(containerEl).setName("Consolidation").setHeading();
	addNumberField(
		new Setting(containerEl).setName("Threshold"),
		form,
		"consolidationThreshold",
		"Insights are made once this many new memories have gathered.",
	);
	addNumberField(new Setting(containerEl).setName("Batch size"), form, "consolidationBatchSize", "How many memories one consolidation looks at together.");
	const daily = new Setting(containerEl).setName("Daily run").setDesc("Also consolidate once a day, whatever the number of new memories.");
	const save = saveChoice(daily, form);
	daily.addToggle((toggle) => toggle.setValue(form.current.dailyConsolidation).onChange((value) => save({ dailyConsolidation: value })));
}
