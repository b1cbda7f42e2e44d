// Bundles plugin/main.ts into main.js the way Obsidian loads plugins (CommonJS, obsidian external).

import { builtinModules } from "node:module";
import path from "node:path";
import esbuild from "esbuild";
import { inlineWasmPlugin } from "./inline-wasm-plugin.mjs";
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

/** Builds main.js; returns esbuild's metafile so callers can check what went in. */
export async function bundlePlugin({ production = true, outfile = path.join(ROOT, "main.js") } = {}) {
	const result = await esbuild.build({
		absWorkingDir: ROOT,
		entryPoints: [path.join(ROOT, "plugin", "main.ts")],
		outfile,
		bundle: true,
		format: "cjs",
		platform: "browser",
		target: "es2020",
		external: EXTERNAL,
		plugins: [inlineWasmPlugin()],
		// The web-target glue only reads import.meta.url when given no bytes, which never happens.
		define: { "import.meta.url": JSON.stringify("app://memory-agent/main.js") },
		logLevel: "warning",
		sourcemap: production ? false : "inline",
		// The inlined .wasm modules would otherwise appear a second time in the source map.
		sourcesContent: false,
		treeShaking: true,
		minify: production,
		legalComments: "eof",
		metafile: true,
	});
	if (result.warnings.length > 0) throw new Error(`esbuild reported ${result.warnings.length} warning(s)`);
	return result.metafile;
}
