// Settings → What to remember: which notes are read, when, and how large they may be.

import { toggleRow } from "./choice-field";
import { listRow } from "./list-field";
import { numberRow } from "./number-field";
import type { SettingsForm } from "./settings-form";
import type { SettingSection } from "./setting-rows";

export function rememberSection(form: SettingsForm): SettingSection {
	return {
		heading: "What to remember",
		rows: [
			listRow(form, "excludedFolders", {
				name: "Excluded folders",
				desc: "Notes in these folders (and their subfolders) are never read. One folder a line.",
				placeholder: "Private\nJournal/Health",
			}),
			listRow(form, "excludedPatterns", {
				name: "Excluded patterns",
				desc: "Paths matching these glob patterns are never read, for example **/drafts/** for every drafts folder. One pattern a line.",
				placeholder: "**/drafts/**",
			}),
			listRow(form, "excludedTags", {
				name: "Excluded tags",
				desc: "Notes with any of these tags are never read. One tag a line, with or without #.",
				placeholder: "#private",
			}),
			numberRow(form, "quietDelaySeconds", "Quiet delay (seconds)", "A changed note is read once it has not changed for this long, so a note is not read after every keystroke."),
			numberRow(
				form,
				"otherDeviceWaitSeconds",
				"Wait for other devices (seconds)",
				"When a sync tool shares the memory with another device: a note changed there (not in this device's editor) waits this long for that device's memories before the model is asked about it here, so it is paid for once.",
			),
			numberRow(form, "maxNoteSizeKb", "Size limit (kilobytes)", "Larger files are skipped."),
			numberRow(form, "bulkConfirmThreshold", "Bulk confirmation (notes)", "Asks before reading more than this many notes at once (for example the first time). 0 never asks."),
			toggleRow(form, "includePlainText", "Include plain-text files", "Also read .txt files, not only Markdown notes."),
			toggleRow(
				form,
				"rememberImages",
				"Remember images and scanned pages",
				"Also send images (PNG, JPEG, GIF, WebP) and PDF pages without text to the model, downscaled to about 1.15 megapixels: about 1,600 input tokens each. PDFs' text is read on this device either way.",
			),
		],
	};
}
