// `npm run build`: Rust → WebAssembly → type-check → main.js with the core's worker inlined (both
// .wasm files inside it, gzip-compressed). What ships, and nothing else.
//
// Flags: --skip-wasm (reuse build/pkg), --dev (no minification, inline source map),
// --wasm-opt=Os|Oz|O3|none (or env MEMORY_AGENT_WASM_OPT): binaryen's wasm-opt on our .wasm.
// The default, Oz with Cargo's opt-level "z", was chosen by `npm run measure:wasm` (README).
//
// --self-check (`npm run build:self-check`, a layer of `npm test`): only the test build of the
// core (build/pkg-self-check, the store contract suite inside), and from it the settings schema
// written for the plugin (plugin/generated/settings-schema.ts, committed; a test fails while it
// is stale).

import fs from "node:fs";
import path from "node:path";
import { bundlePlugin } from "./lib/bundle.mjs";
import { assertNoMachinePaths } from "./lib/reproducible.mjs";
import { ROOT, runNodeScript } from "./lib/run.mjs";
import { writeSettingsSchema } from "./lib/settings-schema.mjs";
import { fileSizes, formatBytes } from "./lib/sizes.mjs";
import {
	cargoBuildWasm,
	ensureWasmBindgen,
	ensureWasmTarget,
	runWasmBindgen,
	runWasmOpt,
} from "./lib/wasm-toolchain.mjs";

const PKG_DIR = path.join(ROOT, "build", "pkg");
/** The test build: the same crate with the store contract suite inside (`storeSelfCheck`). */
const SELF_CHECK_DIR = path.join(ROOT, "build", "pkg-self-check");
const CORE_WASM = path.join(PKG_DIR, "memory_agent_bg.wasm");
const SQL_WASM = path.join(ROOT, "node_modules", "sql.js", "dist", "sql-wasm-browser.wasm");
const MAIN_JS = path.join(ROOT, "main.js");
const DEFAULT_WASM_OPT = "Oz";

function option(name) {
	const prefix = `--${name}=`;
	return process.argv.slice(2).find((arg) => arg.startsWith(prefix))?.slice(prefix.length);
}
const flag = (name) => process.argv.slice(2).includes(`--${name}`);

function buildWasm() {
	ensureWasmTarget();
	const version = ensureWasmBindgen();
	console.log(`wasm-bindgen ${version} (matches Cargo.lock)`);
	const wasm = cargoBuildWasm();
	runWasmBindgen(wasm, PKG_DIR);
	const level = option("wasm-opt") ?? process.env.MEMORY_AGENT_WASM_OPT ?? DEFAULT_WASM_OPT;
	if (level !== "none") runWasmOpt(CORE_WASM, level);
}

/**
 * The contract suite's build for tests/wasm: it checks what the SQL does, not how fast, so it
 * is compiled quickly (no LTO, little optimisation) in a target folder of its own.
 */
function buildSelfCheck() {
	ensureWasmTarget();
	ensureWasmBindgen();
	const wasm = cargoBuildWasm({
		features: ["self-check"],
		targetDir: path.join(ROOT, "target", "self-check"),
		env: { CARGO_PROFILE_RELEASE_LTO: "false", CARGO_PROFILE_RELEASE_OPT_LEVEL: "1", CARGO_PROFILE_RELEASE_CODEGEN_UNITS: "16" },
	});
	runWasmBindgen(wasm, SELF_CHECK_DIR);
}

function typeCheck() {
	runNodeScript("node_modules/typescript/bin/tsc", ["--noEmit", "-p", "tsconfig.json"]);
	runNodeScript("node_modules/typescript/bin/tsc", ["--noEmit", "-p", "tests/tsconfig.json"]);
}

/**
 * The worker must use sql.js's browser build, which has no Node code paths at all, and
 * main.js (the main thread) must hold no WebAssembly and no sql.js of its own.
 */
function checkInputs({ main, worker }) {
	const workerInputs = Object.keys(worker.inputs);
	if (!workerInputs.some((input) => input.endsWith("sql.js/dist/sql-wasm-browser.js"))) {
		throw new Error("the worker does not contain sql.js's browser build");
	}
	if (workerInputs.some((input) => input.endsWith("sql.js/dist/sql-wasm.js"))) throw new Error("the worker contains sql.js's Node build");
	const mainOnly = Object.keys(main.inputs).filter((input) => input.includes("sql.js/") || input.includes("memory_agent"));
	if (mainOnly.length > 0) throw new Error(`main.js loads the core on the main thread: ${mainOnly.join(", ")}`);
}

function printSizes(workerBytes) {
	const main = fileSizes(MAIN_JS);
	const core = fileSizes(CORE_WASM);
	const sql = fileSizes(SQL_WASM);
	console.log("\nSizes:");
	console.log(`  main.js                ${main.raw} bytes (${formatBytes(main.raw)}, gzip ${formatBytes(main.gzip)})`);
	console.log(`    of which the worker  ${workerBytes} bytes (${formatBytes(workerBytes)}) of script, besides both .wasm (LZMA as text)`);
	console.log(`  memory_agent_bg.wasm   ${core.raw} bytes (${formatBytes(core.raw)}), gzip ${core.gzip} bytes (${formatBytes(core.gzip)})`);
	console.log(`  sql-wasm.wasm          ${sql.raw} bytes (${formatBytes(sql.raw)}), gzip ${sql.gzip} bytes (${formatBytes(sql.gzip)})`);
}

async function main() {
	if (flag("self-check")) {
		buildSelfCheck();
		// The plugin imports the core's settings schema; the test build exports it (see src/wasm).
		if (await writeSettingsSchema(SELF_CHECK_DIR)) console.log("plugin/generated/settings-schema.ts updated from src/settings_schema.rs");
		return;
	}
	if (flag("skip-wasm")) {
		if (!fs.existsSync(CORE_WASM)) throw new Error("build/pkg is missing: run `npm run build` without --skip-wasm");
	} else {
		buildWasm();
	}
	typeCheck();
	const bundled = await bundlePlugin({ production: !flag("dev") });
	checkInputs(bundled);
	// What ships must not name this machine's folders, or a rebuild elsewhere differs (README,
	// "Reproducible builds"); dev builds carry a source map full of them.
	assertNoMachinePaths("build/pkg/memory_agent_bg.wasm", fs.readFileSync(CORE_WASM));
	if (!flag("dev")) assertNoMachinePaths("main.js", fs.readFileSync(MAIN_JS));
	printSizes(bundled.workerBytes);
}

main().catch((error) => {
	console.error(`\nBuild failed: ${error instanceof Error ? error.message : String(error)}`);
	process.exitCode = 1;
});
