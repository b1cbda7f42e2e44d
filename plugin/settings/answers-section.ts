// Settings → Answers: how much memory goes into a question, how long answers are, how dates read.

import { Setting } from "obsidian";
import type { DateOrder } from "../settings";
import { addNumberField } from "./number-field";
import { type SettingsForm, saveChoice } from "./settings-form";

export function renderAnswersSection(containerEl: HTMLElement, form: SettingsForm): void {
	new Setting(containerEl).setName("Answers").setHeading();
	addNumberField(
		new Setting(containerEl).setName("Context budget (tokens)"),
		form,
		"contextBudgetTokens",
		"At most this many tokens of memories and insights go into one question. More finds more, and costs more.",
	);
	addNumberField(new Setting(containerEl).setName("Answer length (tokens)"), form, "answerMaxTokens", "The longest answer the model may write.");

	const dateOrder = new Setting(containerEl).setName("Date order").setDesc("How dates such as 3/4 in questions and notes are read.");
	const saveOrder = saveChoice(dateOrder, form);
	dateOrder.addDropdown((dropdown) =>
		dropdown
			.addOptions({ dayMonth: "Day/month (3/4 is 3 April)", monthDay: "Month/day (3/4 is March 4)" })
			.setValue(form.current.dateOrder)
			.onChange((value) => saveOrder({ dateOrder: value as DateOrder })),
	);

	const secondPass = new Setting(containerEl)
		.setName("Second pass")
		.setDesc("When the memories chosen for a question are not enough, the model may ask once for more (by dates, names or keywords) before answering. Slower, and uses more tokens.");
	const save = saveChoice(secondPass, form);
	secondPass.addToggle((toggle) => toggle.setValue(form.current.secondPass).onChange((value) => save({ secondPass: value })));
}
