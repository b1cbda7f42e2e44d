// The settings tab: one section per group (connection, what to remember, consolidation,
// answers, storage), drawn by Obsidian from their definitions (1.13 and later, which also
// makes every row searchable) or by `display()` on older versions.

import { type App, type Plugin, PluginSettingTab, type SettingDefinitionItem, requireApiVersion } from "obsidian";
import type { PluginContext } from "./plugin-context";
import { answersSection } from "./settings/answers-section";
import { conversationsSection } from "./settings/conversations-section";
import { spendingSection } from "./settings/spending-section";
import { connectionSection } from "./settings/connection-section";
import { consolidationSection } from "./settings/consolidation-section";
import { rememberSection } from "./settings/remember-section";
import { SettingsForm } from "./settings/settings-form";
import { type SettingSection, definitionsOf, renderSections } from "./settings/setting-rows";
import { storageSection } from "./settings/storage-section";

export class MemoryAgentSettingTab extends PluginSettingTab {
	private readonly form: SettingsForm;

	constructor(
		app: App,
		plugin: Plugin,
		private readonly context: PluginContext,
	) {
		super(app, plugin);
		this.form = new SettingsForm(context, context.runtime);
	}

	override getSettingDefinitions(): SettingDefinitionItem[] {
		return definitionsOf(this.sections());
	}

	override display(): void {
		this.renderImperatively();
	}

	/** Draws the tab into its element, the way Obsidian before 1.13 shows it. */
	private renderImperatively(): void {
		const { containerEl } = this;
		containerEl.empty();
		containerEl.addClass("memory-agent-settings");
		renderSections(containerEl, this.sections());
	}

	private sections(): SettingSection[] {
		const { context, form } = this;
		return [
			connectionSection({ app: context.app, form, runtime: context.runtime, endpointTrust: context.endpointTrust, redisplay: () => this.redraw() }),
			rememberSection(form),
			consolidationSection(form),
			answersSection(form),
			conversationsSection(form),
			spendingSection(form),
			storageSection({ app: context.app, form, store: () => context.runtime.store() }),
		];
	}

	/** Shows the rows the settings now call for: Obsidian 1.13 re-evaluates `visible` in place. */
	private redraw(): void {
		if (requireApiVersion("1.13.0")) this.refreshDomState();
		else this.renderImperatively();
	}
}
