// Settings → Storage: the database file, rebuilding memory from the vault, and exporting it.

import { type App, Notice, Setting } from "obsidian";
import { errorMessage } from "../core/core-error";
import { defaultDatabasePath, validateDatabasePath } from "../settings";
import { type ExportSource, exportMemories } from "./memory-export";
import { type SettingsForm, addValidatedField } from "./settings-form";

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

export function renderStorageSection(containerEl: HTMLElement, deps: StorageSectionDeps): void {
	const { app, form } = deps;
	new Setting(containerEl).setName("Storage").setHeading();

	addValidatedField(
		new Setting(containerEl)
			.setName("Database file")
			.setDesc("Where memories are stored, relative to the vault folder. Takes effect after the plugin restarts."),
		form,
		{
			text: form.current.databasePath,
			placeholder: defaultDatabasePath(app.vault.configDir),
			parse: (text) => {
				const problem = validateDatabasePath(text);
				return problem === null ? { value: text.trim() } : { problem };
			},
			patch: (databasePath) => ({ databasePath }),
		},
	);

	new Setting(containerEl)
		.setName("Rebuild memory from vault")
		.setDesc("Reads every note again and makes the memories anew. Uses the model for every note, so it takes time and costs tokens.")
		.addButton((button) =>
			button.setButtonText("Rebuild").onClick(() => {
				const commands = (app as unknown as { commands?: CommandRunner }).commands;
				if (commands?.executeCommandById(REBUILD_COMMAND_ID) !== true) {
					new Notice("Rebuilding is not available yet. Restart Obsidian and try again.");
				}
			}),
		);

	new Setting(containerEl)
		.setName("Export memories as JSON")
		.setDesc("Writes every memory and insight to a JSON file at the top of the vault.")
		.addButton((button) =>
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
}
