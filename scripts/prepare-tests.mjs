// `npm run prepare:tests` (part of the README's setup and of `.ci/run`): installs what the test
// command needs from a registry, so that `npm test` itself needs no network — today the official
// MCP Python SDK (tests/mcp/requirements.txt, pinned) in a virtual environment under
// target/mcp-venv, made again only when the pin changes.

import { spawnSync } from "node:child_process";
import { rmSync } from "node:fs";
import path from "node:path";
import { ROOT } from "./lib/run.mjs";
import { MCP_VENV, MCP_VENV_PYTHON, installedMcpSdk, pinnedMcpSdk } from "./lib/mcp-venv.mjs";

function run(command, args) {
	const result = spawnSync(command, args, { cwd: ROOT, stdio: "inherit" });
	if (result.status !== 0) throw new Error(`${command} ${args.join(" ")} failed (exit ${result.status ?? result.error?.message})`);
}

function main() {
	const pinned = pinnedMcpSdk();
	if (installedMcpSdk() === pinned) {
		console.log(`The MCP Python SDK ${pinned} is ready in ${path.relative(ROOT, MCP_VENV)}.`);
		return;
	}
	rmSync(MCP_VENV, { recursive: true, force: true });
	// Debian: apt-get install python3-venv.
	run("python3", ["-m", "venv", MCP_VENV]);
	run(MCP_VENV_PYTHON, ["-m", "pip", "install", "--quiet", "--disable-pip-version-check", "-r", path.join(ROOT, "tests", "mcp", "requirements.txt")]);
	if (installedMcpSdk() !== pinned) throw new Error(`the venv does not hold the MCP SDK ${pinned}`);
	console.log(`The MCP Python SDK ${pinned} is installed in ${path.relative(ROOT, MCP_VENV)}.`);
}

try {
	main();
} catch (error) {
	console.error(`\nPreparing the tests failed: ${error instanceof Error ? error.message : String(error)}`);
	process.exitCode = 1;
}
