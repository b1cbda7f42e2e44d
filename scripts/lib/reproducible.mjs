// What makes `npm run build` give the same main.js on any machine and in any folder (README,
// "Reproducible builds"): rustc told to write the build machine's folders as fixed names, and a
// check that none is left in what ships.

import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { ROOT } from "./run.mjs";

/** Cargo's home (registry sources and git checkouts live under it). */
export function cargoHome() {
	return path.resolve(process.env.CARGO_HOME ?? path.join(os.homedir(), ".cargo"));
}

/**
 * The folders a build on this machine would write into the WebAssembly (panic locations of the
 * crates, `file!()`), each with the fixed name it is written as instead. rustc applies the last
 * mapping that matches, so the more specific folders come last.
 * https://doc.rust-lang.org/rustc/command-line-arguments.html#--remap-path-prefix
 */
export function pathRemaps(targetDir = path.join(ROOT, "target")) {
	const remaps = [
		[ROOT, "/memory-agent"],
		[cargoHome(), "/cargo"],
		// The registry's sources as `/crates/serde_json-1.0.154/…`: the folder's name hashes the
		// index's URL as this version of cargo does, and it was written into every panic location
		// of every crate (0.2 KB of main.js).
		...registrySources().map((folder) => [folder, "/crates"]),
	];
	const target = path.resolve(targetDir);
	if (!isInside(target, ROOT)) remaps.push([target, "/memory-agent/target"]);
	return remaps;
}

/** The folders cargo unpacks registries' crates into (`registry/src/index.crates.io-…`). */
function registrySources() {
	const sources = path.join(cargoHome(), "registry", "src");
	if (!fs.existsSync(sources)) return [];
	return fs.readdirSync(sources).map((name) => path.join(sources, name));
}

function isInside(child, parent) {
	const relative = path.relative(parent, child);
	return relative === "" || (!relative.startsWith("..") && !path.isAbsolute(relative));
}

/**
 * The rustflags of the WebAssembly build, as `CARGO_ENCODED_RUSTFLAGS` (0x1f-separated, so a
 * folder with spaces stays one argument). It takes precedence over `RUSTFLAGS` and
 * `.cargo/config.toml`, so what a user set elsewhere cannot change what ships.
 * https://doc.rust-lang.org/cargo/reference/environment-variables.html#environment-variables-cargo-reads
 */
export function reproducibleRustflags(targetDir) {
	return pathRemaps(targetDir)
		.map(([from, to]) => `--remap-path-prefix=${from}=${to}`)
		.join("\x1f");
}

/** The machine's folders a shipped file must not contain: this checkout, Cargo's home, the user's home. */
export function machinePaths() {
	const home = path.resolve(os.homedir());
	const paths = [ROOT, cargoHome(), ...(home === path.parse(home).root ? [] : [home])];
	// Also as written on Windows with forward slashes, and as a file URL.
	return [...new Set(paths.flatMap((folder) => [folder, folder.replaceAll("\\", "/")]))].filter((folder) => folder.length > 1);
}

/** Every machine folder found in `bytes` (a .wasm or main.js), with how often. */
export function machinePathsIn(bytes) {
	const text = Buffer.from(bytes).toString("latin1");
	return machinePaths()
		.map((folder) => ({ folder, count: text.split(folder).length - 1 }))
		.filter(({ count }) => count > 0);
}

/** Throws when `bytes` name a folder of this machine: a rebuild elsewhere would differ. */
export function assertNoMachinePaths(name, bytes) {
	const found = machinePathsIn(bytes);
	if (found.length > 0) {
		const list = found.map(({ folder, count }) => `${folder} (${count}×)`).join(", ");
		throw new Error(`${name} contains this machine's folders: ${list}. A build elsewhere would differ (see scripts/lib/reproducible.mjs).`);
	}
}
