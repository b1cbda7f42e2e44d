// main.js in a bare realm with only what a mobile WebView offers: no require, process or Buffer.
// A minimal hand-written obsidian stub stands in for the app; the core must still start.

import assert from "node:assert/strict";
import { webcrypto } from "node:crypto";
import fs from "node:fs/promises";
import path from "node:path";
import { test } from "node:test";
import vm from "node:vm";
import { resolveObjectURL } from "node:buffer";
import { REPO_ROOT } from "../host/host";
import { loadMainJs } from "../host/vm-loader";
import { HostWorkers } from "../host/worker";

/** The few element helpers the status bar uses, on a plain object. */
function stubElement() {
	return {
		text: "",
		classes: new Set<string>(),
		attrs: new Map<string, string>(),
		setText(text: string) {
			this.text = text;
		},
		addClass(...classes: string[]) {
			for (const cls of classes) this.classes.add(cls);
		},
		toggleClass(cls: string, on: boolean) {
			if (on) this.classes.add(cls);
			else this.classes.delete(cls);
		},
		setAttr(name: string, value: unknown) {
			this.attrs.set(name, String(value));
		},
		addEventListener() {},
	};
}

/** An in-memory vault adapter (what Obsidian mobile's adapter does, without a disk). */
function memoryAdapter() {
	const files = new Map<string, Uint8Array>();
	const folders = new Set<string>();
	return {
		files,
		exists: async (p: string) => files.has(p) || folders.has(p),
		stat: async (p: string) => (files.has(p) ? { type: "file", ctime: 0, mtime: 1, size: files.get(p)?.length ?? 0 } : null),
		readBinary: async (p: string) => (files.get(p) ?? new Uint8Array()).slice().buffer,
		writeBinary: async (p: string, data: ArrayBuffer) => void files.set(p, new Uint8Array(data).slice()),
		remove: async (p: string) => void files.delete(p),
		rename: async (from: string, to: string) => {
			const data = files.get(from);
			if (!data || files.has(to)) throw new Error("rename failed");
			files.delete(from);
			files.set(to, data);
		},
		mkdir: async (p: string) => void folders.add(p),
		write: async (p: string, text: string) => void files.set(p, new TextEncoder().encode(text)),
		append: async (p: string, text: string) => void files.set(p, new Uint8Array([...(files.get(p) ?? []), ...new TextEncoder().encode(text)])),
		list: async (p: string) => ({
			files: [...files.keys()].filter((file) => file.startsWith(`${p}/`) && !file.slice(p.length + 1).includes("/")),
			folders: [...folders].filter((folder) => folder.startsWith(`${p}/`) && !folder.slice(p.length + 1).includes("/")),
		}),
	};
}

test("main.js requires nothing but obsidian", async () => {
	const code = await fs.readFile(path.join(REPO_ROOT, "main.js"), "utf8");
	const required = [...code.matchAll(/\brequire\(\s*["'`]([^"'`]+)["'`]\s*\)/g)].map((m) => m[1]);
	assert.deepEqual([...new Set(required)], ["obsidian"]);
	assert.equal(/\bimport\.meta\b/.test(code), false, "no import.meta left in the CommonJS bundle");
});

test("the core starts in a realm without any Node built-in", { timeout: 60_000 }, async () => {
	const code = await fs.readFile(path.join(REPO_ROOT, "main.js"), "utf8");
	const notices: string[] = [];
	const commands: Array<{ id: string; callback?: () => unknown }> = [];
	const statusEl = stubElement();
	let layoutReady: (() => unknown) | undefined;
	const adapter = memoryAdapter();
	// Obsidian clears registered intervals on unload; this stub does it at the end of the test.
	const intervals: number[] = [];

	class Plugin {
		constructor(
			readonly app: unknown,
			readonly manifest: unknown,
		) {}
		addStatusBarItem() {
			return statusEl;
		}
		addCommand(command: { id: string }) {
			commands.push(command);
			return command;
		}
		addSettingTab() {}
		register() {}
		registerEvent() {}
		registerInterval(handle: number) {
			intervals.push(handle);
			return handle;
		}
		registerView() {}
		addRibbonIcon() {
			return stubElement();
		}
		async loadData() {
			return null;
		}
		async saveData() {}
	}
	const obsidian = {
		Plugin,
		Notice: class {
			constructor(message: string) {
				notices.push(message);
			}
		},
		PluginSettingTab: class {},
		Setting: class {},
		normalizePath: (p: string) => p,
		requestUrl: () => Promise.reject(new Error("no network in this test")),
		// Base classes the plugin's views, dialogs and vault events extend or test against.
		ItemView: class {},
		Modal: class {},
		FuzzySuggestModal: class {},
		Menu: class {},
		TFile: class {},
		TFolder: class {},
	};

	// What a browser offers; nothing from Node (no process, Buffer, require, global, setImmediate).
	// Web Workers and Blob URLs are a WebView's too: the core runs in one (its own realm is
	// checked by the next test).
	const workers = new HostWorkers();
	const loaded = loadMainJs(
		code,
		{
			setTimeout,
			clearTimeout,
			setInterval,
			clearInterval,
			queueMicrotask,
			TextEncoder,
			TextDecoder,
			console,
			crypto: webcrypto,
			Blob,
			URL,
			Worker: workers.constructorForRealm,
		},
		(id) => (id === "obsidian" ? obsidian : undefined),
	);
	assert.deepEqual(
		// Copied out of the plugin's realm, whose arrays have another prototype.
		[...(vm.runInContext("[typeof process, typeof Buffer, typeof require, typeof global, typeof setImmediate, typeof module]", loaded.context) as string[])],
		["undefined", "undefined", "undefined", "undefined", "undefined", "undefined"],
	);

	const local = new Map<string, unknown>();
	const app = {
		vault: { configDir: ".obsidian", adapter, getFileByPath: () => null, getFiles: () => [], getMarkdownFiles: () => [], on: () => ({}) },
		workspace: { onLayoutReady: (cb: () => unknown) => (layoutReady = cb), on: () => ({}), getLeavesOfType: () => [] },
		secretStorage: { getSecret: () => null, setSecret: () => undefined, listSecrets: () => [] },
		metadataCache: { getFileCache: () => null, on: () => ({}) },
		// Obsidian's per-device storage (the device id, a confirmed endpoint's host).
		loadLocalStorage: () => null,
		saveLocalStorage: () => undefined,
	};
	const plugin = new (loaded.PluginClass as unknown as new (app: unknown, manifest: unknown) => Plugin & {
		onload(): Promise<void>;
		onunload(): void;
	})(app, { id: "memory-agent", dir: ".obsidian/plugins/memory-agent" });
	await plugin.onload();
	assert.equal(statusEl.text, "Memory: starting…");
	assert.ok(layoutReady, "onload asked to be told when the layout is ready");
	assert.ok(commands.some((c) => c.id === "show-memory-status"), "the status command is registered");

	layoutReady();
	const deadline = Date.now() + 30_000;
	while (!/notes$/.test(statusEl.text) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
	assert.equal(statusEl.text, "Memory: 0/0 notes", `notices: ${JSON.stringify(notices)}`);

	plugin.onunload();
	// This device's own database, named by the id the plugin made (local storage keeps nothing here).
	const database = () => [...adapter.files.keys()].find((file) => /^\.obsidian\/plugins\/memory-agent\/memory-[0-9a-f]+\.db$/.test(file));
	while (database() === undefined && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
	const saved = adapter.files.get(database() ?? "");
	assert.ok(saved, "unload wrote the database");
	assert.equal(new TextDecoder().decode(saved.subarray(0, 15)), "SQLite format 3");
	for (const handle of intervals) clearInterval(handle);
	await workers.terminateAll();
});

test("the core's worker runs in a realm without any Node built-in, from the script main.js embeds", async () => {
	const code = await fs.readFile(path.join(REPO_ROOT, "main.js"), "utf8");
	// main.js puts the worker's script in a Blob and starts a Worker on its URL: catch that script.
	let script: Promise<string> | undefined;
	class CatchingWorker {
		onmessage = null;
		constructor(url: string) {
			script = resolveObjectURL(url)?.text();
		}
		postMessage() {}
		terminate() {}
	}
	const loaded = loadMainJs(code, { setTimeout, clearTimeout, setInterval, clearInterval, queueMicrotask, TextEncoder, TextDecoder, console, crypto: webcrypto, Blob, URL, Worker: CatchingWorker }, (id) =>
		id === "obsidian" ? minimalObsidian() : undefined,
	);
	const plugin = new (loaded.PluginClass as unknown as new (app: unknown, manifest: unknown) => { onload(): Promise<void>; onunload(): void })(minimalApp(), {
		id: "memory-agent",
		dir: ".obsidian/plugins/memory-agent",
	});
	await plugin.onload();
	layoutReadyCallback?.();
	const deadline = Date.now() + 10_000;
	while (script === undefined && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
	assert.ok(script, "main.js started a worker");
	const source = await script;

	// A worker's global scope as a browser makes it: Web APIs only. `TypeError` comes from the
	// realm `WebAssembly` comes from, as in a browser: sql.js tells by it (`instanceof`) that a
	// table needs a wrapped function (its `create_function`, which the core's index uses).
	const posted: unknown[] = [];
	const scope = vm.createContext(
		{ setTimeout, clearTimeout, queueMicrotask, TextEncoder, TextDecoder, console, crypto: webcrypto, Blob, Response, DecompressionStream, WebAssembly, TypeError, postMessage: (message: unknown) => posted.push(message) },
		{ codeGeneration: { strings: false, wasm: true } },
	);
	vm.runInContext("globalThis.self = globalThis;", scope);
	vm.runInContext(source, scope, { filename: "worker.js" });
	assert.deepEqual(
		[...(vm.runInContext("[typeof process, typeof Buffer, typeof require, typeof global, typeof setImmediate, typeof module]", scope) as string[])],
		["undefined", "undefined", "undefined", "undefined", "undefined", "undefined"],
	);
	const onmessage = vm.runInContext("self.onmessage", scope) as (event: { data: unknown }) => void;
	onmessage({ data: { kind: "call", id: 1, method: "start", args: [] } });
	onmessage({ data: { kind: "call", id: 2, method: "open", args: [null, Date.now()] } });
	while (posted.length < 2 && Date.now() < deadline + 20_000) await new Promise((r) => setTimeout(r, 20));
	const results = posted.filter((message) => (message as { kind: string }).kind === "result") as Array<{ id: number; ok: boolean; value: Record<string, unknown> }>;
	const started = results.find((result) => result.id === 1);
	assert.equal(started?.ok, true, JSON.stringify(started));
	assert.equal(typeof started?.value.supportedSchemaVersion, "number");
	const opened = results.find((result) => result.id === 2);
	assert.equal(opened?.ok, true, JSON.stringify(opened));
	assert.equal(opened?.value.memories, 0, "a new store opened inside the bare worker");
	// What Obsidian does at unload: the plugin ends, and the intervals it registered are cleared
	// (left running, the five-minute look for due work kept this test's process alive).
	plugin.onunload();
	for (const handle of minimalIntervals.splice(0)) clearInterval(handle);
});

let layoutReadyCallback: (() => void) | undefined;
/** Intervals the minimal plugin registered, cleared at the end as Obsidian clears them at unload. */
const minimalIntervals: number[] = [];

/** The least of `obsidian` main.js needs to load and start the core. */
function minimalObsidian() {
	class Plugin {
		app: unknown;
		constructor(app: unknown) {
			this.app = app;
		}
		addStatusBarItem() {
			return stubElement();
		}
		addCommand() {}
		addSettingTab() {}
		addRibbonIcon() {}
		registerView() {}
		registerEvent() {}
		registerInterval(handle: number) {
			minimalIntervals.push(handle);
			return handle;
		}
		register() {}
		async loadData() {
			return null;
		}
		async saveData() {}
	}
	const base = class {};
	return { Plugin, Notice: base, PluginSettingTab: base, Setting: base, normalizePath: (p: string) => p, requestUrl: () => Promise.reject(new Error("offline")), ItemView: base, Modal: base, FuzzySuggestModal: base, Menu: base, TFile: base, TFolder: base };
}

function minimalApp() {
	const local = new Map<string, unknown>();
	return {
		vault: { configDir: ".obsidian", adapter: memoryAdapter(), getFileByPath: () => null, getFiles: () => [], getMarkdownFiles: () => [], on: () => ({}) },
		workspace: { onLayoutReady: (cb: () => void) => (layoutReadyCallback = cb), on: () => ({}), getLeavesOfType: () => [] },
		secretStorage: { getSecret: () => null, setSecret: () => undefined, listSecrets: () => [] },
		metadataCache: { getFileCache: () => null, on: () => ({}) },
		// Obsidian's per-device storage (the device id, a confirmed endpoint's host).
		loadLocalStorage: () => null,
		saveLocalStorage: () => undefined,
	};
}
