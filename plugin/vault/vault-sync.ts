// Keeps the memory in step with the vault: reconciliation at start and on "Rebuild", and the
// vault's create/modify/delete/rename events, with exclusions checked before any text is read
// by the core. No Obsidian import: the vault, the runtime and the dialog come in as ports.

import { ErrorCode, errorCode } from "../core/core-error";
import type { MemoryStore, Source } from "../core/memory-core-api";
import { type BulkEstimate, topFolder } from "./bulk-estimate";
import { type CachedNoteMetadata, metadataFromCache, metadataFromText } from "./note-metadata";
import { NoteScope, type ScopeRules } from "./note-scope";
import { QuietDelay, type QuietTimers } from "./quiet-delay";
import { renamedNotes } from "./renamed-notes";
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
	/** Reads a note on this device, for the tag check; never sent anywhere. */
	readText(path: string): Promise<string | null>;
	/** A note's bytes, to tell a note renamed while Obsidian was closed; never sent anywhere. */
	readBytes(path: string): Promise<ArrayBuffer | null>;
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
	rules: () => ScopeRules;
	quietDelayMs: () => number;
	/**
	 * When a change to `path` may be paid for (ms since the epoch), or null for at once: a
	 * change that may come from another device sharing the memory (it was not typed here)
	 * waits for that device's memory of it before any model call, but what costs nothing is
	 * done at once.
	 */
	payAfter?: (path: string) => number | null;
	bulkThreshold: () => number;
	maxNoteBytes: () => number;
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
	excluded: number;
	/** True when the user cancelled the bulk dialog. */
	cancelled: boolean;
}

export type ReconcileMode = "start" | "rebuild";

// A recount is one count in the core; during a long ingest, not more than every 2 s.
const COVERAGE_DELAY_MS = 2_000;

export class VaultSync {
	private readonly quiet: QuietDelay;
	/** Paths in scope by path rules (type, folders, patterns…); known after the first reconciliation. */
	private scopePaths: Set<string> | undefined;
	/** Notes left out because of their content (memory: false, excluded tags), with the reason. */
	private readonly contentExcluded = new Map<string, string>();
	private coverage: Coverage | null = null;
	private coverageTimer: unknown;
	private reconciling: Promise<ReconcileReport | null> = Promise.resolve(null);
	private stopped = false;
	private readonly listeners = new Set<() => void>();
	private cachedScope: { key: string; scope: NoteScope } | undefined;
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

	/** Notes left out because of their properties or tags, with the reason. */
	excludedByContent(): ReadonlyMap<string, string> {
		return this.contentExcluded;
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

	/** A file was created or saved (`size` when known): queue it once it has been quiet for the delay. */
	fileChanged(path: string, size?: number): void {
		if (this.stopped || this.scope().pathExclusion(path) !== null) return;
		this.scopePaths?.add(path);
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
		if (this.stopped || this.scope().pathExclusion(path) !== null) return;
		if (size !== undefined && this.quiet.payAfterOf(path) === null) {
			const now = Date.now();
			for (const [goneSize, at] of this.typedGone) if (now - at > TYPED_GONE_MS) this.typedGone.delete(goneSize);
			this.typedGone.set(size, now);
		}
		this.quiet.cancel(path);
		this.scopePaths?.delete(path);
		this.contentExcluded.delete(path);
		const store = this.deps.runtime.store();
		// While the store is starting, the start's reconciliation removes it.
		if (store === undefined) return;
		this.settle(store.removeNote(path));
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
		const scope = this.scope();
		const wasIn = scope.pathExclusion(oldPath) === null;
		const isIn = scope.pathExclusion(newPath) === null;
		if (wasIn && !isIn) return this.fileDeleted(oldPath);
		if (!wasIn && isIn) return this.fileChanged(newPath);
		if (!wasIn) return;
		this.quiet.rename(oldPath, newPath);
		this.scopePaths?.delete(oldPath);
		this.scopePaths?.add(newPath);
		const excluded = this.contentExcluded.get(oldPath);
		this.contentExcluded.delete(oldPath);
		if (excluded !== undefined) this.contentExcluded.set(newPath, excluded);
		const store = this.deps.runtime.store();
		if (store === undefined) return;
		// The memories follow the note; the content did not change, so no model call.
		this.settle(store.renameNote(oldPath, newPath));
	}

	/** A change sent to the store: once it is done, the counts are refreshed; a failure is said. */
	private settle(change: Promise<unknown>): void {
		change.then(
			() => {
				this.deps.runtime.changed();
				this.scheduleCoverage();
			},
			(error: unknown) => {
				// A worker that stopped answering is told by the runtime; the restarted one reconciles the vault.
				if (errorCode(error) !== ErrorCode.workerUnresponsive) this.deps.notify(`Memory Agent: ${error instanceof Error ? error.message : String(error)}`);
			},
		);
	}

	/** Number of notes waiting for their quiet delay. */
	get waitingForQuiet(): number {
		return this.quiet.size;
	}

	// ── Queueing one note ─────────────────────────────────────────────────────────────────

	private async queueNote(path: string, payAfter: number | null): Promise<void> {
		const store = this.deps.runtime.store();
		if (this.stopped || store === undefined) return;
		const scope = this.scope();
		const file = this.deps.vault.file(path);
		if (file === null || scope.pathExclusion(path) !== null) return;
		const excluded = await this.contentExclusion(file, scope);
		const current = this.deps.runtime.store();
		if (this.stopped || current === undefined) return;
		if (excluded !== null) {
			this.contentExcluded.set(path, excluded);
			// Remembered before it got the tag or property: forget it now.
			this.settle(current.removeNote(path));
		} else {
			this.contentExcluded.delete(path);
			this.settle(current.enqueueNote(path, payAfter).then(() => this.deps.runtime.kick()));
		}
	}

	/**
	 * Why the note's content keeps it out, or null. The metadata cache answers without reading
	 * the file; when excluded tags are set and the cache does not exclude the note, the note is
	 * read here, on the device, because the cache may not have seen the latest save yet.
	 */
	private async contentExclusion(file: SyncFile, scope: NoteScope): Promise<string | null> {
		const cached = this.deps.vault.metadata(file.path);
		if (cached !== null) {
			const reason = scope.contentExclusion(metadataFromCache(cached));
			if (reason !== null || !scope.checksTags) return reason;
		} else if (!scope.checksTags) {
			// `memory: false` is also refused by the core before anything is sent.
			return null;
		}
		// Too large to be read by the core either: it is skipped with that reason, unsent.
		if (file.size > this.deps.maxNoteBytes()) return null;
		const text = await this.deps.vault.readText(file.path);
		return text === null ? null : scope.contentExclusion(metadataFromText(text));
	}

	// ── Reconciliation ────────────────────────────────────────────────────────────────────

	private async runReconcile(mode: ReconcileMode): Promise<ReconcileReport | null> {
		let store = this.deps.runtime.store();
		if (this.stopped || store === undefined) return null;
		const scope = this.scope();
		const inScope = new Map<string, SyncFile>();
		await forEachInSlices(this.deps.vault.files(), (file) => {
			if (scope.pathExclusion(file.path) === null) inScope.set(file.path, file);
		});
		await nextTurn();
		const sources = await listSourcesInPages(() => this.deps.runtime.store());
		store = this.deps.runtime.store();
		if (this.stopped || store === undefined || sources === undefined) return null;
		const known = new Map<string, Source>();
		await forEachInSlices(sources, (source) => {
			known.set(source.path, source);
		});

		// New and changed files by mtime and size (Obsidian's mtime may carry fractions; the core keeps whole ms).
		const changed: SyncFile[] = [];
		const unchanged: SyncFile[] = [];
		await forEachInSlices([...inScope.values()], (file) => {
			const source = known.get(file.path);
			if (source === undefined || source.mtime !== Math.trunc(file.mtime) || source.size !== file.size) changed.push(file);
			else unchanged.push(file);
		});
		// Gone from the vault, or no longer in scope after a settings change.
		const gone = sources.filter((source) => !inScope.has(source.path));
		// Renamed or moved while Obsidian was closed: the memories move with the note, at no cost.
		const renames = await renamedNotes(
			gone,
			changed.filter((file) => !known.has(file.path)),
			(path) => this.deps.vault.readBytes(path),
		);
		for (const { from, to } of renames) {
			const target = this.deps.runtime.store();
			if (this.stopped || target === undefined) return null;
			await target.renameNote(from, to);
		}
		const renamedFrom = new Set(renames.map((rename) => rename.from));
		const renamedTo = new Set(renames.map((rename) => rename.to));
		if (renamedTo.size > 0) changed.splice(0, changed.length, ...changed.filter((file) => !renamedTo.has(file.path)));
		const removals = gone.filter((source) => !renamedFrom.has(source.path)).map((source) => source.path);

		// Content exclusions, for the files that will be read (the unchanged ones are known and fine).
		const toCheck = mode === "rebuild" ? [...changed, ...unchanged] : changed;
		const toQueue: SyncFile[] = [];
		const recheckSkipped: string[] = [];
		await forEachInSlices(toCheck, async (file) => {
			const reason = await this.contentExclusion(file, scope);
			if (reason !== null) {
				this.contentExcluded.set(file.path, reason);
				// Also when never remembered: work queued for it (before a restart) must not run.
				removals.push(file.path);
				return;
			}
			this.contentExcluded.delete(file.path);
			toQueue.push(file);
			// The core skips an unchanged file without looking again; forget the old verdict
			// so that "Rebuild" re-decides it under today's settings (size limit, plain text).
			if (mode === "rebuild" && known.get(file.path)?.skipped != null) recheckSkipped.push(file.path);
		});
		for (const path of this.contentExcluded.keys()) if (!inScope.has(path)) this.contentExcluded.delete(path);

		// Only new and changed notes can cost model calls; a rebuild's re-checks of unchanged
		// notes are hashed by the core and cost nothing.
		const changedSet = new Set(changed);
		const costly = toQueue.filter((file) => changedSet.has(file));
		let queue = toQueue;
		let cancelled = false;
		if (costly.length > this.deps.bulkThreshold()) {
			const choice = await this.deps.confirmBulk(await bulkQuestion(store, costly));
			if (choice.kind === "cancel") {
				queue = mode === "rebuild" ? toQueue.filter((file) => !changedSet.has(file)) : [];
				cancelled = true;
			} else if (choice.kind === "pause") {
				await this.deps.runtime.store()?.pause();
			} else if (choice.folders !== undefined) {
				const folders = choice.folders;
				queue = toQueue.filter((file) => folders.has(topFolder(file.path)));
			}
		}

		if (this.stopped || this.deps.runtime.store() === undefined) return null;
		const current = () => (this.stopped ? undefined : this.deps.runtime.store());
		await inBatches(current, [...removals, ...recheckSkipped], (target, paths) => target.removeNotes(paths));
		await inBatches(current, queue.map((file) => file.path), (target, paths) => target.enqueueNotes(paths));
		const after = this.deps.runtime.store();
		if (this.stopped || after === undefined) return null;
		if (mode === "rebuild") await after.retryFailed();
		this.scopePaths = new Set(inScope.keys());
		if (removals.length > 0 || queue.length > 0 || renames.length > 0 || mode === "rebuild") this.deps.runtime.changed();
		if (queue.length > 0 || mode === "rebuild") this.deps.runtime.kick();
		await this.recount(true);
		return { inScope: inScope.size - this.contentExcluded.size, queued: queue.length, removed: removals.length, excluded: this.contentExcluded.size, cancelled };
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
		let excludedInScope = 0;
		for (const path of this.contentExcluded.keys()) if (scopePaths.has(path)) excludedInScope++;
		const inScope = scopePaths.size - excludedInScope;
		this.coverage = { remembered: Math.min(remembered, inScope), inScope };
		if (notify) for (const listener of this.listeners) listener();
	}

	/** The scope for the current settings, compiled once per settings change. */
	private scope(): NoteScope {
		const rules = this.deps.rules();
		const key = JSON.stringify(rules);
		if (this.cachedScope?.key !== key) this.cachedScope = { key, scope: new NoteScope(rules) };
		return this.cachedScope.scope;
	}
}

async function bulkQuestion(store: MemoryStore, files: readonly SyncFile[]): Promise<BulkQuestion> {
	const folders = new Map<string, number>();
	for (const file of files) {
		const folder = topFolder(file.path);
		folders.set(folder, (folders.get(folder) ?? 0) + 1);
	}
	return {
		estimate: await store.estimateIngest(files.length, files.reduce((sum, file) => sum + file.size, 0)),
		folders: [...folders.entries()].map(([folder, notes]) => ({ folder, notes })).sort((a, b) => a.folder.localeCompare(b.folder)),
	};
}
