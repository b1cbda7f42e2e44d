// The typed surface of the WebAssembly core that the rest of the plugin programs against.

import type { CoreStatus, MemoryCore } from "../../build/pkg/memory_agent.js";

export type {
	Citation,
	ConnectionCheck,
	ConnectionSettings,
	CoreHost,
	CoreSettings,
	Insight,
	Job,
	Memory,
	Progress,
	QueryAnswer,
	Removal,
	RunReport,
	Source,
	TextToRemember,
	UsageReport,
	VaultFileData,
} from "../../build/pkg/memory_agent.js";

/** Counts and engine state; mirrors the facade's `MemoryCore.status()`. */
export type StoreStatus = CoreStatus;

/** One open store and its engine: the facade's `MemoryCore` (generated declarations). */
export type MemoryStore = MemoryCore;

/** The loaded core: opens stores from database bytes. */
export interface MemoryCoreApi {
	/** Opens a store from a database file's bytes; undefined means a new, empty store. */
	open(bytes: Uint8Array | undefined, nowMs: number): MemoryStore;
	/** The schema version this build writes. */
	supportedSchemaVersion(): number;
	/** The Bedrock regions offered in settings. */
	bedrockRegions(): string[];
	defaultModelId(): string;
}
