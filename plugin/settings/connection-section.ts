// Settings → Connection: how Memory Agent signs in to Bedrock, where, which model, and a test.

import { type App, SecretComponent, Setting } from "obsidian";
import { type ConnectionTestPort, runConnectionTest } from "../bedrock/connection-test";
import { regionChoices } from "../bedrock/regions";
import { type AuthMethod, DEFAULT_MODEL_ID, type MemoryAgentSettings, validateEndpoint, validateModelId } from "../settings";
import { FieldMessage, type SettingsForm, addValidatedField, saveChoice } from "./settings-form";

export interface ConnectionSectionDeps {
	/** For the secret pickers and for reading secrets (only to check that they exist). */
	app: App;
	form: SettingsForm;
	runtime: ConnectionTestPort & { core(): { bedrockRegions: string[] } | undefined };
	/** Draws the whole tab again (the fields depend on the authentication method). */
	redisplay(): void;
}

type SecretKey = "accessKeyIdSecret" | "secretAccessKeySecret" | "sessionTokenSecret" | "apiKeySecret";

export function renderConnectionSection(containerEl: HTMLElement, deps: ConnectionSectionDeps): void {
	const { form } = deps;
	new Setting(containerEl).setName("Connection").setHeading();

	const auth = new Setting(containerEl)
		.setName("Authentication")
		.setDesc("Sign in with access keys (signed requests) or with an API key. The keys stay in Obsidian's secret storage; only the secret names are kept in the plugin's settings.");
	const saveAuth = saveChoice(auth, form);
	auth.addDropdown((dropdown) =>
		dropdown
			.addOptions({ accessKey: "AWS access keys", apiKey: "Bedrock API key" })
			.setValue(form.current.authMethod)
			.onChange(async (value) => {
				await saveAuth({ authMethod: value as AuthMethod });
				deps.redisplay();
			}),
	);

	if (form.current.authMethod === "apiKey") {
		addSecretSetting(containerEl, deps, "apiKeySecret", "Bedrock API key", "The secret that holds the API key (created in the Bedrock console under API keys).");
	} else {
		addSecretSetting(containerEl, deps, "accessKeyIdSecret", "Access key ID", "The secret that holds the access key ID (AKIA… or, for temporary keys, ASIA…).");
		addSecretSetting(containerEl, deps, "secretAccessKeySecret", "Secret access key", "The secret that holds the secret access key that belongs to the key ID.");
		addSecretSetting(
			containerEl,
			deps,
			"sessionTokenSecret",
			"Session token",
			"Optional: only for temporary keys (ASIA…), the secret that holds their session token. Leave empty for long-term keys.",
		);
	}

	const region = new Setting(containerEl).setName("Region").setDesc("The region whose endpoint is called: where your account may use the model.");
	const saveRegion = saveChoice(region, form);
	region.addDropdown((dropdown) => {
		for (const name of regionChoices(deps.runtime.core()?.bedrockRegions, form.current.region)) dropdown.addOption(name, name);
		dropdown.setValue(form.current.region).onChange((value) => saveRegion({ region: value }));
	});

	const model = new Setting(containerEl)
		.setName("Model ID")
		.setDesc(
			`The Claude model, as a Bedrock model ID or inference profile ID. Default: ${DEFAULT_MODEL_ID}. Newer models are called through an inference profile, whose prefix says where requests may run: us. (United States), eu. (Europe), apac. (Asia Pacific) or global. (any region).`,
		);
	addValidatedField(model, form, {
		text: form.current.modelId,
		placeholder: DEFAULT_MODEL_ID,
		parse: (text) => {
			const problem = validateModelId(text);
			return problem === null ? { value: text.trim() } : { problem };
		},
		patch: (modelId) => ({ modelId }),
	});

	const endpoint = new Setting(containerEl)
		.setName("Advanced: endpoint")
		.setDesc("Replaces the service's endpoint, for example with a private endpoint in your network. Leave empty to use the standard endpoint of the region.");
	addValidatedField(endpoint, form, {
		text: form.current.endpoint,
		placeholder: "https://",
		parse: (text) => {
			const problem = validateEndpoint(text);
			return problem === null ? { value: text.trim() } : { problem };
		},
		patch: (value) => ({ endpoint: value }),
	});

	addTestConnection(containerEl, deps);
}

function addSecretSetting(containerEl: HTMLElement, deps: ConnectionSectionDeps, key: SecretKey, name: string, description: string): void {
	const { app, form } = deps;
	const setting = new Setting(containerEl).setName(name).setDesc(description);
	const message = new FieldMessage(setting);
	// Only whether a value exists is checked; the value itself is never read into the page.
	const check = (secretName: string) =>
		message.show(secretName !== "" && app.secretStorage.getSecret(secretName) === null ? `There is no secret named "${secretName}" in this vault's secret storage.` : null);
	setting.addComponent((el) =>
		new SecretComponent(app, el).setValue(form.current[key]).onChange(async (secretName: string) => {
			check(secretName);
			const patch: Partial<MemoryAgentSettings> = { [key]: secretName.trim() };
			await form.save(patch).catch(() => message.show("Could not save the secret's name."));
		}),
	);
	check(form.current[key]);
}

function addTestConnection(containerEl: HTMLElement, deps: ConnectionSectionDeps): void {
	const setting = new Setting(containerEl)
		.setName("Test connection")
		.setDesc("Sends one short request to the model with the settings above.");
	const resultEl = setting.infoEl.createDiv({ cls: "memory-agent-connection-result" });
	setting.addButton((button) =>
		button.setButtonText("Test connection").onClick(async () => {
			button.setDisabled(true);
			resultEl.removeClass("is-success", "is-error");
			resultEl.addClass("is-pending");
			resultEl.setText("Testing…");
			// A field typed just before the click is saved (and applied) first.
			await deps.form.idle();
			const result = await runConnectionTest(deps.runtime, deps.form.current, deps.app.secretStorage);
			resultEl.setText(result.text);
			resultEl.removeClass("is-pending");
			resultEl.addClass(result.ok ? "is-success" : "is-error");
			button.setDisabled(false);
		}),
	);
}
