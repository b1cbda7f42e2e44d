// Memory Agent's entry point: wires settings, the core runtime, commands and views.

import { Notice, Plugin, type TAbstractFile, loadPdfJs, normalizePath, requestUrl } from "obsidian";
import { EndpointTrust } from "./bedrock/endpoint-trust";
import { createHostHandlers } from "./host/core-host";
import type { WorkerPlatform } from "./core/start-worker";
import { MemoryRuntime } from "./memory-runtime";
import { deviceIdOf } from "./storage/device-id";
import { type MemoryAgentSettings, pluginFolder, settingsFromData, settingsToData } from "./settings";
import type { PluginContext } from "./plugin-context";
import { MemoryAgentSettingTab } from "./settings-tab";
import { StatusBar } from "./ui/status-bar";
import { registerVaultSync } from "./vault/register-vault-sync";
import { scopeRulesOf } from "./vault/scope-rules";
import { registerInterface } from "./views/register-interface";

export default class MemoryAgentPlugin extends Plugin {
	// Not `settings`: Obsidian 1.13 declares that field on Plugin for declarative controls,
	// which this plugin's settings tab does not use (it draws its own rows).
	private current!: MemoryAgentSettings;
	private runtime: MemoryRuntime | undefined;
	private readonly settingsListeners = new Set<(settings: MemoryAgentSettings) => void>();

	override async onload(): Promise<void> {
		const configDir = this.app.vault.configDir;
		// Read once: it names this device's database and log folder for the whole session.
		const deviceId = deviceIdOf(this.app);
		this.current = settingsFromData(await this.loadData(), configDir);
		// As the database's place, the logs' folder is the one set at load (a change takes effect at the next).
		const memoryFolder = normalizePath(this.current.memoryFolder);

		const statusBar = new StatusBar(this.addStatusBarItem());
		const timers = {
			setTimeout: (callback: () => void, ms: number) => window.setTimeout(callback, ms),
			clearTimeout: (handle: unknown) => window.clearTimeout(handle as number),
		};
		// Asks before credentials go to a custom endpoint; the answer stays on this device.
		const endpointTrust: EndpointTrust = new EndpointTrust(this.app, () => runtime.applySettings());
		const runtime = new MemoryRuntime({
			adapter: this.app.vault.adapter,
			pluginFolder: pluginFolder(configDir),
			// Read once, when this device has no database of its own yet (an older version's shared file).
			legacyDatabasePath: normalizePath(this.current.databasePath),
			memoryFolder: () => memoryFolder,
			statusBar,
			notify: (message) => new Notice(message, 10_000),
			timers,
			host: createHostHandlers({ requestUrl, vault: this.app.vault, pdf: { loadPdfJs }, files: this.app.vault.adapter }),
			platform: {
				Worker: window.Worker as unknown as WorkerPlatform["Worker"],
				createObjectURL: (blob) => URL.createObjectURL(blob),
				revokeObjectURL: (url) => URL.revokeObjectURL(url),
			},
			settings: () => this.current,
			scope: () => scopeRulesOf(this.app, this.current),
			secrets: this.app.secretStorage,
			deviceId: () => deviceId,
			endpointTrust,
		});
		this.runtime = runtime;

		const context: PluginContext = {
			app: this.app,
			runtime,
			endpointTrust,
			settings: () => this.current,
			saveSettings: (settings) => this.saveSettings(settings),
			onSettingsSaved: (listener) => {
				this.settingsListeners.add(listener);
				return () => this.settingsListeners.delete(listener);
			},
		};
		// Each area registers its own commands, views and events (one line each, below).
		registerInterface(this, context);
		registerVaultSync(this, context);

		this.addSettingTab(new MemoryAgentSettingTab(this.app, this, context));
		// Retries that come due and the daily consolidation need a look now and then.
		this.registerInterval(window.setInterval(() => runtime.runner.kick(), 5 * 60_000));

		// Loading the WebAssembly waits for the layout so it never delays Obsidian's start.
		this.app.workspace.onLayoutReady(() => {
			// Another device's log arriving (a sync tool writes, or renames its temporary file into place).
			const logMayHaveChanged = (file: TAbstractFile) => runtime.vaultFileChanged(file.path);
			this.registerEvent(this.app.vault.on("create", logMayHaveChanged));
			this.registerEvent(this.app.vault.on("modify", logMayHaveChanged));
			this.registerEvent(this.app.vault.on("rename", logMayHaveChanged));
			void runtime.start();
		});
	}

	override onunload(): void {
		// Obsidian does not await unload: this stops new work, starts the final write (which
		// then completes) and ends the worker.
		void this.runtime?.stop();
	}

	private async saveSettings(settings: MemoryAgentSettings): Promise<void> {
		this.current = settings;
		await this.saveData(settingsToData(settings, this.app.vault.configDir));
		await this.runtime?.applySettings();
		for (const listener of this.settingsListeners) listener(settings);
	}
}
