// The plugin's settings: their shape, defaults, validation and the core settings they make
// (no Obsidian imports). Keys are stable once released: data.json holds them.

import type { CoreScopeRules, CoreSettings } from "./core/memory-core-api";

export type AuthMethod = "accessKey" | "apiKey";
export type DateOrder = "dayMonth" | "monthDay";

export interface MemoryAgentSettings {
	/** Vault-relative path of the SQLite database file. */
	databasePath: string;

	// Connection. Secrets are never here: these are the *names* of entries in Obsidian's
	// secret storage (`app.secretStorage`), chosen with a SecretComponent.
	authMethod: AuthMethod;
	region: string;
	modelId: string;
	accessKeyIdSecret: string;
	secretAccessKeySecret: string;
	sessionTokenSecret: string;
	apiKeySecret: string;
	/** Replaces the AWS endpoint (VPC endpoints); empty for the default. */
	endpoint: string;

	// What to remember.
	excludedFolders: string[];
	excludedPatterns: string[];
	excludedTags: string[];
	quietDelaySeconds: number;
	/** Once the memory is shared between devices: how long a note changed on another device waits for that device's memories. */
	otherDeviceWaitSeconds: number;
	maxNoteSizeKb: number;
	bulkConfirmThreshold: number;
	includePlainText: boolean;

	// Consolidation.
	consolidationThreshold: number;
	consolidationBatchSize: number;
	dailyConsolidation: boolean;

	// Answers.
	contextBudgetTokens: number;
	answerMaxTokens: number;
	dateOrder: DateOrder;
	secondPass: boolean;
	/** Ask the model what to search for before choosing memories (one small call a question). */
	planQuestions: boolean;

	// Conversations.
	/** Where conversations are saved as notes, relative to the vault. */
	conversationFolder: string;
	/** Save every conversation as it goes, not only on "Save as note". */
	autoSaveConversations: boolean;
	/** Remember saved conversations like other notes (off: no answer becomes a memory of itself). */
	rememberConversations: boolean;

	// Spending (estimated US dollars; 0 = no limit).
	dailyLimitUsd: number;
	monthlyLimitUsd: number;
}

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

export function defaultSettings(configDir: string, locale?: string): MemoryAgentSettings {
	return {
		databasePath: defaultDatabasePath(configDir),
		authMethod: "accessKey",
		region: "us-east-1",
		// Empty: the model the core recommends for the region (Claude Haiku 4.5 through the
		// inference profile that region may call).
		modelId: "",
		accessKeyIdSecret: "",
		secretAccessKeySecret: "",
		sessionTokenSecret: "",
		apiKeySecret: "",
		endpoint: "",
		excludedFolders: [],
		excludedPatterns: [],
		excludedTags: [],
		quietDelaySeconds: 30,
		otherDeviceWaitSeconds: 120,
		maxNoteSizeKb: 2048,
		bulkConfirmThreshold: 200,
		includePlainText: false,
		consolidationThreshold: 5,
		consolidationBatchSize: 50,
		dailyConsolidation: true,
		contextBudgetTokens: 150_000,
		answerMaxTokens: 2_000,
		dateOrder: localeDateOrder(locale),
		secondPass: false,
		planQuestions: false,
		conversationFolder: "Memory conversations",
		autoSaveConversations: false,
		rememberConversations: false,
		dailyLimitUsd: 0,
		monthlyLimitUsd: 0,
	};
}

/** Why `path` cannot be the database path, or null when it can. */
export function validateDatabasePath(path: string): string | null {
	const trimmed = path.trim();
	if (trimmed === "") return "Enter a path for the database file.";
	if (!trimmed.endsWith(".db")) return "The database file name must end with .db.";
	if (trimmed.split(/[/\\]/).includes("..")) return "The path must stay inside the vault (no '..').";
	if (/^([/\\]|[A-Za-z]:)/.test(trimmed)) return "Use a path relative to the vault folder.";
	return null;
}

/** A whole number in [min, max], or the reason it is not. */
export function validateInteger(value: number, min: number, max: number, what: string): string | null {
	if (!Number.isInteger(value)) return `${what} must be a whole number.`;
	if (value < min || value > max) return `${what} must be between ${min.toLocaleString()} and ${max.toLocaleString()}.`;
	return null;
}

/** Bounds of every number setting, used by validation and the settings tab. */
export const NUMBER_BOUNDS = {
	quietDelaySeconds: { min: 0, max: 3_600, what: "The quiet delay" },
	otherDeviceWaitSeconds: { min: 0, max: 86_400, what: "The wait for other devices" },
	maxNoteSizeKb: { min: 1, max: 102_400, what: "The size limit" },
	bulkConfirmThreshold: { min: 0, max: 1_000_000, what: "The bulk-ingest threshold" },
	consolidationThreshold: { min: 2, max: 10_000, what: "The consolidation threshold" },
	consolidationBatchSize: { min: 2, max: 200, what: "The batch size" },
	contextBudgetTokens: { min: 1_000, max: 190_000, what: "The context budget" },
	answerMaxTokens: { min: 100, max: 8_000, what: "The answer length" },
	dailyLimitUsd: { min: 0, max: 100_000, what: "The daily limit" },
	monthlyLimitUsd: { min: 0, max: 1_000_000, what: "The monthly limit" },
} as const satisfies Partial<Record<keyof MemoryAgentSettings, { min: number; max: number; what: string }>>;

export type NumberKey = keyof typeof NUMBER_BOUNDS;

export function validateNumberSetting(key: NumberKey, value: number): string | null {
	const bounds = NUMBER_BOUNDS[key];
	return validateInteger(value, bounds.min, bounds.max, bounds.what);
}

/** A number typed into a text field, or the reason it is not a valid value for `key`. */
export function parseNumberSetting(key: NumberKey, text: string): { value: number } | { problem: string } {
	const trimmed = text.trim();
	if (trimmed === "") return { problem: `${NUMBER_BOUNDS[key].what} is missing: enter a number.` };
	const value = Number(trimmed);
	const problem = Number.isNaN(value) ? `${NUMBER_BOUNDS[key].what} must be a number.` : validateNumberSetting(key, value);
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

/**
 * Settings from what `loadData()` returned. Unknown keys are dropped; a missing or invalid
 * value falls back to its default, so a hand-edited data.json cannot stop the plugin.
 */
export function settingsFromData(data: unknown, configDir: string, locale?: string): MemoryAgentSettings {
	const settings = defaultSettings(configDir, locale);
	if (typeof data !== "object" || data === null) return settings;
	const raw = data as Record<string, unknown>;
	const text = (key: keyof MemoryAgentSettings): string | undefined => (typeof raw[key] === "string" ? (raw[key]) : undefined);
	const list = (key: keyof MemoryAgentSettings): string[] | undefined =>
		Array.isArray(raw[key]) ? (raw[key] as unknown[]).filter((item): item is string => typeof item === "string") : undefined;
	const bool = (key: keyof MemoryAgentSettings): boolean | undefined => (typeof raw[key] === "boolean" ? (raw[key]) : undefined);

	const path = text("databasePath");
	if (path !== undefined && validateDatabasePath(path) === null) settings.databasePath = path.trim();
	const auth = text("authMethod");
	if (auth === "accessKey" || auth === "apiKey") settings.authMethod = auth;
	for (const key of ["region", "modelId", "accessKeyIdSecret", "secretAccessKeySecret", "sessionTokenSecret", "apiKeySecret", "endpoint"] as const) {
		const value = text(key);
		if (value !== undefined) settings[key] = value.trim();
	}
	if (settings.region === "") settings.region = "us-east-1";
	const folder = text("conversationFolder")?.trim().replace(/^\/+|\/+$/g, "");
	if (folder !== undefined && folder !== "" && validateFolders([folder]) === null) settings.conversationFolder = folder;
	for (const key of ["excludedFolders", "excludedPatterns", "excludedTags"] as const) {
		const value = list(key);
		if (value !== undefined) settings[key] = value.map((item) => item.trim()).filter((item) => item !== "");
	}
	for (const key of Object.keys(NUMBER_BOUNDS) as NumberKey[]) {
		const value = raw[key];
		if (typeof value === "number" && validateNumberSetting(key, value) === null) settings[key] = value;
	}
	for (const key of ["includePlainText", "dailyConsolidation", "secondPass", "planQuestions", "autoSaveConversations", "rememberConversations"] as const) {
		const value = bool(key);
		if (value !== undefined) settings[key] = value;
	}
	const order = text("dateOrder");
	if (order === "dayMonth" || order === "monthDay") settings.dateOrder = order;
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

/** The engine part of the core's settings. */
export function engineSettings(settings: MemoryAgentSettings, scope: CoreScopeRules): NonNullable<CoreSettings["engine"]> {
	return {
		scope,
		consolidationThreshold: settings.consolidationThreshold,
		consolidationBatchSize: settings.consolidationBatchSize,
		dailyConsolidation: settings.dailyConsolidation,
		maxNoteBytes: settings.maxNoteSizeKb * 1024,
		queryBudgetTokens: settings.contextBudgetTokens,
		maxAnswerTokens: settings.answerMaxTokens,
		dateOrder: settings.dateOrder,
		secondPass: settings.secondPass,
		planQuestions: settings.planQuestions,
		dailyLimitUsd: settings.dailyLimitUsd,
		monthlyLimitUsd: settings.monthlyLimitUsd,
		otherDeviceWaitMs: settings.otherDeviceWaitSeconds * 1000,
	};
}
