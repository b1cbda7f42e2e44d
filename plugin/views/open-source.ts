// Opens the file a memory came from — a note at its line (or heading), a PDF at its page, an
// image — and the plugin's settings tab.

import { type App, Notice } from "obsidian";
import { type SourcePlace, linkText } from "./citations";

/**
 * Opens `place` in the main area: a note at its line when known (the core keeps lines current),
 * else at its heading; a PDF at its page (`file.pdf#page=N`, which Obsidian's viewer follows); an image.
 */
export async function openSource(app: App, place: SourcePlace): Promise<void> {
	if (place.sourcePath === "") {
		new Notice("This memory was typed in, so it has no note to open.");
		return;
	}
	const file = app.vault.getFileByPath(place.sourcePath);
	if (file === null) {
		new Notice(`The file ${place.sourcePath} is no longer in the vault.`);
		return;
	}
	if (place.fileKind === "pdf" || place.fileKind === "image") {
		await app.workspace.openLinkText(linkText(place) ?? place.sourcePath, "", false);
		return;
	}
	if (place.lineStart !== null) {
		await app.workspace.getLeaf(false).openFile(file, { eState: { line: place.lineStart } });
		return;
	}
	await app.workspace.openLinkText(linkText(place) ?? place.sourcePath, "", false);
}

/** The settings window's API, present in Obsidian but not in its public typings. */
interface AppWithSettings {
	setting?: { open(): void; openTabById(id: string): unknown };
}

export function openPluginSettings(app: App, pluginId: string): void {
	const setting = (app as unknown as AppWithSettings).setting;
	setting?.open();
	setting?.openTabById(pluginId);
}
