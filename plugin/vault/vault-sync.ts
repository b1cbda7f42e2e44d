// Keeps the memory in step with the vault: reconciliation at start and on "Rebuild", and the
// vault's create/modify/delete/rename events. What is left out is the core's decision, asked
// in batches (`exclusions.ts`); the core decides again when it reads a note. No Obsidian
// import: the vault, the runtime and the dialog come in as ports.

import { ErrorCode, errorCode } from "../core/core-error";
import type { ExclusionQuery, MemoryStore, Source } from "../core/memory-core-api";
import { type BulkEstimate, topFolder } from "./bulk-estimate";
import { type CachedNoteMetadata, type Exclusions, askExclusions, metadataOf } from "./exclusions";
import { isMediaFile } from "./file-kinds";
import { QuietDelay, type QuietTimers } from "./quiet-delay";
import { forEachInSlices, inBatches, listSourcesInPages, nextTurn } from "./slices";

/** A vault file as the sync sees it. */
export interface SyncFile {
	path: string;
	mtime: number;
	size: number;
}

/** The vault, narrowed to what the sync needs (Obsidian's Vault and MetadataCache in the plugin). */
export interface SyncVaultPort {
	/** Every file that could be a note (Markdown and plain text), made as it is iterated (in slices). */
	files(): Iterable<SyncFile>;
	file(path: string): SyncFile | null;
	/** The metadata cache's entry, or null when Obsidian has not indexed the note yet. */
	metadata(path: string): CachedNoteMetadata | null;
}

/** The runtime, narrowed: the open store, and what to do after changing it. */
export interface SyncRuntimePort {
	store(): MemoryStore | undefined;
	/** Work was queued: run it. */
	kick(): void;
	/** The store changed outside the runner: save soon, refresh the counts. */
	changed(): void;
}

/**
 * How long a note typed here and deleted before it was read is looked for under another name:
 * a sync tool brings a rename made on another device as "deleted, created".
 */
const TYPED_GONE_MS = 60_000;

export type BulkChoice = { kind: "start"; folders?: ReadonlySet<string> } | { kind: "pause" } | { kind: "cancel" };

/** What the bulk dialog shows. */
export interface BulkQuestion {
	estimate: BulkEstimate;
	/** Top-level folders ("" = notes at the vault's root) with their number of notes to queue. */
	folders: Array<{ folder: string; notes: number }>;
}

export interface VaultSyncDeps {
	vault: SyncVaultPort;
	runtime: SyncRuntimePort;
	timers: QuietTimers;
	quietDelayMs: () => number;
	/**
	 * When a change to `path` may be paid for (ms since the epoch), or null for at once: a
	 * change that may come from another device sharing the memory (it was not typed here)
	 * waits for that device's memory of it before any model call, but what costs nothing is
	 * done at once.
	 */
	payAfter?: (path: string) => number | null;
	bulkThreshold: () => number;
	confirmBulk: (question: BulkQuestion) => Promise<BulkChoice>;
	notify: (message: string) => void;
}

/** Remembered notes out of the notes in scope. */
export interface Coverage {
	remembered: number;
	inScope: number;
}

export interface ReconcileReport {
	inScope: number;
	queued: number;
	removed: number;
	/** Notes left out by the settings (the core's decision). */
	excluded: number;
	/** True when the user cancelled the bulk dialog. */
	cancelled: boolean;
}

/**
 * "start": new, changed and gone files; "rebuild": every file read and decided again;
 * "media": also every unchanged PDF and image decided again (the images setting changed).
 */
export type ReconcileMode = "start" | "rebuild" | "media";

/** Whether a reconciliation in `mode` reads and decides an unchanged file again (forgetting a skip). */
function rereads(mode: ReconcileMode, file: SyncFile): boolean {
	return mode === "rebuild" || (mode === "media" && isMediaFile(file.path));
}

// A recount is one count in the core; during a long ingest, not more than every 2 s.
const COVERAGE_DELAY_MS = 2_000;

export class VaultSync {
	private readonly quiet: QuietDelay;
	/** Notes in scope, as the core decided; known after the first reconciliation. */
	private scopePaths: Set<string> | undefined;
	/** Notes the core leaves out (by path, properties or tags), with its reason. */
	private readonly excluded = new Map<string, string>();
	private coverage: Coverage | null = null;
	private coverageTimer: unknown;
	private reconciling: Promise<ReconcileReport | null> = Promise.resolve(null);
	private stopped = false;
	private readonly listeners = new Set<() => void>();
	/**
	 * Sizes of notes typed here that were deleted while waiting to be read, with when: the
	 * other device renamed a note this one had just written, before either remembered it. The
	 * note that comes back with that size is still this device's to pay for — waiting for the
	 * other device, which waits for this one, both would pay.
	 */
	private readonly typedGone = new Map<number, number>();

	constructor(private readonly deps: VaultSyncDeps) {
		this.quiet = new QuietDelay(deps.timers, deps.quietDelayMs, (path, payAfter) => void this.queueNote(path, payAfter));
	}

	/** Compares the vault with the store and queues or removes what differs (one at a time). */
	reconcile(mode: ReconcileMode): Promise<ReconcileReport | null> {
		this.reconciling = this.reconciling.then(
			() => this.runReconcile(mode),
			() => this.runReconcile(mode),
		);
		return this.reconciling;
	}

	/** Remembered notes out of the notes in scope; null until the first reconciliation. */
	currentCoverage(): Coverage | null {
		return this.coverage;
	}


	/** Recounts now (for the status view); does not notify listeners. */
	async coverageNow(): Promise<Coverage | null> {
		await this.recount(false);
		return this.coverage;
	}

	/** Notes the core leaves out (by path, properties or tags), with its reason. */
	leftOut(): ReadonlyMap<string, string> {
		return this.excluded;
	}

	/** Called after the counts changed (the status view listens). */
	onChange(listener: () => void): () => void {
		this.listeners.add(listener);
		return () => this.listeners.delete(listener);
	}

	/** Something may have changed the counts: recount soon (at most every COVERAGE_DELAY_MS). */
	scheduleCoverage(): void {
		if (this.coverageTimer !== undefined || this.stopped || this.scopePaths === undefined) return;
		this.coverageTimer = this.deps.timers.setTimeout(() => {
			this.coverageTimer = undefined;
			void this.recount(true);
		}, COVERAGE_DELAY_MS);
	}

	/** Unload: no more timers or work. Notes still waiting are found by the next start's reconciliation. */
	stop(): void {
		this.stopped = true;
		this.quiet.clear();
		if (this.coverageTimer !== undefined) this.deps.timers.clearTimeout(this.coverageTimer);
		this.coverageTimer = undefined;
		this.listeners.clear();
	}

	// ── Vault events ──────────────────────────────────────────────────────────────────────
	// Events change the store in the order they came (the worker answers calls in order): a
	// note is decided by the core when its quiet delay ends, a renamed note's new path right
	// after its memories moved, so no event waits for an answer before the next one is sent.
	// The core decides again when it reads a note, so nothing left out is ever sent.

	/** A note was created or saved (`size` when known): queue it once it has been quiet for the delay. */
	fileChanged(path: string, size?: number): void {
		if (this.stopped) return;
		let payAfter = this.deps.payAfter?.(path) ?? null;
		const now = Date.now();
		const typedGoneAt = size === undefined ? undefined : this.typedGone.get(size);
		if (payAfter !== null && size !== undefined && typedGoneAt !== undefined && now - typedGoneAt <= TYPED_GONE_MS) {
			this.typedGone.delete(size);
			payAfter = null;
		}
		this.quiet.touch(path, payAfter);
	}

	fileDeleted(path: string, size?: number): void {
		if (this.stopped) return;
		const wasLeftOut = this.excluded.delete(path);
		if (!wasLeftOut && size !== undefined && this.quiet.payAfterOf(path) === null) this.rememberTypedGone(size);
		this.quiet.cancel(path);
		this.scopePaths?.delete(path);
		const store = this.deps.runtime.store();
		// While the store is starting, the start's reconciliation removes it; a note left out
		// has nothing in the store.
		if (store === undefined || wasLeftOut) return;
		this.settle(store.removeNote(path));
	}

	/** A note typed here was deleted while waiting: its size is looked for under another name for a while. */
	private rememberTypedGone(size: number): void {
		const now = Date.now();
		for (const [goneSize, at] of this.typedGone) if (now - at > TYPED_GONE_MS) this.typedGone.delete(goneSize);
		this.typedGone.set(size, now);
	}

	/** A folder was deleted: every note under it goes (Obsidian may also report each file). */
	async folderDeleted(folder: string): Promise<void> {
		if (this.stopped) return;
		const prefix = `${folder}/`;
		const sources = await listSourcesInPages(() => this.deps.runtime.store());
		for (const source of sources ?? []) {
			if (source.path.startsWith(prefix)) this.fileDeleted(source.path);
		}
	}

	fileRenamed(oldPath: string, newPath: string): void {
		if (this.stopped) return;
		if (this.excluded.delete(oldPath)) {
			// Nothing of it is remembered: under its new name it is a new note, decided when queued.
			this.quiet.cancel(oldPath);
			return this.fileChanged(newPath);
		}
		this.quiet.rename(oldPath, newPath);
		this.scopePaths?.delete(oldPath);
		const store = this.deps.runtime.store();
		if (store === undefined) return;
		// The memories follow the note at once (the content did not change, so no model call);
		// then the core says whether the new path is still in scope.
		this.settle(store.renameNote(oldPath, newPath));
		void this.decideRenamed(newPath);
	}

	/** A renamed note's new path: in scope, or left out (its memories go, and any wait ends). */
	private async decideRenamed(path: string): Promise<void> {
		const reason = (await askExclusions(() => this.deps.runtime.store(), [{ path }]).catch(() => undefined))?.get(path);
		// Renamed again or deleted meanwhile: that event decides.
		if (reason === undefined || this.stopped || this.deps.vault.file(path) === null) return;
		if (reason === null) {
			this.keptIn(path);
			return;
		}
		this.quiet.cancel(path);
		this.leftOutNow(path, reason);
	}

	/** A change sent to the store: once it is done, the counts are refreshed; a failure is said. */
	private settle(change: Promise<unknown>): void {
		change.then(
			() => {
				this.deps.runtime.changed();
				this.scheduleCoverage();
			},
			(error: unknown) => this.tell(error),
		);
	}

	/** Says a failed call, except a worker that stopped answering: the runtime tells that, and the restarted one reconciles the vault. */
	private tell(error: unknown): void {
		if (errorCode(error) !== ErrorCode.workerUnresponsive) this.deps.notify(`Memory Agent: ${error instanceof Error ? error.message : String(error)}`);
	}

	/** Number of notes waiting for their quiet delay. */
	get waitingForQuiet(): number {
		return this.quiet.size;
	}

	// ── Queueing one note ─────────────────────────────────────────────────────────────────

	private async queueNote(path: string, payAfter: number | null): Promise<void> {
		const file = this.deps.vault.file(path);
		if (this.stopped || file === null) return;
		// By what Obsidian's cache knows of the note; without it, by its path here and by its
		// content when the core reads it to remember it (nothing is read twice for one save).
		const cached = this.deps.vault.metadata(path);
		const query: ExclusionQuery = cached === null ? { path } : { path, metadata: metadataOf(cached) };
		const decided = await askExclusions(() => this.deps.runtime.store(), [query]).catch((error: unknown) => {
			this.tell(error);
			return undefined;
		});
		const reason = decided?.get(path);
		const store = this.deps.runtime.store();
		if (this.stopped || store === undefined || reason === undefined) return;
		if (reason !== null) {
			this.leftOutNow(path, reason);
			return;
		}
		this.keptIn(path);
		this.settle(store.enqueueNote(path, payAfter).then(() => this.deps.runtime.kick()));
	}

	/** The core keeps `path` in scope. */
	private keptIn(path: string): void {
		this.excluded.delete(path);
		this.scopePaths?.add(path);
	}

	/** The core leaves `path` out: listed with its reason, and what was remembered of it goes (once). */
	private leftOutNow(path: string, reason: string): void {
		const wasLeftOut = this.excluded.has(path);
		this.excluded.set(path, reason);
		this.scopePaths?.delete(path);
		const store = this.deps.runtime.store();
		if (store === undefined) return;
		if (wasLeftOut) this.scheduleCoverage();
		else this.settle(store.removeNote(path));
	}

	// ── Reconciliation ────────────────────────────────────────────────────────────────────
	// Steps: list the vault, list the store, compare, ask the core what is left out, confirm a
	// bulk ingest, then remove and queue in batches. A note renamed while Obsidian was closed
	// is a removal and a new note: the core copies the removed note's memories to it when it
	// reads the same text (`engine/reuse.rs`), so no model call is made for it.

	private async runReconcile(mode: ReconcileMode): Promise<ReconcileReport | null> {
		if (this.stopped || this.deps.runtime.store() === undefined) return null;
		const vault = await this.listVault();
		const sources = await listSourcesInPages(() => this.deps.runtime.store());
		if (this.stopped || sources === undefined) return null;
		const known = new Map<string, Source>();
		await forEachInSlices(sources, (source) => {
			known.set(source.path, source);
		});
		const { changed, unchanged } = await compare(vault, known);
		// Content is decided for what will be read: new and changed notes (every note on "Rebuild").
		const reread = unchanged.filter((file) => rereads(mode, file));
		const decided = await this.decide([...changed, ...reread], unchanged.filter((file) => !rereads(mode, file)));
		if (this.stopped || decided === undefined) return null;
		const plan = planChanges(mode, decided, changed, reread, sources, known);
		const store = this.deps.runtime.store();
		if (this.stopped || store === undefined) return null;
		// What may cost model calls: new and changed files, and files skipped before that are decided
		// again now. A file whose record (from this device or another's log) has its size, and only
		// another time, is hashed by the core at no cost: a rebuilt database or a device joining a
		// vault is not asked to pay for what the logs already hold.
		const differs = (file: SyncFile): boolean => known.get(file.path)?.size !== file.size;
		const costly = new Set([...changed.filter(differs), ...(mode === "media" ? reread.filter((file) => known.get(file.path)?.skipped != null) : [])]);
		const { queue, cancelled } = await this.confirmQueue(store, mode, plan.toQueue, costly);
		if (!(await this.send(plan.removals, queue))) return null;
		const after = this.deps.runtime.store();
		if (this.stopped || after === undefined) return null;
		if (mode === "rebuild") await after.retryFailed(false);
		this.scopePaths = plan.inScope;
		this.excluded.clear();
		for (const [path, reason] of plan.leftOut) this.excluded.set(path, reason);
		if (plan.removals.length > 0 || queue.length > 0 || mode !== "start") this.deps.runtime.changed();
		if (queue.length > 0 || mode !== "start") this.deps.runtime.kick();
		await this.recount(true);
		return { inScope: plan.inScope.size, queued: queue.length, removed: plan.removals.length, excluded: plan.leftOut.size, cancelled };
	}

	/** Every note of the vault, by path, made in slices. */
	private async listVault(): Promise<Map<string, SyncFile>> {
		const vault = new Map<string, SyncFile>();
		await forEachInSlices(this.deps.vault.files(), (file) => {
			vault.set(file.path, file);
		});
		await nextTurn();
		return vault;
	}

	/**
	 * The core's decision for every note: by path and content for `read` (Obsidian's cache
	 * when it knows the note, else the core reads it in its worker), by path only for `pathOnly`.
	 */
	private async decide(read: readonly SyncFile[], pathOnly: readonly SyncFile[]): Promise<Exclusions | undefined> {
		const items: ExclusionQuery[] = [];
		await forEachInSlices(read, (file) => {
			const cached = this.deps.vault.metadata(file.path);
			items.push(cached === null ? { path: file.path, read: true, size: file.size } : { path: file.path, metadata: metadataOf(cached) });
		});
		await forEachInSlices(pathOnly, (file) => {
			items.push({ path: file.path });
		});
		return askExclusions(() => (this.stopped ? undefined : this.deps.runtime.store()), items);
	}

	/** Asks before a bulk ingest: what is queued of `toQueue` after the user's choice. */
	private async confirmQueue(store: MemoryStore, mode: ReconcileMode, toQueue: SyncFile[], changed: ReadonlySet<SyncFile>): Promise<{ queue: SyncFile[]; cancelled: boolean }> {
		// Only new and changed notes (and skipped files decided again) can cost model calls; a
		// rebuild's re-checks of unchanged notes are hashed by the core and cost nothing.
		const costly = toQueue.filter((file) => changed.has(file));
		if (costly.length <= this.deps.bulkThreshold()) return { queue: toQueue, cancelled: false };
		const choice = await this.deps.confirmBulk(await bulkQuestion(store, costly));
		if (choice.kind === "cancel") return { queue: mode === "start" ? [] : toQueue.filter((file) => !changed.has(file)), cancelled: true };
		if (choice.kind === "pause") await this.deps.runtime.store()?.pause();
		else if (choice.folders !== undefined) {
			const folders = choice.folders;
			return { queue: toQueue.filter((file) => folders.has(topFolder(file.path))), cancelled: false };
		}
		return { queue: toQueue, cancelled: false };
	}

	/** Removals first (a renamed note's memories are then found for its new name), then the queue; false when stopped. */
	private async send(removals: readonly string[], queue: readonly SyncFile[]): Promise<boolean> {
		if (this.stopped || this.deps.runtime.store() === undefined) return false;
		const current = () => (this.stopped ? undefined : this.deps.runtime.store());
		await inBatches(current, removals, (target, paths) => target.removeNotes(paths));
		await inBatches(current, queue.map((file) => file.path), (target, paths) => target.enqueueNotes(paths));
		return true;
	}

	/**
	 * Counts the remembered notes in the core (the main thread never lists every source to
	 * count them). The store holds only notes in scope: the reconciliation and the vault
	 * events remove the others, so its count is the coverage (capped while a removal is on its way).
	 */
	private async recount(notify: boolean): Promise<void> {
		const store = this.deps.runtime.store();
		if (store === undefined || this.scopePaths === undefined) return;
		const remembered = await store.rememberedNotes().catch(() => undefined);
		const scopePaths = this.scopePaths;
		if (remembered === undefined || this.stopped || scopePaths === undefined) return;
		this.coverage = { remembered: Math.min(remembered, scopePaths.size), inScope: scopePaths.size };
		if (notify) for (const listener of this.listeners) listener();
	}
}

/** What a reconciliation changes, from the vault, the store and the core's decisions. */
interface ReconcilePlan {
	inScope: Set<string>;
	leftOut: Map<string, string>;
	/** Gone from the vault, left out, and (on "Rebuild") skipped notes to decide again. */
	removals: string[];
	toQueue: SyncFile[];
}

/** New and changed notes by mtime and size (Obsidian's mtime may carry fractions; the core keeps whole ms). */
async function compare(vault: ReadonlyMap<string, SyncFile>, known: ReadonlyMap<string, Source>): Promise<{ changed: SyncFile[]; unchanged: SyncFile[] }> {
	const changed: SyncFile[] = [];
	const unchanged: SyncFile[] = [];
	await forEachInSlices(vault.values(), (file) => {
		const source = known.get(file.path);
		if (source === undefined || source.mtime !== Math.trunc(file.mtime) || source.size !== file.size) changed.push(file);
		else unchanged.push(file);
	});
	return { changed, unchanged };
}

/** `reread`: the unchanged files read and decided again in this mode. */
function planChanges(mode: ReconcileMode, decided: Exclusions, changed: SyncFile[], reread: SyncFile[], sources: readonly Source[], known: ReadonlyMap<string, Source>): ReconcilePlan {
	const inScope = new Set<string>();
	const leftOut = new Map<string, string>();
	for (const [path, reason] of decided) {
		if (reason === null) inScope.add(path);
		else leftOut.set(path, reason);
	}
	const read = [...changed, ...reread];
	// Gone from the vault or no longer in scope; a note left out is removed also when never
	// remembered, so work queued for it (before a restart) does not run.
	const removals = new Set(sources.filter((source) => !inScope.has(source.path)).map((source) => source.path));
	for (const file of read) if (leftOut.has(file.path)) removals.add(file.path);
	const toQueue = read.filter((file) => inScope.has(file.path));
	// The core skips an unchanged file without looking again; forget the old verdict so that
	// "Rebuild" (or a change of the images setting) re-decides it under today's settings.
	if (mode !== "start") for (const file of toQueue) if (known.get(file.path)?.skipped != null) removals.add(file.path);
	return { inScope, leftOut, removals: [...removals], toQueue };
}

async function bulkQuestion(store: MemoryStore, files: readonly SyncFile[]): Promise<BulkQuestion> {
	const folders = new Map<string, number>();
	for (const file of files) {
		const folder = topFolder(file.path);
		folders.set(folder, (folders.get(folder) ?? 0) + 1);
	}
	return {
		// PDFs' pages are not counted here: that would read every new PDF through pdf.js before the
		// user agreed to anything; the core estimates their text by size and counts pages when read.
		estimate: await store.estimateIngest(files.map((file) => ({ path: file.path, size: file.size }))),
		folders: [...folders.entries()].map(([folder, notes]) => ({ folder, notes })).sort((a, b) => a.folder.localeCompare(b.folder)),
	};
}
