// Obsidian's Component and Plugin base classes, bound to one host (commands, status bar, data.json).

import type { App, Command, Component, EventRef, Plugin, PluginManifest, PluginSettingTab, ViewCreator } from "obsidian";
import type { HostDataAdapter } from "./data-adapter";
import type { HostDom } from "./dom";
import type { HostEventRef } from "./events";
import type { HostTimers } from "./timers";
import type { HostWorkspace } from "./workspace";

export interface PluginContext {
	app: App;
	adapter: HostDataAdapter;
	dom: HostDom;
	timers: HostTimers;
	statusBarEl: HTMLElement;
	/** Registered commands by full id (`<plugin id>:<command id>`). */
	commands: Map<string, Command>;
	settingTabs: PluginSettingTab[];
	/** Where ribbon icons go (Obsidian's left ribbon; on a phone, the ribbon menu). */
	ribbonEl: HTMLElement;
}

type ComponentMethods =
	| "load"
	| "onload"
	| "unload"
	| "onunload"
	| "addChild"
	| "removeChild"
	| "register"
	| "registerEvent"
	| "registerInterval";

type PluginMethods =
	| "app"
	| "manifest"
	| "addCommand"
	| "removeCommand"
	| "addStatusBarItem"
	| "addRibbonIcon"
	| "addSettingTab"
	| "loadData"
	| "saveData"
	| "registerView";

export function createPluginClasses(ctx: PluginContext) {
	class HostComponent implements Pick<Component, ComponentMethods> {
		private loaded = false;
		private readonly children: HostComponent[] = [];
		private readonly cleanups: Array<() => unknown> = [];

		/** Obsidian ignores onload's promise here; the host awaits it through `loadAsync`. */
		load(): void {
			void this.loadAsync();
		}

		async loadAsync(): Promise<void> {
			if (this.loaded) return;
			this.loaded = true;
			await this.onload();
			for (const child of this.children) await child.loadAsync();
		}

		onload(): void | Promise<void> {}

		unload(): void {
			if (!this.loaded) return;
			this.loaded = false;
			for (const child of this.children.splice(0)) child.unload();
			for (const cleanup of this.cleanups.splice(0).reverse()) cleanup();
			this.onunload();
		}

		onunload(): void {}

		addChild<T extends Component>(component: T): T {
			this.children.push(component as unknown as HostComponent);
			if (this.loaded) component.load();
			return component;
		}

		removeChild<T extends Component>(component: T): T {
			const index = this.children.indexOf(component as unknown as HostComponent);
			if (index >= 0) this.children.splice(index, 1);
			component.unload();
			return component;
		}

		register(cb: () => unknown): void {
			this.cleanups.push(cb);
		}

		registerEvent(eventRef: EventRef): void {
			this.register(() => (eventRef as HostEventRef).events.offref(eventRef));
		}

		registerInterval(id: number): number {
			this.register(() => ctx.timers.clearInterval(id));
			return id;
		}
	}

	abstract class HostPlugin extends HostComponent implements Pick<Plugin, PluginMethods> {
		constructor(
			readonly app: App,
			readonly manifest: PluginManifest,
		) {
			super();
		}

		addCommand(command: Command): Command {
			const full = { ...command, id: `${this.manifest.id}:${command.id}` };
			ctx.commands.set(full.id, full);
			this.register(() => ctx.commands.delete(full.id));
			return full;
		}

		removeCommand(commandId: string): void {
			ctx.commands.delete(`${this.manifest.id}:${commandId}`);
		}

		addStatusBarItem(): HTMLElement {
			const el = ctx.statusBarEl.createDiv({ cls: ["status-bar-item", `plugin-${this.manifest.id}`] });
			this.register(() => el.remove());
			return el;
		}

		addRibbonIcon(icon: string, title: string, callback: (evt: MouseEvent) => unknown): HTMLElement {
			const el = ctx.ribbonEl.createDiv({ cls: ["side-dock-ribbon-action", `plugin-${this.manifest.id}`], attr: { "aria-label": title, "data-icon": icon } });
			el.addEventListener("click", (event) => void callback(event as MouseEvent));
			this.register(() => el.remove());
			return el;
		}

		addSettingTab(settingTab: PluginSettingTab): void {
			ctx.settingTabs.push(settingTab);
			this.register(() => ctx.settingTabs.splice(ctx.settingTabs.indexOf(settingTab), 1));
		}

		async loadData(): Promise<unknown> {
			const file = this.dataPath();
			if (!(await ctx.adapter.exists(file))) return null;
			return JSON.parse(await ctx.adapter.read(file)) as unknown;
		}

		async saveData(data: unknown): Promise<void> {
			const file = this.dataPath();
			const folder = file.slice(0, file.lastIndexOf("/"));
			if (!(await ctx.adapter.exists(folder))) await ctx.adapter.mkdir(folder);
			await ctx.adapter.write(file, JSON.stringify(data, null, 2));
		}

		/** Registers a view type with the workspace; unloading the plugin closes its views. */
		registerView(type: string, viewCreator: ViewCreator): void {
			const workspace = this.app.workspace as unknown as HostWorkspace;
			workspace.registerViewType(type, viewCreator);
			this.register(() => workspace.unregisterViewType(type));
		}

		private dataPath(): string {
			if (!this.manifest.dir) throw new Error("manifest.dir is not set");
			return `${this.manifest.dir}/data.json`;
		}
	}

	return { Component: HostComponent, Plugin: HostPlugin };
}

export type PluginClasses = ReturnType<typeof createPluginClasses>;
