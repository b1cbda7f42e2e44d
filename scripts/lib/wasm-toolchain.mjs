// Builds the Rust crate to WebAssembly and runs wasm-bindgen, checking the toolchain first.

import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { reproducibleRustflags } from "./reproducible.mjs";
import { ROOT, capture, run, runNodeScript } from "./run.mjs";

export const WASM_TARGET = "wasm32-unknown-unknown";
export const CRATE_WASM_NAME = "memory_agent.wasm";

/** Features rustc enables by default for wasm32-unknown-unknown; wasm-opt must accept them. */
export const WASM_OPT_FEATURES = [
	"--enable-bulk-memory",
	"--enable-nontrapping-float-to-int",
	"--enable-sign-ext",
	"--enable-mutable-globals",
	"--enable-reference-types",
	"--enable-multivalue",
];

/** Adds the WebAssembly target when rustup does not have it yet. */
export function ensureWasmTarget() {
	const installed = capture("rustup", ["target", "list", "--installed"]);
	if (installed === undefined) {
		console.log("rustup not found; assuming the toolchain has the wasm32 target");
		return;
	}
	if (!installed.split(/\r?\n/).includes(WASM_TARGET)) run("rustup", ["target", "add", WASM_TARGET]);
}

/** The wasm-bindgen version pinned in Cargo.lock (generating the lock file when missing). */
export function lockedWasmBindgenVersion() {
	const lockPath = path.join(ROOT, "Cargo.lock");
	if (!fs.existsSync(lockPath)) run("cargo", ["generate-lockfile"]);
	const lock = fs.readFileSync(lockPath, "utf8");
	const match = /\[\[package\]\]\s*\nname = "wasm-bindgen"\s*\nversion = "([^"]+)"/.exec(lock);
	if (!match) throw new Error("Cargo.lock has no wasm-bindgen package");
	return match[1];
}

/** Path of the wasm-bindgen CLI: cargo's bin folder first, then PATH. */
export function wasmBindgenCommand() {
	const cargoHome = process.env.CARGO_HOME ?? path.join(os.homedir(), ".cargo");
	const exe = process.platform === "win32" ? "wasm-bindgen.exe" : "wasm-bindgen";
	const local = path.join(cargoHome, "bin", exe);
	return fs.existsSync(local) ? local : "wasm-bindgen";
}

/** Installs the wasm-bindgen CLI matching Cargo.lock when the installed one differs or is missing. */
export function ensureWasmBindgen() {
	const wanted = lockedWasmBindgenVersion();
	const output = capture(wasmBindgenCommand(), ["--version"]);
	const installed = output?.trim().split(/\s+/)[1];
	if (installed === wanted) return wanted;
	console.log(`wasm-bindgen ${installed ?? "(missing)"} does not match Cargo.lock's ${wanted}; installing`);
	// Not --locked: the CLI's own lock file pins crates this registry mirror does not serve.
	// Without its default TLS (rustls and ring: only its test runner downloads anything) and
	// quickly optimised: the CLI's output does not depend on how it was compiled, and its
	// compile was most of a fresh machine's setup (issue 38).
	run("cargo", ["install", "wasm-bindgen-cli", "--version", wanted, "--no-default-features"], {
		env: { ...process.env, CARGO_PROFILE_RELEASE_LTO: "false", CARGO_PROFILE_RELEASE_OPT_LEVEL: "1", CARGO_PROFILE_RELEASE_CODEGEN_UNITS: "16" },
	});
	return wanted;
}

/**
 * `cargo build --release --locked` for the wasm target, with the machine's folders remapped
 * (`reproducible.mjs`). `env` can override cargo settings (e.g. CARGO_PROFILE_RELEASE_OPT_LEVEL);
 * `targetDir` keeps differently optimised builds apart.
 */
export function cargoBuildWasm({ env = {}, targetDir, features = [] } = {}) {
	const target = targetDir ?? process.env.CARGO_TARGET_DIR ?? path.join(ROOT, "target");
	const args = ["build", "--release", "--locked", "--target", WASM_TARGET, "--lib", "--target-dir", target];
	if (features.length > 0) args.push("--features", features.join(","));
	run("cargo", args, { env: { ...process.env, CARGO_ENCODED_RUSTFLAGS: reproducibleRustflags(target), ...env } });
	return path.join(target, WASM_TARGET, "release", CRATE_WASM_NAME);
}

/** Generates the JS glue and the final .wasm into `outDir` (web target, loaded from bytes). */
export function runWasmBindgen(wasmPath, outDir) {
	fs.rmSync(outDir, { recursive: true, force: true });
	run(wasmBindgenCommand(), ["--target", "web", "--out-dir", outDir, wasmPath]);
	return path.join(outDir, "memory_agent_bg.wasm");
}

/**
 * Optimises a .wasm in place with binaryen's wasm-opt (`level` like "Os", "Oz", "O3"), its passes
 * repeated until they change nothing (`--converge`): 2 KB less of main.js at -Oz for about 20 s
 * more of build. The toolchain's own notes (which compilers made it, which features it uses:
 * read by wasm-bindgen, which has run by now) are left out: 0.2 KB of main.js.
 */
export function runWasmOpt(wasmPath, level) {
	if (!/^O[0-4sz]$/.test(level)) throw new Error(`unknown wasm-opt level ${level}`);
	const strip = ["--strip-producers", "--strip-target-features"];
	const args = [`-${level}`, "--converge", ...strip, ...WASM_OPT_FEATURES, wasmPath, "-o", wasmPath];
	runNodeScript("node_modules/binaryen/bin/wasm-opt", args);
}
