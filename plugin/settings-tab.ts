// The settings tab: one section per group (connection, what to remember, consolidation, answers, storage).

import { type App, type Plugin, PluginSettingTab } from "obsidian";
import type { PluginContext } from "./plugin-context";
import { renderAnswersSection } from "./settings/answers-section";
import { renderConnectionSection } from "./settings/connection-section";
import { renderConsolidationSection } from "./settings/consolidation-section";
import { renderRememberSection } from "./settings/remember-section";
import { SettingsForm } from "./settings/settings-form";
import { renderStorageSection } from "./settings/storage-section";

export class MemoryAgentSettingTab extends PluginSettingTab {
	private readonly form: SettingsForm;

	constructor(
		app: App,
		plugin: Plugin,
		private readonly context: PluginContext,
	) {
		super(app, plugin);
		this.form = new SettingsForm(context);
	}

	display(): void {
		const { containerEl, context, form } = this;
		containerEl.empty();
		containerEl.addClass("memory-agent-settings");
		renderConnectionSection(containerEl, {
			app: context.app,
			form,
			runtime: context.runtime,
			redisplay: () => this.display(),
		});
		renderRememberSection(containerEl, form);
		renderConsolidationSection(containerEl, form);
		renderAnswersSection(containerEl, form);
		renderStorageSection(containerEl, { app: context.app, form, store: () => context.runtime.store() });
	}
}
