// Settings → Connection → Model: a typed model ID, or one chosen from what this account may
// call in the region (the core asks Bedrock's control plane; the list is loaded on demand,
// with a button, so opening the settings sends nothing).

import type { Setting } from "obsidian";
import { errorMessage } from "../core/core-error";
import type { ModelChoice } from "../core/memory-core-api";
import { type ConnectionTestPort, STARTING_WAIT_MS } from "../bedrock/connection-test";
import { defaultModelFor, fallbackModelFor } from "../bedrock/regions";
import { FieldMessage, type SettingsForm, addCoreCheckedField, saveChoice } from "./settings-form";
import type { SettingRow } from "./setting-rows";

export interface ModelRowDeps {
	form: SettingsForm;
	runtime: ConnectionTestPort;
	redisplay(): void;
}

/** The last list loaded, per region: shown again when the tab is redrawn. */
const loaded = new Map<string, ModelChoice[]>();

function recommended(region: string): string {
	return defaultModelFor(region) ?? "Claude Haiku 5.5 through the profile of the region";
}

function fallback(region: string): string {
	return fallbackModelFor(region) ?? "Claude Haiku 4.5 through the profile of the region";
}

export function modelRow(deps: ModelRowDeps): SettingRow {
	const { form } = deps;
	return {
		name: "Model ID",
		desc: `The Claude model, as a Bedrock model ID or inference profile ID. Leave empty for the current Claude Haiku (5.5) in ${form.current.region}: ${recommended(form.current.region)}; if your account may not call it, Memory Agent uses Claude Haiku 4.5 (${fallback(form.current.region)}) instead and says so. A model ID you type is always used as it is. An inference profile's prefix says where requests may run, and only works from its own geography: us. (United States), eu. (Europe), jp. (Japan), au. (Australia), global. (any commercial region). The list button shows what your account may call here.`,
		render: (setting) => {
			const region = form.current.region;
			const choices = loaded.get(region);
			if (choices !== undefined) addChoices(setting, form, choices, region);
			addCoreCheckedField(setting, form, "modelId", { text: form.current.modelId, placeholder: recommended(region) });
			const message = new FieldMessage(setting);
			setting.addButton((button) =>
				button
					.setButtonText(choices === undefined ? "List models" : "Refresh list")
					.setTooltip("Show the models and inference profiles this account may call in the region")
					.onClick(async () => {
						button.setDisabled(true);
						message.show(null);
						const store = await deps.runtime.readyStore(STARTING_WAIT_MS);
						if (store === undefined) {
							button.setDisabled(false);
							return message.show("Memory Agent has not started. Reload it (turn it off and on in Community plugins) and try again.");
						}
						try {
							await deps.runtime.applySettings();
							loaded.set(region, await store.listModels());
							deps.redisplay();
						} catch (error) {
							message.show(`Could not list the models: ${errorMessage(error)}`);
						} finally {
							button.setDisabled(false);
						}
					}),
			);
		},
	};
}

function addChoices(setting: Setting, form: SettingsForm, choices: ModelChoice[], region: string): void {
	const save = saveChoice(setting, form);
	setting.addDropdown((dropdown) => {
		dropdown.addOption("", `Recommended for ${region}`);
		for (const choice of choices) dropdown.addOption(choice.id, `${choice.name} (${choice.id})`);
		const current = form.current.modelId;
		if (current !== "" && !choices.some((choice) => choice.id === current)) dropdown.addOption(current, `${current} (typed)`);
		dropdown.setValue(current).onChange((modelId) => void save({ modelId }));
	});
}
