// A yes/no dialog for actions that cannot be undone (forgetting a memory).

import { type App, Modal } from "obsidian";

export interface ConfirmOptions {
	title: string;
	message: string;
	confirmLabel: string;
	onConfirm: () => void | Promise<void>;
}

export class ConfirmModal extends Modal {
	constructor(
		app: App,
		private readonly options: ConfirmOptions,
	) {
		super(app);
	}

	override onOpen(): void {
		const { contentEl, options } = this;
		this.setTitle(options.title);
		contentEl.addClass("memory-agent-confirm-modal");
		contentEl.createEl("p", { text: options.message });
		const buttons = contentEl.createDiv({ cls: "modal-button-container" });
		const confirm = buttons.createEl("button", { cls: ["mod-warning", "memory-agent-confirm"], text: options.confirmLabel });
		const cancel = buttons.createEl("button", { cls: "memory-agent-cancel", text: "Cancel" });
		confirm.addEventListener("click", () => {
			this.close();
			void options.onConfirm();
		});
		cancel.addEventListener("click", () => this.close());
		cancel.focus();
	}

	override onClose(): void {
		this.contentEl.empty();
	}
}
