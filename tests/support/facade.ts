// Loads the built WebAssembly facade and sql.js in Node, once per test process.

import { readFile } from "node:fs/promises";
import path from "node:path";
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
