// Obsidian's Notice, Setting, TextComponent and PluginSettingTab, rendering into the host DOM.

import type { App, Notice, Plugin, PluginSettingTab, Setting, TextComponent } from "obsidian";
import type { Fluent } from "./api-types";
import type { HostDom } from "./dom";

export interface UiContext {
	dom: HostDom;
	/** Every notice message, in order. */
	notices: string[];
}

/** Classes bound to one host, so each test's notices are its own. */
export function createUiClasses(ui: UiContext) {
	class HostNotice implements Pick<Notice, "noticeEl" | "containerEl" | "messageEl" | "setMessage" | "hide"> {
		readonly containerEl: HTMLElement;
		readonly noticeEl: HTMLElement;
		readonly messageEl: HTMLElement;

		constructor(
			message: string | DocumentFragment,
			readonly duration?: number,
		) {
			this.containerEl = ui.dom.createElement("div");
			this.containerEl.addClass("notice-container");
			this.noticeEl = this.containerEl.createDiv({ cls: "notice" });
			this.messageEl = this.noticeEl.createDiv({ cls: "notice-message" });
			ui.dom.document.body.appendChild(this.containerEl);
			this.setMessage(message);
		}

		setMessage(message: string | DocumentFragment): this {
			this.messageEl.setText(message);
			ui.notices.push(this.messageEl.getText());
			return this;
		}

		hide(): void {
			this.containerEl.remove();
		}
	}

	class HostTextComponent implements Fluent<TextComponent, "inputEl" | "getValue" | "setValue" | "setPlaceholder" | "onChange" | "onChanged" | "setDisabled" | "disabled"> {
		readonly inputEl: HTMLInputElement;
		disabled = false;
		private changeCallback: ((value: string) => unknown) | undefined;

		constructor(containerEl: HTMLElement) {
			this.inputEl = containerEl.createEl("input", { type: "text" });
			this.inputEl.addEventListener("input", () => this.onChanged());
		}
		getValue(): string {
			return this.inputEl.value;
		}
		setValue(value: string): this {
			this.inputEl.value = value;
			return this;
		}
		setPlaceholder(placeholder: string): this {
			this.inputEl.setAttr("placeholder", placeholder);
			return this;
		}
		setDisabled(disabled: boolean): this {
			this.disabled = disabled;
			this.inputEl.disabled = disabled;
			return this;
		}
		onChange(callback: (value: string) => unknown): this {
			this.changeCallback = callback;
			return this;
		}
		onChanged(): void {
			void this.changeCallback?.(this.getValue());
		}
		/** Test helper: types `value` into the field as a user would. */
		type(value: string): void {
			this.setValue(value);
			this.onChanged();
		}
	}

	class HostSetting implements Fluent<Setting, "settingEl" | "infoEl" | "nameEl" | "descEl" | "controlEl" | "setName" | "setDesc" | "setClass" | "setHeading"> {
		readonly settingEl: HTMLElement;
		readonly infoEl: HTMLElement;
		readonly nameEl: HTMLElement;
		readonly descEl: HTMLElement;
		readonly controlEl: HTMLElement;
		readonly texts: HostTextComponent[] = [];

		constructor(containerEl: HTMLElement) {
			this.settingEl = containerEl.createDiv({ cls: "setting-item" });
			this.infoEl = this.settingEl.createDiv({ cls: "setting-item-info" });
			this.nameEl = this.infoEl.createDiv({ cls: "setting-item-name" });
			this.descEl = this.infoEl.createDiv({ cls: "setting-item-description" });
			this.controlEl = this.settingEl.createDiv({ cls: "setting-item-control" });
		}
		setName(name: string | DocumentFragment): this {
			this.nameEl.setText(name);
			return this;
		}
		setDesc(desc: string | DocumentFragment): this {
			this.descEl.setText(desc);
			return this;
		}
		setClass(cls: string): this {
			this.settingEl.addClass(cls);
			return this;
		}
		setHeading(): this {
			this.settingEl.addClass("setting-item-heading");
			return this;
		}
		addText(callback: (component: TextComponent) => unknown): this {
			const text = new HostTextComponent(this.controlEl);
			this.texts.push(text);
			callback(text as unknown as TextComponent);
			return this;
		}
	}

	abstract class HostPluginSettingTab implements Pick<PluginSettingTab, "app" | "containerEl" | "display" | "hide"> {
		readonly containerEl: HTMLElement;
		constructor(
			readonly app: App,
			readonly plugin: Plugin,
		) {
			this.containerEl = ui.dom.createElement("div");
			this.containerEl.addClass("vertical-tab-content");
		}
		abstract display(): void;
		hide(): void {
			this.containerEl.empty();
		}
	}

	return { Notice: HostNotice, Setting: HostSetting, TextComponent: HostTextComponent, PluginSettingTab: HostPluginSettingTab };
}

export type UiClasses = ReturnType<typeof createUiClasses>;
