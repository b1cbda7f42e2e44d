// Which connection setting is missing, named the way the settings tab names it.

import type { MemoryAgentSettings, SecretReader } from "../settings";

/** The setting a connection still needs, in words with the next step, or null when all are there. */
export function missingConnectionSetting(settings: MemoryAgentSettings, secrets: SecretReader): string | null {
	const fields =
		settings.authMethod === "apiKey"
			? [{ name: settings.apiKeySecret, label: "Bedrock API key" }]
			: [
					{ name: settings.accessKeyIdSecret, label: "Access key ID" },
					{ name: settings.secretAccessKeySecret, label: "Secret access key" },
				];
	for (const field of fields) {
		if (field.name === "") return `Choose the secret for "${field.label}" under Connection.`;
		if ((secrets.getSecret(field.name) ?? "").trim() === "") {
			return `The secret "${field.name}" chosen for "${field.label}" is empty or was deleted: choose it again or give it a value.`;
		}
	}
	const token = settings.authMethod === "accessKey" ? settings.sessionTokenSecret : "";
	if (token !== "" && (secrets.getSecret(token) ?? "").trim() === "") {
		return `The secret "${token}" chosen for "Session token" is empty or was deleted: choose it again, or clear the field for a long-term key.`;
	}
	return null;
}

/** The values of the secrets the settings name, so text shown to the user can be checked for them. */
export function chosenSecretValues(settings: MemoryAgentSettings, secrets: SecretReader): string[] {
	return [settings.accessKeyIdSecret, settings.secretAccessKeySecret, settings.sessionTokenSecret, settings.apiKeySecret]
		.filter((name) => name !== "")
		.map((name) => secrets.getSecret(name) ?? "")
		.filter((value) => value !== "");
}
