// The typed surface of the core that the rest of the plugin programs against: the shapes the
// core sends (generated from Rust), and the open store as asynchronous calls to its worker.

import type { CoreStatus } from "../../build/pkg/memory_agent.js";
import type { CoreArgs, CoreMethod, CoreResult } from "../worker/protocol";
import type { CoreClient } from "./core-client";

export type {
	Citation,
	Compaction,
	ConnectionCheck,
	ConnectionSettings,
	EarlierTurn,
	ExclusionQuery,
	QuestionScope,
	CoreScopeRules,
	IngestEstimate,
	CoreSettings,
	HostRequest,
	HostResponse,
	Insight,
	InsightPage,
	Integrity,
	Job,
	Memory,
	ModelChoice,
	MemoryCursor,
	MemoryPage,
	MemoryQuery,
	Progress,
	QueryAnswer,
	Recall,
	Removal,
	RunReport,
	SkippedSources,
	Source,
	TextToRemember,
	UsageReport,
	VaultFileData,
} from "../../build/pkg/memory_agent.js";
export type { CoreInfo } from "../worker/protocol";

/** Counts and engine state; mirrors the facade's `MemoryCore.status()`. */
export type StoreStatus = CoreStatus;

/** What the views, commands and vault sync may ask of the open store (lifecycle calls stay with the session). */
const STORE_METHODS = [
	"status",
	"browseMemories",
	"browseInsights",
	"getMemories",
	"getMemory",
	"listJobs",
	"listSources",
	"listSkipped",
	"rememberedNotes",
	"usage",
	"recall",
	"exportJson",
	"enqueueNote",
	"enqueueNotes",
	"rememberText",
	"removeNote",
	"removeNotes",
	"renameNote",
	"forgetMemory",
	"consolidateNow",
	"pause",
	"resume",
	"retryFailed",
	"runDueWork",
	"ask",
	"estimateIngest",
	"testConnection",
	"listModels",
	// Issue 21 (vault): which files are left out, and why, decided by the core.
	"exclusions",
] as const satisfies readonly CoreMethod[];

type StoreMethod = (typeof STORE_METHODS)[number];

/** The open store: every call goes to the core's worker and answers with a promise. */
export type MemoryStore = { readonly [M in StoreMethod]: (...args: CoreArgs<M>) => Promise<CoreResult<M>> };

/** The store's calls over `client`. */
export function memoryStore(client: CoreClient): MemoryStore {
	const store: Record<string, unknown> = {};
	for (const method of STORE_METHODS) store[method] = (...args: never) => client.call(method, ...(args as CoreArgs<typeof method>));
	return store as MemoryStore;
}
