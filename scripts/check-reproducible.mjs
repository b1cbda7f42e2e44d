// `node scripts/check-reproducible.mjs` (a step of the CI and release workflows, after `npm run
// build`; a whole second cold build, so not a layer of `npm test`): builds the
// plugin a second time from a copy of this checkout in another folder, with a target folder of
// its own, and checks that main.js comes out byte for byte the same — what Obsidian's review
// does when it rebuilds a release (README, "Reproducible builds").
//
// The copy is what git would check out (tracked files and new ones not ignored, as they are in
// this working tree), with node_modules linked rather than installed again: the same packages
// package-lock.json names, so only the folder differs. Nothing is shared with this checkout's
// target/, so no compiled crate carries over.

import { spawnSync } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { machinePathsIn } from "./lib/reproducible.mjs";
import { ROOT } from "./lib/run.mjs";

/** The files of the build that must come out the same (main.js is what ships). */
const COMPARED = ["main.js", "build/pkg/memory_agent_bg.wasm", "build/pkg/memory_agent.js"];

function sourceFiles() {
	const listed = spawnSync("git", ["ls-files", "-z", "--cached", "--others", "--exclude-standard"], { cwd: ROOT, encoding: "utf8" });
	if (listed.status !== 0) throw new Error(`git ls-files failed: ${listed.stderr}`);
	return listed.stdout.split("\0").filter((file) => file !== "" && fs.existsSync(path.join(ROOT, file)));
}

function copyCheckout(destination) {
	for (const file of sourceFiles()) {
		const to = path.join(destination, file);
		fs.mkdirSync(path.dirname(to), { recursive: true });
		fs.copyFileSync(path.join(ROOT, file), to);
	}
	fs.symlinkSync(path.join(ROOT, "node_modules"), path.join(destination, "node_modules"), "junction");
}

const sha256 = (file) => crypto.createHash("sha256").update(fs.readFileSync(file)).digest("hex");

/** The first offset where two files differ, for the report. */
function firstDifference(a, b) {
	const [left, right] = [fs.readFileSync(a), fs.readFileSync(b)];
	const length = Math.min(left.length, right.length);
	for (let offset = 0; offset < length; offset++) if (left[offset] !== right[offset]) return offset;
	return length;
}

function main() {
	for (const file of COMPARED) {
		if (!fs.existsSync(path.join(ROOT, file))) throw new Error(`${file} is missing: run \`npm run build\` first.`);
	}
	// Another folder, at another depth and with another name than this checkout.
	const scratch = fs.mkdtempSync(path.join(os.tmpdir(), "memory-agent-rebuild-"));
	const copy = path.join(scratch, "elsewhere", "memory agent");
	try {
		copyCheckout(copy);
		console.log(`Building a second time in ${copy} (its own target folder)…`);
		const env = { ...process.env };
		delete env.CARGO_TARGET_DIR;
		const built = spawnSync(process.execPath, ["scripts/build.mjs"], { cwd: copy, stdio: "inherit", env });
		if (built.status !== 0) throw new Error(`the second build failed (exit ${built.status ?? built.signal})`);
		const different = [];
		for (const file of COMPARED) {
			const [here, there] = [path.join(ROOT, file), path.join(copy, file)];
			const [mine, theirs] = [sha256(here), sha256(there)];
			console.log(`  ${file}  ${mine === theirs ? "same" : "DIFFERENT"}  sha256 ${mine}${mine === theirs ? "" : ` vs ${theirs}`}`);
			if (mine !== theirs) different.push(`${file} (first difference at byte ${firstDifference(here, there)})`);
		}
		const leaked = machinePathsIn(fs.readFileSync(path.join(copy, "build/pkg/memory_agent_bg.wasm")));
		if (leaked.length > 0) different.push(`the second build's wasm names ${leaked.map(({ folder }) => folder).join(", ")}`);
		if (different.length > 0) throw new Error(`two builds of the same sources differ: ${different.join("; ")}`);
		console.log("Two builds from two folders gave byte-identical files.");
	} finally {
		fs.rmSync(scratch, { recursive: true, force: true });
	}
}

try {
	main();
} catch (error) {
	console.error(`\nNot reproducible: ${error instanceof Error ? error.message : String(error)}`);
	process.exitCode = 1;
}
