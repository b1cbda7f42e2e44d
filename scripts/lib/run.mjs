// Runs a program without a shell (same behaviour on every OS) and fails loudly on a non-zero exit.

import { spawnSync } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");

/** Runs `command args` in the repository root with inherited output; throws on failure. */
export function run(command, args, options = {}) {
	const printable = [command, ...args].join(" ");
	console.log(`$ ${printable}`);
	const result = spawnSync(command, args, { cwd: ROOT, stdio: "inherit", ...options });
	if (result.error) throw new Error(`${printable}: ${result.error.message}`);
	if (result.status !== 0) throw new Error(`${printable} exited with ${result.status ?? result.signal}`);
}

/** Runs a program and returns its standard output, or undefined when it cannot run or fails. */
export function capture(command, args, options = {}) {
	const result = spawnSync(command, args, { cwd: ROOT, encoding: "utf8", ...options });
	if (result.error || result.status !== 0) return undefined;
	return result.stdout;
}

/** Runs a Node script file (a package's bin) with this Node, so no shell wrapper is needed. */
export function runNodeScript(script, args, options = {}) {
	run(process.execPath, [path.join(ROOT, script), ...args], options);
}
