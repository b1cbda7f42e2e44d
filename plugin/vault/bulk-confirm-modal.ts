// The dialog shown before many notes are queued at once: how many, roughly how many tokens
// and dollars, and whether to start, queue paused, limit to some folders, or cancel.

import { type App, Modal } from "obsidian";
import { filesSummary, formatUsd, kindLines } from "./bulk-estimate";
import type { BulkChoice, BulkQuestion } from "./vault-sync";

export class BulkConfirmModal extends Modal {
	private answered = false;

	constructor(
		app: App,
		private readonly question: BulkQuestion,
		private readonly answer: (choice: BulkChoice) => void,
	) {
		super(app);
	}

	/** Opens the dialog and resolves with the choice (Cancel when it is closed otherwise). */
	static ask(app: App, question: BulkQuestion): Promise<BulkChoice> {
		return new Promise((resolve) => new BulkConfirmModal(app, question, resolve).open());
	}

	override onOpen(): void {
		this.showSummary();
	}

	override onClose(): void {
		this.contentEl.empty();
		this.choose({ kind: "cancel" });
	}

	private showSummary(): void {
		const { estimate } = this.question;
		const { contentEl } = this;
		contentEl.empty();
		const files = filesSummary(estimate);
		this.setTitle(`Remember ${files}?`);
		contentEl.addClass("memory-agent-bulk");
		contentEl.createEl("p", {
			text: `Memory Agent found ${files}, new or changed. Remembering them sends them to Claude on Amazon Bedrock, with your AWS account.`,
		});
		const facts = contentEl.createEl("ul", { cls: "memory-agent-bulk-facts" });
		for (const line of kindLines(estimate)) facts.createEl("li", { text: line });
		facts.createEl("li", { text: `About ${(estimate.inputTokens + estimate.outputTokens).toLocaleString()} tokens in all` });
		const price = estimate.priceKnown ? `at the prices of ${estimate.modelId}` : `at the highest Claude price: the price of ${estimate.modelId} is not known`;
		facts.createEl("li", { text: `About ${formatUsd(estimate.costUsd)} (${price})` });
		contentEl.createEl("p", {
			cls: "memory-agent-bulk-note",
			text:
				"This is an estimate from the files' sizes (an image by its pixels) at the model's on-demand prices. Unchanged text is never sent twice.",
		});
		const buttons = contentEl.createDiv({ cls: "memory-agent-bulk-buttons" });
		this.button(buttons, "Start", true, () => this.choose({ kind: "start" }));
		this.button(buttons, "Pause", false, () => this.choose({ kind: "pause" }), "Queue the notes but keep Memory Agent paused until you resume it.");
		this.button(buttons, "Only some folders…", false, () => this.showFolders());
		this.button(buttons, "Cancel", false, () => this.choose({ kind: "cancel" }));
	}

	private showFolders(): void {
		const { contentEl } = this;
		contentEl.empty();
		this.setTitle("Choose folders to remember");
		contentEl.createEl("p", { text: "Only notes in the folders you tick are queued now. The others are offered again next time Obsidian starts." });
		const chosen = new Set<string>();
		const list = contentEl.createDiv({ cls: "memory-agent-bulk-folders" });
		for (const { folder, notes } of this.question.folders) {
			const label = list.createEl("label", { cls: "memory-agent-bulk-folder" });
			const box = label.createEl("input", { type: "checkbox" });
			box.dataset.folder = folder;
			label.createSpan({ text: `${folder === "" ? "Notes at the top of the vault" : folder} (${notes.toLocaleString()})` });
			box.addEventListener("change", () => {
				if (box.checked) chosen.add(folder);
				else chosen.delete(folder);
			});
		}
		const buttons = contentEl.createDiv({ cls: "memory-agent-bulk-buttons" });
		this.button(buttons, "Start with these folders", true, () => this.choose({ kind: "start", folders: new Set(chosen) }));
		this.button(buttons, "Back", false, () => this.showSummary());
	}

	private button(parent: HTMLElement, text: string, primary: boolean, onClick: () => void, title?: string): void {
		const button = parent.createEl("button", { text, cls: primary ? "mod-cta" : undefined });
		if (title !== undefined) button.setAttr("title", title);
		button.addEventListener("click", onClick);
	}

	private choose(choice: BulkChoice): void {
		if (this.answered) return;
		this.answered = true;
		this.answer(choice);
		this.close();
	}
}
