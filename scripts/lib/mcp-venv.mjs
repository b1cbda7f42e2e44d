// Where the official MCP Python SDK lives for the tests (prepared by `npm run prepare:tests`,
// used by tests/plugin/mcp-python-sdk.test.ts), and which version it must be.

import { spawnSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { ROOT } from "./run.mjs";

export const MCP_VENV = path.join(ROOT, "target", "mcp-venv");
export const MCP_VENV_PYTHON = path.join(MCP_VENV, process.platform === "win32" ? "Scripts/python.exe" : "bin/python");
const REQUIREMENTS = path.join(ROOT, "tests", "mcp", "requirements.txt");

/** The SDK version tests/mcp/requirements.txt pins. */
export function pinnedMcpSdk() {
	const pin = /^mcp==(\S+)$/m.exec(readFileSync(REQUIREMENTS, "utf8"));
	if (!pin) throw new Error(`${REQUIREMENTS} pins no mcp version`);
	return pin[1];
}

/** The SDK version the venv holds, or null when there is none. */
export function installedMcpSdk() {
	if (!existsSync(MCP_VENV_PYTHON)) return null;
	const asked = spawnSync(MCP_VENV_PYTHON, ["-c", "import importlib.metadata as m; print(m.version('mcp'))"], { encoding: "utf8" });
	return asked.status === 0 ? asked.stdout.trim() : null;
}
