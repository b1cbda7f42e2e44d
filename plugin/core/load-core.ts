// Instantiates the inlined WebAssembly core and sql.js, and wraps them in MemoryCoreApi.

import initCore, { MemoryCore, supportedSchemaVersion } from "../../build/pkg/memory_agent.js";
import initSqlJs from "sql.js";
import loadCoreWasm from "inline-wasm:../../build/pkg/memory_agent_bg.wasm";
import loadSqlWasm from "inline-wasm:sql.js/dist/sql-wasm-browser.wasm";
import type { MemoryCoreApi, MemoryStore, StoreStatus } from "./memory-core-api";

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
		open: (bytes, nowMs) => wrapStore(MemoryCore.open(sqlJs, bytes, nowMs, randomSeed())),
		supportedSchemaVersion: () => supportedSchemaVersion(),
	};
}

/** The seed the core makes its ids from; the core itself has no source of randomness. */
function randomSeed(): number {
	return crypto.getRandomValues(new Uint32Array(1))[0] ?? 0;
}

function wrapStore(core: MemoryCore): MemoryStore {
	return {
		status: () => toStatus(core.status()),
		isDirty: () => core.isDirty(),
		exportBytes: () => core.exportBytes(),
		free: () => core.free(),
	};
}

/** Copies the facade's status object field by field, so a missing field shows as 0, not undefined. */
function toStatus(raw: unknown): StoreStatus {
	const read = (key: keyof StoreStatus): number => {
		const value = typeof raw === "object" && raw !== null ? (raw as Record<string, unknown>)[key] : undefined;
		return typeof value === "number" ? value : 0;
	};
	return {
		memories: read("memories"),
		insights: read("insights"),
		queued: read("queued"),
		running: read("running"),
		failed: read("failed"),
		schemaVersion: read("schemaVersion"),
	};
}
