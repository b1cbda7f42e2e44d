// This device's id, for counting its model calls apart from other devices' in the shared
// memory. Kept in Obsidian's local storage (per vault and per device; neither synced nor in
// data.json, which a sync tool carries to the other devices).

import type { App } from "obsidian";

const DEVICE_KEY = "memory-agent-device";

export function deviceIdOf(app: App): string {
	const known: unknown = app.loadLocalStorage(DEVICE_KEY);
	if (typeof known === "string" && known.length > 0) return known;
	const bytes = crypto.getRandomValues(new Uint8Array(8));
	const id = Array.from(bytes, (byte) => byte.toString(16).padStart(2, "0")).join("");
	app.saveLocalStorage(DEVICE_KEY, id);
	return id;
}
