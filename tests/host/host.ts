// The headless Obsidian: a real vault folder, a DOM, and the built main.js loaded in a browser-like realm.

import { webcrypto } from "node:crypto";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { App, Command, Plugin, PluginManifest, PluginSettingTab } from "obsidian";
import { HostDataAdapter } from "./data-adapter";
import { HostMetadataCache } from "./metadata-cache";
import { type HostDom, createDom } from "./dom";
import { DEFAULT_API_VERSION } from "./api-version";
import { createObsidianModule } from "./obsidian-module";
import { NodeOffscreenCanvas } from "./pdfjs-node";
import { createPluginClasses } from "./plugin-base";
import { HostSecretStorage } from "./secret-storage";
import { HostTimers } from "./timers";
import { type VirtualClock, virtualDateSource } from "./clock";
import { createUiClasses } from "./ui";
import { createViewClasses } from "./views";
import { loadMainJs } from "./vm-loader";
import { HostVault } from "./vault";
import { HostWorkers } from "./worker";
import { HostWorkspace } from "./workspace";

export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");

export interface StartHostOptions {
	/** The vault folder; a new temporary folder when omitted (removed again by `stop()`). */
	vaultDir?: string;
	/** The vault's config folder name (Obsidian lets users change `.obsidian`). */
	configDir?: string;
	/** The built plugin to load; the repository's main.js by default. */
	mainJsPath?: string;
	/** The Obsidian version to play (`apiVersion`, `requireApiVersion`, how a settings tab is drawn). */
	apiVersion?: string;
	/** Play Obsidian on a phone: `Platform.isMobile`, no status bar shown. */
	mobile?: boolean;
	/** This device's id in Obsidian's local storage (the plugin's database and log folder are named by it). */
	deviceId?: string;
	/** Time runs faster, the same in the plugin's realm and its worker (`Date`, timers and intervals). */
	clock?: VirtualClock;
}

/** The device id a host plays unless told another. */
export const DEFAULT_DEVICE_ID = "test-device";
/** The local storage key the plugin keeps its device id under (plugin/storage/device-id.ts). */
export const DEVICE_ID_KEY = "memory-agent-device";

export interface WaitOptions {
	timeoutMs?: number;
	message?: string;
}

type LoadedPlugin = Plugin & { loadAsync(): Promise<void> };

export class Host {
	readonly notices: string[] = [];
	readonly commands = new Map<string, Command>();
	readonly settingTabs: PluginSettingTab[] = [];
	readonly timers = new HostTimers();
	/** The Web Workers the plugin started (the core runs in one). */
	readonly workers = new HostWorkers();
	readonly secretStorage = new HostSecretStorage();
	/** `app.loadLocalStorage`: this device's, kept for the host's life. */
	readonly localStorage = new Map<string, unknown>();
	readonly adapter: HostDataAdapter;
	readonly vault: HostVault;
	readonly workspace: HostWorkspace;
	readonly dom: HostDom;
	readonly statusBarEl: HTMLElement;
	/** The ribbon: the plugin's icons. */
	readonly ribbonEl: HTMLElement;
	readonly manifest: PluginManifest;
	readonly metadataCache = new HostMetadataCache();
	/** Plugin ids whose settings tab was opened through `app.setting.openTabById`. */
	readonly settingsOpened: string[] = [];
	/** The workspace's DOM: the main area and the right sidebar, where leaves are shown. */
	readonly workspaceEl: HTMLElement;
	plugin: LoadedPlugin | undefined;
	/** The virtual clock the realm and its workers run on, when the test set one. */
	private clock: VirtualClock | undefined;

	constructor(
		readonly vaultDir: string,
		readonly configDir: string,
		private readonly mainJsPath: string,
		manifest: PluginManifest,
		private readonly ownsVault: boolean,
		/** The Obsidian version played. */
		readonly apiVersion = DEFAULT_API_VERSION,
		/** Playing a phone. */
		readonly mobile = false,
	) {
		this.adapter = new HostDataAdapter(vaultDir);
		this.vault = new HostVault(this.adapter, configDir);
		this.workspace = new HostWorkspace();
		this.dom = createDom();
		this.statusBarEl = this.dom.document.body.createDiv({ cls: "status-bar" });
		this.ribbonEl = this.dom.document.body.createDiv({ cls: "side-dock-ribbon" });
		this.workspaceEl = this.dom.document.body.createDiv({ cls: "workspace" });
		this.workspace.fileByPath = (filePath) => this.vault.getFileByPath(filePath);
		this.manifest = { ...manifest, dir: this.pluginDir };
	}

	/** This device's id, as the plugin reads it from local storage. */
	get deviceId(): string {
		return String(this.localStorage.get(DEVICE_ID_KEY) ?? DEFAULT_DEVICE_ID);
	}

	/** Vault path of the plugin's folder, e.g. `.obsidian/plugins/memory-agent`. */
	get pluginDir(): string {
		return `${this.configDir}/plugins/memory-agent`;
	}

	get app(): App {
		return {
			vault: this.vault,
			workspace: this.workspace,
			secretStorage: this.secretStorage,
			loadLocalStorage: (key: string) => this.localStorage.get(key) ?? null,
			saveLocalStorage: (key: string, data: unknown) => (data === null ? this.localStorage.delete(key) : this.localStorage.set(key, data)),
			// Obsidian's command registry (not in the public typings): runs a command by its full id.
			commands: { executeCommandById: (id: string) => this.executeCommandById(id) },
			metadataCache: this.metadataCache,
			// Obsidian's settings window (not in the public typings): recorded, not shown.
			setting: { open: () => undefined, openTabById: (id: string) => void this.settingsOpened.push(id) },
		} as unknown as App;
	}

	/** What `app.commands.executeCommandById` does: false when no such command is registered. */
	executeCommandById(id: string): boolean {
		const command = this.commands.get(id);
		if (!command) return false;
		if (command.callback) void command.callback();
		else if (command.checkCallback) return command.checkCallback(false) !== false;
		else return false;
		return true;
	}

	/** Absolute path on disk of a vault path. */
	diskPath(vaultPath: string): string {
		return path.join(this.vaultDir, vaultPath);
	}

	/**
	 * Installs main.js into the vault's plugin folder, evaluates it in a fresh browser-like
	 * realm, constructs the plugin and awaits its onload. Fires layout-ready afterwards unless
	 * told not to (as Obsidian does once every plugin has loaded).
	 */
	async loadPlugin({ layoutReady = true }: { layoutReady?: boolean } = {}): Promise<void> {
		if (this.plugin) throw new Error("A plugin is already loaded; unload it first");
		const pluginDisk = this.diskPath(this.pluginDir);
		await fs.mkdir(pluginDisk, { recursive: true });
		await fs.copyFile(this.mainJsPath, path.join(pluginDisk, "main.js"));
		const code = await fs.readFile(path.join(pluginDisk, "main.js"), "utf8");

		const pluginClasses = createPluginClasses({
			app: this.app,
			adapter: this.adapter,
			dom: this.dom,
			timers: this.timers,
			statusBarEl: this.statusBarEl,
			commands: this.commands,
			settingTabs: this.settingTabs,
			ribbonEl: this.ribbonEl,
		});
		const views = createViewClasses({ app: this.app, document: this.dom.document, workspace: this.workspace, Component: pluginClasses.Component });
		this.workspaceEl.empty();
		const areas = { main: this.workspaceEl.createDiv({ cls: "mod-root" }), right: this.workspaceEl.createDiv({ cls: "mod-right-split" }) };
		this.workspace.attachLeaves(areas, (side) => new views.WorkspaceLeaf(side));
		const { apiVersion } = this;
		const platform = this.mobile ? { isDesktop: false, isMobile: true, isDesktopApp: false, isMobileApp: true, isPhone: true, isAndroidApp: true, isLinux: false } : {};
		const obsidian = createObsidianModule(pluginClasses, createUiClasses({ dom: this.dom, notices: this.notices, apiVersion }), platform, views, apiVersion);
		const clockPrelude = this.clock === undefined ? "" : `globalThis.Date = ${virtualDateSource(this.clock)}(globalThis.Date);`;
		const loaded = loadMainJs(code, this.browserGlobals(), (id) => (id === "obsidian" ? obsidian : undefined), "main.js", clockPrelude);
		this.adapter.setRealm(loaded.realm);

		const PluginClass = loaded.PluginClass as unknown as new (app: App, manifest: PluginManifest) => LoadedPlugin;
		const plugin = new PluginClass(this.app, this.manifest);
		if (!(plugin instanceof pluginClasses.Plugin)) throw new Error("main.js's class does not extend obsidian's Plugin");
		this.plugin = plugin;
		await plugin.loadAsync();
		if (layoutReady) this.workspace.fireLayoutReady();
	}

	fireLayoutReady(): void {
		this.workspace.fireLayoutReady();
	}

	/** Unloads the plugin (as Obsidian: without awaiting it), then waits for file operations to end. */
	async unloadPlugin(): Promise<void> {
		const plugin = this.plugin;
		if (!plugin) throw new Error("No plugin is loaded");
		plugin.unload();
		this.plugin = undefined;
		await this.settle();
	}

	/** Text of the plugin's status bar item ("" when there is none). */
	statusBarText(): string {
		const items = this.statusBarEl.querySelectorAll(".plugin-memory-agent");
		return items.length === 0 ? "" : (items[items.length - 1]?.textContent ?? "");
	}

	/** Runs a command by its id, with or without the `memory-agent:` prefix. */
	async runCommand(id: string): Promise<void> {
		const command = this.commands.get(id) ?? this.commands.get(`${this.manifest.id}:${id}`);
		if (!command) throw new Error(`No command ${id}; registered: ${[...this.commands.keys()].join(", ")}`);
		// As Obsidian runs a command: a check callback is asked first whether it applies.
		if (command.checkCallback) {
			if (command.checkCallback(true) !== true) throw new Error(`Command ${id} does not apply now`);
			command.checkCallback(false);
			return;
		}
		if (!command.callback) throw new Error(`Command ${id} has no plain callback`);
		await command.callback();
	}

	/** Polls `predicate` (which may ask the core, and so be async) until it holds. */
	async waitFor(predicate: () => boolean | Promise<boolean>, { timeoutMs = 15_000, message }: WaitOptions = {}): Promise<void> {
		const deadline = Date.now() + timeoutMs;
		while (!(await predicate())) {
			if (Date.now() > deadline) {
				throw new Error(`Timed out: ${message ?? "condition"} (status bar: "${this.statusBarText()}", notices: ${JSON.stringify(this.notices)})`);
			}
			await new Promise((resolve) => setTimeout(resolve, 10));
		}
	}

	/** Waits until the status bar no longer says "starting". */
	async waitForCore(options: WaitOptions = {}): Promise<string> {
		await this.waitFor(() => !/starting/.test(this.statusBarText()) && this.statusBarText() !== "", {
			message: "the core to start",
			...options,
		});
		await this.settle();
		return this.statusBarText();
	}

	/** Waits until file operations are done and no timer is about to fire (timers far off are left). */
	async settle(): Promise<void> {
		for (let quietRounds = 0; quietRounds < 3; ) {
			await this.adapter.idle();
			await new Promise((resolve) => setImmediate(resolve));
			if (this.adapter.busy || this.workers.busy || this.timers.dueWithin(20)) {
				quietRounds = 0;
				await new Promise((resolve) => setTimeout(resolve, 5));
			} else {
				quietRounds++;
			}
		}
	}

	/** Unloads the plugin if loaded, closes the DOM and removes a temporary vault. */
	async stop(): Promise<void> {
		if (this.plugin) await this.unloadPlugin();
		this.timers.clearAll();
		await this.workers.terminateAll();
		await this.dom.close();
		if (this.ownsVault) await fs.rm(this.vaultDir, { recursive: true, force: true });
	}

	/** The plugin realm's globals: what a browser (desktop or mobile WebView) offers, nothing of Node. */
	/** From now on the realm (at the next load) and new workers run on `clock`. */
	runOn(clock: VirtualClock): void {
		this.clock = clock;
		this.timers.timeScale = clock.scale;
		this.timers.intervalScale = clock.scale;
		this.workers.clock = clock;
	}

	private browserGlobals(): Record<string, unknown> {
		const { window, document } = this.dom;
		return {
			console,
			setTimeout: this.timers.setTimeout,
			clearTimeout: this.timers.clearTimeout,
			setInterval: this.timers.setInterval,
			clearInterval: this.timers.clearInterval,
			queueMicrotask,
			TextEncoder,
			TextDecoder,
			URL,
			Blob,
			Worker: this.workers.constructorForRealm,
			performance,
			crypto: realmCrypto,
			navigator: window.navigator,
			document,
			activeDocument: document,
			location: window.location,
			Node: window.Node,
			Element: window.Element,
			HTMLElement: window.HTMLElement,
			DocumentFragment: window.DocumentFragment,
			Event: window.Event,
			// Obsidian's Chromium has one; here a Skia canvas (pdf-text.ts draws scans on it).
			OffscreenCanvas: NodeOffscreenCanvas,
		};
	}
}

/** Starts a host over `vaultDir` (or a new temporary vault) with the repository's manifest. */
/**
 * Node's WebCrypto for the plugin's realm. Its WebIDL checks are this realm's (`instanceof`),
 * so the realm's buffers are viewed from here first; in Obsidian there is one realm.
 */
const realmCrypto = {
	getRandomValues: <T extends ArrayBufferView | null>(array: T): T => webcrypto.getRandomValues(array as never) as T,
	randomUUID: () => webcrypto.randomUUID(),
	subtle: {
		digest: (algorithm: AlgorithmIdentifier, data: ArrayBuffer | ArrayBufferView) =>
			webcrypto.subtle.digest(algorithm, ArrayBuffer.isView(data) ? new Uint8Array(data.buffer, data.byteOffset, data.byteLength) : new Uint8Array(data)),
	},
};

export async function startHost(options: StartHostOptions = {}): Promise<Host> {
	const ownsVault = options.vaultDir === undefined;
	const vaultDir = options.vaultDir ?? (await fs.mkdtemp(path.join(os.tmpdir(), "memory-agent-vault-")));
	const configDir = options.configDir ?? ".obsidian";
	await fs.mkdir(path.join(vaultDir, configDir), { recursive: true });
	const manifest = JSON.parse(await fs.readFile(path.join(REPO_ROOT, "manifest.json"), "utf8")) as PluginManifest;
	const mainJsPath = options.mainJsPath ?? path.join(REPO_ROOT, "main.js");
	const host = new Host(vaultDir, configDir, mainJsPath, manifest, ownsVault, options.apiVersion, options.mobile);
	host.localStorage.set(DEVICE_ID_KEY, options.deviceId ?? DEFAULT_DEVICE_ID);
	if (options.clock !== undefined) host.runOn(options.clock);
	return host;
}
