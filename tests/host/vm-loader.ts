// Evaluates a built main.js in a fresh node:vm realm that looks like a browser (no Node globals).

import vm from "node:vm";

export interface LoadedMain {
	/** The plugin class (main.js's default export). */
	PluginClass: new (...args: never[]) => unknown;
	context: vm.Context;
	/** Constructors of the plugin's realm, for converting values at the boundary. */
	realm: { ArrayBuffer: ArrayBufferConstructor; Uint8Array: Uint8ArrayConstructor };
}

/**
 * Runs `code` the way Obsidian does: wrapped in a function that receives `require`, `module`
 * and `exports`. `globals` become the realm's global object (and `window`/`self` point to it).
 * Nothing from Node is reachable unless a global hands it in.
 */
export function loadMainJs(
	code: string,
	globals: Record<string, unknown>,
	requireModule: (id: string) => unknown,
	filename = "main.js",
	/** Run in the realm before main.js (the host's virtual clock). */
	prelude = "",
): LoadedMain {
	const context = vm.createContext({ ...globals }, { name: filename, codeGeneration: { strings: false, wasm: false } });
	vm.runInContext("globalThis.window = globalThis; globalThis.self = globalThis;", context);
	if (prelude !== "") vm.runInContext(prelude, context);
	const wrapper = vm.runInContext(`(function (require, module, exports) {${code}\n})`, context, { filename }) as (
		require: (id: string) => unknown,
		module: { exports: Record<string, unknown> },
		exports: Record<string, unknown>,
	) => void;
	const module = vm.runInContext("({ exports: {} })", context) as { exports: Record<string, unknown> };
	wrapper(
		(id) => {
			const found = requireModule(id);
			if (found === undefined) throw new Error(`Cannot find module '${id}' (the plugin may only require obsidian)`);
			return found;
		},
		module,
		module.exports,
	);
	const exported = (module.exports.default ?? module.exports) as LoadedMain["PluginClass"];
	if (typeof exported !== "function") throw new Error(`${filename} does not export a plugin class`);
	return {
		PluginClass: exported,
		context,
		realm: vm.runInContext("({ ArrayBuffer, Uint8Array })", context) as LoadedMain["realm"],
	};
}
