// Settings → What to remember: which notes are read, when, and how large they may be.

import { Setting } from "obsidian";
import { normalizeTags, validateFolders, validatePatterns, validateTags } from "../settings";
import { addListField } from "./list-field";
import { addNumberField } from "./number-field";
import { type SettingsForm, saveChoice } from "./settings-form";

export function renderRememberSection(containerEl: HTMLElement, form: SettingsForm): void {
	new Setting(containerEl).setName("What to remember").setHeading();

	addListField(
		new Setting(containerEl).setName("Excluded folders").setDesc("Notes in these folders (and their subfolders) are never read. One folder a line."),
		form,
		"excludedFolders",
		{ placeholder: "Private\nJournal/Health", validate: validateFolders },
	);
	addListField(
		new Setting(containerEl).setName("Excluded patterns").setDesc("Paths matching these glob patterns are never read, for example **/drafts/** for every drafts folder. One pattern a line."),
		form,
		"excludedPatterns",
		{ placeholder: "**/drafts/**", validate: validatePatterns },
	);
	addListField(
		new Setting(containerEl).setName("Excluded tags").setDesc("Notes with any of these tags are never read. One tag a line, with or without #."),
		form,
		"excludedTags",
		{ placeholder: "#private", validate: validateTags, normalize: normalizeTags },
	);
	addNumberField(
		new Setting(containerEl).setName("Quiet delay (seconds)"),
		form,
		"quietDelaySeconds",
		"A changed note is read once it has not changed for this long, so a note is not read after every keystroke.",
	);
	addNumberField(new Setting(containerEl).setName("Size limit (kilobytes)"), form, "maxNoteSizeKb", "Larger files are skipped.");
	addNumberField(
		new Setting(containerEl).setName("Bulk confirmation (notes)"),
		form,
		"bulkConfirmThreshold",
		"Asks before reading more than this many notes at once (for example the first time). 0 never asks.",
	);
	const plainText = new Setting(containerEl).setName("Include plain-text files").setDesc("Also read .txt files, not only Markdown notes.");
	const save = saveChoice(plainText, form);
	plainText.addToggle((toggle) => toggle.setValue(form.current.includePlainText).onChange((value) => save({ includePlainText: value })));
}
