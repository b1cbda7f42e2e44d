// The one custom endpoint host this device's user confirmed AWS credentials may be sent to.
// Kept in Obsidian's local storage (per vault and per device), like the device id: never in
// data.json, which a sync tool carries to other devices — a synced file is no confirmation,
// since anyone who can write a shared vault could name a host of their own. The core decides
// which hosts need it (AWS's own never do); this file only keeps the answer.

import type { App } from "obsidian";

const TRUSTED_ENDPOINT_KEY = "memory-agent-trusted-endpoint-host";

type LocalStorage = Pick<App, "loadLocalStorage" | "saveLocalStorage">;

/** The host confirmed on this device, or null. */
export function trustedEndpointHostOf(app: LocalStorage): string | null {
	const known: unknown = app.loadLocalStorage(TRUSTED_ENDPOINT_KEY);
	return typeof known === "string" && known.length > 0 ? known : null;
}

/** Records this device's user's yes for `host` (replacing an earlier one). */
export function trustEndpointHost(app: LocalStorage, host: string): void {
	app.saveLocalStorage(TRUSTED_ENDPOINT_KEY, host);
}

/** The host of an endpoint as a browser's URL parser gives it (lowercase, no port), or null. */
export function endpointHostOf(endpoint: string): string | null {
	try {
		const host = new URL(endpoint.trim()).hostname;
		return host === "" ? null : host;
	} catch {
		return null;
	}
}
