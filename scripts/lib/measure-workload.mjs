// Child process of measure-wasm: times a fixed workload through one build of the facade in Node.
//
// Usage: node measure-workload.mjs <folder with memory_agent.js + memory_agent_bg.wasm> <runs>
// Prints one JSON line: median milliseconds of each workload.

import fs from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import initSqlJs from "sql.js";

const [pkgDir, runsArg] = process.argv.slice(2);
const runs = Number(runsArg ?? 5);
const SELF_CHECK_REPEATS = 5;

const glue = await import(pathToFileURL(path.join(pkgDir, "memory_agent.js")).href);
await glue.default({ module_or_path: fs.readFileSync(path.join(pkgDir, "memory_agent_bg.wasm")) });
const SQL = await initSqlJs();

// 16 MiB of fixed pseudo-random bytes (xorshift), the same for every build.
const input = new Uint8Array(16 * 1024 * 1024);
let x = 0x9e3779b9;
for (let i = 0; i < input.length; i++) {
	x ^= x << 13;
	x ^= x >>> 17;
	x ^= x << 5;
	input[i] = x & 0xff;
}

function median(values) {
	const sorted = [...values].sort((a, b) => a - b);
	return sorted[Math.floor(sorted.length / 2)];
}

function time(fn) {
	const start = performance.now();
	fn();
	return performance.now() - start;
}

let digest = "";
const sha = [];
const selfCheck = [];
for (let run = 0; run < runs; run++) {
	sha.push(time(() => (digest = glue.sha256Hex(input))));
	selfCheck.push(
		time(() => {
			for (let i = 0; i < SELF_CHECK_REPEATS; i++) {
				const failed = glue.storeSelfCheck(SQL).filter((r) => !r.ok);
				if (failed.length > 0) throw new Error(`self-check failed: ${JSON.stringify(failed)}`);
			}
		}),
	);
}
console.log(JSON.stringify({ sha256Ms: median(sha), selfCheckMs: median(selfCheck), selfCheckRepeats: SELF_CHECK_REPEATS, digest }));
