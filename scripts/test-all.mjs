// `npm test`: every test of the project, in layers — the Rust core natively, then a fresh
// build, then the TypeScript suites against it, then the Obsidian review lint.

import { spawnSync } from "node:child_process";
import { ROOT } from "./lib/run.mjs";

const steps = [
	["Rust core (cargo test)", "cargo", ["test", "--quiet"]],
	["Build (WebAssembly + main.js)", process.execPath, ["scripts/build.mjs"]],
	["TypeScript suites (node --test)", process.execPath, ["scripts/run-ts-tests.mjs"]],
	["Lint (eslint-plugin-obsidianmd)", process.execPath, ["node_modules/eslint/bin/eslint.js", "plugin"]],
];

const failed = [];
for (const [name, command, args] of steps) {
	console.log(`\n=== ${name} ===`);
	const result = spawnSync(command, args, { cwd: ROOT, stdio: "inherit", env: { ...process.env, TZ: "UTC" } });
	if (result.status !== 0) failed.push(name);
}
console.log(failed.length === 0 ? "\nAll test layers passed." : `\nFailed: ${failed.join(", ")}`);
process.exitCode = failed.length === 0 ? 0 : 1;
