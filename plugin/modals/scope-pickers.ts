// The pickers that add to a question's scope: a note, a folder or a tag through Obsidian's
// fuzzy suggester, and a range of days in a small form.

import { type App, FuzzySuggestModal, Modal, Notice, Setting, type TFile } from "obsidian";

/** Picks a note of the vault (the `[[` and `@` mentions, and "A note…"). */
export class NotePicker extends FuzzySuggestModal<TFile> {
	constructor(
		app: App,
		private readonly chosen: (file: TFile) => void,
	) {
		super(app);
		this.setPlaceholder("Ask about which note?");
	}
	getItems(): TFile[] {
		return this.app.vault.getMarkdownFiles();
	}
	getItemText(file: TFile): string {
		return file.path.replace(/\.md$/, "");
	}
	onChooseItem(file: TFile): void {
		this.chosen(file);
	}
}

/** Picks one of `folders` (paths). */
export class FolderPicker extends FuzzySuggestModal<string> {
	constructor(
		app: App,
		private readonly folders: readonly string[],
		private readonly chosen: (folder: string) => void,
	) {
		super(app);
		this.setPlaceholder("Ask about which folder?");
	}
	getItems(): string[] {
		return [...this.folders];
	}
	getItemText(folder: string): string {
		return `${folder}/`;
	}
	onChooseItem(folder: string): void {
		this.chosen(folder);
	}
}

/** Picks one of `tags` (lower case, no `#`), shown with how many notes carry each. */
export class TagPicker extends FuzzySuggestModal<{ tag: string; notes: number }> {
	constructor(
		app: App,
		private readonly tags: ReadonlyArray<{ tag: string; notes: number }>,
		private readonly chosen: (tag: string) => void,
	) {
		super(app);
		this.setPlaceholder("Ask about which tag?");
	}
	getItems(): Array<{ tag: string; notes: number }> {
		return [...this.tags];
	}
	getItemText(item: { tag: string; notes: number }): string {
		return `#${item.tag} (${item.notes} ${item.notes === 1 ? "note" : "notes"})`;
	}
	onChooseItem(item: { tag: string; notes: number }): void {
		this.chosen(item.tag);
	}
}

const ISO_DAY = /^\d{4}-\d{2}-\d{2}$/;

/** A first and last day (inclusive) for the question, the last defaulting to the first. */
export class DaysModal extends Modal {
	private from = "";
	private to = "";

	constructor(
		app: App,
		private readonly chosen: (from: string, to: string) => void,
	) {
		super(app);
	}

	override onOpen(): void {
		this.setTitle("Ask about some days");
		const { contentEl } = this;
		contentEl.addClass("memory-agent-days-modal");
		new Setting(contentEl).setName("From").addText((text) => {
			text.inputEl.type = "date";
			text.inputEl.addClass("memory-agent-days-from");
			text.onChange((value) => (this.from = value));
		});
		new Setting(contentEl).setName("To").setDesc("Leave empty for one day.").addText((text) => {
			text.inputEl.type = "date";
			text.inputEl.addClass("memory-agent-days-to");
			text.onChange((value) => (this.to = value));
		});
		new Setting(contentEl).addButton((button) =>
			button
				.setButtonText("Use these days")
				.setCta()
				.onClick(() => this.submit()),
		);
	}

	private submit(): void {
		const from = this.from.trim();
		const to = this.to.trim() === "" ? from : this.to.trim();
		if (!ISO_DAY.test(from) || !ISO_DAY.test(to)) {
			new Notice("Choose a first day (and maybe a last one).");
			return;
		}
		this.close();
		if (from <= to) this.chosen(from, to);
		else this.chosen(to, from);
	}

	override onClose(): void {
		this.contentEl.empty();
	}
}
