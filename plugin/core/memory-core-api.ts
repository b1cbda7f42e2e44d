// The typed surface of the core that the rest of the plugin programs against: the shapes the
// core sends (generated from Rust), and the open store as asynchronous calls to its worker.

import type { CoreStatus } from "../../build/pkg/memory_agent.js";
import { type CoreArgs, type CoreResult, STORE_METHODS, type StoreMethod } from "../worker/contract";
import type { CoreClient } from "./core-client";

export type {
	AnswerPiece,
	Citation,
	Compaction,
	ConnectionCheck,
	ConnectionSettings,
	EarlierTurn,
	ExclusionQuery,
	FileKind,
	PdfContentData,
	PdfExtractOptions,
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
	LogReplay,
	LogSync,
	Memory,
	ModelChoice,
	MemoryCursor,
	MemoryPage,
	MemoryQuery,
	Progress,
	QueryAnswer,
	Recall,
	Removal,
	ReplayProblem,
	ReplayProgress,
	RunReport,
	SkippedSources,
	Source,
	TextToRemember,
	UsageReport,
	VaultFileData,
	VaultListing,
} from "../../build/pkg/memory_agent.js";
export type { CoreInfo } from "../worker/contract";

/** Counts and engine state; mirrors the facade's `MemoryCore.status()`. */
export type StoreStatus = CoreStatus;

/** The open store: every call the contract lets the views make goes to the core's worker and answers with a promise. */
export type MemoryStore = { readonly [M in StoreMethod]: StoreCall<M> };
type StoreCall<M extends StoreMethod> = (...args: CoreArgs<M>) => Promise<CoreResult<M>>;

/** The store's calls over `client`. */
export function memoryStore(client: CoreClient): MemoryStore {
	const calls: Partial<Record<StoreMethod, unknown>> = {};
	for (const method of STORE_METHODS) calls[method] = storeCall(client, method);
	// Every store method was set just above, each one `StoreCall` of its name.
	return calls as MemoryStore;
}

function storeCall<M extends StoreMethod>(client: CoreClient, method: M): StoreCall<M> {
	return (...args: CoreArgs<M>) => client.call(method, ...args);
}
