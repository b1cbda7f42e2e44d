// The settings tab: the database file's location, validated before it is saved.

import { type App, type Plugin, PluginSettingTab, Setting } from "obsidian";
import { type MemoryAgentSettings, defaultDatabasePath, validateDatabasePath } from "./settings";

/** What the tab needs from the plugin, instead of the whole plugin object. */
export interface SettingsPort {
	configDir: string;
	get(): MemoryAgentSettings;
	save(settings: MemoryAgentSettings): Promise<void>;
}

export class MemoryAgentSettingTab extends PluginSettingTab {
	constructor(
		app: App,
		plugin: Plugin,
		private readonly settings: SettingsPort,
	) {
		super(app, plugin);
	}

	display(): void {
		const { containerEl } = this;
		containerEl.empty();
		let errorEl: HTMLElement | undefined;

		new Setting(containerEl)
			.setName("Database file")
			.setDesc("Where memories are stored, relative to the vault folder. Takes effect after the plugin restarts.")
			.addText((text) =>
				text
					.setPlaceholder(defaultDatabasePath(this.settings.configDir))
					.setValue(this.settings.get().databasePath)
					.onChange(async (value) => {
						const problem = validateDatabasePath(value);
						errorEl?.setText(problem ?? "");
						if (problem === null) await this.settings.save({ ...this.settings.get(), databasePath: value.trim() });
					}),
			);
		errorEl = containerEl.createDiv({ cls: "memory-agent-setting-error" });
	}
}
