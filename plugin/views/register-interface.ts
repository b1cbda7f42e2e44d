// Registers the side panel, the memory browser and the commands that open and feed them.

import { type Plugin, normalizePath } from "obsidian";
import { registerCommands } from "../commands/register-commands";
import type { PluginContext } from "../plugin-context";
import { ASK_VIEW_TYPE, AskMemoryView } from "./ask-view";
import { parseConversation } from "./conversation-note";
import { MEMORY_BROWSER_VIEW_TYPE, MemoryBrowserView } from "./memory-browser-view";
import type { MemoryPort } from "./memory-port";
import { openPluginSettings } from "./open-source";
import { revealView } from "./reveal-view";

export function registerInterface(plugin: Plugin, context: PluginContext): void {
	const { app, runtime } = context;
	const memory: MemoryPort = {
		store: () => runtime.store(),
		status: () => runtime.status(),
		changed: () => runtime.changed(),
		kick: () => runtime.runner.kick(),
		describe: () => runtime.describe(),
		connectionIssue: () => runtime.connectionIssue(),
	};
	const openSettings = () => openPluginSettings(app, plugin.manifest.id);
	const conversations = () => ({ folder: context.settings().conversationFolder, autoSave: context.settings().autoSaveConversations });
	const mirrorStatus = (el: HTMLElement) => runtime.statusBar.mirror(el);
	plugin.registerView(ASK_VIEW_TYPE, (leaf) => new AskMemoryView(leaf, { memory, openSettings, conversations, mirrorStatus }));
	plugin.registerView(MEMORY_BROWSER_VIEW_TYPE, (leaf) => new MemoryBrowserView(leaf, { memory }));

	const openAsk = async () => {
		const view = await revealView(app.workspace, ASK_VIEW_TYPE, "right");
		if (view instanceof AskMemoryView) view.focusInput();
	};
	// The way to the panel on a phone, where the command palette is a swipe away.
	plugin.addRibbonIcon("brain", "Ask memory", () => void openAsk());

	registerCommands(plugin, {
		app,
		memory,
		openAskView: openAsk,
		askAbout: async (item) => {
			const view = await revealView(app.workspace, ASK_VIEW_TYPE, "right");
			if (view instanceof AskMemoryView) view.addScope(item);
		},
		lastAnswer: async () => {
			const view = app.workspace.getLeavesOfType(ASK_VIEW_TYPE)[0]?.view;
			return view instanceof AskMemoryView ? await view.lastAnswerAsMarkdown() : null;
		},
		saveConversation: async () => {
			const view = await revealView(app.workspace, ASK_VIEW_TYPE, "right");
			return view instanceof AskMemoryView ? await view.saveConversation() : null;
		},
		continueConversation: async (file) => {
			const turns = parseConversation(await app.vault.cachedRead(file));
			if (turns === null) return false;
			const view = await revealView(app.workspace, ASK_VIEW_TYPE, "right");
			if (!(view instanceof AskMemoryView)) return false;
			await view.continueConversation(turns, file.path);
			return true;
		},
		isConversationNote: (file) => file.extension === "md" && file.path.startsWith(`${normalizePath(context.settings().conversationFolder)}/`),
		openMemoryBrowser: async () => {
			const view = await revealView(app.workspace, MEMORY_BROWSER_VIEW_TYPE, "tab");
			if (view instanceof MemoryBrowserView) await view.reload();
		},
	});
}
