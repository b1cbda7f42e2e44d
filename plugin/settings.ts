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

/** Default location, inside the vault's config folder (which is not always `.obsidian`). */
export function defaultDatabasePath(configDir: string): string {
	return `${configDir}/plugins/memory-agent/memory.db`;
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

/** Why `path` cannot be the database path, or null when it can (the core's `database_path_problem`, held to it by a test). */
export function validateDatabasePath(path: string): string | null {
	const trimmed = path.trim();
	if (trimmed === "") return "Enter a path for the database file.";
	if (!trimmed.endsWith(".db")) return "The database file name must end with .db.";
	if (trimmed.split(/[/\\]/).includes("..")) return "The path must stay inside the vault (no '..').";
	if (/^([/\\]|[A-Za-z]:)/.test(trimmed)) return "Use a path relative to the vault folder.";
	return null;
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

/** Why `id` cannot be a model id, or null. */
export function validateModelId(id: string): string | null {
	const trimmed = id.trim();
	if (/\s/.test(trimmed)) return "A model ID has no spaces.";
	return null;
}

const LOOPBACK_HOSTS: readonly string[] = ["localhost", "127.0.0.1", "[::1]"];

/** Why `endpoint` cannot replace the AWS endpoint, or null (empty means AWS's own). The core checks the same rule. */
export function validateEndpoint(endpoint: string): string | null {
	const trimmed = endpoint.trim();
	if (trimmed === "") return null;
	let url: URL;
	try {
		url = new URL(trimmed);
	} catch {
		return "The endpoint is not a valid address: it must start with https:// (leave it empty to use AWS's own).";
	}
	if (url.username !== "" || url.password !== "") return "The endpoint must not contain a user name or password.";
	if (url.protocol === "https:") return null;
	// Plain HTTP only to this device (a local stand-in of Bedrock): keys never cross a network unencrypted.
	if (url.protocol === "http:" && LOOPBACK_HOSTS.includes(url.hostname)) return null;
	return "The endpoint must use https:// (plain http:// only to localhost, 127.0.0.1 or [::1]).";
}

/** The non-empty, trimmed lines of a text area. */
export function linesOf(text: string): string[] {
	return text
		.split(/\r?\n/)
		.map((line) => line.trim())
		.filter((line) => line !== "");
}

/** Why one of `folders` (vault-relative) cannot be excluded, or null. */
export function validateFolders(folders: string[]): string | null {
	for (const folder of folders) {
		if (folder.split(/[/\\]/).includes("..")) return `"${folder}": folders must be inside the vault (no '..').`;
		if (/^([/\\]|[A-Za-z]:)/.test(folder)) return `"${folder}": use a folder path relative to the vault.`;
	}
	return null;
}

/** Why one of `patterns` is not a usable glob pattern, or null. */
export function validatePatterns(patterns: string[]): string | null {
	for (const pattern of patterns) {
		if (count(pattern, "[") !== count(pattern, "]")) return `"${pattern}": a [ has no matching ] (or the other way round).`;
		if (count(pattern, "{") !== count(pattern, "}")) return `"${pattern}": a { has no matching } (or the other way round).`;
	}
	return null;
}

/** Why one of `tags` is not a tag, or null; a leading # is allowed. */
export function validateTags(tags: string[]): string | null {
	for (const tag of tags) {
		const name = tag.replace(/^#/, "");
		if (name === "" || /[\s,#]/.test(name)) return `"${tag}" is not a tag: one tag per line, without spaces, such as #private.`;
		if (/^\d+$/.test(name)) return `"${tag}" is not a tag: a tag needs at least one letter.`;
	}
	return null;
}

/** Tags as stored: without the leading #. */
export function normalizeTags(tags: string[]): string[] {
	return tags.map((tag) => tag.replace(/^#/, ""));
}

function count(text: string, char: string): number {
	return text.split(char).length - 1;
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
		case "free":
			return text;
		case "region":
			return text === "" ? SETTINGS_SCHEMA.defaultRegion : text;
		case "databasePath":
			return validateDatabasePath(text) === null ? text : undefined;
		case "folder": {
			const folder = text.replace(/^\/+|\/+$/g, "");
			return folder !== "" && validateFolders([folder]) === null ? folder : undefined;
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
