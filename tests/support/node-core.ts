// The plugin's MemoryCoreApi over the facade loaded in Node, for testing storage code with the real core.

import type { MemoryCoreApi } from "../../plugin/core/memory-core-api";
import { loadFacade } from "./facade";

export async function nodeCore(): Promise<MemoryCoreApi> {
	const { facade, SQL } = await loadFacade();
	return {
		open: (bytes, nowMs) => {
			const core = facade.MemoryCore.open(SQL, bytes, nowMs);
			return {
				status: () => core.status(),
				isDirty: () => core.isDirty(),
				exportBytes: () => core.exportBytes(),
				free: () => core.free(),
			};
		},
		supportedSchemaVersion: () => facade.supportedSchemaVersion(),
	};
}

/** The bytes of a new, empty Memory Agent database. */
export async function emptyDatabase(): Promise<Uint8Array> {
	const core = (await nodeCore()).open(undefined, Date.now());
	const bytes = core.exportBytes();
	core.free();
	return bytes;
}
