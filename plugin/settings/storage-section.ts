// Settings → Storage: the memory folder (every device's log), rebuilding memory from the vault,
// and exporting it.

import { type App, Notice } from "obsidian";
import { errorMessage } from "../core/core-error";
import { type ExportSource, exportMemories } from "./memory-export";
import { type SettingsForm, addCoreCheckedField } from "./settings-form";
import type { SettingSection } from "./setting-rows";

/** The command another part of the plugin registers for "Rebuild memory from vault". */
export const REBUILD_COMMAND_ID = "memory-agent:rebuild-memory";

/** Obsidian's command registry (`app.commands`; not in the public typings). */
interface CommandRunner {
	executeCommandById(id: string): boolean;
}

export interface StorageSectionDeps {
	app: App;
	form: SettingsForm;
	/** The open store, or undefined while Memory Agent starts. */
	store(): ExportSource | undefined;
}

export function storageSection(deps: StorageSectionDeps): SettingSection {
	const { app, form } = deps;
	return {
		heading: "Storage",
		rows: [
			{
				name: "Memory folder",
				desc:
					"The vault folder where each device keeps its log of what it remembered, so that your other devices get it through your sync tool without paying again. " +
					"Use the same folder on every device. Takes effect after the plugin restarts.",
				render: (setting) => addCoreCheckedField(setting, form, "memoryFolder", { text: form.current.memoryFolder, placeholder: "Memory Agent" }),
			},
			{
				name: "Rebuild memory from vault",
				desc: "Reads every note again and makes the memories anew. Uses the model for every note, so it takes time and costs tokens.",
				render: (setting) => {
					setting.addButton((button) =>
						button.setButtonText("Rebuild").onClick(() => {
							const commands = (app as unknown as { commands?: CommandRunner }).commands;
							if (commands?.executeCommandById(REBUILD_COMMAND_ID) !== true) {
								new Notice("Rebuilding is not available yet. Restart Obsidian and try again.");
							}
						}),
					);
				},
			},
			{
				name: "Export memories as JSON",
				desc: "Writes every memory and insight to a JSON file at the top of the vault.",
				render: (setting) => {
					setting.addButton((button) =>
						button.setButtonText("Export").onClick(async () => {
							const store = deps.store();
							if (store === undefined) {
								new Notice("The memory is still starting. Export again in a moment.");
								return;
							}
							button.setDisabled(true);
							try {
								const path = await exportMemories(store, app.vault, new Date());
								new Notice(`Memory Agent: exported memories to ${path}.`);
							} catch (error) {
								new Notice(`Memory Agent could not export: ${errorMessage(error)}`);
							} finally {
								button.setDisabled(false);
							}
						}),
					);
				},
			},
		],
	};
}
