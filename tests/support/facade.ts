// Loads the built WebAssembly facade and sql.js in Node, once per test process.

import { readFile } from "node:fs/promises";
import path from "node:path";
import { pathToFileURL } from "node:url";
import initSqlJs, { type SqlJsStatic } from "sql.js";
import initCore, * as facade from "../../build/pkg/memory_agent.js";
import { REPO_ROOT } from "../host/host";

export type Facade = typeof facade;

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

/** The test build of the facade, which also carries the store contract suite (`storeSelfCheck`). */
export async function loadSelfCheckFacade(): Promise<{ storeSelfCheck(sql: SqlJsStatic): unknown; SQL: SqlJsStatic }> {
	const glue = path.join(REPO_ROOT, "build", "pkg-self-check", "memory_agent.js");
	const module = (await import(pathToFileURL(glue).href)) as { default: (input: { module_or_path: Buffer }) => Promise<unknown>; storeSelfCheck(sql: SqlJsStatic): unknown };
	await module.default({ module_or_path: await readFile(path.join(REPO_ROOT, "build", "pkg-self-check", "memory_agent_bg.wasm")) });
	return { storeSelfCheck: module.storeSelfCheck, SQL: await initSqlJs() };
}
