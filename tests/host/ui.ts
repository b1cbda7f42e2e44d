// Obsidian's Notice, Setting, TextComponent and PluginSettingTab, rendering into the host DOM.

import type {
	App,
	BaseComponent,
	ButtonComponent,
	DropdownComponent,
	Notice,
	Plugin,
	PluginSettingTab,
	SecretComponent,
	Setting,
	SettingDefinitionItem,
	TextAreaComponent,
	TextComponent,
	ToggleComponent,
} from "obsidian";
import type { Fluent } from "./api-types";
import { DEFAULT_API_VERSION, versionAtLeast } from "./api-version";
import type { HostDom } from "./dom";

export interface UiContext {
	dom: HostDom;
	/** Every notice message, in order. */
	notices: string[];
	/** The Obsidian version played: from 1.13 on, a settings tab with definitions is drawn from them. */
	apiVersion?: string;
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

	// Settings-tab components (additive; typed against obsidian's declarations like the text field).

	class HostTextAreaComponent implements Fluent<TextAreaComponent, "inputEl" | "getValue" | "setValue" | "setPlaceholder" | "onChange" | "onChanged" | "setDisabled" | "disabled"> {
		readonly inputEl: HTMLTextAreaElement;
		disabled = false;
		private changeCallback: ((value: string) => unknown) | undefined;

		constructor(containerEl: HTMLElement) {
			this.inputEl = containerEl.createEl("textarea");
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
	}

	class HostDropdownComponent implements Fluent<DropdownComponent, "selectEl" | "getValue" | "setValue" | "addOption" | "addOptions" | "onChange" | "setDisabled" | "disabled"> {
		readonly selectEl: HTMLSelectElement;
		disabled = false;
		private changeCallback: ((value: string) => unknown) | undefined;

		constructor(containerEl: HTMLElement) {
			this.selectEl = containerEl.createEl("select", { cls: "dropdown" });
			this.selectEl.addEventListener("change", () => void this.changeCallback?.(this.getValue()));
		}
		addOption(value: string, display: string): this {
			this.selectEl.createEl("option", { value, text: display });
			return this;
		}
		addOptions(options: Record<string, string>): this {
			for (const [value, display] of Object.entries(options)) this.addOption(value, display);
			return this;
		}
		getValue(): string {
			return this.selectEl.value;
		}
		setValue(value: string): this {
			this.selectEl.value = value;
			return this;
		}
		setDisabled(disabled: boolean): this {
			this.disabled = disabled;
			this.selectEl.disabled = disabled;
			return this;
		}
		onChange(callback: (value: string) => unknown): this {
			this.changeCallback = callback;
			return this;
		}
	}

	class HostToggleComponent implements Fluent<ToggleComponent, "toggleEl" | "getValue" | "setValue" | "onChange" | "onClick" | "setDisabled" | "disabled"> {
		readonly toggleEl: HTMLElement;
		disabled = false;
		private value = false;
		private changeCallback: ((value: boolean) => unknown) | undefined;

		constructor(containerEl: HTMLElement) {
			this.toggleEl = containerEl.createDiv({ cls: "checkbox-container" });
			this.toggleEl.addEventListener("click", () => this.onClick());
		}
		getValue(): boolean {
			return this.value;
		}
		setValue(on: boolean): this {
			const changed = on !== this.value;
			this.value = on;
			this.toggleEl.toggleClass("is-enabled", on);
			// Obsidian's toggle reports every change of value, also one made by setValue.
			if (changed) void this.changeCallback?.(on);
			return this;
		}
		onClick(): void {
			if (!this.disabled) this.setValue(!this.value);
		}
		setDisabled(disabled: boolean): this {
			this.disabled = disabled;
			this.toggleEl.toggleClass("is-disabled", disabled);
			return this;
		}
		onChange(callback: (value: boolean) => unknown): this {
			this.changeCallback = callback;
			return this;
		}
	}

	class HostButtonComponent
		implements Fluent<ButtonComponent, "buttonEl" | "setButtonText" | "setTooltip" | "setCta" | "removeCta" | "setWarning" | "setClass" | "onClick" | "setDisabled" | "disabled">
	{
		readonly buttonEl: HTMLButtonElement;
		disabled = false;
		private clickCallback: ((evt: MouseEvent) => unknown) | undefined;
		/** The promise of the last click's callback, so tests can await what a click started. */
		lastClick: Promise<unknown> = Promise.resolve();

		constructor(containerEl: HTMLElement) {
			this.buttonEl = containerEl.createEl("button");
			this.buttonEl.addEventListener("click", (evt) => {
				if (this.disabled) return;
				this.lastClick = Promise.resolve(this.clickCallback?.(evt as MouseEvent));
			});
		}
		setButtonText(name: string): this {
			this.buttonEl.setText(name);
			return this;
		}
		/** Obsidian shows it on hover; here it is the element's `aria-label`, as Obsidian also sets. */
		setTooltip(tooltip: string): this {
			this.buttonEl.setAttribute("aria-label", tooltip);
			return this;
		}
		setCta(): this {
			this.buttonEl.addClass("mod-cta");
			return this;
		}
		removeCta(): this {
			this.buttonEl.removeClass("mod-cta");
			return this;
		}
		setWarning(): this {
			this.buttonEl.addClass("mod-warning");
			return this;
		}
		setClass(cls: string): this {
			this.buttonEl.addClass(cls);
			return this;
		}
		setDisabled(disabled: boolean): this {
			this.disabled = disabled;
			this.buttonEl.disabled = disabled;
			return this;
		}
		onClick(callback: (evt: MouseEvent) => unknown): this {
			this.clickCallback = callback;
			return this;
		}
	}

	/**
	 * Obsidian 1.11.4's secret picker: the user picks (or creates) a named secret; the component
	 * reports only the name. Here a `<select>` of the names in the app's secret storage.
	 */
	class HostSecretComponent implements Fluent<SecretComponent, "setValue" | "onChange" | "setDisabled" | "disabled"> {
		readonly selectEl: HTMLSelectElement;
		disabled = false;
		private changeCallback: ((value: string) => unknown) | undefined;

		constructor(
			private readonly app: App,
			containerEl: HTMLElement,
		) {
			this.selectEl = containerEl.createEl("select", { cls: "memory-host-secret" });
			this.refresh();
			this.selectEl.addEventListener("change", () => void this.changeCallback?.(this.selectEl.value));
		}
		setValue(value: string): this {
			this.refresh(value);
			this.selectEl.value = value;
			return this;
		}
		setDisabled(disabled: boolean): this {
			this.disabled = disabled;
			this.selectEl.disabled = disabled;
			return this;
		}
		onChange(cb: (value: string) => unknown): this {
			this.changeCallback = cb;
			return this;
		}
		/** Test helper: picks the secret named `name` as a user would (it need not exist yet). */
		choose(name: string): Promise<unknown> {
			this.refresh(name);
			this.selectEl.value = name;
			return Promise.resolve(this.changeCallback?.(name));
		}
		private refresh(extra?: string): void {
			const names = new Set(["", ...this.app.secretStorage.listSecrets()]);
			if (extra !== undefined) names.add(extra);
			this.selectEl.empty();
			for (const name of names) this.selectEl.createEl("option", { value: name, text: name === "" ? "Select a secret" : name });
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
		/** Every component added, in order (Obsidian's `Setting.components`). */
		readonly components: unknown[] = [];
		addTextArea(callback: (component: TextAreaComponent) => unknown): this {
			return this.add(new HostTextAreaComponent(this.controlEl), callback as (component: unknown) => unknown);
		}
		addDropdown(callback: (component: DropdownComponent) => unknown): this {
			return this.add(new HostDropdownComponent(this.controlEl), callback as (component: unknown) => unknown);
		}
		addToggle(callback: (component: ToggleComponent) => unknown): this {
			return this.add(new HostToggleComponent(this.controlEl), callback as (component: unknown) => unknown);
		}
		addButton(callback: (component: ButtonComponent) => unknown): this {
			return this.add(new HostButtonComponent(this.controlEl), callback as (component: unknown) => unknown);
		}
		addComponent<T extends BaseComponent>(callback: (el: HTMLElement) => T): this {
			this.components.push(callback(this.controlEl));
			return this;
		}
		private add<C>(component: C, callback: (component: unknown) => unknown): this {
			this.components.push(component);
			callback(component);
			return this;
		}
	}

	abstract class HostPluginSettingTab
		implements Pick<PluginSettingTab, "app" | "containerEl" | "display" | "hide" | "getSettingDefinitions" | "refreshDomState">
	{
		readonly containerEl: HTMLElement;
		/** The drawn rows with their `visible` predicates, for `refreshDomState`. */
		private hostDrawnRows: Array<{ el: HTMLElement; visible?: boolean | (() => boolean) }> = [];

		constructor(
			readonly app: App,
			readonly plugin: Plugin,
		) {
			this.containerEl = ui.dom.createElement("div");
			this.containerEl.addClass("vertical-tab-content");
		}
		abstract display(): void;
		getSettingDefinitions(): SettingDefinitionItem[] {
			return [];
		}
		hide(): void {
			this.containerEl.empty();
		}

		/**
		 * What Obsidian does when the user opens the tab: from 1.13 on, a tab with definitions
		 * is drawn from them (groups under headings, each item's `render`); else `display()`.
		 */
		open(): void {
			const definitions = versionAtLeast(ui.apiVersion ?? DEFAULT_API_VERSION, "1.13.0") ? this.getSettingDefinitions() : [];
			if (definitions.length === 0) return this.display();
			this.containerEl.empty();
			this.hostDrawnRows = [];
			for (const item of definitions) this.hostDraw(item);
			this.refreshDomState();
		}

		/** Shows and hides the drawn rows by their `visible` predicates, as Obsidian 1.13 does. */
		refreshDomState(): void {
			for (const row of this.hostDrawnRows) {
				const visible = typeof row.visible === "function" ? row.visible() : row.visible !== false;
				row.el.toggleAttribute("hidden", !visible);
			}
		}

		private hostDraw(item: SettingDefinitionItem): void {
			if ("type" in item && (item.type === "group" || item.type === "list")) {
				if (item.heading !== undefined) new HostSetting(this.containerEl).setName(item.heading).setHeading();
				for (const child of item.items ?? []) this.hostDraw(child);
				return;
			}
			if (!("render" in item) || item.render === undefined) throw new Error("the host draws groups and rendered items only");
			const setting = new HostSetting(this.containerEl).setName(item.name);
			if (item.desc !== undefined) setting.setDesc(item.desc);
			item.render(setting as unknown as Setting, undefined as never);
			this.hostDrawnRows.push({ el: setting.settingEl, visible: item.visible });
		}
	}

	return {
		Notice: HostNotice,
		Setting: HostSetting,
		TextComponent: HostTextComponent,
		TextAreaComponent: HostTextAreaComponent,
		DropdownComponent: HostDropdownComponent,
		ToggleComponent: HostToggleComponent,
		ButtonComponent: HostButtonComponent,
		SecretComponent: HostSecretComponent,
		PluginSettingTab: HostPluginSettingTab,
	};
}

export type UiClasses = ReturnType<typeof createUiClasses>;
