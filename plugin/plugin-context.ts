// What the parts of the plugin (commands, views, vault sync, settings) get from main.ts:
// the app, the runtime that holds the core, and the settings — never the plugin object.

import type { App } from "obsidian";
import type { EndpointTrust } from "./bedrock/endpoint-trust";
import type { MemoryRuntime } from "./memory-runtime";
import type { MemoryAgentSettings } from "./settings";

export interface PluginContext {
	app: App;
	runtime: MemoryRuntime;
	/** Asks this device's user before credentials go to a custom endpoint. */
	endpointTrust: EndpointTrust;
	settings(): MemoryAgentSettings;
	saveSettings(settings: MemoryAgentSettings): Promise<void>;
	/** Calls `listener` after each save, once the core has the new settings; returns the unsubscribe. */
	onSettingsSaved(listener: (settings: MemoryAgentSettings) => void): () => void;
}
