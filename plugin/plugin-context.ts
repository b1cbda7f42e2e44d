// What the parts of the plugin (commands, views, vault sync, settings) get from main.ts:
// the app, the runtime that holds the core, and the settings — never the plugin object.

import type { App } from "obsidian";
import type { MemoryRuntime } from "./memory-runtime";
import type { MemoryAgentSettings } from "./settings";

export interface PluginContext {
	app: App;
	runtime: MemoryRuntime;
	settings(): MemoryAgentSettings;
	saveSettings(settings: MemoryAgentSettings): Promise<void>;
}
