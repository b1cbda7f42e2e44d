// The settings tab in the headless host with the built main.js: groups, validation next to each
// field, nothing invalid saved, valid changes applied at once; plus the pure helpers behind it.

import assert from "node:assert/strict";
import fs from "node:fs/promises";
import { afterEach, test } from "node:test";
import type { Command } from "obsidian";
import { connectionErrorText } from "../../plugin/bedrock/connection-error-text";
import { missingConnectionSetting } from "../../plugin/bedrock/connection-problem";
import { redactSecrets } from "../../plugin/bedrock/redact";
import { regionChoices } from "../../plugin/bedrock/regions";
import { exportFileName } from "../../plugin/settings/memory-export";
import { type MemoryAgentSettings, defaultSettings, parseNumberSetting } from "../../plugin/settings";
import { type FakeBedrock, TEST_CREDENTIALS, startFakeBedrock } from "../fake-bedrock/index";
import { type Host, startHost } from "../host/host";
import { loadFacade } from "../support/facade";
import { databaseWithMemories, writeDatabase } from "../support/plugin-fixtures";
import { SettingsTabDriver, readSettings, writeSettings } from "../support/settings-tab-driver";

let host: Host | undefined;
let fake: FakeBedrock | undefined;
afterEach(async () => {
	await host?.stop();
	host = undefined;
	await fake?.close();
	fake = undefined;
});

/** Obsidian before 1.13 draws the tab with display(); 1.13 and later from its definitions. */
const VERSIONS = ["1.11.4", "1.13.1"];

async function openTab(options: { layoutReady?: boolean; apiVersion?: string } = {}): Promise<SettingsTabDriver> {
	host = await startHost({ apiVersion: options.apiVersion });
	await host.loadPlugin(options);
	if (options.layoutReady !== false) await host.waitForCore();
	return SettingsTabDriver.open(host);
}

for (const apiVersion of VERSIONS) {
	test(`the tab is grouped under headings, in order (Obsidian ${apiVersion})`, async () => {
		const tab = await openTab({ apiVersion });
		assert.deepEqual(tab.headings(), ["Connection", "What to remember", "Consolidation", "Answers", "Conversations", "Spending", "Storage"]);
		for (const name of [
			"Authentication",
			"Access key ID",
			"Secret access key",
			"Session token",
			"Region",
			"Model ID",
			"Advanced: endpoint",
			"Test connection",
			"Excluded folders",
			"Excluded patterns",
			"Excluded tags",
			"Quiet delay (seconds)",
			"Size limit (kilobytes)",
			"Bulk confirmation (notes)",
			"Include plain-text files",
			"Threshold",
			"Batch size",
			"Daily run",
			"Context budget (tokens)",
			"Answer length (tokens)",
			"Date order",
			"Second pass",
			"Memory folder",
			"Rebuild memory from vault",
			"Export memories as JSON",
		]) {
			assert.ok(tab.names().includes(name), `the tab has "${name}"`);
		}
		assert.equal(tab.field("Model ID").value, "", "no model chosen: the region's recommendation");
		assert.equal(tab.field("Model ID").placeholder, "us.anthropic.claude-haiku-5-5", "the recommendation for us-east-1");
		assert.match(
			tab.setting("Model ID").textContent ?? "",
			/current Claude Haiku \(5\.5\).*Claude Haiku 4\.5 \(us\.anthropic\.claude-haiku-4-5-20251001-v1:0\) instead/,
			"the description names the default and its fallback",
		);
		assert.match(tab.setting("Model ID").textContent ?? "", /us\. .*eu\. .*jp\. .*au\. .*global\./, "the prefixes are explained");
	});
}

/** A field, texts it must refuse (with words expected next to it), and a text it must save. */
interface FieldCase {
	name: string;
	/** The setting the core checks (asked in the worker): the message shown is exactly the core's. */
	checkedByCore?: keyof MemoryAgentSettings;
	invalid: Array<[string, RegExp]>;
	valid: string;
	saved: [string, unknown];
}

const FIELD_CASES: FieldCase[] = [
	{ name: "Model ID", checkedByCore: "modelId", invalid: [["us.anthropic claude", /no spaces/]], valid: "eu.anthropic.claude-sonnet-4-5-20250929-v1:0", saved: ["modelId", "eu.anthropic.claude-sonnet-4-5-20250929-v1:0"] },
	{ name: "Advanced: endpoint", checkedByCore: "endpoint", invalid: [["http://bedrock.example.com", /must use https:\/\//], ["https://", /not a valid address/], ["https://u:p@bedrock.example", /user name or password/]], valid: "https://vpce-1.bedrock-runtime.us-east-1.vpce.amazonaws.com", saved: ["endpoint", "https://vpce-1.bedrock-runtime.us-east-1.vpce.amazonaws.com"] },
	{ name: "Excluded folders", checkedByCore: "excludedFolders", invalid: [["Private\n../Outside", /inside the vault/], ["/home/me", /relative/]], valid: "Private\n\n Journal/Health ", saved: ["excludedFolders", ["Private", "Journal/Health"]] },
	{ name: "Excluded patterns", checkedByCore: "excludedPatterns", invalid: [["**/[draft", /\[ has no matching \]/], ["{a,b", /\{ has no matching \}/]], valid: "**/drafts/**\n*.excalidraw.md", saved: ["excludedPatterns", ["**/drafts/**", "*.excalidraw.md"]] },
	{ name: "Excluded tags", checkedByCore: "excludedTags", invalid: [["#two words", /not a tag/], ["#2024", /at least one letter/]], valid: "#private\nwork/secret", saved: ["excludedTags", ["private", "work/secret"]] },
	{ name: "Quiet delay (seconds)", invalid: [["", /missing/], ["soon", /must be a number/], ["2.5", /whole number/], ["-1", /between 0 and 3,600/]], valid: "90", saved: ["quietDelaySeconds", 90] },
	{ name: "Size limit (kilobytes)", invalid: [["0", /between 1 and 102,400/]], valid: "512", saved: ["maxNoteSizeKb", 512] },
	{ name: "Bulk confirmation (notes)", invalid: [["many", /must be a number/]], valid: "50", saved: ["bulkConfirmThreshold", 50] },
	{ name: "Threshold", invalid: [["1", /between 2 and 10,000/]], valid: "12", saved: ["consolidationThreshold", 12] },
	{ name: "Batch size", invalid: [["500", /between 2 and 200/]], valid: "20", saved: ["consolidationBatchSize", 20] },
	{ name: "Context budget (tokens)", invalid: [["999", /between 1,000 and 950,000/]], valid: "20000", saved: ["contextBudgetTokens", 20_000] },
	{ name: "Answer length (tokens)", invalid: [["9000", /between 100 and 8,000/]], valid: "1000", saved: ["answerMaxTokens", 1_000] },
	{ name: "Memory folder", checkedByCore: "memoryFolder", invalid: [["Shared/../..", /inside the vault/], [" / ", /Choose a folder/]], valid: "/Shared/Memory/", saved: ["memoryFolder", "Shared/Memory"] },
	{ name: "Conversation folder", checkedByCore: "conversationFolder", invalid: [["Chats/../..", /inside the vault/], [" / ", /Choose a folder/]], valid: "/Chats/", saved: ["conversationFolder", "Chats"] },
];

for (const apiVersion of VERSIONS) {
	test(`every field shows its problem next to it, saves nothing invalid, and saves a valid value (Obsidian ${apiVersion})`, async () => {
		const { facade } = await loadFacade();
		const tab = await openTab({ apiVersion });
		const other = (name: string) => tab.names().filter((each) => each !== name && !tab.headings().includes(each));
		for (const field of FIELD_CASES) {
			for (const [text, words] of field.invalid) {
				const before = await readSettings(host!);
				await tab.type(field.name, text);
				assert.match(tab.error(field.name), words, `${field.name}: ${JSON.stringify(text)}`);
				if (field.checkedByCore !== undefined) {
					assert.deepEqual({ problem: tab.error(field.name) }, facade.validateSetting(field.checkedByCore, text), `${field.name}: the core's own words`);
				}
				assert.deepEqual(await readSettings(host!), before, `${field.name}: ${JSON.stringify(text)} is not saved`);
				for (const name of other(field.name)) assert.ok(!tab.error(name).includes(tab.error(field.name)), `the message is next to ${field.name} only`);
			}
			await tab.type(field.name, field.valid);
			assert.equal(tab.error(field.name), "", `${field.name}: the message goes away`);
			const [key, value] = field.saved;
			assert.deepEqual((await readSettings(host!))[key], value, `${field.name} is saved`);
		}
		// A newly drawn tab shows what was saved.
		const again = SettingsTabDriver.open(host!);
		assert.equal(again.field("Excluded tags").value, "private\nwork/secret");
		assert.equal(again.field("Quiet delay (seconds)").value, "90");
	});
}

for (const apiVersion of VERSIONS) {
	test(`toggles and dropdowns save at once; the authentication method swaps the secret fields (Obsidian ${apiVersion})`, async () => {
		const tab = await openTab({ apiVersion });
		assert.equal(tab.toggleOn("Include plain-text files"), false);
		await tab.toggle("Include plain-text files");
		assert.equal(tab.toggleOn("Remember images and scanned pages"), false, "images go to the model only when asked");
		assert.match(tab.setting("Remember images and scanned pages").textContent ?? "", /1,600 input tokens/);
		await tab.toggle("Remember images and scanned pages");
		await tab.toggle("Daily run");
		await tab.toggle("Second pass");
		assert.equal(tab.toggleOn("Plan the search"), false, "off by default");
		assert.equal(tab.toggleOn("Remember saved conversations"), false, "saved conversations are not remembered by default");
		assert.equal(tab.field("Conversation folder").value, "Memory conversations");
		await tab.toggle("Plan the search");
		assert.equal(tab.toggleOn("Read the notes behind memories"), true, "passages are read by default");
		await tab.toggle("Read the notes behind memories");
		await tab.choose("Date order", "monthDay");
		await tab.choose("Date order", "dayMonth");
		assert.equal((await readSettings(host!)).answerThinking ?? defaultSettings(".obsidian").answerThinking, "off", "no thinking for answers by default");
		await tab.choose("Thinking for answers", "low");
		const saved = await readSettings(host!);
		assert.equal(saved.answerThinking, "low");
		assert.equal(saved.includePlainText, true);
		assert.equal(saved.rememberImages, true);
		assert.equal(saved.dailyConsolidation, false);
		assert.equal(saved.secondPass, true);
		assert.equal(saved.planQuestions, true);
		assert.equal(saved.readPassages, false);
		assert.equal((saved.dateOrder ?? defaultSettings(".obsidian").dateOrder), "dayMonth");

		await tab.choose("Authentication", "apiKey");
		assert.equal((await readSettings(host!)).authMethod, "apiKey");
		assert.ok(tab.names().includes("Bedrock API key"));
		assert.ok(!tab.names().includes("Access key ID"), "the tab was drawn again for the API key");
		await tab.choose("Authentication", "accessKey");
		assert.ok(tab.names().includes("Session token"));
	});
}

test("from Obsidian 1.13 every row is a definition the settings search finds, under its section", async () => {
	const tab = await openTab({ apiVersion: "1.13.1" });
	// Spread into this realm's arrays (the plugin's are another realm's, which deepEqual tells apart).
	const definitions = [...(tab.tab.getSettingDefinitions() as Array<{ type: string; heading: string; items: Array<{ name: string; desc: string }> }>)];
	assert.deepEqual(definitions.map((group) => [group.type, group.heading]), tab.headings().map((heading) => ["group", heading]));
	const rows = definitions.flatMap((group) => group.items);
	assert.ok(rows.every((row) => row.name.length > 0 && row.desc.length > 0), "every row has a name and a description to search");
	// The drawn tab is the definitions: the rows shown are those not hidden for the access keys.
	assert.deepEqual(tab.names().filter((name) => !tab.headings().includes(name)), rows.map((row) => row.name).filter((name) => name !== "Bedrock API key"));
	assert.match(rows.find((row) => row.name === "Quiet delay (seconds)")?.desc ?? "", /From 0 to 3,600\./, "the range is in the searchable description");
});

test("the region list is the core's, generated at build time: the same before and after the core loads", async () => {
	const { facade } = await loadFacade();
	const loading = await openTab({ layoutReady: false });
	const options = (driver: SettingsTabDriver) => [...driver.select("Region").options].map((option) => option.value);
	assert.deepEqual(options(loading), facade.bedrockRegions(), "the list generated at build time is the core's");
	assert.equal(loading.select("Region").value, "us-east-1");
	host!.fireLayoutReady();
	await host!.waitForCore();
	assert.deepEqual(options(SettingsTabDriver.open(host!)), facade.bedrockRegions());
	assert.deepEqual(regionChoices("xx-test-9"), ["xx-test-9", ...facade.bedrockRegions()], "a stored region not in the list stays visible");
	assert.deepEqual(regionChoices("us-east-1"), facade.bedrockRegions());
});

test("a field typed before the core started starts it and shows the core's answer", async () => {
	const tab = await openTab({ layoutReady: false });
	assert.equal(host!.workers.started.length, 0, "nothing started the worker yet");
	const before = await readSettings(host!);
	await tab.type("Advanced: endpoint", "http://bedrock.example.com");
	assert.equal(host!.workers.started.length, 1, "checking the field started the worker");
	assert.match(tab.error("Advanced: endpoint"), /must use https:\/\//);
	assert.deepEqual(await readSettings(host!), before, "nothing saved");
	await tab.type("Advanced: endpoint", "http://localhost:4566");
	assert.equal(tab.error("Advanced: endpoint"), "");
	assert.equal((await readSettings(host!)).endpoint, "http://localhost:4566");
});

test("an answer that arrives after a later change is dropped: the last text typed decides", async () => {
	const tab = await openTab();
	const field = tab.field("Excluded tags");
	const typeQuickly = (texts: string[]) => {
		for (const text of texts) {
			field.value = text;
			field.dispatchEvent(new host!.dom.window.Event("input") as unknown as Event);
		}
	};
	const before = await readSettings(host!);
	// "#ok" is valid, but the core's answer for it arrives after "#two words" was typed: not saved.
	typeQuickly(["#ok", "#two words"]);
	await host!.settle();
	assert.match(tab.error("Excluded tags"), /not a tag/);
	assert.deepEqual(await readSettings(host!), before, "the overtaken valid text was not saved");
	typeQuickly(["#2024", "#fine\nwork"]);
	await host!.settle();
	assert.equal(tab.error("Excluded tags"), "", "the overtaken refusal is not shown");
	assert.deepEqual((await readSettings(host!)).excludedTags, ["fine", "work"]);
});

test("valid changes reach the core without a restart: region and model id of the next test", async () => {
	fake = await startFakeBedrock();
	host = await startHost();
	host.secretStorage.setSecret("aws-key-id", TEST_CREDENTIALS.accessKeyId);
	host.secretStorage.setSecret("aws-secret-key", TEST_CREDENTIALS.secretAccessKey);
	await writeSettings(host, { endpoint: fake.url, accessKeyIdSecret: "aws-key-id", secretAccessKeySecret: "aws-secret-key" });
	await host.loadPlugin();
	await host.waitForCore();
	const tab = SettingsTabDriver.open(host);
	assert.equal((await tab.testConnection()).ok, true);

	await tab.choose("Region", "eu-west-1");
	const result = await tab.testConnection();
	const scope = /Credential=[^/]+\/\d{8}\/([^/]+)\/bedrock\/aws4_request/.exec(fake.requests.at(-1)?.headers.authorization ?? "")?.[1];
	assert.equal(scope, "eu-west-1", "the request was signed for the new region");
	assert.equal(result.ok, false, "the fake serves us-east-1 only, so it refused the scope");

	await tab.choose("Region", "us-east-1");
	await tab.type("Model ID", "anthropic.claude-3-5-haiku-20241022-v1:0");
	const check = await tab.testConnection();
	assert.equal(check.ok, true, check.text);
	assert.equal(fake.requests.at(-1)?.modelId, "anthropic.claude-3-5-haiku-20241022-v1:0");
	assert.match(check.text, /^Connected to anthropic\.claude-3-5-haiku-20241022-v1:0 in us-east-1/);

	// An invalid value typed later does not reach the core: the last valid one stays in force.
	await tab.type("Model ID", "not a model");
	assert.equal((await tab.testConnection()).ok, true);
	assert.equal(fake.requests.at(-1)?.modelId, "anthropic.claude-3-5-haiku-20241022-v1:0");
});

test("Export writes the memories and insights as JSON at the vault root and says where", async () => {
	host = await startHost();
	await writeDatabase(host, await databaseWithMemories(3));
	await host.loadPlugin();
	await host.waitForCore();
	const tab = SettingsTabDriver.open(host);
	tab.button("Export").click();
	await host.waitFor(() => host!.notices.some((notice) => notice.includes("exported")));
	const name = exportFileName(new Date());
	assert.match(name, /^Memory Agent export \d{4}-\d{2}-\d{2}\.json$/);
	assert.ok(host.notices.at(-1)?.includes(name), host.notices.at(-1));
	const exported = JSON.parse(await fs.readFile(host.diskPath(name), "utf8")) as { memories: unknown[]; insights: unknown[] };
	assert.equal(exported.memories.length, 3);
	assert.deepEqual(exported.insights, []);

	tab.button("Export").click();
	await host.waitFor(() => host!.notices.filter((notice) => notice.includes("exported")).length === 2);
	assert.ok(host.notices.at(-1)?.includes(exportFileName(new Date(), 2)), "a second export of the day keeps the first");
});

test("Rebuild runs the rebuild command, or says it is not available", async () => {
	const tab = await openTab();
	const id = "memory-agent:rebuild-memory";
	const registered = host!.commands.get(id);
	let runs = 0;
	host!.commands.set(id, { id, name: "Rebuild memory from vault", callback: () => void runs++ } satisfies Command);
	tab.button("Rebuild").click();
	assert.equal(runs, 1);
	host!.commands.delete(id);
	tab.button("Rebuild").click();
	assert.match(host!.notices.at(-1) ?? "", /Rebuilding is not available/);
	if (registered) host!.commands.set(id, registered);
});

test("the pure helpers: error words per code, the missing setting, redaction, validators", () => {
	const facts = { region: "eu-west-1", modelId: "anthropic.claude-haiku-4-5-20251001-v1:0", recommended: "eu.anthropic.claude-haiku-4-5-20251001-v1:0", authMethod: "accessKey" as const, endpoint: "" };
	const expected: Record<string, RegExp> = {
		"llm.auth": /Access key ID/,
		"llm.clock_skew": /clock/,
		"llm.expired_token": /fresh temporary keys/,
		"llm.access_denied": /Bedrock console for eu-west-1/,
		"llm.needs_inference_profile": /such as eu\.anthropic\.claude-haiku-4-5-20251001-v1:0 \(a profile only works from its own geography/,
		"llm.model_not_found": /Check the model ID and the region/,
		"llm.throttled": /Wait a minute/,
		"llm.unavailable": /Try again in a few minutes/,
		"llm.model_not_ready": /not ready yet/,
		"llm.timeout": /in time/,
		"llm.offline": /offline/,
		"llm.network": /internet connection/,
		"llm.config": /incomplete: the reason/,
	};
	for (const [code, words] of Object.entries(expected)) assert.match(connectionErrorText(code, "the reason", facts), words, code);
	assert.match(connectionErrorText("llm.auth", "", { ...facts, authMethod: "apiKey" }), /Bedrock API key/);
	assert.match(connectionErrorText("llm.bad_response", "odd", facts), /failed: odd/);
	assert.match(connectionErrorText("llm.needs_inference_profile", "", { ...facts, modelId: "eu.anthropic.x-v1:0" }), /such as eu\.anthropic\.x-v1:0/);
	assert.match(connectionErrorText("llm.needs_inference_profile", "", { ...facts, recommended: undefined }), /such as global\.anthropic/, "global. when the region's profile is not known");

	const secrets = new Map([["key-id", "AKIDEXAMPLE"]]);
	const reader = { getSecret: (id: string) => secrets.get(id) ?? null };
	const settings = { ...defaultSettings(".obsidian"), accessKeyIdSecret: "key-id" };
	assert.match(missingConnectionSetting(settings, reader) ?? "", /"Secret access key"/);
	assert.match(missingConnectionSetting({ ...settings, secretAccessKeySecret: "gone" }, reader) ?? "", /"gone" chosen for "Secret access key" is empty or was deleted/);
	assert.match(missingConnectionSetting({ ...settings, authMethod: "apiKey" }, reader) ?? "", /"Bedrock API key"/);
	secrets.set("secret", "s3cr3t-value");
	assert.equal(missingConnectionSetting({ ...settings, secretAccessKeySecret: "secret" }, reader), null);

	assert.equal(redactSecrets("token=abcdef and abcdef", ["abcdef", "x"]), "token=[hidden] and [hidden]");
	assert.deepEqual(parseNumberSetting("answerMaxTokens", " 2000 "), { value: 2000 });
	assert.equal(exportFileName(new Date(2026, 1, 3)), "Memory Agent export 2026-02-03.json");
	assert.equal(exportFileName(new Date(2026, 1, 3), 3), "Memory Agent export 2026-02-03 (3).json");
});
