// The built `memory-agent` command, run as a test runs it: asynchronously (a fake Bedrock may
// answer from the test's own process), with an environment of its own — its home, no instance
// metadata, no credentials from this machine, only what the test gives.

import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");

/** Built by `npm test` before the suites that use it (`cargo build --features cli --bin memory-agent`). */
export const COMMAND = path.join(ROOT, "target", "debug", "memory-agent");

/** Why a suite of the command is skipped, or false. */
export const commandMissing: string | false = existsSync(COMMAND) ? false : `${COMMAND} is not built (cargo build --features cli --bin memory-agent)`;

export interface Ran {
	code: number | null;
	stdout: string;
	stderr: string;
}

/** The command's environment: `home` as its home (and AWS's files there), UTC, no instance metadata, and `env`. */
export function isolatedEnv(home: string, env: Record<string, string>): NodeJS.ProcessEnv {
	return {
		PATH: process.env.PATH,
		HOME: home,
		TZ: "UTC",
		AWS_EC2_METADATA_DISABLED: "true",
		AWS_CONFIG_FILE: path.join(home, "aws-config"),
		AWS_SHARED_CREDENTIALS_FILE: path.join(home, "aws-credentials"),
		...env,
	};
}

/** Starts the command with `args` (for a conversation over its stdio, e.g. MCP). */
export function startCommand(args: string[], home: string, env: Record<string, string> = {}): ChildProcessWithoutNullStreams {
	return spawn(COMMAND, args, { env: isolatedEnv(home, env) });
}

/** Runs the command to its end, with `input` on its stdin. */
export function runCommand(args: string[], home: string, { env = {}, input }: { env?: Record<string, string>; input?: string } = {}): Promise<Ran> {
	return new Promise((resolve, reject) => {
		const child = startCommand(args, home, env);
		let stdout = "";
		let stderr = "";
		child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
		child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
		child.on("error", reject);
		child.on("close", (code) => resolve({ code, stdout, stderr }));
		// A command that reads no stdin may be gone before it is written to.
		child.stdin.on("error", () => undefined);
		child.stdin.end(input ?? "");
	});
}
