// The browser harness: a page that plays Obsidian for the built main.js — the host's plugin, UI
// and view classes (shared with the headless host), an in-memory vault, requestUrl over fetch
// (requests to AWS's hosts go to the harness server, which passes them to the fake Bedrock),
// on a desktop or a phone — and hooks for the tests.

import type { App, Command, PluginManifest, PluginSettingTab, RequestUrlParam, RequestUrlResponse } from "obsidian";
import { DEFAULT_API_VERSION, requireApiVersionOf } from "../../host/api-version";
import { HostEvents } from "../../host/events";
import { HostMetadataCache } from "../../host/metadata-cache";
import { createPluginClasses } from "../../host/plugin-base";
import { HostSecretStorage } from "../../host/secret-storage";
import { createUiClasses } from "../../host/ui";
import { HostEditor, createViewClasses } from "../../host/views";
import { HostWorkspace } from "../../host/workspace";
import { installDomHelpers } from "./dom-helpers";
import { MemoryTAbstractFile, MemoryTFile, MemoryTFolder, MemoryVault } from "./memory-vault";
import { ORIGINAL_HOST_HEADER, route } from "./routing";

export interface HarnessConfig {
	manifest: PluginManifest;
	/** Notes of the vault, by path. */
	notes: Record<string, string>;
	/** Secrets planted in secret storage, by name. */
	secrets: Record<string, string>;
	/** The plugin's data.json. */
	data: Record<string, unknown>;
	/**
	 * Play Obsidian on a phone: `Platform.isMobile` and `isPhone`, the body's `is-mobile
	 * is-phone`, no status bar (the plugin's item is an element nobody shows), the ribbon as the
	 * bottom bar and side panels as a full-width drawer.
	 */
	mobile?: boolean;
}

/** Obsidian's `Platform` on a Linux desktop and on an Android phone. */
const DESKTOP_PLATFORM = { isDesktop: true, isMobile: false, isDesktopApp: true, isMobileApp: false, isIosApp: false, isAndroidApp: false, isPhone: false, isTablet: false, isMacOS: false, isWin: false, isLinux: true, isSafari: false };
const PHONE_PLATFORM = { isDesktop: false, isMobile: true, isDesktopApp: false, isMobileApp: true, isIosApp: false, isAndroidApp: true, isPhone: true, isTablet: false, isMacOS: false, isWin: false, isLinux: false, isSafari: false };

const normalizePath = (path: string): string => {
	const cleaned = path.replace(/\u00a0|\u202f/g, " ").replace(/[\\/]+/g, "/").replace(/^\/+|\/+$/g, "").normalize("NFC");
	return cleaned === "" ? "/" : cleaned;
};

// The plugin calls AWS's own endpoint (`https://bedrock-runtime.<region>.amazonaws.com`, as a
// user's plugin does) and signs for that host; `route` sends such a request to the harness
// server, which passes it to the fake Bedrock with that Host, so the signature verifies there
// as it would at AWS. Nothing leaves the machine.

/** Obsidian's requestUrl over fetch; requests to AWS go through the harness server to the fake Bedrock. */
async function requestUrl(param: RequestUrlParam | string): Promise<RequestUrlResponse> {
	const request = typeof param === "string" ? { url: param } : param;
	const headers: Record<string, string> = {};
	for (const [name, value] of Object.entries(request.headers ?? {})) {
		// The browser sets these itself (the harness server puts the signed Host back).
		if (!["host", "content-length"].includes(name.toLowerCase())) headers[name] = value;
	}
	if (request.contentType) headers["content-type"] = request.contentType;
	const routed = route(request.url, window.location.origin);
	if (routed.originalHost !== undefined) headers[ORIGINAL_HOST_HEADER] = routed.originalHost;
	const response = await fetch(routed.url, { method: request.method ?? "GET", headers, body: request.body ?? null });
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
		const mobile = config.mobile === true;
		document.body.classList.toggle("is-mobile", mobile);
		document.body.classList.toggle("is-phone", mobile);
		document.body.classList.toggle("is-desktop", !mobile);
		const vault = this.vault;
		for (const [path, text] of Object.entries(config.notes)) await vault.adapter.write(path, text);
		const pluginDir = `${vault.configDir}/plugins/${config.manifest.id}`;
		await vault.adapter.write(`${pluginDir}/data.json`, JSON.stringify(config.data));
		for (const [name, value] of Object.entries(config.secrets)) this.secretStorage.setSecret(name, value);

		this.app = {
			vault,
			workspace: this.workspace,
			secretStorage: this.secretStorage,
			loadLocalStorage: (key: string) => window.localStorage.getItem(`memory-agent-test:${key}`),
			saveLocalStorage: (key: string, data: unknown) => window.localStorage.setItem(`memory-agent-test:${key}`, String(data)),
			metadataCache: this.metadataCache,
			commands: { executeCommandById: (id: string) => this.runCommand(id) },
			setting: { open: () => undefined, openTabById: (id: string) => void this.settingsOpened.push(id) },
		} as unknown as App;
		this.workspace.fileByPath = (path) => vault.getFileByPath(path) as never;

		const dom = { window: window as never, document, createElement: <K extends keyof HTMLElementTagNameMap>(tag: K) => document.createElement(tag), close: async () => undefined };
		// A phone has no status bar: the plugin's item is made, but nobody shows it.
		if (mobile) document.querySelector(".status-bar")?.remove();
		const statusBarEl = mobile ? document.createElement("div") : document.querySelector<HTMLElement>(".status-bar")!;
		const pluginClasses = createPluginClasses({
			app: this.app,
			adapter: vault.adapter as never,
			dom,
			timers: { clearInterval: (id: number) => window.clearInterval(id) } as never,
			statusBarEl,
			commands: this.commands,
			settingTabs: this.settingTabs,
			ribbonEl: document.querySelector<HTMLElement>(".side-dock-ribbon")!,
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
			Platform: mobile ? PHONE_PLATFORM : DESKTOP_PLATFORM,
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

	/** The editor of the latest `runEditorCommand`, to read what the command made of its text. */
	editor: HostEditor | undefined;

	/**
	 * Runs an editor command on `text` in the note at `path`, with `selected` (its first
	 * occurrence) selected, or the cursor at the end; false when it is not available there.
	 */
	runEditorCommand(id: string, text: string, path: string, selected?: string): boolean {
		const command = this.commands.get(`memory-agent:${id}`);
		if (!command) return false;
		const end = text.split("\n");
		const editor = selected === undefined ? new HostEditor(text, { line: end.length - 1, ch: end.at(-1)!.length }) : HostEditor.selecting(text, selected);
		this.editor = editor;
		const info = { file: this.vault.getFileByPath(path) } as never;
		if (command.editorCallback) {
			void command.editorCallback(editor as never, info);
			return true;
		}
		return command.editorCheckCallback?.(false, editor as never, info) !== false;
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
