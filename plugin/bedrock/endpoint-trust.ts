// Asks this device's user before AWS credentials go to a custom endpoint the core will not
// send to unconfirmed (`llm.endpoint_unconfirmed`: any host but AWS's own Bedrock names). The
// answer stays on this device (`storage/trusted-endpoint.ts`); the core gets it with the
// settings and decides again on every configure.

import { type App, Modal } from "obsidian";
import { endpointHostOf, trustEndpointHost, trustedEndpointHostOf } from "../storage/trusted-endpoint";

export class EndpointTrust {
	/** The endpoint asked about unprompted this session, so a "no" is not asked again at every configure. */
	private askedUnprompted: string | null = null;

	constructor(
		private readonly app: App,
		/** Hands the settings to the core again (after a yes). */
		private readonly apply: () => Promise<void>,
	) {}

	/** The host confirmed on this device, for the core's settings. */
	confirmedHost(): string | null {
		return trustedEndpointHostOf(this.app);
	}

	/** The core refused `endpoint` (at start, after a settings change): ask once per endpoint. */
	refused(endpoint: string): void {
		if (this.askedUnprompted === endpoint) return;
		this.askedUnprompted = endpoint;
		void this.ask(endpoint);
	}

	/** Asks now; true when the user said yes (and the settings were applied again). */
	async ask(endpoint: string): Promise<boolean> {
		const host = endpointHostOf(endpoint);
		if (host === null) return false;
		const yes = await EndpointConfirmModal.ask(this.app, host);
		if (!yes) return false;
		trustEndpointHost(this.app, host);
		await this.apply();
		return true;
	}
}

/** "Send your AWS credentials to <host>?" — Send, or Cancel (also when closed otherwise). */
class EndpointConfirmModal extends Modal {
	private answered = false;

	private constructor(
		app: App,
		private readonly host: string,
		private readonly answer: (yes: boolean) => void,
	) {
		super(app);
	}

	static ask(app: App, host: string): Promise<boolean> {
		return new Promise((resolve) => new EndpointConfirmModal(app, host, resolve).open());
	}

	override onOpen(): void {
		const { contentEl, host } = this;
		this.setTitle(`Send your AWS credentials to ${host}?`);
		contentEl.addClass("memory-agent-endpoint-confirm");
		contentEl.createEl("p", {
			text:
				`Memory Agent's settings name ${host} as the Bedrock endpoint. It is not one of AWS's own, so your AWS credentials ` +
				"(your keys' signature and session token, or your Bedrock API key) and your notes' text would go to whoever runs it. " +
				"Settings can arrive from another device or a shared vault: send them only if you set up this endpoint yourself.",
		});
		contentEl.createEl("p", { text: "Your answer is kept on this device only. Nothing is sent there until you confirm." });
		const buttons = contentEl.createDiv({ cls: "modal-button-container" });
		const send = buttons.createEl("button", { cls: ["mod-warning", "memory-agent-confirm"], text: `Send to ${host}` });
		const cancel = buttons.createEl("button", { cls: "memory-agent-cancel", text: "Cancel" });
		send.addEventListener("click", () => this.choose(true));
		cancel.addEventListener("click", () => this.choose(false));
		cancel.focus();
	}

	override onClose(): void {
		this.contentEl.empty();
		this.choose(false);
	}

	private choose(yes: boolean): void {
		if (this.answered) return;
		this.answered = true;
		this.answer(yes);
		this.close();
	}
}
