// Instantiates the core's WebAssembly and sql.js's from the gzip-compressed bytes inlined in
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
	const [coreWasm, sqlWasm] = await Promise.all([inflate(loadCoreWasm()), inflate(loadSqlWasm())]);
	await initCore({ module_or_path: coreWasm });
	// The inflated array owns its whole buffer, so the buffer is exactly the module.
	const sqlJs = await initSqlJs({ wasmBinary: sqlWasm.buffer as ArrayBuffer });
	return { core, sqlJs };
}

/** gzip → bytes with the platform's own decompressor (browsers, WebViews and Node have it). */
async function inflate(compressed: Uint8Array): Promise<Uint8Array> {
	const stream = new Blob([compressed as BlobPart]).stream().pipeThrough(new DecompressionStream("gzip"));
	return new Uint8Array(await new Response(stream).arrayBuffer());
}
