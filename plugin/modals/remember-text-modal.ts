// "Remember…": a dialog with a text box; what is typed there becomes a memory.

import { type App, Modal } from "obsidian";

export class RememberTextModal extends Modal {
	constructor(
		app: App,
		private readonly onSubmit: (text: string) => void,
	) {
		super(app);
	}

	override onOpen(): void {
		this.setTitle("Remember");
		const { contentEl } = this;
		contentEl.addClass("memory-agent-remember-modal");
		contentEl.createEl("p", {
			cls: "memory-agent-modal-hint",
			text: "Type something you want to be able to ask about later.",
		});
		const input = contentEl.createEl("textarea", {
			cls: "memory-agent-remember-input",
			attr: { rows: "6", "aria-label": "Text to remember" },
		});
		const buttons = contentEl.createDiv({ cls: "modal-button-container" });
		const submit = buttons.createEl("button", { cls: "mod-cta", text: "Remember" });
		const cancel = buttons.createEl("button", { text: "Cancel" });
		const send = () => {
			const text = input.value.trim();
			if (text === "") {
				input.focus();
				return;
			}
			this.close();
			this.onSubmit(text);
		};
		submit.addEventListener("click", send);
		cancel.addEventListener("click", () => this.close());
		// Enter makes new lines here; Ctrl/Cmd+Enter sends.
		input.addEventListener("keydown", (event) => {
			if (event.key === "Enter" && (event.ctrlKey || event.metaKey)) {
				event.preventDefault();
				send();
			}
		});
		input.focus();
	}

	override onClose(): void {
		this.contentEl.empty();
	}
}
