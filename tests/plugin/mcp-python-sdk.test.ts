// `memory-agent mcp` through a client the project did not write: the official MCP Python SDK
// (`mcp` on PyPI, pinned in tests/mcp/requirements.txt) in the virtual environment under
// target/mcp-venv that `npm run prepare:tests` makes (the test installs nothing). The plugin remembers the test
// notes in the headless host through the fake Bedrock and is unloaded, as in
// memory-agent-command.test.ts; tests/mcp/test_server.py then checks, over stdio, what an MCP
// client sees: the protocol version, each tool's title, annotations and output schema (no null
// unions), recall's structured result, read_note's passage and refusals (an excluded note, a
// path out of the vault), one remember through the fake Bedrock, and the tool errors of a vault
// without memory and of one that does not exist. The SDK itself validates every structured
// result against its tool's output schema.

import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { after, before, test } from "node:test";
import { fileURLToPath } from "node:url";
import { MCP_VENV, MCP_VENV_PYTHON, installedMcpSdk, pinnedMcpSdk } from "../../scripts/lib/mcp-venv.mjs";
import { TEST_CREDENTIALS } from "../fake-bedrock/index";
import { COMMAND, commandMissing, isolatedEnv } from "../support/memory-agent-command";
import { NOTES, type UiHost, rememberNotes, startUiHost, waitForMemories } from "./views-fixture";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");
const SCRIPT = path.join(ROOT, "tests", "mcp", "test_server.py");
/** A note the vault's settings exclude: read_note must refuse it. */
const EXCLUDED = "Private/Passwords.md";

const skip = commandMissing;

let vaultDir: string;
let emptyVault: string;
let home: string;
let ui: UiHost;

/**
 * The venv's Python with the pinned SDK, prepared by `npm run prepare:tests` (the README's setup
 * and `.ci/run` run it): the test command installs nothing.
 */
function pythonWithSdk(): string {
	const pinned = pinnedMcpSdk();
	const installed = installedMcpSdk();
	assert.equal(installed, pinned, `The MCP Python SDK ${pinned} is not in ${MCP_VENV} (found: ${installed ?? "none"}): run \`npm run prepare:tests\` (part of the README's setup) once.`);
	return MCP_VENV_PYTHON;
}

before(async () => {
	if (skip) return;
	vaultDir = await fs.mkdtemp(path.join(os.tmpdir(), "memory-agent-mcp-sdk-vault-"));
	emptyVault = await fs.mkdtemp(path.join(os.tmpdir(), "memory-agent-mcp-sdk-empty-"));
	await fs.mkdir(path.join(emptyVault, ".obsidian"));
	home = await fs.mkdtemp(path.join(os.tmpdir(), "memory-agent-mcp-sdk-home-"));
	ui = await startUiHost({
		vaultDir,
		notes: { ...NOTES, [EXCLUDED]: "# Passwords\n\nThe bank PIN is 1234.\n" },
		settings: { dailyConsolidation: false, consolidationThreshold: 10_000, excludedFolders: ["Private"] },
	});
	await rememberNotes(ui.host);
	await waitForMemories(ui.host, 3);
	await ui.host.unloadPlugin();
});

after(async () => {
	await ui?.close();
	for (const dir of [vaultDir, emptyVault, home]) if (dir) await fs.rm(dir, { recursive: true, force: true });
});

/** Runs `python args` to its end without blocking this process (the fake Bedrock answers from it). */
function runPython(python: string, args: string[], env: NodeJS.ProcessEnv): Promise<{ code: number | null; output: string }> {
	return new Promise((resolve, reject) => {
		const child = spawn(python, args, { env });
		let output = "";
		child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
		child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()));
		child.on("error", reject);
		child.on("close", (code) => resolve({ code, output }));
	});
}

test("the official MCP Python SDK sees titles, annotations, output schemas, structured results, read_note and tool errors", { skip, timeout: 600_000 }, async () => {
	const python = pythonWithSdk();
	const env = isolatedEnv(home, {
		AWS_ACCESS_KEY_ID: TEST_CREDENTIALS.accessKeyId,
		AWS_SECRET_ACCESS_KEY: TEST_CREDENTIALS.secretAccessKey,
		AWS_REGION: "us-east-1",
		AWS_ENDPOINT_URL_BEDROCK_RUNTIME: ui.fake.url,
	});
	const requests = ui.fake.requests.length;
	const args = [SCRIPT, "--command", COMMAND, "--vault", vaultDir, "--excluded", EXCLUDED, "--empty-vault", emptyVault, "--missing-vault", path.join(emptyVault, "missing"), "--remember"];
	const ran = await runPython(python, args, env);
	assert.equal(ran.code, 0, ran.output);
	assert.match(ran.output, /all checks passed/);
	assert.ok(ui.fake.requests.length > requests, "remember called the fake Bedrock");
	assert.ok(!ui.fake.requests.some((request) => JSON.stringify(request).includes("bank PIN")), "the excluded note never reached the model");
});
