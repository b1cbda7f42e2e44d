// The browser harness: a page that plays Obsidian for the built main.js — the host's plugin, UI
// and view classes (shared with the headless host), an in-memory vault, requestUrl over fetch to
// a same-origin route the test server passes to the fake Bedrock — and hooks for the tests.

import type { App, Command, PluginManifest, PluginSettingTab, RequestUrlParam, RequestUrlResponse } from "obsidian";
import { DEFAULT_API_VERSION, requireApiVersionOf } from "../../host/api-version";
import { HostEvents } from "../../host/events";
import { HostMetadataCache } from "../../host/metadata-cache";
import { createPluginClasses } from "../../host/plugin-base";
import { HostSecretStorage } from "../../host/secret-storage";
import { createUiClasses } from "../../host/ui";
import { createViewClasses } from "../../host/views";
import { HostWorkspace } from "../../host/workspace";
import { installDomHelpers } from "./dom-helpers";
import { MemoryTAbstractFile, MemoryTFile, MemoryTFolder, MemoryVault } from "./memory-vault";

export interface HarnessConfig {
	manifest: PluginManifest;
	/** Notes of the vault, by path. */
	notes: Record<string, string>;
	/** Secrets planted in secret storage, by name. */
	secrets: Record<string, string>;
	/** The plugin's data.json. */
	data: Record<string, unknown>;
}

const normalizePath = (path: string): string => {
	const cleaned = path.replace(/\u00a0|\u202f/g, " ").replace(/[\\/]+/g, "/").replace(/^\/+|\/+$/g, "").normalize("NFC");
	return cleaned === "" ? "/" : cleaned;
};

/** Obsidian's requestUrl over fetch; the test server passes same-origin `/model/…` to the fake Bedrock. */
async function requestUrl(param: RequestUrlParam | string): Promise<RequestUrlResponse> {
	const request = typeof param === "string" ? { url: param } : param;
	const headers: Record<string, string> = {};
	for (const [name, value] of Object.entries(request.headers ?? {})) {
		// The browser sets these itself (to the same values the request was signed with).
		if (!["host", "content-length"].includes(name.toLowerCase())) headers[name] = value;
	}
	if (request.contentType) headers["content-type"] = request.contentType;
	const response = await fetch(request.url, { method: request.method ?? "GET", headers, body: request.body ?? null });
	const arrayBuffer = await response.arrayBuffer();
	const text = new TextDecoder().decode(arrayBuffer);
	if (response.status >= 400 && request.throw !== false) throw Object.assign(new Error(`Request failed, status ${response.status}`), { status: response.status });
	return {
		status: response.status,
		headers: Object.fromEntries(response.headers.entries()),
		arrayBuffer,
		text,
		get json() {
			return JSON.parse(text) as unknown;
		},
	};
}

type LoadedPlugin = { loadAsync(): Promise<void>; unload(): void };

class Harness {
	readonly notices: string[] = [];
	readonly commands = new Map<string, Command>();
	readonly settingTabs: PluginSettingTab[] = [];
	readonly settingsOpened: string[] = [];
	readonly workspace = new HostWorkspace();
	readonly metadataCache = new HostMetadataCache();
	readonly secretStorage = new HostSecretStorage();
	vault = new MemoryVault(".obsidian");
	plugin: LoadedPlugin | undefined;
	private app!: App;

	async start(config: HarnessConfig): Promise<void> {
		installDomHelpers();
		const vault = this.vault;
		for (const [path, text] of Object.entries(config.notes)) await vault.adapter.write(path, text);
		const pluginDir = `${vault.configDir}/plugins/${config.manifest.id}`;
		await vault.adapter.write(`${pluginDir}/data.json`, JSON.stringify(config.data));
		for (const [name, value] of Object.entries(config.secrets)) this.secretStorage.setSecret(name, value);

		this.app = {
			vault,
			workspace: this.workspace,
			secretStorage: this.secretStorage,
			metadataCache: this.metadataCache,
			commands: { executeCommandById: (id: string) => this.runCommand(id) },
			setting: { open: () => undefined, openTabById: (id: string) => void this.settingsOpened.push(id) },
		} as unknown as App;
		this.workspace.fileByPath = (path) => vault.getFileByPath(path) as never;

		const dom = { window: window as never, document, createElement: <K extends keyof HTMLElementTagNameMap>(tag: K) => document.createElement(tag), close: async () => undefined };
		const statusBarEl = document.querySelector<HTMLElement>(".status-bar")!;
		const pluginClasses = createPluginClasses({
			app: this.app,
			adapter: vault.adapter as never,
			dom,
			timers: { clearInterval: (id: number) => window.clearInterval(id) } as never,
			statusBarEl,
			commands: this.commands,
			settingTabs: this.settingTabs,
			ribbonEl: document.querySelector<HTMLElement>(".side-dock-ribbon") ?? document.body.createDiv({ cls: "side-dock-ribbon" }),
		});
		const ui = createUiClasses({ dom, notices: this.notices });
		const views = createViewClasses({ app: this.app, document, workspace: this.workspace, Component: pluginClasses.Component });
		this.workspace.attachLeaves(
			{ main: document.querySelector<HTMLElement>(".mod-root")!, right: document.querySelector<HTMLElement>(".mod-right-split")! },
			(side) => new views.WorkspaceLeaf(side),
		);
		const obsidian = {
			...views,
			...ui,
			apiVersion: DEFAULT_API_VERSION,
			requireApiVersion: requireApiVersionOf(DEFAULT_API_VERSION),
			Component: pluginClasses.Component,
			Plugin: pluginClasses.Plugin,
			Events: HostEvents,
			TAbstractFile: MemoryTAbstractFile,
			TFile: MemoryTFile,
			TFolder: MemoryTFolder,
			normalizePath,
			requestUrl,
			Platform: { isDesktop: true, isMobile: false, isDesktopApp: true, isMobileApp: false, isIosApp: false, isAndroidApp: false, isPhone: false, isTablet: false, isMacOS: false, isWin: false, isLinux: true, isSafari: false },
		};

		// main.js as Obsidian loads it: CommonJS, with `require("obsidian")` and nothing else.
		const code = await (await fetch("/main.js")).text();
		const module = { exports: {} as Record<string, unknown> };
		const load = new Function("require", "module", "exports", code) as (require: (id: string) => unknown, module: unknown, exports: unknown) => void;
		load(
			(id) => {
				if (id !== "obsidian") throw new Error(`Cannot find module '${id}'`);
				return obsidian;
			},
			module,
			module.exports,
		);
		const PluginClass = (module.exports.default ?? module.exports) as new (app: App, manifest: PluginManifest) => LoadedPlugin;
		this.plugin = new PluginClass(this.app, { ...config.manifest, dir: pluginDir });
		await this.plugin.loadAsync();
		this.workspace.fireLayoutReady();
	}

	/** Runs a command by its id (with or without the plugin prefix); false when it is not available. */
	runCommand(id: string): boolean {
		const command = this.commands.get(id) ?? this.commands.get(`memory-agent:${id}`);
		if (!command) return false;
		if (command.callback) {
			void command.callback();
			return true;
		}
		return command.checkCallback?.(false) !== false;
	}

	/** Every note the plugin opened: path, line (`eState.line`) or subpath. */
	opened(): Array<{ path: string; line?: number; subpath?: string }> {
		return this.workspace.opened.map(({ path, line, subpath }) => ({ path, line, subpath }));
	}

	setTheme(theme: "light" | "dark"): void {
		document.body.classList.toggle("theme-light", theme === "light");
		document.body.classList.toggle("theme-dark", theme === "dark");
	}

	clearNotices(): void {
		for (const el of document.querySelectorAll(".notice-container")) el.remove();
	}

	/** Shows the plugin's settings tab the way Obsidian's settings window holds it. */
	showSettings(): void {
		const tab = this.settingTabs[0];
		if (!tab) throw new Error("No settings tab registered");
		const host = document.querySelector<HTMLElement>(".harness-settings")!;
		host.classList.remove("harness-hidden");
		host.querySelector(".vertical-tab-content-container")!.replaceChildren(tab.containerEl);
		tab.display();
	}

	hideSettings(): void {
		this.settingTabs[0]?.hide();
		document.querySelector(".harness-settings")!.classList.add("harness-hidden");
	}
}

declare global {
	interface Window {
		harness: Harness;
	}
}

window.harness = new Harness();
