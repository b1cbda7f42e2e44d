// The plugin's MemoryCoreApi over the facade loaded in Node, for testing storage code with the real core.

import type { MemoryCoreApi } from "../../plugin/core/memory-core-api";
import { loadFacade } from "./facade";

export async function nodeCore(): Promise<MemoryCoreApi> {
	const { facade, SQL } = await loadFacade();
	return {
		open: (bytes, nowMs) => facade.MemoryCore.open(SQL, bytes, nowMs, Math.random() * 2 ** 52),
		supportedSchemaVersion: () => facade.supportedSchemaVersion(),
		bedrockRegions: () => facade.bedrockRegions(),
		defaultModelId: () => facade.defaultModelId(),
	};
}

/** The bytes of a new, empty Memory Agent database. */
export async function emptyDatabase(): Promise<Uint8Array> {
	const core = (await nodeCore()).open(undefined, Date.now());
	const bytes = core.exportBytes();
	core.free();
	return bytes;
}
