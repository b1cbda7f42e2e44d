// What the long strings in main.js are (README, "What is inside main.js"): taken out by
// `npm run extract-wasm`, they are exactly the core `npm run build` made from src/ and sql.js's
// SQLite, and nothing else — the claim a reviewer can check without trusting the build script.

import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { test } from "node:test";
import { embeddedModules, identify, KNOWN_MODULES } from "../../scripts/extract-wasm.mjs";

const ROOT = path.resolve(import.meta.dirname, "..", "..");

test("main.js holds exactly two WebAssembly modules: the core built from src/ and sql.js's SQLite", () => {
	const modules = embeddedModules(fs.readFileSync(path.join(ROOT, "main.js"), "utf8"));
	assert.equal(modules.length, 2, "two embedded modules");
	const names = modules.map((wasm) => identify(wasm));
	assert.deepEqual(
		[...names].sort(),
		Object.keys(KNOWN_MODULES).sort(),
		"each is byte for byte a file of this checkout: build/pkg/memory_agent_bg.wasm and sql.js's",
	);
});

test("a module that is not the built one is told apart", () => {
	const [first] = embeddedModules(fs.readFileSync(path.join(ROOT, "main.js"), "utf8"));
	assert.ok(first !== undefined, "main.js holds a module");
	const changed = Buffer.from(first);
	changed[changed.length - 1] = (changed[changed.length - 1] ?? 0) ^ 1;
	assert.equal(identify(changed), undefined);
});
