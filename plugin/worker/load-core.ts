// Instantiates the core's WebAssembly and sql.js's from the LZMA-compressed bytes inlined in
// main.js, inside the worker. Nothing is fetched: the glue is always handed bytes.

import initCore, * as core from "../../build/pkg/memory_agent.js";
import initSqlJs, { type SqlJsStatic } from "sql.js";
import loadCoreWasm from "inline-wasm:../../build/pkg/memory_agent_bg.wasm";
import loadSqlWasm from "inline-wasm:sql.js/dist/sql-wasm-browser.wasm";

/** Both modules, ready. */
export interface LoadedCore {
	core: typeof core;
	sqlJs: SqlJsStatic;
}

export async function loadCore(): Promise<LoadedCore> {
	// The engine compiles the core on its own threads while this one decodes sql.js's module
	// (the async function runs up to its first await at once; a decoding error rejects it).
	const coreReady = initCore({ module_or_path: loadCoreWasm() });
	const sqlReady = (async () => {
		// The decoded array owns its whole buffer, so the buffer is exactly the module.
		return initSqlJs({ wasmBinary: loadSqlWasm().buffer as ArrayBuffer });
	})();
	const [, sqlJs] = await Promise.all([coreReady, sqlReady]);
	return { core, sqlJs };
}
