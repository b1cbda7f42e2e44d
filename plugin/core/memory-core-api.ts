// The typed surface of the WebAssembly core that the rest of the plugin programs against.

/** Counts shown to the user; mirrors the facade's `MemoryCore.status()`. */
export interface StoreStatus {
	memories: number;
	insights: number;
	queued: number;
	running: number;
	failed: number;
	schemaVersion: number;
}

/** One open store (a database held in memory by sql.js inside the core). */
export interface MemoryStore {
	status(): StoreStatus;
	/** True when the store changed since it was opened or last exported. */
	isDirty(): boolean;
	/** The whole database file; clears the dirty flag. */
	exportBytes(): Uint8Array;
	/** Releases the WebAssembly memory; the store is unusable afterwards. */
	free(): void;
}

/** The loaded core: opens stores from database bytes. */
export interface MemoryCoreApi {
	/** Opens a store from a database file's bytes; undefined means a new, empty store. */
	open(bytes: Uint8Array | undefined, nowMs: number): MemoryStore;
	/** The schema version this build writes. */
	supportedSchemaVersion(): number;
}
