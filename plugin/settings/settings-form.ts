// Saves settings changes in order and shows each field's problem next to the field.

import type { Setting } from "obsidian";
import { errorMessage } from "../core/core-error";
import type { MemoryAgentSettings } from "../settings";

/** Where the settings live: `PluginContext`'s `settings` and `saveSettings`. */
export interface SettingsStore {
	settings(): MemoryAgentSettings;
	saveSettings(settings: MemoryAgentSettings): Promise<void>;
}

/** Checks a typed value by the core's rule for its setting, in the worker (`MemoryRuntime.validateSetting`). */
export interface SettingValidator {
	validateSetting<K extends keyof MemoryAgentSettings>(key: K, value: unknown): Promise<Parsed<MemoryAgentSettings[K]>>;
}

export class SettingsForm {
	private pending: Promise<void> = Promise.resolve();

	constructor(
		private readonly store: SettingsStore,
		private readonly validator: SettingValidator,
	) {}

	get current(): MemoryAgentSettings {
		return this.store.settings();
	}

	/** `value` as the core saves it for `key`, or the core's sentence saying why it cannot be. */
	async check<K extends keyof MemoryAgentSettings>(key: K, value: unknown): Promise<Parsed<MemoryAgentSettings[K]>> {
		try {
			return await this.validator.validateSetting(key, value);
		} catch (error) {
			return { problem: `Could not check this value: ${errorMessage(error)}` };
		}
	}

	/**
	 * Saves `patch` over the current settings once earlier saves are done, so quick typing cannot
	 * write an older value last. Rejects when the write failed.
	 */
	save(patch: Partial<MemoryAgentSettings>): Promise<void> {
		const next = this.pending.then(() => this.store.saveSettings({ ...this.store.settings(), ...patch }));
		// A failed write must not block the saves after it; the caller sees the failure.
		this.pending = next.catch(() => undefined);
		return next;
	}

	/** Resolves once every save started so far has finished. */
	idle(): Promise<void> {
		return this.pending;
	}
}

/** The line under a setting's name that says what is wrong with its value. */
export class FieldMessage {
	private readonly el: HTMLElement;

	constructor(setting: Setting) {
		this.el = setting.infoEl.createDiv({ cls: "memory-agent-setting-error" });
	}

	show(problem: string | null): void {
		this.el.setText(problem ?? "");
	}
}

/** A parsed field value, or why the text is not acceptable. */
export type Parsed<T> = { value: T } | { problem: string };

export interface ValidatedFieldSpec<T> {
	/** The text the field starts with. */
	text: string;
	placeholder?: string;
	/** A text area (one item a line) instead of a one-line field. */
	multiline?: boolean;
	/** May ask the core (a promise): an answer that arrives after a later change is dropped. */
	parse(text: string): Parsed<T> | Promise<Parsed<T>>;
	/** The settings to save for a valid value. */
	patch(value: T): Partial<MemoryAgentSettings>;
}

/**
 * Adds a text field (or area) that checks every change: a problem is shown next to the field and
 * nothing is saved; a valid value is saved at once, and takes effect through `saveSettings`.
 */
export function addValidatedField<T>(setting: Setting, form: SettingsForm, spec: ValidatedFieldSpec<T>): void {
	const message = new FieldMessage(setting);
	let latest = 0;
	const changed = async (text: string): Promise<void> => {
		const change = ++latest;
		const parsed = await spec.parse(text);
		// Typed on since: the later text's answer decides (saves stay in order in `form.save`).
		if (change !== latest) return;
		if ("problem" in parsed) {
			message.show(parsed.problem);
			return;
		}
		message.show(null);
		await form.save(spec.patch(parsed.value)).catch((error: unknown) => message.show(`Could not save: ${errorMessage(error)}`));
	};
	if (spec.multiline === true) {
		setting.addTextArea((area) => {
			area.setValue(spec.text).onChange(changed);
			if (spec.placeholder !== undefined) area.setPlaceholder(spec.placeholder);
		});
	} else {
		setting.addText((field) => {
			field.setValue(spec.text).onChange(changed);
			if (spec.placeholder !== undefined) field.setPlaceholder(spec.placeholder);
		});
	}
}

/** Saves a toggle's or dropdown's value, reporting a failed write next to it. */
export function saveChoice(setting: Setting, form: SettingsForm): (patch: Partial<MemoryAgentSettings>) => Promise<void> {
	const message = new FieldMessage(setting);
	return async (patch) => {
		message.show(null);
		await form.save(patch).catch((error: unknown) => message.show(`Could not save: ${errorMessage(error)}`));
	};
}

/**
 * A text field (or area) for `key`, checked by the core's rule for it (asked in the worker, off
 * the main thread): the core's sentence is shown and nothing saved, or the value it answers is.
 */
export function addCoreCheckedField<K extends keyof MemoryAgentSettings>(
	setting: Setting,
	form: SettingsForm,
	key: K,
	spec: { text: string; placeholder?: string; multiline?: boolean },
): void {
	addValidatedField(setting, form, {
		...spec,
		parse: (text) => form.check(key, text),
		patch: (value): Partial<MemoryAgentSettings> => ({ [key]: value }),
	});
}
