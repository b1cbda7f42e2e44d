// Bundles the plugin the way Obsidian loads it: main.js (CommonJS, obsidian external), with the
// core's Web Worker bundled on its own — both WebAssembly modules inlined in it — and embedded
// in main.js as a string (`inline-worker:`), started from a Blob URL at run time.

import { builtinModules } from "node:module";
import path from "node:path";
import esbuild from "esbuild";
import fs from "node:fs/promises";
import { fillEmbedded, inlineWasmPlugin } from "./inline-wasm-plugin.mjs";
import { ROOT } from "./run.mjs";

/** Modules Obsidian provides at run time (the same list as the official sample plugin). */
const EXTERNAL = [
	"obsidian",
	"electron",
	"@codemirror/*",
	"@lezer/*",
	...builtinModules,
	...builtinModules.map((name) => `node:${name}`),
];

const WORKER_PREFIX = "inline-worker:";

/** What both bundles share. */
function common(production) {
	return {
		absWorkingDir: ROOT,
		bundle: true,
		platform: "browser",
		target: "es2020",
		// The web-target glue only reads import.meta.url when given no bytes, which never happens.
		define: { "import.meta.url": JSON.stringify("app://memory-agent/worker.js") },
		logLevel: "warning",
		treeShaking: true,
		minify: production,
		legalComments: "eof",
		// The UI's own characters (’, —, …) as UTF-8, not \u escapes: six bytes each otherwise.
		charset: "utf8",
		metafile: true,
	};
}

/** The worker's script: an IIFE with no imports at all (it runs from a Blob URL). */
async function bundleWorker(entry, production) {
	const result = await esbuild.build({
		...common(production),
		entryPoints: [entry],
		format: "iife",
		write: false,
		outfile: "worker.js",
		plugins: [inlineWasmPlugin()],
		sourcemap: production ? false : "inline",
		sourcesContent: false,
	});
	if (result.warnings.length > 0) throw new Error(`esbuild reported ${result.warnings.length} warning(s) in the worker`);
	return { code: result.outputFiles[0].text, metafile: result.metafile };
}

/** esbuild plugin: `import source from "inline-worker:<entry>"` is the bundled worker script. */
function inlineWorkerPlugin(production, bundles) {
	return {
		name: "inline-worker",
		setup(build) {
			build.onResolve({ filter: /^inline-worker:/ }, (args) => ({
				path: path.resolve(args.resolveDir, args.path.slice(WORKER_PREFIX.length)),
				namespace: "inline-worker",
			}));
			build.onLoad({ filter: /.*/, namespace: "inline-worker" }, async (args) => {
				const worker = await bundleWorker(args.path, production);
				bundles.push(worker);
				return { contents: `export default ${JSON.stringify(worker.code)};`, loader: "js" };
			});
		},
	};
}

/**
 * Builds main.js; returns esbuild's metafiles (main's and the worker's) so callers can check
 * what went in, and the worker script's size.
 */
export async function bundlePlugin({ production = true, outfile = path.join(ROOT, "main.js") } = {}) {
	const workers = [];
	const result = await esbuild.build({
		...common(production),
		entryPoints: [path.join(ROOT, "plugin", "main.ts")],
		outfile,
		format: "cjs",
		external: EXTERNAL,
		// micromark's named references decoded lazily by DOMParser, not by an element of the
		// live document made at load (see plugin/views/named-character-reference.ts).
		alias: { "decode-named-character-reference": "./plugin/views/named-character-reference.ts" },
		plugins: [inlineWorkerPlugin(production, workers)],
		sourcemap: production ? false : "inline",
		sourcesContent: false,
	});
	if (result.warnings.length > 0) throw new Error(`esbuild reported ${result.warnings.length} warning(s)`);
	if (workers.length !== 1) throw new Error(`main.js embeds ${workers.length} worker scripts, expected 1`);
	await fs.writeFile(outfile, fillEmbedded(await fs.readFile(outfile, "utf8")));
	return { main: result.metafile, worker: workers[0].metafile, workerBytes: Buffer.byteLength(workers[0].code) };
}
