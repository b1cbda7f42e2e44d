// The user's exclusion rules as one value, from the settings and Obsidian's own "Excluded
// files", handed to the core: it decides with them right before a note is read and sent, and
// answers the vault sync's questions (`exclusions`) so that excluded notes are not queued.

import { type App, normalizePath } from "obsidian";
import type { CoreScopeRules } from "../core/memory-core-api";
import type { MemoryAgentSettings } from "../settings";

/** Obsidian's "Excluded files" (Settings → Files and links); `getConfig` is not in the public API. */
function userIgnoreFilters(app: App): string[] {
	try {
		const vault = app.vault as unknown as { getConfig?: (key: string) => unknown };
		const filters = vault.getConfig?.("userIgnoreFilters");
		return Array.isArray(filters) ? filters.filter((item): item is string => typeof item === "string") : [];
	} catch {
		return [];
	}
}

/** The rules the core applies (its settings' `scope`). */
export function scopeRulesOf(app: App, settings: MemoryAgentSettings): CoreScopeRules {
	return {
		configDir: app.vault.configDir,
		databasePath: normalizePath(settings.databasePath),
		includePlainText: settings.includePlainText,
		includeImages: settings.rememberImages,
		// Saved conversations are not remembered unless asked: no answer becomes a memory of itself.
		excludedFolders: settings.rememberConversations ? [...settings.excludedFolders] : [...settings.excludedFolders, settings.conversationFolder],
		excludedPatterns: [...settings.excludedPatterns],
		excludedTags: [...settings.excludedTags],
		ignoreFilters: userIgnoreFilters(app),
	};
}
