// Settings defaults, validation through the core and storage, and the words of the status bar.

import assert from "node:assert/strict";
import { test } from "node:test";
import {
	defaultDatabasePath,
	defaultSettings,
	localeDateOrder,
	settingsFromData,
	type MemoryAgentSettings,
	settingsToData,
} from "../../plugin/settings";
import { SettingsForm } from "../../plugin/settings/settings-form";
import { loadFacade } from "../support/facade";
import { STATUS_STARTING, STATUS_UNAVAILABLE, statusBarLabel, statusBarText, statusNoticeText } from "../../plugin/ui/status-text";

test("the default database path is built from the config folder", () => {
	assert.equal(defaultDatabasePath(".obsidian"), ".obsidian/plugins/memory-agent/memory.db");
	assert.equal(defaultDatabasePath("_config"), "_config/plugins/memory-agent/memory.db");
	assert.equal(settingsFromData(null, ".cfg").databasePath, ".cfg/plugins/memory-agent/memory.db");
});

test("stored settings: unknown keys dropped, invalid paths fall back to the default", () => {
	const loaded = settingsFromData({ databasePath: "Memory/x.db", other: 1 }, ".obsidian");
	assert.equal(loaded.databasePath, "Memory/x.db");
	assert.equal("other" in loaded, false);
	assert.equal(settingsFromData({ databasePath: "../x.db" }, ".obsidian").databasePath, ".obsidian/plugins/memory-agent/memory.db");
	assert.equal(settingsFromData({ databasePath: 42 }, ".o").databasePath, ".o/plugins/memory-agent/memory.db");
	assert.deepEqual(settingsFromData("garbage", ".o", "en-GB"), defaultSettings(".o", "en-GB"));
	const numbers = settingsFromData({ consolidationThreshold: 1, contextBudgetTokens: 8000, quietDelaySeconds: 2.5 }, ".o");
	assert.equal(numbers.consolidationThreshold, 5, "below the minimum: default");
	assert.equal(numbers.contextBudgetTokens, 8000);
	assert.equal(numbers.quietDelaySeconds, 30, "not a whole number: default");
});

test("the default path is not stored, so it follows a renamed config folder", () => {
	const defaults = defaultSettings(".obsidian", "en-US");
	assert.deepEqual(settingsToData(defaults, ".obsidian", "en-US"), {});
	assert.deepEqual(settingsToData({ ...defaults, databasePath: "Memory/x.db" }, ".obsidian", "en-US"), { databasePath: "Memory/x.db" });
});

test("the date order defaults from the locale", () => {
	assert.equal(localeDateOrder("en-US"), "monthDay");
	assert.equal(localeDateOrder("en-GB"), "dayMonth");
	assert.equal(localeDateOrder("vi-VN"), "dayMonth");
	assert.equal(localeDateOrder("de-DE"), "dayMonth");
});

test("status texts", () => {
	const status = { memories: 12, insights: 3, queued: 0, running: 1, failed: 2, schemaVersion: 1, finished: 0, current: null, paused: null, pausedByUser: false, pausedCode: null, shared: false, removedAtOpen: null, modelFallback: null };
	assert.equal(STATUS_STARTING, "Memory: starting…");
	assert.equal(STATUS_UNAVAILABLE, "Memory: unavailable");
	const coverage = { remembered: 1204, inScope: 2333 };
	assert.equal(statusBarText(status, coverage), `Memory: ${(1204).toLocaleString()}/${(2333).toLocaleString()} notes · 2 failed`);
	assert.equal(statusBarText({ ...status, failed: 0 }, coverage), `Memory: ${(1204).toLocaleString()}/${(2333).toLocaleString()} notes`, "zero parts are left out");
	assert.equal(statusBarText({ ...status, failed: 3, paused: "Paused by you." }, coverage), `Memory: ${(1204).toLocaleString()}/${(2333).toLocaleString()} notes · 3 failed · paused`);
	assert.equal(statusBarText({ ...status, failed: 0 }, { remembered: 1, inScope: 1 }), "Memory: 1/1 note");
	assert.equal(statusBarText({ ...status, failed: 0 }, null), "Memory: checking notes…", "before the vault was compared");
	assert.equal(statusBarLabel({ ...status, memories: 1, insights: 1 }), "Memory Agent: 1 memory, 1 insight, 0 queued. Select to show details.");
	assert.match(statusBarLabel(status), /12 memories, 3 insights, 0 queued/);
	const notice = statusNoticeText(status, ".obsidian/plugins/memory-agent/memory.db");
	assert.match(notice, /12 memories, 3 insights/);
	assert.match(notice, /0 queued, 1 running, 2 failed/);
	assert.match(notice, /Schema version 1/);
	assert.match(notice, /Database: \.obsidian\/plugins\/memory-agent\/memory\.db/);
});

test("typed values are checked by the core: its value is saved, its sentence shown, nothing else", async () => {
	const { facade } = await loadFacade();
	const saved: MemoryAgentSettings[] = [];
	let current = defaultSettings(".obsidian");
	const store = {
		settings: () => current,
		saveSettings: async (settings: MemoryAgentSettings) => {
			current = settings;
			saved.push(settings);
		},
	};
	// The worker's answer, without the worker: the facade's own function.
	const form = new SettingsForm(store, { validateSetting: async (key, value) => facade.validateSetting(key, value) as never });
	const refused: Array<[keyof MemoryAgentSettings, string, RegExp]> = [
		["endpoint", "http://bedrock.example.com", /must use https:\/\//],
		["databasePath", "../memory.db", /inside the vault/],
		["excludedFolders", "Private\n/home/me", /relative/],
		["excludedPatterns", "**/[draft", /\[ has no matching \]/],
		["excludedTags", "#2024", /at least one letter/],
		["modelId", "claude haiku", /no spaces/],
	];
	for (const [key, text, words] of refused) {
		const check = await form.check(key, text);
		assert.ok("problem" in check && words.test(check.problem), `${key}: ${JSON.stringify(check)}`);
	}
	assert.deepEqual(await form.check("excludedTags", "#private\n\n work/secret "), { value: ["private", "work/secret"] });
	assert.deepEqual(await form.check("conversationFolder", "/Chats/"), { value: "Chats" });
	assert.equal(saved.length, 0, "checking saves nothing");

	const unreachable = new SettingsForm(store, { validateSetting: () => Promise.reject(new Error("the worker stopped")) });
	assert.deepEqual(await unreachable.check("endpoint", "https://x"), { problem: "Could not check this value: the worker stopped" });
});
