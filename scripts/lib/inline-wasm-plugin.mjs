// esbuild plugin: `import load from "inline-wasm:<path>"` embeds a .wasm file, LZMA-compressed,
// as base85 text in the bundle (the worker decodes it with plugin/worker/lzma.ts).

import fs from "node:fs/promises";
import path from "node:path";
import { encodeBase85 } from "./base85.mjs";
import { crc32 } from "./crc32.mjs";
import { ROOT, run } from "./run.mjs";

const PREFIX = "inline-wasm:";
const DECODER = path.join(ROOT, "plugin", "worker", "base85.ts");
const LZMA_DECODER = path.join(ROOT, "plugin", "worker", "lzma.ts");
const PACKER_MANIFEST = path.join(ROOT, "tools", "pack-wasm", "Cargo.toml");
const PACKER_TARGET = path.join(ROOT, "target", "pack-wasm");
const PACKER = path.join(PACKER_TARGET, "release", process.platform === "win32" ? "pack-wasm.exe" : "pack-wasm");

/** Builds the packer once per build (cargo does nothing when it is up to date). */
let packerBuilt = false;
function ensurePacker() {
	if (packerBuilt) return;
	run("cargo", ["build", "--release", "--locked", "--quiet", "--manifest-path", PACKER_MANIFEST, "--target-dir", PACKER_TARGET]);
	packerBuilt = true;
}

/**
 * The `.lzma` file the build embeds, written by `tools/pack-wasm` (LZMA in pure Rust, integer
 * arithmetic only: the same bytes on every machine). LZMA, not gzip: 925 KB for both modules
 * against 1,131 KB with Zopfli's gzip (−18%; −260 KB of main.js after base85), for about 90 ms
 * more decoding at start-up (README, "What is inside main.js").
 */
export async function compressWasm(file) {
	ensurePacker();
	const out = path.join(PACKER_TARGET, `${path.basename(file)}.lzma`);
	run(PACKER, [file, out]);
	return fs.readFile(out);
}

/**
 * The imported module's default export is a function that decodes the embedded bytes when
 * called, so nothing is decoded until the core starts, and each caller gets its own copy.
 * Paths are relative to the importing file, or a package path such as `sql.js/dist/x.wasm`.
 */
export function inlineWasmPlugin() {
	return {
		name: "inline-wasm",
		setup(build) {
			build.onResolve({ filter: /^inline-wasm:/ }, async (args) => {
				const spec = args.path.slice(PREFIX.length);
				let resolved;
				if (spec.startsWith(".") || path.isAbsolute(spec)) {
					resolved = path.resolve(args.resolveDir, spec);
				} else {
					const result = await build.resolve(spec, { resolveDir: args.resolveDir, kind: "import-statement" });
					if (result.errors.length > 0) return { errors: result.errors };
					resolved = result.path;
				}
				return { path: resolved, namespace: "inline-wasm" };
			});
			build.onLoad({ filter: /.*/, namespace: "inline-wasm" }, async (args) => {
				const bytes = await compressWasm(args.path);
				const checksum = crc32(await fs.readFile(args.path));
				const contents = [
					`import { decodeBase85 } from ${JSON.stringify(DECODER)};`,
					`import { decodeChecked } from ${JSON.stringify(LZMA_DECODER)};`,
					`const BASE85 = ${JSON.stringify(encodeBase85(bytes))};`,
					`export default function loadWasmBytes() { return decodeChecked(decodeBase85(BASE85), ${checksum}); }`,
				].join("\n");
				return { contents, loader: "js", resolveDir: path.dirname(args.path), watchFiles: [args.path] };
			});
		},
	};
}
