// The plugin's commands (no default hotkeys) and its entries in the editor and file menus.

import { type App, type Editor, type MarkdownFileInfo, type Menu, Notice, type Plugin, type TAbstractFile, TFile, TFolder } from "obsidian";
import { errorMessage } from "../core/core-error";
import type { MemoryStore, TextToRemember } from "../core/memory-core-api";
import { RememberTextModal } from "../modals/remember-text-modal";
import type { MemoryPort } from "../views/memory-port";
import type { ScopeItem } from "../views/question-scope";
import { type NoteHeading, dailyNoteDate, headingAbove, scanHeadings } from "./selection-source";

export interface CommandDeps {
	app: App;
	memory: MemoryPort;
	openAskView(): Promise<void>;
	/** Opens the ask panel with `item` in the question's scope. */
	askAbout(item: ScopeItem): Promise<void>;
	/** The ask panel's latest answer as Markdown with wiki links; null when there is none. */
	lastAnswer(): Promise<string | null>;
	/** Saves the ask panel's conversation as a note; the note, or null when there is nothing to save. */
	saveConversation(): Promise<TFile | null>;
	/** Opens the ask panel on a saved conversation; false when the note is not one. */
	continueConversation(file: TFile): Promise<boolean>;
	/** Whether a note may be a saved conversation (it is in the conversation folder). */
	isConversationNote(file: TFile): boolean;
	openMemoryBrowser(): Promise<void>;
}

/** The command ids; they never change once released (users bind hotkeys to them). */
export const COMMAND_IDS = {
	rememberSelection: "remember-selection",
	rememberCurrentNote: "remember-current-note",
	rememberText: "remember-text",
	askMemory: "ask-memory",
	askAboutSelection: "ask-about-selection",
	askAboutNote: "ask-about-note",
	insertAnswer: "insert-answer",
	saveConversation: "save-conversation",
	continueConversation: "continue-conversation",
	consolidateNow: "consolidate-now",
	openMemoryBrowser: "open-memory-browser",
} as const;

export function registerCommands(plugin: Plugin, deps: CommandDeps): void {
	const { app } = deps;
	const actions = new MemoryActions(deps);

	plugin.addCommand({
		id: COMMAND_IDS.rememberSelection,
		name: "Remember selection",
		editorCheckCallback: (checking, editor, info) => {
			const file = info.file;
			if (file === null || editor.getSelection().trim() === "") return false;
			if (!checking) void actions.rememberSelection(editor, file);
			return true;
		},
	});
	plugin.addCommand({
		id: COMMAND_IDS.rememberCurrentNote,
		name: "Remember current note now",
		checkCallback: (checking) => {
			const file = app.workspace.getActiveFile();
			if (file === null) return false;
			if (!checking) void actions.rememberNote(file);
			return true;
		},
	});
	plugin.addCommand({
		id: COMMAND_IDS.rememberText,
		name: "Remember…",
		callback: () => new RememberTextModal(app, (text) => void actions.rememberTyped(text)).open(),
	});
	plugin.addCommand({ id: COMMAND_IDS.askMemory, name: "Ask memory", callback: () => deps.openAskView() });
	plugin.addCommand({
		id: COMMAND_IDS.askAboutSelection,
		name: "Ask about selection",
		editorCheckCallback: (checking, editor, info) => {
			const file = info.file;
			if (file === null || editor.getSelection().trim() === "") return false;
			if (!checking) void deps.askAbout({ kind: "selection", path: file.path, text: editor.getSelection() });
			return true;
		},
	});
	plugin.addCommand({
		id: COMMAND_IDS.askAboutNote,
		name: "Ask about current note",
		checkCallback: (checking) => {
			const file = app.workspace.getActiveFile();
			if (file === null || file.extension !== "md") return false;
			if (!checking) void deps.askAbout({ kind: "note", path: file.path });
			return true;
		},
	});
	plugin.addCommand({
		id: COMMAND_IDS.insertAnswer,
		name: "Insert last answer here",
		editorCallback: (editor) => void actions.insertAnswer(editor),
	});
	plugin.addCommand({
		id: COMMAND_IDS.saveConversation,
		name: "Save conversation as note",
		callback: () => void actions.saveConversation(),
	});
	plugin.addCommand({
		id: COMMAND_IDS.continueConversation,
		name: "Continue this conversation",
		checkCallback: (checking) => {
			const file = app.workspace.getActiveFile();
			if (file === null || !deps.isConversationNote(file)) return false;
			if (!checking) void actions.continueConversation(file);
			return true;
		},
	});
	plugin.addCommand({ id: COMMAND_IDS.consolidateNow, name: "Consolidate now", callback: () => actions.consolidate() });
	plugin.addCommand({ id: COMMAND_IDS.openMemoryBrowser, name: "Open memory browser", callback: () => deps.openMemoryBrowser() });

	plugin.registerEvent(
		app.workspace.on("editor-menu", (menu: Menu, editor: Editor, info: MarkdownFileInfo) => {
			const file = info.file;
			if (file === null || editor.getSelection().trim() === "") return;
			menu.addItem((item) =>
				item
					.setTitle("Remember selection")
					.setIcon("brain")
					.onClick(() => void actions.rememberSelection(editor, file)),
			);
			menu.addItem((item) =>
				item
					.setTitle("Ask about selection")
					.setIcon("message-circle-question")
					.onClick(() => void deps.askAbout({ kind: "selection", path: file.path, text: editor.getSelection() })),
			);
		}),
	);
	plugin.registerEvent(
		app.workspace.on("file-menu", (menu: Menu, file: TAbstractFile) => {
			if (file instanceof TFolder) {
				menu.addItem((item) =>
					item
						.setTitle("Ask about this folder")
						.setIcon("message-circle-question")
						.onClick(() => void deps.askAbout({ kind: "folder", path: file.path })),
				);
				return;
			}
			if (!(file instanceof TFile) || file.extension !== "md") return;
			menu.addItem((item) =>
				item
					.setTitle("Ask about this note")
					.setIcon("message-circle-question")
					.onClick(() => void deps.askAbout({ kind: "note", path: file.path })),
			);
			menu.addItem((item) =>
				item
					.setTitle("Remember note now")
					.setIcon("brain")
					.onClick(() => void actions.rememberNote(file)),
			);
		}),
	);
}

/** What the commands do, over the open store; each says in a notice what happened. */
class MemoryActions {
	constructor(private readonly deps: CommandDeps) {}

	rememberSelection(editor: Editor, file: TFile): Promise<void> {
		const lineStart = editor.getCursor("from").line;
		const text: TextToRemember = {
			text: editor.getSelection(),
			sourcePath: file.path,
			kind: "selection",
			heading: headingAbove(this.headingsOf(file, editor), lineStart),
			lineStart,
			noteDate: dailyNoteDate(file.basename),
		};
		return this.queue((store) => store.rememberText(text), "Remembering the selection…");
	}

	rememberNote(file: TFile): Promise<void> {
		return this.queue((store) => store.enqueueNote(file.path), `Remembering ${file.basename}…`);
	}

	rememberTyped(text: string): Promise<void> {
		return this.queue((store) => store.rememberText({ text, kind: "text" }), "Remembering what you typed…");
	}

	consolidate(): Promise<void> {
		return this.queue((store) => store.consolidateNow(), "Looking for connections between memories…");
	}

	async saveConversation(): Promise<void> {
		const file = await this.deps.saveConversation();
		if (file !== null) new Notice(`Saved the conversation as ${file.path}.`);
	}

	async continueConversation(file: TFile): Promise<void> {
		if (!(await this.deps.continueConversation(file))) new Notice(`${file.basename} is not a saved conversation.`);
	}

	/** Puts the ask panel's latest answer at the cursor (over the selection), its citations as links. */
	async insertAnswer(editor: Editor): Promise<void> {
		const answer = await this.deps.lastAnswer();
		if (answer === null) {
			new Notice("There is no answer to insert yet: ask a question first.");
			return;
		}
		editor.replaceSelection(answer);
	}

	/** The note's headings from Obsidian's cache, or read from the editor when the cache has none yet. */
	private headingsOf(file: TFile, editor: Editor): NoteHeading[] {
		const cached = this.deps.app.metadataCache.getFileCache(file)?.headings;
		if (cached !== undefined && cached.length > 0) {
			return cached.map((item) => ({ heading: item.heading, level: item.level, line: item.position.start.line }));
		}
		return scanHeadings(editor.lineCount(), (line) => editor.getLine(line));
	}

	private async queue(work: (store: MemoryStore) => Promise<unknown>, done: string): Promise<void> {
		const { memory } = this.deps;
		const store = memory.store();
		if (store === undefined) {
			new Notice(memory.describe());
			return;
		}
		try {
			await work(store);
		} catch (error) {
			new Notice(`Memory Agent: ${errorMessage(error)}`);
			return;
		}
		memory.changed();
		memory.kick();
		const issue = memory.connectionIssue();
		new Notice(issue === null ? done : `${done} It waits until Bedrock is set up: ${issue}`);
	}
}
