// The ask panel's scope: the notes, folders, tags, days or passage the next questions are
// limited to, shown as removable chips, and the "Add scope" menu that picks them.

import { type App, Menu, Notice, type TFile } from "obsidian";
import { DaysModal, FolderPicker, NotePicker, TagPicker } from "../modals/scope-pickers";
import { vaultFolders, vaultTags } from "../vault/vault-index";
import { type ScopeItem, scopeKey, scopeLabel } from "./question-scope";

export class ScopeBar {
	private items: ScopeItem[] = [];
	private readonly chipsEl: HTMLElement;

	constructor(
		private readonly app: App,
		parent: HTMLElement,
		private readonly changed: () => void,
	) {
		const bar = parent.createDiv({ cls: "memory-agent-scope", attr: { role: "group", "aria-label": "Scope of the question" } });
		this.chipsEl = bar.createDiv({ cls: "memory-agent-scope-chips" });
		const add = bar.createEl("button", { cls: "memory-agent-add-scope", text: "Add scope", attr: { "aria-haspopup": "menu" } });
		add.addEventListener("click", (event) => this.showMenu(event));
		this.render();
	}

	/** What the questions are limited to now, in the order it was added. */
	current(): readonly ScopeItem[] {
		return this.items;
	}

	/** Adds an item (the same note twice is once; a new range of days or passage replaces the old). */
	add(item: ScopeItem): void {
		const key = scopeKey(item);
		this.items = [...this.items.filter((known) => scopeKey(known) !== key), item];
		this.render();
		this.changed();
	}

	remove(key: string): void {
		this.items = this.items.filter((item) => scopeKey(item) !== key);
		this.render();
		this.changed();
	}

	clear(): void {
		if (this.items.length === 0) return;
		this.items = [];
		this.render();
		this.changed();
	}

	/** Opens the note suggester (for `[[` and `@`); `picked` gets the note once it is added. */
	pickNote(picked?: (file: TFile) => void): void {
		new NotePicker(this.app, (file) => {
			this.add({ kind: "note", path: file.path });
			picked?.(file);
		}).open();
	}

	private showMenu(event: MouseEvent): void {
		const menu = new Menu();
		const active = this.app.workspace.getActiveFile();
		if (active !== null) {
			menu.addItem((item) =>
				item
					.setTitle("This note")
					.setIcon("file")
					.onClick(() => this.add({ kind: "note", path: active.path })),
			);
		}
		menu.addItem((item) => item.setTitle("A note…").setIcon("file-search").onClick(() => this.pickNote()));
		menu.addItem((item) =>
			item
				.setTitle("A folder…")
				.setIcon("folder")
				.onClick(() => new FolderPicker(this.app, vaultFolders(this.app), (path) => this.add({ kind: "folder", path })).open()),
		);
		menu.addItem((item) => item.setTitle("A tag…").setIcon("tag").onClick(() => void this.pickTag()));
		menu.addItem((item) =>
			item
				.setTitle("Some days…")
				.setIcon("calendar")
				.onClick(() => new DaysModal(this.app, (from, to) => this.add({ kind: "days", from, to })).open()),
		);
		menu.showAtMouseEvent(event);
	}

	private async pickTag(): Promise<void> {
		const tags = await vaultTags(this.app);
		if (tags.length === 0) {
			new Notice("No note has a tag yet.");
			return;
		}
		new TagPicker(this.app, tags, (tag) => this.add({ kind: "tag", tag })).open();
	}

	private render(): void {
		this.chipsEl.empty();
		this.chipsEl.toggleClass("memory-agent-hidden", this.items.length === 0);
		for (const item of this.items) {
			const label = scopeLabel(item);
			const chip = this.chipsEl.createSpan({ cls: ["memory-agent-scope-chip", `is-${item.kind}`], attr: { "data-scope": scopeKey(item) } });
			chip.createSpan({ cls: "memory-agent-scope-label", text: label });
			const remove = chip.createEl("button", { cls: "memory-agent-scope-remove", text: "×", attr: { "aria-label": `Remove ${label} from the scope` } });
			remove.addEventListener("click", () => this.remove(scopeKey(item)));
		}
	}
}
