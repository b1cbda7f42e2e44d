// The Rust store contract suite, run inside the built WebAssembly against real sql.js.

import assert from "node:assert/strict";
import { test } from "node:test";
import { loadFacade, loadSelfCheckFacade } from "../support/facade";

interface CheckResult {
	name: string;
	ok: boolean;
	error?: string;
}

test("storeSelfCheck passes every scenario against real sql.js", async () => {
	const { storeSelfCheck, SQL } = await loadSelfCheckFacade();
	const results = storeSelfCheck(SQL) as CheckResult[];
	assert.ok(Array.isArray(results), "storeSelfCheck returns an array");
	assert.ok(results.length > 5, `expected more than a handful of scenarios, got ${results.length}`);
	const names = results.map((r) => r.name);
	assert.equal(new Set(names).size, names.length, "scenario names are unique");
	for (const result of results) {
		assert.equal(typeof result.name, "string");
		assert.ok(result.name.length > 0);
	}
	const failed = results.filter((r) => !r.ok);
	assert.deepEqual(
		failed.map((r) => `${r.name}: ${r.error ?? "(no error text)"}`),
		[],
		"every store scenario passes",
	);
});

test("supportedSchemaVersion is a positive integer", async () => {
	const { facade } = await loadFacade();
	const version = facade.supportedSchemaVersion();
	assert.ok(Number.isInteger(version) && version >= 1, `got ${version}`);
});

test("the plugin's build leaves the contract suite out", async () => {
	const { facade } = await loadFacade();
	assert.equal((facade as Record<string, unknown>).storeSelfCheck, undefined);
});
