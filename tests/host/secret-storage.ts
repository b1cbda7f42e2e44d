// Obsidian's secret storage for the headless host: ids checked as Obsidian checks them.

import type { SecretStorage } from "obsidian";

export class HostSecretStorage implements Pick<SecretStorage, "setSecret" | "getSecret" | "listSecrets"> {
	readonly secrets = new Map<string, string>();

	setSecret(id: string, secret: string): void {
		if (!/^[a-z0-9]+(-[a-z0-9]+)*$/.test(id)) throw new Error(`Invalid secret id: ${id}`);
		this.secrets.set(id, secret);
	}

	getSecret(id: string): string | null {
		return this.secrets.get(id) ?? null;
	}

	listSecrets(): string[] {
		return [...this.secrets.keys()];
	}
}
