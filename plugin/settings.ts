// The plugin's settings: their shape, defaults and validation (no Obsidian imports).

export interface MemoryAgentSettings {
	/** Vault-relative path of the SQLite database file. Key is stable once released. */
	databasePath: string;
}

/** Default location, inside the vault's config folder (which is not always `.obsidian`). */
export function defaultDatabasePath(configDir: string): string {
	return `${configDir}/plugins/memory-agent/memory.db`;
}

export function defaultSettings(configDir: string): MemoryAgentSettings {
	return { databasePath: defaultDatabasePath(configDir) };
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

/**
 * Settings from what `loadData()` returned. Unknown keys are dropped; a missing or invalid
 * path falls back to the default, so a hand-edited data.json cannot stop the plugin.
 */
export function settingsFromData(data: unknown, configDir: string): MemoryAgentSettings {
	const settings = defaultSettings(configDir);
	if (typeof data !== "object" || data === null) return settings;
	const path = (data as Record<string, unknown>).databasePath;
	if (typeof path === "string" && validateDatabasePath(path) === null) settings.databasePath = path.trim();
	return settings;
}

/** What `saveData()` stores: a default path is left out, so it follows a changed config folder. */
export function settingsToData(settings: MemoryAgentSettings, configDir: string): Record<string, unknown> {
	return settings.databasePath === defaultDatabasePath(configDir) ? {} : { databasePath: settings.databasePath };
}
