// `npm run extract-wasm [-- main.js] [--out DIR]`: the WebAssembly modules inside main.js, taken
// out and named. main.js carries its Web Worker as a string, and the worker carries two modules
// as long strings of LZMA (scripts/lib/inline-wasm-plugin.mjs, plugin/worker/bytes-text.ts): the Rust core built from
// src/ and SQLite from the sql.js package. This prints each one's size and SHA-256 and says which
// file of this checkout it is byte for byte, so a reviewer can tell the strings are what the
// README says they are. With --out, writes them as .wasm files. It decodes with the plugin's own
// decoder (plugin/worker/lzma.ts, hence `node --import tsx`); `xz --format=lzma -d` decodes the
// same bytes for a check that does not trust it either.

import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { decodeBytesTextUnsized } from "./lib/bytes-text.mjs";
import { ROOT } from "./lib/run.mjs";
import { decodeLzma } from "../plugin/worker/lzma.ts";

/** The files a module in main.js should be: the core as `npm run build` leaves it, and sql.js's. */
export const KNOWN_MODULES = {
	"memory_agent_bg.wasm (the Rust core in src/, built by npm run build)": path.join(ROOT, "build", "pkg", "memory_agent_bg.wasm"),
	"sql-wasm-browser.wasm (SQLite, from the sql.js package in node_modules)": path.join(ROOT, "node_modules", "sql.js", "dist", "sql-wasm-browser.wasm"),
};

/** Shorter runs of text without quotes are ordinary code; the modules are hundreds of kilobytes. */
const MIN_RUN = 4096;
const WASM_MAGIC = [0x00, 0x61, 0x73, 0x6d];

/** Every WebAssembly module embedded in `source` (main.js's text), in the order they appear. */
export function embeddedModules(source) {
	// The embedded text never holds a quote, a backslash or a line break (bytes-text.ts): its
	// runs are the longest stretches without one.
	const runs = source.match(new RegExp(`[^"'\x60\\\\\\n\\r]{${MIN_RUN},}`, "g")) ?? [];
	const modules = [];
	for (const run of runs) {
		let wasm;
		try {
			wasm = Buffer.from(decodeLzma(decodeBytesTextUnsized(run)));
		} catch {
			continue;
		}
		if (WASM_MAGIC.every((byte, i) => wasm[i] === byte)) modules.push(wasm);
	}
	return modules;
}

const sha256 = (bytes) => crypto.createHash("sha256").update(bytes).digest("hex");

/** Which known file `wasm` is, or undefined. */
export function identify(wasm) {
	for (const [name, file] of Object.entries(KNOWN_MODULES)) {
		if (fs.existsSync(file) && fs.readFileSync(file).equals(wasm)) return name;
	}
	return undefined;
}

function main() {
	const args = process.argv.slice(2);
	const outAt = args.indexOf("--out");
	const out = outAt >= 0 ? args.splice(outAt, 2)[1] : undefined;
	const mainJs = args[0] ?? path.join(ROOT, "main.js");
	const modules = embeddedModules(fs.readFileSync(mainJs, "utf8"));
	if (modules.length === 0) throw new Error(`${mainJs} holds no embedded WebAssembly`);
	if (out) fs.mkdirSync(out, { recursive: true });
	modules.forEach((wasm, index) => {
		const name = identify(wasm);
		console.log(`module ${index + 1}: ${wasm.length} bytes, sha256 ${sha256(wasm)}\n  ${name ? `= ${name}` : "matches no file of this checkout (build it, or another version built it)"}`);
		if (out) fs.writeFileSync(path.join(out, `module-${index + 1}.wasm`), wasm);
	});
}

if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(new URL(import.meta.url).pathname)) {
	try {
		main();
	} catch (error) {
		console.error(`extract-wasm: ${error instanceof Error ? error.message : String(error)}`);
		process.exitCode = 1;
	}
}
