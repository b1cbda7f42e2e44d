// A 10,000-note vault: once remembered, a restart of the unchanged vault makes no model call
// and reads no note (timings belong to `npm run bench`, not here).

import assert from "node:assert/strict";
import { after, test } from "node:test";
import type { FakeBedrock } from "../fake-bedrock/index";
import type { Host } from "../host/host";
import { writeDatabase } from "../support/plugin-fixtures";
import { databaseKnowingNotes, generateNotes } from "../support/prepared-vault";
import { startAnsweringFake, startVaultHost, statusOf, waitForIdle, writeSettings } from "../support/vault-host";

const NOTES = 10_000;

let host: Host | undefined;
let fake: FakeBedrock | undefined;
after(async () => {
	await host?.stop();
	await fake?.close();
});

test("reconciling an unchanged 10,000-note vault makes no model call and reads no note", async () => {
	fake = await startAnsweringFake();
	host = await startVaultHost();
	await writeSettings(host, fake);
	const paths = await generateNotes(host.vaultDir, NOTES);
	// What the first reconciliation leaves: every note known by mtime, size and hash.
	await writeDatabase(host, await databaseKnowingNotes(host.vaultDir, paths));

	await host.loadPlugin();
	await host.waitForCore();
	const all = `Memory: ${NOTES.toLocaleString()}/${NOTES.toLocaleString()} notes`;
	await host.waitFor(() => host!.statusBarText() === all, { message: "the reconciliation", timeoutMs: 60_000 });
	await waitForIdle(host);
	assert.equal(fake.requests.length, 0, "no model call at all");
	const noteReads = host.adapter.calls.filter((call) => (call.method === "read" || call.method === "readBinary") && call.args[0]?.endsWith(".md"));
	assert.equal(noteReads.length, 0, "no note was read");
	assert.equal((await statusOf(host)).queued, 0, "nothing was queued");
	assert.equal(host.dom.document.querySelector(".modal-container"), null, "no bulk dialog for an unchanged vault");

	// One edit among the ten thousand costs exactly one read and one call.
	await writeSettings(host, fake, { quietDelaySeconds: 0 });
	const one = host.vault.getFileByPath(paths[1234]!);
	assert.ok(one);
	await host.vault.modify(one, "# Changed\n\nA new fact.\n");
	await waitForIdle(host);
	assert.equal(fake.requests.length, 1);
	assert.equal(host.adapter.calls.filter((call) => call.method === "readBinary" && call.args[0]?.endsWith(".md")).length, 1);
});
