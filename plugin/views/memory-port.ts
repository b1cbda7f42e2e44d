// What the commands and views need from the runtime: the open store, and how to report changes.

import type { MemoryStore, StoreStatus } from "../core/memory-core-api";

export interface MemoryPort {
	/** The open store, or undefined while the core starts or is unavailable. */
	store(): MemoryStore | undefined;
	/** The store's counts as last pushed by the core (undefined before the first): no round trip to the worker. */
	status(): StoreStatus | undefined;
	/** The store changed outside the work runner: save soon, refresh the counts. */
	changed(): void;
	/** Work was queued: run it soon. */
	kick(): void;
	/** Why nothing can be done yet ("starting", "unavailable: …"), for a notice. */
	describe(): string;
	/** Why model calls cannot work yet (missing secrets, bad region), or null. */
	connectionIssue(): string | null;
}
