// esbuild plugin: `import load from "inline-wasm:<path>"` embeds a .wasm file, LZMA-compressed,
// as text in the bundle (plugin/worker/bytes-text.ts, then lzma.ts, decode it in the worker).

import fs from "node:fs/promises";
import path from "node:path";
import { encodeBytesText } from "./bytes-text.mjs";
import { crc32 } from "./crc32.mjs";
import { ROOT, run } from "./run.mjs";

const PREFIX = "inline-wasm:";
const DECODER = path.join(ROOT, "plugin", "worker", "bytes-text.ts");
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
 * against 1,131 KB with Zopfli's gzip (−18%; −260 KB of main.js), for about 90 ms
 * more decoding at start-up (README, "What is inside main.js").
 */
export async function compressWasm(file) {
	ensurePacker();
	const out = path.join(PACKER_TARGET, `${path.basename(file)}.lzma`);
	run(PACKER, [file, out]);
	return fs.readFile(out);
}

/**
 * The modules' text goes into main.js after esbuild (`fillEmbedded`): esbuild prints control
 * characters in a string as escapes (`\x01`: four bytes, eight once the worker script is itself
 * a string in main.js), and the text's whole point is that they stay one byte each. Each module
 * is a placeholder until then, one that no escaping changes.
 */
const embedded = new Map();

function embedLater(text) {
	const placeholder = `__memory_agent_embedded_${embedded.size}__`;
	embedded.set(placeholder, text);
	return placeholder;
}

/**
 * Puts each module's text in place of its placeholder in main.js's `code` (each exactly once;
 * the text holds no quote, backslash, `$`, `<` or line break, so it is the same string
 * wherever it lands: inside the worker script's literal inside main.js's).
 */
export function fillEmbedded(code) {
	let filled = code;
	for (const [placeholder, text] of embedded) {
		const at = filled.indexOf(placeholder);
		if (at < 0 || filled.indexOf(placeholder, at + 1) >= 0) throw new Error(`main.js does not hold ${placeholder} exactly once`);
		filled = filled.slice(0, at) + text + filled.slice(at + placeholder.length);
	}
	embedded.clear();
	return filled;
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
					`import { decodeBytesText } from ${JSON.stringify(DECODER)};`,
					`import { decodeChecked } from ${JSON.stringify(LZMA_DECODER)};`,
					`const TEXT = ${JSON.stringify(embedLater(encodeBytesText(bytes)))};`,
					`export default function loadWasmBytes() { return decodeChecked(decodeBytesText(TEXT, ${bytes.length}), ${checksum}); }`,
				].join("\n");
				return { contents, loader: "js", resolveDir: path.dirname(args.path), watchFiles: [args.path] };
			});
		},
	};
}
