// `npm run measure:wasm`: size and speed of the WebAssembly for each optimisation setting.
//
// Builds the crate with opt-level s, z and 3 (or only $CARGO_PROFILE_RELEASE_OPT_LEVEL), each
// into its own target folder so repeated runs are incremental, runs wasm-bindgen, and measures
// the output as is and after binaryen's wasm-opt at the matching level (-Os/-Oz/-O3; with
// --all, every wasm-opt level for every opt-level). Speed is the median of several runs of a
// fixed workload through the facade in a fresh Node process (sha256Hex over 16 MiB, and
// storeSelfCheck repeated — so these builds carry the contract suite, `--features self-check`,
// and are larger than the plugin's by its size). Results also go to build/measure/results.json.

import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { ROOT } from "./lib/run.mjs";
import { fileSizes } from "./lib/sizes.mjs";
import { cargoBuildWasm, ensureWasmBindgen, ensureWasmTarget, runWasmBindgen, runWasmOpt } from "./lib/wasm-toolchain.mjs";

const OUT = path.join(ROOT, "build", "measure");
const RUNS = Number(process.env.MEASURE_RUNS ?? 5);
const ALL = process.argv.includes("--all");
const LEVELS = process.env.CARGO_PROFILE_RELEASE_OPT_LEVEL ? [process.env.CARGO_PROFILE_RELEASE_OPT_LEVEL] : ["s", "z", "3"];
const WASM_OPT_FOR = { s: "Os", z: "Oz", 3: "O3" };

function measure(pkgDir) {
	const result = spawnSync(process.execPath, [path.join(ROOT, "scripts", "lib", "measure-workload.mjs"), pkgDir, String(RUNS)], {
		cwd: ROOT,
		encoding: "utf8",
	});
	if (result.status !== 0) throw new Error(`workload failed for ${pkgDir}:\n${result.stderr}`);
	return JSON.parse(result.stdout.trim().split("\n").pop());
}

function copyPkg(from, to) {
	fs.rmSync(to, { recursive: true, force: true });
	fs.cpSync(from, to, { recursive: true });
}

function main() {
	const started = Date.now();
	ensureWasmTarget();
	ensureWasmBindgen();
	fs.mkdirSync(OUT, { recursive: true });
	const rows = [];
	for (const level of LEVELS) {
		const wasm = cargoBuildWasm({
			features: ["self-check"],
			env: { CARGO_PROFILE_RELEASE_OPT_LEVEL: level },
			targetDir: path.join(ROOT, "target", "measure", `opt-${level}`),
		});
		const base = path.join(OUT, `opt-${level}`);
		runWasmBindgen(wasm, base);
		const variants = [["none", base]];
		const wasmOptLevels = ALL ? ["Os", "Oz", "O3"] : [WASM_OPT_FOR[level] ?? "Os"];
		for (const optLevel of wasmOptLevels) {
			const dir = `${base}+wasm-opt-${optLevel}`;
			copyPkg(base, dir);
			runWasmOpt(path.join(dir, "memory_agent_bg.wasm"), optLevel);
			variants.push([`-${optLevel}`, dir]);
		}
		for (const [wasmOpt, dir] of variants) {
			const sizes = fileSizes(path.join(dir, "memory_agent_bg.wasm"));
			const speed = measure(dir);
			rows.push({ optLevel: level, wasmOpt, ...sizes, ...speed });
			console.log(`measured opt-level ${level}, wasm-opt ${wasmOpt}`);
		}
	}
	const digests = new Set(rows.map((row) => row.digest));
	if (digests.size !== 1) throw new Error("builds disagree on the SHA-256 of the workload");

	const header = ["opt-level", "wasm-opt", "raw bytes", "gzip bytes", "sha256 16 MiB ms", `selfCheck x${rows[0].selfCheckRepeats} ms`];
	const lines = rows.map((r) => [r.optLevel, r.wasmOpt, r.raw, r.gzip, r.sha256Ms.toFixed(1), r.selfCheckMs.toFixed(1)].map(String));
	const widths = header.map((h, i) => Math.max(h.length, ...lines.map((l) => l[i].length)));
	const format = (cells) => `| ${cells.map((c, i) => c.padEnd(widths[i])).join(" | ")} |`;
	console.log(`\nMedian of ${RUNS} runs each, Node ${process.version}:\n`);
	console.log(format(header));
	console.log(`|${widths.map((w) => "-".repeat(w + 2)).join("|")}|`);
	for (const line of lines) console.log(format(line));
	fs.writeFileSync(path.join(OUT, "results.json"), `${JSON.stringify({ node: process.version, runs: RUNS, rows }, null, 2)}\n`);
	console.log(`\n(${((Date.now() - started) / 1000).toFixed(0)} s; results in build/measure/results.json)`);
}

try {
	main();
} catch (error) {
	console.error(`measure:wasm failed: ${error instanceof Error ? error.message : String(error)}`);
	process.exitCode = 1;
}
