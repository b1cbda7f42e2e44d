// `npm run test:ts`: runs the TypeScript suites with Node's test runner, TypeScript through tsx.
//
// Node 20's --test takes no globs, so the files are listed here (no shell needed).
// No --test-force-exit: a test file whose process does not end by itself has left something
// running, and that is a bug to find (the last two: every model call left its 60-second timeout
// timer pending after the call answered, and a test never unloaded the plugin it started, whose
// five-minute interval kept running). So that CI fails instead of hanging on a new one, each
// test has a timeout and the whole run a bound.
// Extra arguments are passed on, e.g. `npm run test:ts -- --test-name-pattern=corrupt`.

import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { ROOT } from "./lib/run.mjs";

const SUITES = ["tests/fake-bedrock", "tests/wasm", "tests/plugin", "tests/release"];
// The browser tests drive Debian's Chromium (CI installs it with apt); without it they are left out.
const CHROMIUM = "/usr/bin/chromium";
if (fs.existsSync(CHROMIUM)) SUITES.push("tests/browser");
else console.log(`Skipping tests/browser: ${CHROMIUM} is not installed (apt-get install chromium).`);
const REQUIRED = ["build/pkg/memory_agent.js", "build/pkg/memory_agent_bg.wasm", "main.js"];

const missing = REQUIRED.filter((file) => !fs.existsSync(path.join(ROOT, file)));
if (missing.length > 0) {
	console.error(`Missing ${missing.join(", ")}: run \`npm run build\` first.`);
	process.exit(1);
}

const files = SUITES.flatMap((dir) =>
	fs
		.readdirSync(path.join(ROOT, dir))
		.filter((name) => name.endsWith(".test.ts"))
		.sort()
		.map((name) => path.join(dir, name)),
);

// Two files at a time (Node's default here is one less than the cores, so one on CI's two): the
// longest files mostly wait on timers (devices waiting for each other), so the
// whole run takes 6 minutes instead of 10 and leaves room for the reproducibility check.
const CONCURRENCY = "--test-concurrency=2";

const result = spawnSync(process.execPath, ["--import", "tsx", "--test", CONCURRENCY, "--test-timeout=300000", ...process.argv.slice(2), ...files], {
	cwd: ROOT,
	timeout: 20 * 60_000,
	stdio: "inherit",
	env: { ...process.env, TZ: "UTC" },
});
if (result.error !== undefined) console.error(`The TypeScript suites did not finish: ${result.error.message}`);
process.exitCode = result.status ?? 1;
