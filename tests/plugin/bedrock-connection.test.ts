// The built main.js talks to the fake Bedrock through its own requestUrl path: every way of signing
// in, each error class in words through the settings tab's "Test connection", retries, and secrets kept secret.

import assert from "node:assert/strict";
import fs from "node:fs/promises";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, test } from "node:test";
import {
	type FakeBedrock,
	type Reply,
	TEST_API_KEY,
	TEST_CREDENTIALS,
	TEST_EXPIRED_SESSION_TOKEN,
	TEST_SESSION_CREDENTIALS,
	startFakeBedrock,
} from "../fake-bedrock/index";
import { type Host, startHost } from "../host/host";
import { sentRequests } from "../host/request-url";
import { databasePath } from "../support/plugin-fixtures";
import { SettingsTabDriver, accelerateTimers, readSettings, writeSettings } from "../support/settings-tab-driver";

/** A model id with a ':', typed in the settings. */
const TYPED_MODEL = "us.anthropic.claude-haiku-4-5-20251001-v1:0";
const ACCESS_KEY_NAMES = { accessKeyIdSecret: "aws-key-id", secretAccessKeySecret: "aws-secret-key" };

let host: Host | undefined;
let fake: FakeBedrock | undefined;
afterEach(async () => {
	await host?.stop();
	host = undefined;
	await fake?.close();
	fake = undefined;
});

/** A host whose plugin is configured for the fake (data.json + secrets), loaded and started. */
async function startConfigured(
	settings: Record<string, unknown>,
	secrets: Record<string, string>,
	options: { fast?: boolean; fakeNow?: () => number } = {},
): Promise<{ host: Host; fake: FakeBedrock; tab: SettingsTabDriver }> {
	fake = await startFakeBedrock(options.fakeNow ? { now: options.fakeNow } : {});
	host = await startHost();
	if (options.fast !== false) accelerateTimers(host);
	for (const [name, value] of Object.entries(secrets)) host.secretStorage.setSecret(name, value);
	await writeSettings(host, { endpoint: fake.url, region: "us-east-1", ...settings });
	await host.loadPlugin();
	await host.waitForCore();
	return { host, fake, tab: SettingsTabDriver.open(host) };
}

function longTermKeys(): Record<string, string> {
	return { "aws-key-id": TEST_CREDENTIALS.accessKeyId, "aws-secret-key": TEST_CREDENTIALS.secretAccessKey };
}

test("long-term keys: signed through requestUrl, the ':' model id is encoded, success shows model, region and latency", async () => {
	const { fake, tab } = await startConfigured({ ...ACCESS_KEY_NAMES, modelId: TYPED_MODEL }, longTermKeys());
	const before = sentRequests.length;
	const result = await tab.testConnection();
	assert.equal(result.ok, true, result.text);
	assert.match(result.text, new RegExp(`^Connected to ${TYPED_MODEL.replace(/\./g, "\\.")} in us-east-1 in [\\d,]+ ms\\.$`));

	assert.equal(fake.requests.length, 1);
	const request = fake.requests[0]!;
	assert.equal(request.modelId, TYPED_MODEL);
	assert.ok(request.path.includes("%3A"), `the ':' is percent-encoded in the path: ${request.path}`);
	assert.equal(request.auth.ok, true, JSON.stringify(request.auth));
	assert.equal(request.response?.status, 200);
	assert.match(request.headers.authorization ?? "", /^AWS4-HMAC-SHA256 Credential=AKIDMEMORYAGENTTEST\/\d{8}\/us-east-1\/bedrock\/aws4_request/);
	assert.equal(request.headers["x-amz-security-token"], undefined, "no session token for long-term keys");
	const viaRequestUrl = sentRequests.slice(before).filter((sent) => sent.url.startsWith(fake.url));
	assert.equal(viaRequestUrl.length, 1, "the request went through the host's requestUrl");
});

test("temporary keys send and sign the session token", async () => {
	const { fake, tab } = await startConfigured(
		{ ...ACCESS_KEY_NAMES, sessionTokenSecret: "aws-session-token" },
		{
			"aws-key-id": TEST_SESSION_CREDENTIALS.accessKeyId,
			"aws-secret-key": TEST_SESSION_CREDENTIALS.secretAccessKey,
			"aws-session-token": TEST_SESSION_CREDENTIALS.sessionToken,
		},
	);
	const result = await tab.testConnection();
	assert.equal(result.ok, true, result.text);
	const request = fake.requests.at(-1)!;
	assert.equal(request.headers["x-amz-security-token"], TEST_SESSION_CREDENTIALS.sessionToken);
	assert.match(request.headers.authorization ?? "", /SignedHeaders=[^,]*x-amz-security-token/);
});

test("a Bedrock API key is sent as a bearer token", async () => {
	const { fake, tab } = await startConfigured({ authMethod: "apiKey", apiKeySecret: "bedrock-api-key" }, { "bedrock-api-key": TEST_API_KEY });
	assert.ok(tab.names().includes("Bedrock API key"));
	for (const name of ["Access key ID", "Secret access key", "Session token"]) assert.ok(!tab.names().includes(name), `no "${name}" with an API key`);
	const result = await tab.testConnection();
	assert.equal(result.ok, true, result.text);
	assert.equal(fake.requests.at(-1)?.headers.authorization, `Bearer ${TEST_API_KEY}`);
});

test("a wrong secret access key is reported as the auth error in words", async () => {
	const { fake, tab } = await startConfigured(ACCESS_KEY_NAMES, { ...longTermKeys(), "aws-secret-key": "not-the-right-secret-key" });
	const result = await tab.testConnection();
	assert.equal(result.ok, false);
	assert.equal(fake.requests.at(-1)?.response?.status, 403, "the fake checked the signature and refused it");
	assert.match(result.text, /did not accept the credentials/);
	assert.match(result.text, /Access key ID.*Secret access key/);
	assert.ok(!result.text.includes("not-the-right-secret-key"));
});

/** One scripted failure and the words it must produce. */
interface ErrorCase {
	name: string;
	script?: Reply[];
	secrets?: Record<string, string>;
	words: RegExp;
}

test("each error class is shown next to the button in plain words with the next step", async () => {
	const { fake, tab, host } = await startConfigured(ACCESS_KEY_NAMES, longTermKeys());
	const fiveTimes = (reply: Reply): Reply[] => Array.from({ length: 5 }, () => reply);
	host.secretStorage.setSecret("temp-key-id", TEST_SESSION_CREDENTIALS.accessKeyId);
	host.secretStorage.setSecret("temp-secret-key", TEST_SESSION_CREDENTIALS.secretAccessKey);
	const cases: ErrorCase[] = [
		// The default (Haiku 5.5) denied gives way to Haiku 4.5 (bedrock-models.test.ts); denied too, it is the error.
		{
			name: "access denied",
			script: ["accessDenied", "accessDenied"],
			words: /may not use .* in us-east-1\. Enable model access in the Bedrock console for us-east-1/,
		},
		{ name: "use-case form", script: ["useCaseFormMissing"], words: /not yet submitted Anthropic's use-case details.*Model catalog/ },
		{ name: "service quota", script: ["quotaExceeded"], words: /over a Bedrock quota of your account.*Service Quotas console/ },
		{ name: "model timeout", script: ["modelTimeout"], words: /took too long/ },
		{ name: "needs an inference profile", script: ["onDemandNotSupported"], words: /Use an inference profile ID such as us\.anthropic\.claude-haiku-5-5/ },
		{
			name: "model not found",
			script: [{ status: { code: 404, type: "ResourceNotFoundException", message: "Could not resolve the foundation model." } }],
			words: /does not know the model .* in us-east-1\. Check the model ID and the region/,
		},
		{ name: "throttled on every attempt", script: fiveTimes("throttle"), words: /throttling requests.*Wait a minute and test again/ },
		{ name: "unavailable on every attempt", script: fiveTimes("unavailable"), words: /unavailable right now\. Try again in a few minutes/ },
		{ name: "model not ready", script: fiveTimes("modelNotReady"), words: /model is not ready yet/ },
		{ name: "connection reset on every attempt", script: fiveTimes("reset"), words: /connection to http:\/\/127\.0\.0\.1:\d+ failed\. Check the endpoint/ },
		{ name: "timeout", script: fiveTimes({ slow: 5_000 }), words: /did not answer in time/ },
		{
			name: "expired session token",
			secrets: { "aws-key-id": TEST_SESSION_CREDENTIALS.accessKeyId, "aws-secret-key": TEST_SESSION_CREDENTIALS.secretAccessKey, "aws-session-token": TEST_EXPIRED_SESSION_TOKEN },
			words: /temporary keys have expired\. Paste fresh temporary keys/,
		},
		{ name: "unknown key", secrets: { "aws-key-id": "AKIDUNKNOWNKEY000000" }, words: /did not accept the credentials\. Check that the secrets/ },
	];
	for (const errorCase of cases) {
		fake.reset();
		if (errorCase.script) fake.script(...errorCase.script);
		// The secret pickers keep their names; changed values are picked up when the test starts.
		host.secretStorage.setSecret("aws-key-id", TEST_CREDENTIALS.accessKeyId);
		host.secretStorage.setSecret("aws-secret-key", TEST_CREDENTIALS.secretAccessKey);
		for (const [name, value] of Object.entries(errorCase.secrets ?? {})) host.secretStorage.setSecret(name, value);
		if (errorCase.secrets?.["aws-session-token"] !== undefined) await tab.choose("Session token", "aws-session-token");
		const result = await tab.testConnection();
		assert.equal(result.ok, false, `${errorCase.name}: ${result.text}`);
		assert.match(result.text, errorCase.words, errorCase.name);
		if (errorCase.secrets?.["aws-session-token"] !== undefined) await tab.choose("Session token", "");
	}
});

test("a clock more than 5 minutes off is corrected from AWS's time, and the test says so", async () => {
	const { tab, fake } = await startConfigured(ACCESS_KEY_NAMES, longTermKeys(), { fakeNow: () => Date.now() + 10 * 60_000 });
	const result = await tab.testConnection();
	assert.equal(result.ok, true, result.text);
	assert.match(result.text, /This device's clock is 10 minutes slow; requests are signed with AWS's time\./);
	assert.equal(fake.requests.length, 2, "one refused request, one re-signed");
});

test("an endpoint nobody listens on is a network error in words", async () => {
	const closed = http.createServer();
	await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
	const port = (closed.address() as AddressInfo).port;
	await new Promise<void>((resolve) => closed.close(() => resolve()));

	const { tab } = await startConfigured({ ...ACCESS_KEY_NAMES, endpoint: `http://127.0.0.1:${port}` }, longTermKeys());
	const result = await tab.testConnection();
	assert.equal(result.ok, false);
	assert.match(result.text, new RegExp(`connection to http://127\\.0\\.0\\.1:${port} failed\\. Check the endpoint under Advanced`));
});

/** The "Send your AWS credentials to …?" dialog, once it is shown. */
async function endpointDialog(shown: Host): Promise<HTMLElement> {
	const find = () => shown.dom.document.querySelector<HTMLElement>(".memory-agent-endpoint-confirm")?.closest<HTMLElement>(".modal-container") ?? null;
	await shown.waitFor(() => find() !== null, { message: "the endpoint dialog" });
	return find()!;
}

function press(dialog: HTMLElement, label: string): void {
	const button = [...dialog.querySelectorAll("button")].find((candidate) => candidate.textContent === label);
	assert.ok(button, `a "${label}" button in ${dialog.textContent}`);
	button.click();
}

test("an endpoint that is not AWS's gets nothing until this device's user confirms it, and the yes stays on this device", async () => {
	fake = await startFakeBedrock();
	host = await startHost();
	accelerateTimers(host);
	for (const [name, value] of Object.entries(longTermKeys())) host.secretStorage.setSecret(name, value);
	// As a synced or shared vault brings it: the endpoint in data.json, no yes on this device.
	await fs.mkdir(host.diskPath(host.pluginDir), { recursive: true });
	await fs.writeFile(host.diskPath(`${host.pluginDir}/data.json`), JSON.stringify({ endpoint: fake.url, region: "us-east-1", ...ACCESS_KEY_NAMES }));
	await host.loadPlugin();
	await host.waitForCore();
	const shown = host;

	// At start the core refused the endpoint and the plugin asks; "Cancel" sends nothing.
	let dialog = await endpointDialog(shown);
	assert.match(dialog.textContent ?? "", /Send your AWS credentials to 127\.0\.0\.1\?/);
	press(dialog, "Cancel");
	await shown.settle();
	const tab = SettingsTabDriver.open(shown);
	const declined = tab.testConnection();
	press(await endpointDialog(shown), "Cancel");
	const result = await declined;
	assert.equal(result.ok, false);
	assert.match(result.text, /Nothing was sent: http:\/\/127\.0\.0\.1:\d+ is not one of AWS's own Bedrock endpoints/);
	assert.equal(fake.requests.length, 0, "no request, so no credential, reached the unconfirmed host");
	assert.equal(shown.localStorage.size > 0 && [...shown.localStorage.values()].includes("127.0.0.1"), false);

	// Yes: kept in this device's local storage, never in the synced settings; then it is used.
	const confirmed = tab.testConnection();
	dialog = await endpointDialog(shown);
	press(dialog, "Send to 127.0.0.1");
	const connected = await confirmed;
	assert.equal(connected.ok, true, connected.text);
	assert.equal(fake.requests.length, 1);
	assert.equal(fake.requests[0]!.auth.ok, true);
	assert.ok([...shown.localStorage.values()].includes("127.0.0.1"), "the yes is this device's");
	assert.deepEqual(await readSettings(shown), { endpoint: fake.url, region: "us-east-1", ...ACCESS_KEY_NAMES }, "data.json is unchanged");
	assert.doesNotMatch(JSON.stringify(await readSettings(shown)), /trusted/i);
});

test("a missing secret names the setting to fill in; nothing is sent", async () => {
	const { fake, tab, host } = await startConfigured({ accessKeyIdSecret: "aws-key-id" }, longTermKeys());
	let result = await tab.testConnection();
	assert.equal(result.ok, false);
	assert.match(result.text, /Choose the secret for "Secret access key" under Connection/);
	await tab.choose("Secret access key", "deleted-secret");
	assert.match(tab.error("Secret access key"), /There is no secret named "deleted-secret"/, "the picker says so next to the field");
	result = await tab.testConnection();
	assert.match(result.text, /The secret "deleted-secret" chosen for "Secret access key" is empty or was deleted/);
	await tab.choose("Secret access key", "aws-secret-key");
	assert.equal(tab.error("Secret access key"), "");
	assert.deepEqual(await readSettings(host), { endpoint: fake.url, ...ACCESS_KEY_NAMES }, "the default region is not stored");
	assert.equal(fake.requests.length, 0, "no request without all secrets");
	result = await tab.testConnection();
	assert.equal(result.ok, true, result.text);
});

test("random retryable faults are retried until the test succeeds", async () => {
	const { fake, tab } = await startConfigured(ACCESS_KEY_NAMES, longTermKeys());
	fake.failRandomly(0.3, 7);
	for (let attempt = 0; attempt < 8; attempt++) {
		const result = await tab.testConnection();
		assert.equal(result.ok, true, `test ${attempt + 1}: ${result.text}`);
	}
	const injected = fake.requests.filter((request) => request.injected).length;
	assert.ok(injected > 0, "some requests met a fault");
	assert.equal(fake.requests.length, 8 + injected, "each fault cost exactly one extra request");
});

test("secrets never appear in data.json, the database file, logs, notices or the tab", async () => {
	const logged: string[] = [];
	const methods = ["log", "info", "warn", "error", "debug", "trace"] as const;
	const originals = methods.map((method) => console[method]);
	for (const method of methods) console[method] = (...args: unknown[]) => void logged.push(args.map(String).join(" "));
	try {
		const secrets = {
			"aws-key-id": TEST_SESSION_CREDENTIALS.accessKeyId,
			"aws-secret-key": TEST_SESSION_CREDENTIALS.secretAccessKey,
			"aws-session-token": TEST_SESSION_CREDENTIALS.sessionToken,
			"bedrock-api-key": TEST_API_KEY,
		};
		const { host, tab, fake } = await startConfigured({ ...ACCESS_KEY_NAMES, sessionTokenSecret: "aws-session-token" }, secrets);
		assert.equal((await tab.testConnection()).ok, true);
		// A wrong secret key makes the fake's answer repeat the signed request (session token included).
		host.secretStorage.setSecret("aws-secret-key", "wrong-secret-key-value");
		const failed = await tab.testConnection();
		assert.match(failed.text, /did not accept/);
		assert.ok(fake.requests.at(-1)?.response?.body.includes(TEST_SESSION_CREDENTIALS.sessionToken), "the fake's answer did carry the token");
		await tab.choose("Authentication", "apiKey");
		await tab.choose("Bedrock API key", "bedrock-api-key");
		await tab.testConnection();
		await host.runCommand("show-memory-status");
		await host.unloadPlugin();

		const values = [...Object.values(secrets), "wrong-secret-key-value"];
		const places: Array<[string, string]> = [
			["data.json", await fs.readFile(host.diskPath(`${host.pluginDir}/data.json`), "utf8")],
			["the database file", (await fs.readFile(host.diskPath(databasePath(host)))).toString("latin1")],
			["the console", logged.join("\n")],
			["notices", host.notices.join("\n")],
			["the tab", tab.root.textContent ?? ""],
		];
		for (const [place, text] of places) {
			for (const value of values) assert.ok(!text.includes(value), `a secret value appears in ${place}`);
		}
		const saved = JSON.parse(places[0]![1]) as Record<string, unknown>;
		assert.equal(saved.apiKeySecret, "bedrock-api-key", "only the secret's name is stored");
	} finally {
		methods.forEach((method, index) => (console[method] = originals[index]!));
	}
});

test("notes remembered through the vault sync survive random faults: every note becomes a memory", async () => {
	fake = await startFakeBedrock();
	host = await startHost();
	accelerateTimers(host);
	for (const [name, value] of Object.entries(longTermKeys())) host.secretStorage.setSecret(name, value);
	await writeSettings(host, { endpoint: fake.url, ...ACCESS_KEY_NAMES });
	const plants = ["tomatoes", "beans", "basil", "peppers", "garlic"];
	for (const plant of plants) await fs.writeFile(host.diskPath(`${plant}.md`), `# Garden\n\nAna planted ${plant} on Saturday.\n`);
	const memory: Reply = {
		toolUse: { name: "record_memory", input: { nothing_to_remember: false, summary: "Ana planted something in the garden.", entities: [], topics: ["garden"], importance: 0.5, happened_on: null } },
	};
	fake.respond = () => ({ slow: 20, then: memory });
	fake.failRandomly(0.3, 5);
	await host.loadPlugin();
	await host.waitForCore();

	// Every note answered once; then the export (Settings → Storage) shows what the store holds.
	await host.waitFor(() => fake!.requests.filter((request) => request.response?.status === 200).length >= plants.length && fake!.inFlight === 0, {
		message: "every note to be answered",
	});
	const tab = SettingsTabDriver.open(host);
	let exported: { memories: Array<{ source_path: string }> } = { memories: [] };
	for (let attempt = 1; attempt <= 20 && exported.memories.length < plants.length; attempt++) {
		await host.settle();
		tab.button("Export").click();
		await host.waitFor(() => host!.notices.filter((notice) => notice.includes("exported")).length === attempt);
		const file = /exported memories to (.+\.json)\./.exec(host.notices.at(-1) ?? "")?.[1] ?? "";
		exported = JSON.parse(await fs.readFile(host.diskPath(file), "utf8")) as typeof exported;
	}
	assert.deepEqual(exported.memories.map((memory) => memory.source_path).sort(), plants.map((plant) => `${plant}.md`).sort());
	assert.ok(fake.requests.some((request) => request.injected), "some requests met a fault and were retried");
	for (const plant of plants) assert.ok(fake.bodiesText().includes(`Ana planted ${plant}`), `${plant}.md was sent`);
});

test("the model list is what this account may call in the region, from Bedrock's control plane", async () => {
	const { fake, tab, host } = await startConfigured(ACCESS_KEY_NAMES, longTermKeys());
	fake.inferenceProfiles.push({ id: "us.anthropic.claude-fakeonly-20261201-v1:0", name: "US Claude only the fake knows" });
	assert.equal(fake.requests.length, 0, "opening the settings sends nothing");
	tab.button("List models").click();
	await host.waitFor(() => tab.setting("Model ID").querySelector("select") !== null, { message: "the list" });
	const options = [...tab.select("Model ID").options].map((option) => option.value);
	assert.ok(options.includes("us.anthropic.claude-fakeonly-20261201-v1:0"), JSON.stringify(options));
	assert.ok(options.includes("amazon.nova-lite-v1:0"), "on-demand models too");
	assert.ok(!options.includes("eu.anthropic.claude-haiku-4-5-20251001-v1:0"), "not a profile another geography owns");
	assert.deepEqual(
		fake.requests.map((request) => [request.method, request.path, request.auth.ok]),
		[
			["GET", "/inference-profiles", true],
			["GET", "/foundation-models", true],
		],
		"signed list calls, no model call",
	);
	await tab.choose("Model ID", "us.anthropic.claude-fakeonly-20261201-v1:0");
	assert.equal((await readSettings(host)).modelId, "us.anthropic.claude-fakeonly-20261201-v1:0");
	assert.equal(tab.button("Refresh list").textContent, "Refresh list");
});
