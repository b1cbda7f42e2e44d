// Settings → Connection: how Memory Agent signs in to Bedrock, where, which model, and a test.

import { type App, SecretComponent } from "obsidian";
import { type ConnectionTestPort, type EndpointConfirmPort, runConnectionTest } from "../bedrock/connection-test";
import { regionChoices } from "../bedrock/regions";
import type { MemoryAgentSettings } from "../settings";
import { dropdownRow } from "./choice-field";
import { modelRow } from "./model-row";
import { FieldMessage, type SettingsForm, addCoreCheckedField } from "./settings-form";
import type { SettingRow, SettingSection } from "./setting-rows";

export interface ConnectionSectionDeps {
	/** For the secret pickers and for reading secrets (only to check that they exist). */
	app: App;
	form: SettingsForm;
	runtime: ConnectionTestPort;
	/** Asks before credentials go to a custom endpoint (the test asks when the core refused one). */
	endpointTrust: EndpointConfirmPort;
	/** Shows the rows that fit the settings now (the secret fields depend on the authentication method). */
	redisplay(): void;
}

type SecretKey = "accessKeyIdSecret" | "secretAccessKeySecret" | "sessionTokenSecret" | "apiKeySecret";

export function connectionSection(deps: ConnectionSectionDeps): SettingSection {
	const { form } = deps;
	const usesApiKey = () => form.current.authMethod === "apiKey";
	const usesAccessKeys = () => !usesApiKey();
	return {
		heading: "Connection",
		rows: [
			dropdownRow(form, "authMethod", {
				name: "Authentication",
				desc: "Sign in with access keys (signed requests) or with an API key. The keys stay in Obsidian's secret storage; only the secret names are kept in the plugin's settings.",
				options: () => ({ accessKey: "AWS access keys", apiKey: "Bedrock API key" }),
				// The secret fields below depend on the method.
				then: () => deps.redisplay(),
			}),
			secretRow(deps, "apiKeySecret", usesApiKey, "Bedrock API key", "The secret that holds the API key (created in the Bedrock console under API keys)."),
			secretRow(deps, "accessKeyIdSecret", usesAccessKeys, "Access key ID", "The secret that holds the access key ID (AKIA… or, for temporary keys, ASIA…)."),
			secretRow(deps, "secretAccessKeySecret", usesAccessKeys, "Secret access key", "The secret that holds the secret access key that belongs to the key ID."),
			secretRow(
				deps,
				"sessionTokenSecret",
				usesAccessKeys,
				"Session token",
				"Optional: only for temporary keys (ASIA…), the secret that holds their session token. Leave empty for long-term keys.",
			),
			dropdownRow(form, "region", {
				name: "Region",
				desc: "The region whose endpoint is called: where your account may use the model.",
				options: () => Object.fromEntries(regionChoices(form.current.region).map((name) => [name, name])),
			}),
			modelRow({ form, runtime: deps.runtime, redisplay: () => deps.redisplay() }),
			{
				name: "Advanced: endpoint",
				desc: "Replaces the service's endpoint, for example with a private endpoint in your network. Leave empty to use the standard endpoint of the region. An endpoint that is not AWS's own gets your credentials only after you confirm it on this device.",
				render: (setting) =>
					addCoreCheckedField(setting, form, "endpoint", { text: form.current.endpoint, placeholder: "https://" }),
			},
			testConnectionRow(deps),
		],
	};
}

function secretRow(deps: ConnectionSectionDeps, key: SecretKey, visible: () => boolean, name: string, desc: string): SettingRow {
	const { app, form } = deps;
	return {
		name,
		desc,
		visible,
		render: (setting) => {
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
		},
	};
}

function testConnectionRow(deps: ConnectionSectionDeps): SettingRow {
	return {
		name: "Test connection",
		desc: "Sends one short request to the model with the settings above.",
		render: (setting) => {
			const resultEl = setting.infoEl.createDiv({ cls: "memory-agent-connection-result" });
			setting.addButton((button) =>
				button.setButtonText("Test connection").onClick(async () => {
					button.setDisabled(true);
					resultEl.removeClass("is-success", "is-error");
					resultEl.addClass("is-pending");
					resultEl.setText("Testing…");
					// A field typed just before the click is saved (and applied) first.
					await deps.form.idle();
					const result = await runConnectionTest(deps.runtime, deps.form.current, deps.app.secretStorage, deps.endpointTrust);
					resultEl.setText(result.text);
					resultEl.removeClass("is-pending");
					resultEl.addClass(result.ok ? "is-success" : "is-error");
					button.setDisabled(false);
				}),
			);
		},
	};
}
