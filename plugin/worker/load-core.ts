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
	// The engine compiles the core on its own threads while this one decodes sql.js's module.
	const coreReady = initCore({ module_or_path: loadCoreWasm() });
	const sqlWasm = loadSqlWasm();
	// The decoded array owns its whole buffer, so the buffer is exactly the module.
	const [, sqlJs] = await Promise.all([coreReady, initSqlJs({ wasmBinary: sqlWasm.buffer as ArrayBuffer })]);
	return { core, sqlJs };
}
