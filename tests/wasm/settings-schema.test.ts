// The plugin's settings come from the core's schema (src/settings_schema.rs): the generated module is
// current, the plugin reads data.json as the core (and so the command) does, and a number field
// refuses exactly what the core refuses, with the core's words.

import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { test } from "node:test";
import { GENERATED_SCHEMA, renderSettingsSchema } from "../../scripts/lib/settings-schema.mjs";
import { BEDROCK_REGIONS, defaultModelFor } from "../../plugin/bedrock/regions";
import { SETTINGS_SCHEMA } from "../../plugin/generated/settings-schema";
import { type NumberKey, defaultDatabasePath, engineSettings, parseNumberSetting, isUsableDatabasePath, isUsableFolder, settingsFromData, validateNumberSetting } from "../../plugin/settings";
import { REPO_ROOT } from "../host/host";
import { loadFacade, loadSelfCheckFacade } from "../support/facade";

interface CoreReading {
	settings: Record<string, unknown>;
	problems: Array<{ key: string; message: string }>;
	/** What the engine takes of them, as the command gives it. */
	engine: Record<string, unknown>;
}

async function coreReading(data: unknown): Promise<CoreReading> {
	const core = await loadSelfCheckFacade();
	return JSON.parse(core.readSettings(JSON.stringify(data))) as CoreReading;
}

/** The plugin's reading in the core's terms: the core keeps "" for the database's default place. */
function pluginReading(data: unknown): Record<string, unknown> {
	const settings = settingsFromData(data, ".obsidian", "en-GB");
	return { ...settings, databasePath: settings.databasePath === defaultDatabasePath(".obsidian") ? "" : settings.databasePath };
}

test("plugin/generated/settings-schema.ts is what the core's schema generates now", async () => {
	const core = await loadSelfCheckFacade();
	const expected = renderSettingsSchema(JSON.parse(core.settingsSchema()));
	assert.equal(path.relative(REPO_ROOT, GENERATED_SCHEMA), path.join("plugin", "generated", "settings-schema.ts"));
	assert.equal(await readFile(GENERATED_SCHEMA, "utf8"), expected, "stale: run `npm run build` and commit the file");
});

test("the regions and each region's default model are the plugin's build's, and the facade's", async () => {
	const { facade } = await loadFacade();
	assert.deepEqual([...BEDROCK_REGIONS], facade.bedrockRegions());
	for (const region of BEDROCK_REGIONS) assert.equal(defaultModelFor(region), facade.defaultModelId(region), region);
	assert.equal(SETTINGS_SCHEMA.defaultRegion, "us-east-1");
	assert.equal(settingsFromData({}, ".obsidian").region, SETTINGS_SCHEMA.defaultRegion);
});

const STORED_FILES: unknown[] = [
	{},
	null,
	[1, 2],
	"garbage",
	// The drift of issue #21: 64 tokens was accepted by the command and refused by the plugin.
	{ answerMaxTokens: 64, contextBudgetTokens: 8_000, quietDelaySeconds: 2.5, maxNoteSizeKb: 0, dailyLimitUsd: 12 },
	{ answerMaxTokens: "2000", secondPass: "yes", planQuestions: true, readPassages: false, dateOrder: "monthDay", authMethod: "password" },
	{ readPassages: "no" },
	{ region: "  ", modelId: " eu.anthropic.claude-haiku-4-5-20251001-v1:0 ", endpoint: " https://vpce.example ", accessKeyIdSecret: "k" },
	{ region: "eu-west-3", authMethod: "apiKey", apiKeySecret: "bedrock-key", dateOrder: "dayMonth" },
	{ databasePath: " Memory/x.db ", conversationFolder: "/Chats/Saved/", excludedTags: [" private ", 3, ""], excludedFolders: "Private" },
	{ databasePath: "../x.db", conversationFolder: "../out" },
	{ databasePath: "C:/x.db", conversationFolder: "///", excludedPatterns: ["**/drafts/**"], unknownKey: 1 },
	{ consolidationThreshold: 10_000, consolidationBatchSize: 201, otherDeviceWaitSeconds: 86_400, bulkConfirmThreshold: -1 },
];

test("the plugin reads data.json as the core and the command do", async () => {
	for (const data of STORED_FILES) {
		const core = await coreReading(data);
		assert.deepEqual(pluginReading(data), core.settings, JSON.stringify(data));
	}
});

test("the engine gets the same settings from the plugin as from the command", async () => {
	for (const data of STORED_FILES) {
		const core = await coreReading(data);
		const { scope, ...engine } = engineSettings(settingsFromData(data, ".obsidian", "en-GB"), { excludedTags: ["private"] });
		assert.deepEqual(scope, { excludedTags: ["private"] });
		assert.deepEqual(engine, core.engine, JSON.stringify(data));
	}
	assert.equal(engineSettings(settingsFromData({ maxNoteSizeKb: 3 }, ".o"), {}).maxNoteBytes, 3 * 1024, "in the engine's unit");
});

test("a number setting is refused exactly when the core refuses it, with the core's message", async () => {
	const wholes = SETTINGS_SCHEMA.settings.filter((setting) => setting.kind === "whole");
	assert.equal(wholes.length, 11);
	for (const setting of wholes) {
		const key: NumberKey = setting.key;
		for (const value of [setting.min - 1, setting.min, setting.min + 0.5, setting.default, setting.max, setting.max + 1, 1e308]) {
			const core = await coreReading({ [key]: value });
			const refusal = core.problems.find((problem) => problem.key === key)?.message ?? null;
			assert.equal(validateNumberSetting(key, value), refusal, `${key} = ${value}`);
			assert.deepEqual(parseNumberSetting(key, String(value)), refusal === null ? { value } : { problem: refusal }, `${key} typed as ${value}`);
		}
		assert.deepEqual(parseNumberSetting(key, " "), { problem: setting.messages.missing });
		assert.deepEqual(parseNumberSetting(key, "soon"), { problem: setting.messages.notANumber });
	}
});

test("the load-time copies take the database paths and folders the core takes", async () => {
	for (const databasePath of ["", " ", "memory.sqlite", "../x.db", "a\\..\\x.db", "/home/me/x.db", "C:/x.db", "Memory/x.db", "..x.db"]) {
		const core = await coreReading({ databasePath });
		const refusal = core.problems.find((problem) => problem.key === "databasePath")?.message ?? null;
		assert.equal(isUsableDatabasePath(databasePath.trim()), refusal === null, JSON.stringify(databasePath));
	}
	for (const folder of ["a/../b", "\\x", "C:/x", "Chats", "..x"]) {
		const core = await coreReading({ conversationFolder: folder });
		const refusal = core.problems.find((problem) => problem.key === "conversationFolder")?.message ?? null;
		assert.equal(isUsableFolder(folder), refusal === null, folder);
	}
});
