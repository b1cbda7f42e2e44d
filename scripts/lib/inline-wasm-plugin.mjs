// esbuild plugin: `import load from "inline-wasm:<path>"` embeds a .wasm file, gzip-compressed,
// as base85 text in the bundle (the worker inflates it with the platform's DecompressionStream).

import fs from "node:fs/promises";
import path from "node:path";
import zopfli from "@gfx/zopfli";
import { encodeBase85 } from "./base85.mjs";
import { ROOT } from "./run.mjs";

const PREFIX = "inline-wasm:";
const DECODER = path.join(ROOT, "plugin", "worker", "base85.ts");

/**
 * The gzip the build embeds, by Zopfli (Google's exhaustive deflate, compiled to WebAssembly in
 * @gfx/zopfli): about 5% smaller than zlib's level 9, and the same bytes on every machine. Not
 * node:zlib: Node's zlib is Chromium's fork, whose output changes with the Node version, and its
 * header names the OS it ran on (nodejs/node#48690), so main.js would differ between two machines.
 * Zopfli in C can differ between compilers (google/zopfli#20, floating point); one WebAssembly
 * binary runs the same everywhere. Its header has no file time and a fixed OS byte. Five
 * iterations: fifteen win 0.01% for a third more time (measured on both modules).
 */
export function compressWasm(bytes) {
	return zopfli.gzipAsync(bytes, { numiterations: 5 });
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
				const bytes = await compressWasm(await fs.readFile(args.path));
				const contents = [
					`import { decodeBase85 } from ${JSON.stringify(DECODER)};`,
					`const BASE85 = ${JSON.stringify(encodeBase85(bytes))};`,
					"export default function loadWasmBytes() { return decodeBase85(BASE85); }",
				].join("\n");
				return { contents, loader: "js", resolveDir: path.dirname(args.path), watchFiles: [args.path] };
			});
		},
	};
}
