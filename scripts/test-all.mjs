// `npm test`: every test of the project, in layers — the Rust core natively and its lint, then a fresh
// build, then the TypeScript suites against it, then the project's lint and the Obsidian
// review's lint (its published config, unmodified, no warning allowed).

import { spawnSync } from "node:child_process";
import { ROOT } from "./lib/run.mjs";

const steps = [
	// With the `cli` feature: the native command's modules are tested too, and its binary is
	// built for the TypeScript suites that run it against the plugin's database.
	["Rust core (cargo test)", "cargo", ["test", "--quiet", "--workspace", "--features", "cli,bench"]],
	// Clippy holds what review alone would not: `clippy.toml` forbids the clock calls that panic in
	// WebAssembly, and every warning fails the run.
	["Rust lint (cargo clippy --all-targets --all-features -D warnings)", "cargo", ["clippy", "--quiet", "--workspace", "--all-targets", "--all-features", "--", "-D", "warnings"]],
	// The facade (`src/wasm/`) exists only for WebAssembly: lint it there too.
	["Rust lint of the WebAssembly build (cargo clippy --target wasm32-unknown-unknown)", "cargo", ["clippy", "--quiet", "--workspace", "--target", "wasm32-unknown-unknown", "--lib", "--", "-D", "warnings"]],
	// The build's packer (tools/pack-wasm, its own crate and lock file).
	["Rust lint of the build's packer (tools/pack-wasm)", "cargo", ["clippy", "--quiet", "--locked", "--manifest-path", "tools/pack-wasm/Cargo.toml", "--target-dir", "target/pack-wasm", "--", "-D", "warnings"]],
	["The memory-agent command (cargo build)", "cargo", ["build", "--quiet", "--features", "cli", "--bin", "memory-agent"]],
	["Build (WebAssembly + main.js)", process.execPath, ["scripts/build.mjs"]],
	// The core's test build (the store contract suite inside) for the suites under tests/wasm.
	["Test build of the core (self-check)", process.execPath, ["scripts/build.mjs", "--self-check"]],
	["TypeScript suites (node --test)", process.execPath, ["scripts/run-ts-tests.mjs"]],
	["Lint (the project's rules: Obsidian's recommended ones and the layering)", process.execPath, ["node_modules/eslint/bin/eslint.js", "--max-warnings", "0", "plugin"]],
	[
		"Obsidian review lint (eslint-plugin-obsidianmd's recommended config as published, warnings included)",
		process.execPath,
		["node_modules/eslint/bin/eslint.js", "-c", "eslint.review.config.mjs", "--max-warnings", "0", "plugin", "manifest.json"],
	],
];

const failed = [];
const times = [];
for (const [name, command, args] of steps) {
	console.log(`\n=== ${name} ===`);
	const started = performance.now();
	const result = spawnSync(command, args, { cwd: ROOT, stdio: "inherit", env: { ...process.env, TZ: "UTC" } });
	times.push([name, (performance.now() - started) / 1000]);
	if (result.status !== 0) failed.push(name);
}
// Each layer's time, for the README's table and the CI's limit.
console.log("\nLayer times:");
for (const [name, seconds] of times) console.log(`  ${`${Math.floor(seconds / 60)} min ${String(Math.round(seconds % 60)).padStart(2, "0")} s`.padStart(12)}  ${name}`);
const total = times.reduce((sum, [, seconds]) => sum + seconds, 0);
console.log(`  ${`${Math.floor(total / 60)} min ${String(Math.round(total % 60)).padStart(2, "0")} s`.padStart(12)}  in all`);
console.log(failed.length === 0 ? "\nAll test layers passed." : `\nFailed: ${failed.join(", ")}`);
process.exitCode = failed.length === 0 ? 0 : 1;
