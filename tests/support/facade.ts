// Loads the built WebAssembly facade and sql.js in Node, once per test process.

import { readFile } from "node:fs/promises";
import path from "node:path";
import { pathToFileURL } from "node:url";
import initSqlJs, { type SqlJsStatic } from "sql.js";
import initCore, * as facade from "../../build/pkg/memory_agent.js";
import { REPO_ROOT } from "../host/host";

export type Facade = typeof facade;

const noLog = () => Promise.reject(new Error("this test's host has no log files"));
/** The device log's file operations of a `CoreHost` for a test that never syncs or replays a log: each rejects. */
export const NO_LOG_FILES: Pick<facade.CoreHost, "listFolder" | "readFrom" | "appendText" | "createFile" | "removeFile"> = {
	listFolder: noLog,
	readFrom: noLog,
	appendText: noLog,
	createFile: noLog,
	removeFile: noLog,
};

/** Image decoding of a `CoreHost` for a test with no pictures: it rejects as a device without a canvas would. */
export const NO_IMAGES: Pick<facade.CoreHost, "renderImage"> = {
	renderImage: () => Promise.reject(new Error("this test's host decodes no pictures")),
};

let loading: Promise<{ facade: Facade; SQL: SqlJsStatic }> | undefined;

/** The facade (initialised from the .wasm bytes, as the plugin does) and a real sql.js. */
export function loadFacade(): Promise<{ facade: Facade; SQL: SqlJsStatic }> {
	loading ??= (async () => {
		const bytes = await readFile(path.join(REPO_ROOT, "build", "pkg", "memory_agent_bg.wasm"));
		await initCore({ module_or_path: bytes });
		return { facade, SQL: await initSqlJs() };
	})();
	return loading;
}

/** What only the test build of the facade exports. */
export interface SelfCheckFacade {
	/** The store contract suite. */
	storeSelfCheck(sql: SqlJsStatic): unknown;
	/** The core's settings schema as JSON (src/settings_schema.rs). */
	settingsSchema(): string;
	/** data.json's text read as the core reads it: `{ settings, problems: [{ key, message }], engine }` as JSON. */
	readSettings(dataJson: string): string;
}

/** The test build of the facade, which also carries the store contract suite and the settings schema. */
export async function loadSelfCheckFacade(): Promise<SelfCheckFacade & { SQL: SqlJsStatic }> {
	const glue = path.join(REPO_ROOT, "build", "pkg-self-check", "memory_agent.js");
	const module = (await import(pathToFileURL(glue).href)) as SelfCheckFacade & { default: (input: { module_or_path: Buffer }) => Promise<unknown> };
	await module.default({ module_or_path: await readFile(path.join(REPO_ROOT, "build", "pkg-self-check", "memory_agent_bg.wasm")) });
	return { storeSelfCheck: module.storeSelfCheck, settingsSchema: module.settingsSchema, readSettings: module.readSettings, SQL: await initSqlJs() };
}
