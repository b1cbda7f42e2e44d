// Drives the plugin's rendered settings tab in the headless host as a user would: type, pick, click.

import fs from "node:fs/promises";
import type { PluginSettingTab } from "obsidian";
import { ANSWER_WITHIN_MS } from "../../plugin/core/core-client";
import type { Host } from "../host/host";
import { confirmEndpointOnThisDevice } from "./trusted-endpoint";

/** Writes data.json into the plugin folder before the plugin loads; its endpoint is confirmed on this device. */
export async function writeSettings(host: Host, data: Record<string, unknown>): Promise<void> {
	if (typeof data.endpoint === "string" && data.endpoint !== "") confirmEndpointOnThisDevice(host, data.endpoint);
	await fs.mkdir(host.diskPath(host.pluginDir), { recursive: true });
	await fs.writeFile(host.diskPath(`${host.pluginDir}/data.json`), JSON.stringify(data));
}

/** data.json as the plugin last saved it ({} when it never did). */
export async function readSettings(host: Host): Promise<Record<string, unknown>> {
	const file = `${host.pluginDir}/data.json`;
	if (!(await host.adapter.exists(file))) return {};
	return JSON.parse(await host.adapter.read(file)) as Record<string, unknown>;
}

/**
 * Deadlines as long as the worker watchdog's (30 s for a ping's answer) are shortened to
 * `LONG_DEADLINE_FLOOR_MS`, not by the factor: at 300 ms, a worker still compiling its
 * WebAssembly on a machine busy with other test files (the suites run two at a time) missed its
 * ping and was restarted, and what these tests exercise is not the watchdog (it has tests of its own).
 */
const LONG_DEADLINE_FLOOR_MS = 5_000;

function acceleratedDelay(ms: number, factor: number): number {
	const scaled = Math.ceil(ms / factor);
	return ms >= ANSWER_WITHIN_MS ? Math.max(scaled, LONG_DEADLINE_FLOOR_MS) : scaled;
}

/**
 * Makes the plugin realm's timers run 100 times faster (call before `loadPlugin`), so retry
 * backoff and the 60-second request timeout take milliseconds. Only the realm's timers change;
 * the fake Bedrock and the test keep real time.
 */
export function accelerateTimers(host: Host, factor = 100): void {
	const original = host.timers.setTimeout;
	Object.defineProperty(host.timers, "setTimeout", {
		value: (callback: (...args: unknown[]) => void, ms = 0, ...args: unknown[]) => original(callback, acceleratedDelay(ms, factor), ...args),
	});
	// The core's own timers (retry backoff, timeouts) run in its worker.
	host.workers.timeScale = factor;
}

export class SettingsTabDriver {
	constructor(
		private readonly host: Host,
		readonly tab: PluginSettingTab,
	) {}

	static open(host: Host): SettingsTabDriver {
		const tab = host.settingTabs[0];
		if (!tab) throw new Error("no settings tab is registered");
		// As Obsidian opens it: drawn from its definitions on 1.13 and later, else by display().
		(tab as unknown as { open(): void }).open();
		return new SettingsTabDriver(host, tab);
	}

	get root(): HTMLElement {
		return this.tab.containerEl;
	}

	/** The rows shown (a hidden row is not), headings included. */
	private rows(): HTMLElement[] {
		return [...this.root.querySelectorAll<HTMLElement>(".setting-item")].filter((el) => !el.hasAttribute("hidden"));
	}

	/** Names of the headings, in order. */
	headings(): string[] {
		return this.rows()
			.filter((el) => el.classList.contains("setting-item-heading"))
			.map((el) => el.querySelector(".setting-item-name")?.textContent ?? "");
	}

	/** Names of every setting shown, in order (headings included). */
	names(): string[] {
		return this.rows().map((el) => el.querySelector(".setting-item-name")?.textContent ?? "");
	}

	/** The setting row called `name`. */
	setting(name: string): HTMLElement {
		const row = this.rows().find((el) => el.querySelector(".setting-item-name")?.textContent === name);
		if (!row) throw new Error(`no setting "${name}"; there are: ${this.names().join(", ")}`);
		return row;
	}

	/** The message shown next to the field ("" when there is none). */
	error(name: string): string {
		return this.setting(name).querySelector(".memory-agent-setting-error")?.textContent ?? "";
	}

	field(name: string): HTMLInputElement | HTMLTextAreaElement {
		const field = this.setting(name).querySelector<HTMLInputElement | HTMLTextAreaElement>("input, textarea");
		if (!field) throw new Error(`setting "${name}" has no text field`);
		return field;
	}

	select(name: string): HTMLSelectElement {
		const select = this.setting(name).querySelector("select");
		if (!select) throw new Error(`setting "${name}" has no dropdown`);
		return select;
	}

	/** Types `value` into the field (replacing its text) and waits for the save. */
	async type(name: string, value: string): Promise<void> {
		const field = this.field(name);
		field.value = value;
		field.dispatchEvent(new this.host.dom.window.Event("input") as unknown as Event);
		await this.host.settle();
	}

	/** Picks `value` in a dropdown (or a secret picker, adding the name when the list lacks it). */
	async choose(name: string, value: string): Promise<void> {
		const select = this.select(name);
		if (![...select.options].some((option) => option.value === value)) select.createEl("option", { value, text: value });
		select.value = value;
		select.dispatchEvent(new this.host.dom.window.Event("change") as unknown as Event);
		await this.host.settle();
	}

	toggleOn(name: string): boolean {
		return this.setting(name).querySelector(".checkbox-container")?.classList.contains("is-enabled") ?? false;
	}

	async toggle(name: string): Promise<void> {
		const toggle = this.setting(name).querySelector<HTMLElement>(".checkbox-container");
		if (!toggle) throw new Error(`setting "${name}" has no toggle`);
		toggle.click();
		await this.host.settle();
	}

	button(text: string): HTMLButtonElement {
		const button = [...this.root.querySelectorAll("button")].find((el) => el.textContent === text);
		if (!button) throw new Error(`no button "${text}"`);
		return button;
	}

	/** Clicks "Test connection" and returns the words shown next to the button once the test ended. */
	async testConnection(): Promise<{ ok: boolean; text: string }> {
		this.button("Test connection").click();
		const result = () => this.setting("Test connection").querySelector(".memory-agent-connection-result");
		await this.host.waitFor(() => result()?.classList.contains("is-success") === true || result()?.classList.contains("is-error") === true, {
			message: "the connection test to end",
			timeoutMs: 20_000,
		});
		const el = result();
		return { ok: el?.classList.contains("is-success") === true, text: el?.textContent ?? "" };
	}
}
