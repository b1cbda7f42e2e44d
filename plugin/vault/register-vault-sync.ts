// Wires the vault sync into Obsidian: vault events after the layout is ready, reconciliation
// whenever the store becomes ready, the status view and bar, and the sync's commands.

import { type App, Notice, type Plugin, TFile, TFolder } from "obsidian";
import { ErrorCode, errorCode } from "../core/core-error";
import type { PluginContext } from "../plugin-context";
import { STATUS_VIEW_TYPE, StatusView } from "../views/status-view";
import { BulkConfirmModal } from "./bulk-confirm-modal";
import { isRememberable } from "./file-kinds";
import { OtherDeviceWait } from "./other-device-wait";
import { type SyncVaultPort, VaultSync } from "./vault-sync";

/** Notes, PDFs and images by the core's extension lists: the files the core may remember (it decides which). */
function mayBeNote(file: TFile): boolean {
	return isRememberable(file.path);
}

function vaultPort(app: App): SyncVaultPort {
	const noteFile = (path: string): TFile | null => app.vault.getFileByPath(path);
	return {
		// A generator: the reconciliation's slices make each record, not one pass over the whole vault.
		files: function* () {
			for (const file of app.vault.getFiles()) {
				if (mayBeNote(file)) yield { path: file.path, mtime: file.stat.mtime, size: file.stat.size };
			}
		},
		file: (path) => {
			const file = noteFile(path);
			return file === null ? null : { path: file.path, mtime: file.stat.mtime, size: file.stat.size };
		},
		metadata: (path) => {
			const file = noteFile(path);
			return file === null ? null : app.metadataCache.getFileCache(file);
		},
	};
}

async function openStatusView(app: App): Promise<void> {
	let leaf = app.workspace.getLeavesOfType(STATUS_VIEW_TYPE)[0];
	if (leaf === undefined) {
		leaf = app.workspace.getRightLeaf(false) ?? app.workspace.getLeaf(true);
		await leaf.setViewState({ type: STATUS_VIEW_TYPE, active: true });
	}
	await app.workspace.revealLeaf(leaf);
}

export function registerVaultSync(plugin: Plugin, context: PluginContext): void {
	const sync = createVaultSync(plugin, context);
	plugin.register(() => sync.stop());
	showCoverage(plugin, context, sync);
	// Reconcile after every start (and after the database file was reloaded from disk).
	plugin.register(context.runtime.onReady(() => void sync.reconcile("start").catch(unlessStopped)));
	// Obsidian reports every file as "created" while it loads the vault; listen only afterwards.
	context.app.workspace.onLayoutReady(() => listenToVault(plugin, context.app, sync));
	registerSyncCommands(plugin, context, sync);
	reconcileWhenImagesChange(plugin, context, sync);
}

/**
 * "Remember images and scanned pages" changes the core's verdict on every PDF and image, also
 * unchanged ones it recorded as skipped: those are decided again (a reconciliation of them).
 */
function reconcileWhenImagesChange(plugin: Plugin, context: PluginContext, sync: VaultSync): void {
	let rememberImages = context.settings().rememberImages;
	plugin.register(
		context.onSettingsSaved((settings) => {
			if (settings.rememberImages === rememberImages) return;
			rememberImages = settings.rememberImages;
			void sync.reconcile("media").catch(unlessStopped);
		}),
	);
}

/** The sync over Obsidian's vault, with the wait for other devices fed by the editor. */
function createVaultSync(plugin: Plugin, context: PluginContext): VaultSync {
	const { app, runtime } = context;
	const otherDevice = new OtherDeviceWait({
		otherDeviceWaitMs: () => context.settings().otherDeviceWaitSeconds * 1000,
		shared: () => runtime.status()?.shared === true,
		now: () => Date.now(),
	});
	plugin.registerEvent(
		app.workspace.on("editor-change", (_editor, info) => {
			if (info.file !== null) otherDevice.typedIn(info.file.path);
		}),
	);
	return new VaultSync({
		vault: vaultPort(app),
		runtime: { store: () => runtime.store(), kick: () => runtime.runner.kick(), changed: () => runtime.changed() },
		timers: {
			setTimeout: (callback, ms) => window.setTimeout(callback, ms),
			clearTimeout: (handle) => window.clearTimeout(handle as number),
		},
		quietDelayMs: () => context.settings().quietDelaySeconds * 1000,
		payAfter: (path) => otherDevice.payAfter(path),
		bulkThreshold: () => context.settings().bulkConfirmThreshold,
		confirmBulk: (question) => BulkConfirmModal.ask(app, question),
		notify: (message) => new Notice(message, 10_000),
	});
}

/** The status bar's coverage and the status view. */
function showCoverage(plugin: Plugin, context: PluginContext, sync: VaultSync): void {
	const { app, runtime } = context;
	runtime.statusBar.showCoverage(
		() => sync.currentCoverage(),
		() => sync.scheduleCoverage(),
	);
	sync.onChange(() => runtime.statusBar.refresh());
	runtime.statusBar.onSelect(() => void openStatusView(app));
	plugin.registerView(
		STATUS_VIEW_TYPE,
		(leaf) =>
			new StatusView(leaf, {
				store: () => runtime.store(),
				describe: () => runtime.describe(),
				databasePath: () => runtime.databasePath,
				coverage: () => sync.coverageNow(),
				leftOut: () => sync.leftOut(),
				onChange: (listener) => sync.onChange(listener),
				changed: () => {
					runtime.changed();
					runtime.runner.kick();
				},
			}),
	);
}

/** Vault events for notes, PDFs and images; a deleted folder's files go with it. */
function listenToVault(plugin: Plugin, app: App, sync: VaultSync): void {
	plugin.registerEvent(app.vault.on("create", (file) => file instanceof TFile && mayBeNote(file) && sync.fileChanged(file.path, file.stat.size)));
	plugin.registerEvent(app.vault.on("modify", (file) => file instanceof TFile && mayBeNote(file) && sync.fileChanged(file.path)));
	plugin.registerEvent(
		app.vault.on("delete", (file) => {
			if (file instanceof TFile && mayBeNote(file)) sync.fileDeleted(file.path, file.stat.size);
			else if (file instanceof TFolder) void sync.folderDeleted(file.path);
		}),
	);
	// A renamed folder is reported file by file; renaming its sources here too would do it twice.
	plugin.registerEvent(
		app.vault.on("rename", (file, oldPath) => {
			if (!(file instanceof TFile)) return;
			const wasNote = isRememberable(oldPath);
			if (wasNote && mayBeNote(file)) sync.fileRenamed(oldPath, file.path);
			else if (wasNote) sync.fileDeleted(oldPath);
			else if (mayBeNote(file)) sync.fileChanged(file.path, file.stat.size);
		}),
	);
}

/** Rebuild, the status view, pause and resume, retry. */
function registerSyncCommands(plugin: Plugin, context: PluginContext, sync: VaultSync): void {
	const { app, runtime } = context;
	plugin.addCommand({ id: "rebuild-memory", name: "Rebuild memory from vault", callback: () => rebuild(context, sync) });
	const showStatus = () => {
		if (runtime.store() === undefined) new Notice(runtime.describe(), 10_000);
		else void openStatusView(app);
	};
	plugin.addCommand({ id: "show-memory-status", name: "Show memory status", callback: showStatus });
	// A phone has no status bar: its ribbon menu (the ribbon's icons) leads to the status view.
	plugin.addRibbonIcon("activity", "Memory status", showStatus);
	plugin.addCommand({ id: "toggle-pause", name: "Pause or resume remembering", callback: () => togglePause(context) });
	plugin.addCommand({ id: "retry-failed", name: "Retry failed notes", callback: () => retryFailed(context) });
}

async function rebuild({ runtime }: PluginContext, sync: VaultSync): Promise<void> {
	if (runtime.store() === undefined) {
		new Notice(runtime.describe(), 10_000);
		return;
	}
	// Rebuild re-checks every note: each is read and hashed again (unchanged text costs
	// no model call), skipped notes are decided again under today's settings, notes no
	// longer in the vault or in scope are forgotten, and failed notes are retried.
	new Notice("Re-checking every note. Only changed text is sent to the model.", 5_000);
	const report = await sync.reconcile("rebuild");
	if (report === null) return;
	new Notice(
		`Memory Agent checked ${report.inScope.toLocaleString()} notes: ${report.queued.toLocaleString()} queued, ${report.removed.toLocaleString()} forgotten.`,
		10_000,
	);
}

async function togglePause({ runtime }: PluginContext): Promise<void> {
	const store = runtime.store();
	if (store === undefined) {
		new Notice(runtime.describe(), 10_000);
		return;
	}
	if ((await store.status()).paused === null) {
		await store.pause();
		// What was done so far is written now, not at the next change.
		await runtime.flush();
		new Notice("Remembering is paused. Notes stay queued and are remembered when you resume.");
	} else {
		await store.resume();
		new Notice("Remembering resumed.");
	}
	runtime.changed();
	runtime.runner.kick();
}

async function retryFailed({ runtime }: PluginContext): Promise<void> {
	const store = runtime.store();
	if (store === undefined) {
		new Notice(runtime.describe(), 10_000);
		return;
	}
	const retried = await store.retryFailed(true);
	new Notice(retried === 0 ? "Nothing has failed." : `Memory Agent is retrying ${retried.toLocaleString()} failed notes.`);
	runtime.changed();
	runtime.runner.kick();
}

/** A reconciliation the plugin's unload or a worker restart cut short ends there (the next start reconciles again); any other failure is still reported. */
function unlessStopped(error: unknown): null {
	if (errorCode(error) === ErrorCode.workerStopped) return null;
	throw error;
}
