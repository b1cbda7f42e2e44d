// Instantiates the inlined WebAssembly core and sql.js, and wraps them in MemoryCoreApi.

import initCore, { MemoryCore, bedrockRegions, defaultModelId, supportedSchemaVersion } from "../../build/pkg/memory_agent.js";
import initSqlJs from "sql.js";
import loadCoreWasm from "inline-wasm:../../build/pkg/memory_agent_bg.wasm";
import loadSqlWasm from "inline-wasm:sql.js/dist/sql-wasm-browser.wasm";
import type { MemoryCoreApi } from "./memory-core-api";

/**
 * Loads both WebAssembly modules from the bytes embedded in main.js. Nothing is fetched:
 * the glue is always handed bytes, so it never builds a URL from `import.meta.url`.
 */
export async function loadCore(): Promise<MemoryCoreApi> {
	await initCore({ module_or_path: loadCoreWasm() });
	const sqlWasm = loadSqlWasm();
	// The decoder returns a fresh array that owns its whole buffer, so the buffer is exact.
	const sqlJs = await initSqlJs({ wasmBinary: sqlWasm.buffer as ArrayBuffer });
	return {
		open: (bytes, nowMs) => MemoryCore.open(sqlJs, bytes, nowMs, randomSeed()),
		supportedSchemaVersion: () => supportedSchemaVersion(),
		bedrockRegions: () => bedrockRegions(),
		defaultModelId: () => defaultModelId(),
	};
}

/** The seed of the core's ids: random, from the platform's CSPRNG (the core has none). */
function randomSeed(): number {
	const words = new Uint32Array(2);
	crypto.getRandomValues(words);
	const [high = 0, low = 0] = words;
	// 53 random bits: a JS number holds them exactly.
	return high * 2 ** 21 + (low >>> 11);
}
