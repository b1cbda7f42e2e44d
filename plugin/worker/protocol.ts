// The one message protocol between Obsidian's main thread and the core's Web Worker.
//
// The main thread calls the core (`call` → `result`, matched by id); the core asks the main
// thread for what only it can do — HTTP through `requestUrl` and reading vault files
// (`host` → `reply`) — and pushes what happened (`event`). Errors keep the core's stable
// `code`. Large byte arrays (the database file, a note's bytes) are transferred, not copied.

import type {
	CoreSettings,
	CoreStatus,
	Compaction,
	ConnectionCheck,
	EarlierTurn,
	ExclusionQuery,
	MergeReport,
	QuestionScope,
	HostRequest,
	HostResponse,
	IngestEstimate,
	InsightPage,
	Integrity,
	Job,
	Memory,
	MemoryCursor,
	MemoryPage,
	MemoryQuery,
	ModelChoice,
	Progress,
	QueryAnswer,
	Recall,
	Removal,
	RunReport,
	SizeReport,
	SkippedSources,
	Source,
	TextToRemember,
	UsageReport,
	VaultFileData,
} from "../../build/pkg/memory_agent.js";

/** What the core tells about itself once its WebAssembly is loaded. */
export interface CoreInfo {
	bedrockRegions: string[];
	/** Region → the model used when none is chosen (the profile that region may call). */
	defaultModels: Record<string, string>;
	supportedSchemaVersion: number;
}

/** Every call the main thread can make, with its arguments and result. */
export interface CoreMethods {
	/** Loads both WebAssembly modules (once); nothing else works before. */
	start(): CoreInfo;
	/** Which of `names` (files beside the database) are sync tools' conflict copies of `database` (file names). */
	conflictCopies(database: string, names: string[]): string[];
	/** Opens the store from a database file's bytes (null = new), closing any open one. */
	open(bytes: Uint8Array | null, nowMs: number): CoreStatus;
	/**
	 * Stops the store's work at once: no job starts and no call is sent from now on, running
	 * jobs go back to the queue untried, answers still on their way are discarded. The store
	 * stays open for the last export; `close` releases it.
	 */
	stopWork(): void;
	/** Stops its work (as `stopWork`) and releases the store. */
	close(): void;
	configure(settings: CoreSettings): void;

	status(): CoreStatus;
	browseMemories(query: MemoryQuery): MemoryPage;
	browseInsights(before: MemoryCursor | null, limit: number): InsightPage;
	getMemories(ids: string[]): Memory[];
	getMemory(id: string): Memory | null;
	listJobs(state: "queued" | "running" | "failed" | null, limit: number): Job[];
	listSources(after: string | null, limit: number): Source[];
	listSkipped(limit: number): SkippedSources;
	rememberedNotes(): number;
	usage(from: string, to: string): UsageReport;
	recall(question: string, budgetTokens: number | null, scope?: QuestionScope): Recall;
	exportJson(): string;

	/** Issue 21 (vault): which of these files are left out and why (null: in scope), decided by the core; one call per slice. */
	exclusions(items: ExclusionQuery[]): Array<string | null>;

	/** `payAfter` (ms since the epoch): a change that may come from another device; no model call for it before then. */
	enqueueNote(path: string, payAfter?: number | null): number;
	enqueueNotes(paths: string[]): number;
	rememberText(text: TextToRemember): number;
	removeNote(path: string): Removal;
	removeNotes(paths: string[]): Removal;
	renameNote(oldPath: string, newPath: string): void;
	forgetMemory(id: string): Removal;
	consolidateNow(): number;
	pause(): void;
	resume(): void;
	retryFailed(): number;

	runDueWork(): RunReport;
	/** `allowOverLimit`: the user agreed to pass a spending limit (else such a question fails with `budget.over_limit`). */
	/** `earlier`: the conversation's turns before this question, oldest first (none: a new conversation). */
	ask(question: string, allowOverLimit?: boolean, earlier?: EarlierTurn[], scope?: QuestionScope): QueryAnswer;
	estimateIngest(notes: number, bytes: number): IngestEstimate;
	testConnection(): ConnectionCheck;
	/** The models and inference profiles this account may call in the region (no model call). */
	listModels(): ModelChoice[];

	/** The database file's bytes when anything changed since the last export (or `force`), else null. */
	exportDatabase(force: boolean): Uint8Array | null;
	/** Merges another copy of the database (another device's, brought by a sync tool) into the open store. */
	mergeDatabase(bytes: Uint8Array): MergeReport;
	/**
	 * Gives exported bytes back once they are written (transferred, not copied), so that the
	 * worker frees them: a database's worth of memory left to the main thread's collector
	 * costs it a full collection at every checkpoint.
	 */
	returnBytes(bytes: Uint8Array): void;
	checkIntegrity(): Integrity;
	compact(): Compaction;
	sizeReport(): SizeReport;
}

export type CoreMethod = keyof CoreMethods;
export type CoreArgs<M extends CoreMethod> = Parameters<CoreMethods[M]>;
export type CoreResult<M extends CoreMethod> = ReturnType<CoreMethods[M]>;

/** What the core asks of the main thread. */
export interface HostMethods {
	send(request: HostRequest): HostResponse;
	readFile(path: string): VaultFileData | null;
}
export type HostMethod = keyof HostMethods;

/** What the core pushes without being asked. */
export interface CoreEvents {
	/** After every finished job, and after any call that changed the store. */
	status: CoreStatus;
	/** The engine's own progress report, after every job. */
	progress: Progress;
	/** The store changed and is not saved yet. */
	changed: null;
}
export type CoreEvent = keyof CoreEvents;

/** An error as it crosses the boundary: the message and the core's stable code. */
export interface WireError {
	name: string;
	message: string;
	code?: string;
}

/** Main thread → worker. */
export type ToWorker =
	| { kind: "call"; id: number; method: CoreMethod; args: unknown[] }
	| { kind: "reply"; id: number; ok: true; value: unknown }
	| { kind: "reply"; id: number; ok: false; error: WireError };

/** Worker → main thread. */
export type FromWorker =
	| { kind: "result"; id: number; ok: true; value: unknown }
	| { kind: "result"; id: number; ok: false; error: WireError }
	| { kind: "host"; id: number; method: HostMethod; args: unknown[] }
	| { kind: "event"; event: CoreEvent; data: unknown };

/** The part of a Worker (or of `self` inside one) the protocol uses. */
export interface MessageChannelEnd {
	postMessage(message: unknown, transfer?: Transferable[]): void;
	onmessage: ((event: { data: unknown }) => void) | null;
}

/** The error as plain data, keeping `code` when it has one. */
export function toWireError(error: unknown): WireError {
	if (error instanceof Error) {
		const code = (error as { code?: unknown }).code;
		return { name: error.name, message: error.message, ...(typeof code === "string" ? { code } : {}) };
	}
	if (typeof error === "object" && error !== null && "message" in error) {
		const code = (error as { code?: unknown }).code;
		return { name: "Error", message: String(error.message), ...(typeof code === "string" ? { code } : {}) };
	}
	return { name: "Error", message: String(error) };
}

/** A real Error again, with the core's code. */
export function fromWireError(wire: WireError): Error {
	const error = new Error(wire.message);
	error.name = wire.name;
	if (wire.code !== undefined) Object.assign(error, { code: wire.code });
	return error;
}

/** Whether `value` is a byte array (checked by tag: values may come from another realm). */
export function isBytes(value: unknown): value is Uint8Array {
	return Object.prototype.toString.call(value) === "[object Uint8Array]";
}

/** The buffers worth transferring in a value (bytes, `{ bytes }` or `{ body }`): ones a byte array owns whole. */
export function transferablesOf(value: unknown): Transferable[] {
	const fields = value as { bytes?: unknown; body?: unknown } | null;
	const bytes = isBytes(value) ? value : isBytes(fields?.bytes) ? fields.bytes : fields?.body;
	if (!isBytes(bytes)) return [];
	const buffer = bytes.buffer;
	const whole = Object.prototype.toString.call(buffer) === "[object ArrayBuffer]" && bytes.byteOffset === 0 && bytes.byteLength === buffer.byteLength;
	return whole ? [buffer as ArrayBuffer] : [];
}
