// Registers the side panel, the memory browser and the commands that open and feed them.

import type { Plugin } from "obsidian";
import { registerCommands } from "../commands/register-commands";
import type { PluginContext } from "../plugin-context";
import { ASK_VIEW_TYPE, AskMemoryView } from "./ask-view";
import { MEMORY_BROWSER_VIEW_TYPE, MemoryBrowserView } from "./memory-browser-view";
import type { MemoryPort } from "./memory-port";
import { openPluginSettings } from "./open-source";
import { revealView } from "./reveal-view";

export function registerInterface(plugin: Plugin, context: PluginContext): void {
	const { app, runtime } = context;
	const memory: MemoryPort = {
		store: () => runtime.store(),
		changed: () => runtime.changed(),
		kick: () => runtime.runner.kick(),
		describe: () => runtime.describe(),
		connectionIssue: () => runtime.connectionIssue(),
	};
	const openSettings = () => openPluginSettings(app, plugin.manifest.id);
	plugin.registerView(ASK_VIEW_TYPE, (leaf) => new AskMemoryView(leaf, { memory, openSettings }));
	plugin.registerView(MEMORY_BROWSER_VIEW_TYPE, (leaf) => new MemoryBrowserView(leaf, { memory }));

	registerCommands(plugin, {
		app,
		memory,
		openAskView: async () => {
			const view = await revealView(app.workspace, ASK_VIEW_TYPE, "right");
			if (view instanceof AskMemoryView) view.focusInput();
		},
		lastAnswer: async () => {
			const view = app.workspace.getLeavesOfType(ASK_VIEW_TYPE)[0]?.view;
			return view instanceof AskMemoryView ? await view.lastAnswerAsMarkdown() : null;
		},
		openMemoryBrowser: async () => {
			const view = await revealView(app.workspace, MEMORY_BROWSER_VIEW_TYPE, "tab");
			if (view instanceof MemoryBrowserView) await view.reload();
		},
	});
}
