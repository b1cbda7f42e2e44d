// Wires the vault sync into Obsidian: vault events after the layout is ready, reconciliation
// whenever the store becomes ready, the status view and bar, and the sync's commands.

import { type App, Notice, type Plugin, TFile, TFolder, normalizePath } from "obsidian";
import type { PluginContext } from "../plugin-context";
import { STATUS_VIEW_TYPE, StatusView } from "../views/status-view";
import { BulkConfirmModal } from "./bulk-confirm-modal";
import { OtherDeviceWait } from "./other-device-wait";
import type { ScopeRules } from "./note-scope";
import { scopeRulesOf } from "./scope-rules";
import { type SyncVaultPort, VaultSync } from "./vault-sync";

function vaultPort(app: App): SyncVaultPort {
	const noteFile = (path: string): TFile | null => app.vault.getFileByPath(path);
	return {
		// A generator: the reconciliation's slices make each record, not one pass over the whole vault.
		files: function* () {
			for (const file of app.vault.getFiles()) {
				if (file.extension === "md" || file.extension === "txt") yield { path: file.path, mtime: file.stat.mtime, size: file.stat.size };
			}
		},
		file: (path) => {
			const file = noteFile(path);
			return file === null ? null : { path: file.path, mtime: file.stat.mtime, size: file.stat.size };
		},
		readText: async (path) => {
			const file = noteFile(path);
			return file === null ? null : app.vault.cachedRead(file);
		},
		readBytes: async (path) => {
			const file = noteFile(path);
			return file === null ? null : app.vault.readBinary(file);
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
	const { app, runtime } = context;
	const rules = (): ScopeRules => scopeRulesOf(app, context.settings());
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
	const sync = new VaultSync({
		vault: vaultPort(app),
		runtime: { store: () => runtime.store(), kick: () => runtime.runner.kick(), changed: () => runtime.changed() },
		timers: {
			setTimeout: (callback, ms) => window.setTimeout(callback, ms),
			clearTimeout: (handle) => window.clearTimeout(handle as number),
		},
		rules,
		quietDelayMs: () => context.settings().quietDelaySeconds * 1000,
		payAfter: (path) => otherDevice.payAfter(path),
		bulkThreshold: () => context.settings().bulkConfirmThreshold,
		maxNoteBytes: () => context.settings().maxNoteSizeKb * 1024,
		confirmBulk: (question) => BulkConfirmModal.ask(app, question),
		notify: (message) => new Notice(message, 10_000),
	});
	plugin.register(() => sync.stop());

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
				databasePath: () => normalizePath(context.settings().databasePath),
				coverage: () => sync.coverageNow(),
				excludedByContent: () => sync.excludedByContent(),
				onChange: (listener) => sync.onChange(listener),
				changed: () => {
					runtime.changed();
					runtime.runner.kick();
				},
			}),
	);

	// Reconcile after every start (and after the database file was reloaded from disk).
	plugin.register(runtime.onReady(() => void sync.reconcile("start")));

	// Obsidian reports every file as "created" while it loads the vault; listen only afterwards.
	app.workspace.onLayoutReady(() => {
		plugin.registerEvent(app.vault.on("create", (file) => file instanceof TFile && sync.fileChanged(file.path, file.stat.size)));
		plugin.registerEvent(app.vault.on("modify", (file) => file instanceof TFile && sync.fileChanged(file.path)));
		plugin.registerEvent(
			app.vault.on("delete", (file) => {
				if (file instanceof TFile) sync.fileDeleted(file.path, file.stat.size);
				else if (file instanceof TFolder) void sync.folderDeleted(file.path);
			}),
		);
		// A renamed folder is reported file by file; renaming its sources here too would do it twice.
		plugin.registerEvent(
			app.vault.on("rename", (file, oldPath) => {
				if (!(file instanceof TFile)) return;
				sync.fileRenamed(oldPath, file.path);
			}),
		);
	});

	plugin.addCommand({
		id: "rebuild-memory",
		name: "Rebuild memory from vault",
		callback: async () => {
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
		},
	});
	const showStatus = () => {
		if (runtime.store() === undefined) new Notice(runtime.describe(), 10_000);
		else void openStatusView(app);
	};
	plugin.addCommand({ id: "show-memory-status", name: "Show memory status", callback: showStatus });
	// A phone has no status bar: its ribbon menu (the ribbon's icons) leads to the status view.
	plugin.addRibbonIcon("activity", "Memory status", showStatus);
	plugin.addCommand({
		id: "toggle-pause",
		name: "Pause or resume remembering",
		callback: async () => {
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
		},
	});
	plugin.addCommand({
		id: "retry-failed",
		name: "Retry failed notes",
		callback: async () => {
			const store = runtime.store();
			if (store === undefined) {
				new Notice(runtime.describe(), 10_000);
				return;
			}
			const retried = await store.retryFailed();
			new Notice(retried === 0 ? "Nothing has failed." : `Memory Agent is retrying ${retried.toLocaleString()} failed notes.`);
			runtime.changed();
			runtime.runner.kick();
		},
	});
}
