// The plugin's settings: their shape, defaults and bounds from the core's schema (generated at
// build time), how a stored data.json is read, and the core settings they make (no Obsidian
// imports). Keys are stable once released: data.json holds them.

import type { CoreScopeRules, CoreSettings } from "./core/memory-core-api";
import { SETTINGS_SCHEMA } from "./generated/settings-schema";

/** One setting of the core's schema (src/settings_schema.rs), as generated at build time. */
type SchemaSetting = (typeof SETTINGS_SCHEMA.settings)[number];
type WholeSetting = Extract<SchemaSetting, { kind: "whole" }>;

type ValueOf<S extends SchemaSetting> = S extends { kind: "whole" }
	? number
	: S extends { kind: "toggle" }
		? boolean
		: S extends { kind: "choice"; allowed: readonly (infer Allowed)[] }
			? Allowed
			: S extends { kind: "list" }
				? string[]
				: string;

/**
 * The settings as data.json holds them: the keys and each value's type come from the core's
 * schema, where each is documented. Secrets are never here: `…Secret` are the *names* of entries
 * in Obsidian's secret storage (`app.secretStorage`), chosen with a SecretComponent.
 */
export type MemoryAgentSettings = { [S in SchemaSetting as S["key"]]: ValueOf<S> };

export type AuthMethod = MemoryAgentSettings["authMethod"];
export type DateOrder = MemoryAgentSettings["dateOrder"];
/** The settings typed as whole numbers within bounds. */
export type NumberKey = WholeSetting["key"];

/** The plugin's folder, inside the vault's config folder (which is not always `.obsidian`): each device's database and heartbeat. */
export function pluginFolder(configDir: string): string {
	return `${configDir}/plugins/memory-agent`;
}

/** Where an older version kept the memory all devices shared (read once to migrate, never written). */
export function defaultDatabasePath(configDir: string): string {
	return `${pluginFolder(configDir)}/memory.db`;
}

/** Day/month or month/day, from the locale's own way of writing 1 February. */
export function localeDateOrder(locale?: string): DateOrder {
	const parts = new Intl.DateTimeFormat(locale, { day: "numeric", month: "numeric" }).formatToParts(new Date(Date.UTC(2026, 1, 1, 12)));
	const day = parts.findIndex((part) => part.type === "day");
	const month = parts.findIndex((part) => part.type === "month");
	return month >= 0 && month < day ? "monthDay" : "dayMonth";
}

/** A schema default as a value of its own (lists are copied, so no two settings share one). */
function defaultOf(setting: SchemaSetting): unknown {
	return Array.isArray(setting.default) ? [...(setting.default as readonly string[])] : setting.default;
}

export function defaultSettings(configDir: string, locale?: string): MemoryAgentSettings {
	// Built from the schema whose type `MemoryAgentSettings` is: every key, each with its default.
	const settings = Object.fromEntries(SETTINGS_SCHEMA.settings.map((setting) => [setting.key, defaultOf(setting)])) as MemoryAgentSettings;
	// The two defaults only the plugin knows: the config folder and the locale.
	settings.databasePath = defaultDatabasePath(configDir);
	settings.dateOrder = localeDateOrder(locale);
	return settings;
}

// Reading data.json happens at load, before the worker exists, so the two text rules reading
// needs are kept here as yes/no copies of the core's (`database_path_problem`, `folder_problem`),
// held to it by tests/wasm/settings-schema.test.ts. A rule's outcome over any text cannot be
// generated at build time; its messages can, and are the core's alone (`validateSetting`).

/** Whether the core takes `path` (trimmed) as the database path. */
export function isUsableDatabasePath(path: string): boolean {
	return path !== "" && path.endsWith(".db") && !leavesTheVault(path) && !isAbsolute(path);
}

/** Whether the core takes `folder` (vault-relative, without outer slashes) as a folder. */
export function isUsableFolder(folder: string): boolean {
	return !leavesTheVault(folder) && !isAbsolute(folder);
}

function leavesTheVault(path: string): boolean {
	return path.split(/[/\\]/).includes("..");
}

function isAbsolute(path: string): boolean {
	return /^([/\\]|[A-Za-z]:)/.test(path);
}

function wholeSetting(key: NumberKey): WholeSetting {
	const setting = SETTINGS_SCHEMA.settings.find((candidate): candidate is WholeSetting => candidate.kind === "whole" && candidate.key === key);
	if (setting === undefined) throw new Error(`${key} is not a number setting of the schema`);
	return setting;
}

/** The bounds of the number `key`, from the core's schema. */
export function numberBounds(key: NumberKey): { min: number; max: number } {
	const { min, max } = wholeSetting(key);
	return { min, max };
}

/** Why `value` cannot be the number `key`, in the core's words; the core checks the same bounds. */
export function validateNumberSetting(key: NumberKey, value: number): string | null {
	const setting = wholeSetting(key);
	if (Number.isFinite(value) && !Number.isInteger(value)) return setting.messages.notWhole;
	if (!(value >= setting.min && value <= setting.max)) return setting.messages.outOfRange;
	return null;
}

/** A number typed into a text field, or the reason it is not a valid value for `key`. */
export function parseNumberSetting(key: NumberKey, text: string): { value: number } | { problem: string } {
	const trimmed = text.trim();
	if (trimmed === "") return { problem: wholeSetting(key).messages.missing };
	const value = Number(trimmed);
	const problem = Number.isNaN(value) ? wholeSetting(key).messages.notANumber : validateNumberSetting(key, value);
	return problem === null ? { value } : { problem };
}

/** The value `raw` gives `setting`, normalised, or undefined when it cannot be used (its default is). */
function storedValue(setting: SchemaSetting, raw: unknown): unknown {
	switch (setting.kind) {
		case "whole":
			return typeof raw === "number" && validateNumberSetting(setting.key, raw) === null ? raw : undefined;
		case "toggle":
			return typeof raw === "boolean" ? raw : undefined;
		case "choice":
			return (setting.allowed as readonly unknown[]).includes(raw) ? raw : undefined;
		case "list":
			return Array.isArray(raw)
				? raw.filter((item): item is string => typeof item === "string").map((item) => item.trim()).filter((item) => item !== "")
				: undefined;
		case "text":
			return typeof raw === "string" ? storedText(setting.rule, raw.trim()) : undefined;
	}
}

/** Text by its schema rule (src/settings_schema.rs, `TextRule`). */
function storedText(rule: Extract<SchemaSetting, { kind: "text" }>["rule"], text: string): string | undefined {
	switch (rule) {
		// A model id or endpoint is checked where it is used (the core refuses a bad one at `configure`).
		case "free":
		case "modelId":
		case "endpoint":
			return text;
		case "region":
			return text === "" ? SETTINGS_SCHEMA.defaultRegion : text;
		case "databasePath":
			return isUsableDatabasePath(text) ? text : undefined;
		case "folder": {
			const folder = text.replace(/^\/+|\/+$/g, "");
			return folder !== "" && isUsableFolder(folder) ? folder : undefined;
		}
	}
}

/**
 * Settings from what `loadData()` returned, read as the core reads data.json (the command does):
 * unknown keys are dropped; a missing or invalid value falls back to its default, so a
 * hand-edited data.json cannot stop the plugin.
 */
export function settingsFromData(data: unknown, configDir: string, locale?: string): MemoryAgentSettings {
	const settings = defaultSettings(configDir, locale);
	if (typeof data !== "object" || data === null || Array.isArray(data)) return settings;
	const raw = data as Record<string, unknown>;
	const values: Record<string, unknown> = settings;
	for (const setting of SETTINGS_SCHEMA.settings) {
		const value = storedValue(setting, raw[setting.key]);
		if (value !== undefined) values[setting.key] = value;
	}
	return settings;
}

/** What `saveData()` stores: only values that differ from the defaults, so defaults can improve. */
export function settingsToData(settings: MemoryAgentSettings, configDir: string, locale?: string): Record<string, unknown> {
	const defaults = defaultSettings(configDir, locale);
	const data: Record<string, unknown> = {};
	for (const key of Object.keys(settings) as Array<keyof MemoryAgentSettings>) {
		if (JSON.stringify(settings[key]) !== JSON.stringify(defaults[key])) data[key] = settings[key];
	}
	return data;
}

/** Reads secrets by name; Obsidian's `app.secretStorage` in the plugin. */
export interface SecretReader {
	getSecret(id: string): string | null;
}

/** The connection part, or the reason it cannot be built yet (shown to the user). */
export function connectionSettings(settings: MemoryAgentSettings, secrets: SecretReader): CoreSettings["connection"] | string {
	const secret = (id: string): string => (id === "" ? "" : (secrets.getSecret(id) ?? "").trim());
	const base = { region: settings.region, modelId: settings.modelId === "" ? null : settings.modelId, endpoint: settings.endpoint === "" ? null : settings.endpoint };
	if (settings.authMethod === "apiKey") {
		const apiKey = secret(settings.apiKeySecret);
		if (apiKey === "") return "Choose the secret that holds your Bedrock API key in the settings.";
		return { ...base, auth: { kind: "apiKey", apiKey } };
	}
	const accessKeyId = secret(settings.accessKeyIdSecret);
	const secretAccessKey = secret(settings.secretAccessKeySecret);
	if (accessKeyId === "" || secretAccessKey === "") {
		return "Choose the secrets that hold your AWS access key id and secret access key in the settings.";
	}
	const sessionToken = secret(settings.sessionTokenSecret);
	return { ...base, auth: { kind: "accessKey", accessKeyId, secretAccessKey, sessionToken: sessionToken === "" ? null : sessionToken } };
}

/**
 * The engine part of the core's settings: the settings the engine takes, under its names and in
 * its units, as the core's schema maps them (`ENGINE_FIELDS`; the command maps data.json the same way).
 */
export function engineSettings(settings: MemoryAgentSettings, scope: CoreScopeRules): NonNullable<CoreSettings["engine"]> {
	const engine: Record<string, unknown> = { scope };
	for (const field of SETTINGS_SCHEMA.engineFields) {
		const value = settings[field.setting];
		engine[field.engine] = typeof value === "number" ? value * field.scale : value;
	}
	// The names are the engine's by construction; the core's tests check each one is its own.
	return engine;
}
