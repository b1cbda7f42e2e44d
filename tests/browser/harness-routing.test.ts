// How the browser harness reaches the fake Bedrock while the plugin calls AWS's own endpoint:
// the page routes requests for `*.amazonaws.com` to the harness server, naming the host they
// were signed for; the server forwards them with that Host, and the fake checks the signature
// against the Host it receives — so a request signed for another host is still refused.
// (No browser needed: the page's routing is a plain function, the server is spoken to over HTTP.)

import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { type FakeBedrock, TEST_CREDENTIALS, startFakeBedrock } from "../fake-bedrock/index";
import { errorType, send, signRequest, conversePath, converseBody } from "../fake-bedrock/signing-client";
import { type HarnessServer, startHarnessServer } from "./harness-server";
import { ORIGINAL_HOST_HEADER, route } from "./harness/routing";

const AWS_HOST = "bedrock-runtime.us-east-1.amazonaws.com";

let fake: FakeBedrock;
let server: HarnessServer;

before(async () => {
	fake = await startFakeBedrock();
	server = await startHarnessServer({ bedrockUrl: fake.url });
});

after(async () => {
	await server?.close();
	await fake?.close();
});

test("the page sends requests for AWS's hosts to the harness server, path and query exactly as signed", () => {
	const origin = "http://127.0.0.1:4321";
	assert.deepEqual(route(`https://${AWS_HOST}/model/us.anthropic.claude-haiku-4-5-20251001-v1%3A0/converse`, origin), {
		url: `${origin}/model/us.anthropic.claude-haiku-4-5-20251001-v1%3A0/converse`,
		originalHost: AWS_HOST,
	});
	assert.deepEqual(route("https://bedrock.eu-west-1.amazonaws.com/inference-profiles?maxResults=100&typeEquals=SYSTEM_DEFINED", origin), {
		url: `${origin}/inference-profiles?maxResults=100&typeEquals=SYSTEM_DEFINED`,
		originalHost: "bedrock.eu-west-1.amazonaws.com",
	});
	// Anything else goes where it was meant to.
	for (const url of [`http://${AWS_HOST}/model/x/converse`, `https://${AWS_HOST}:8443/model/x/converse`, "https://example.com/model/x/converse", "https://amazonaws.com.example.com/x", `${origin}/main.js`]) {
		assert.deepEqual(route(url, origin), { url }, url);
	}
});

/** A Converse request signed for `signedFor`, as it arrives from the page: Host is the harness server's. */
async function fromPage(signedFor: string, originalHost: string): Promise<{ path: string; method: string; headers: Record<string, string>; body: string }> {
	const signed = await signRequest(
		signedFor,
		{ method: "POST", path: conversePath(), headers: { "content-type": "application/json" }, body: converseBody("Hello") },
		{ credentials: TEST_CREDENTIALS },
	);
	const headers: Record<string, string> = { ...signed.headers, host: new URL(server.url).host, [ORIGINAL_HOST_HEADER]: originalHost };
	return { ...signed, headers };
}

test("a request signed for AWS's host verifies at the fake Bedrock once the server puts that Host back", async () => {
	fake.reset();
	fake.script({ text: "Hi." });
	const response = await send(server.url, await fromPage(AWS_HOST, AWS_HOST));
	assert.equal(response.status, 200, response.body);
	const [recorded] = fake.requests;
	assert.equal(recorded?.headers.host, AWS_HOST);
	assert.equal(recorded?.headers[ORIGINAL_HOST_HEADER], undefined, "the marker is not passed on");
	assert.deepEqual(recorded?.auth, { ok: true, scheme: "sigv4", accessKeyId: TEST_CREDENTIALS.accessKeyId });
});

test("the signature check still holds: a request signed for another host is refused", async () => {
	fake.reset();
	const response = await send(server.url, await fromPage("bedrock-runtime.eu-west-1.amazonaws.com", AWS_HOST));
	assert.equal(response.status, 403);
	assert.equal(errorType(response), "InvalidSignatureException");
	assert.equal(fake.requests[0]?.auth.ok, false);
});

test("the server forwards only requests for AWS's hosts", async () => {
	fake.reset();
	const response = await send(server.url, await fromPage(AWS_HOST, "evil.example.com"));
	assert.equal(response.status, 400);
	assert.equal(fake.requests.length, 0, "nothing reached the fake");
	// Without the marker, /model/… is not passed on at all (the plugin has no endpoint here).
	const unmarked = await fromPage(AWS_HOST, AWS_HOST);
	delete unmarked.headers[ORIGINAL_HOST_HEADER];
	assert.equal((await send(server.url, unmarked)).status, 404);
	assert.equal(fake.requests.length, 0);
});
