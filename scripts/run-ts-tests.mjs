// `npm run test:ts`: runs the TypeScript suites with Node's test runner, TypeScript through tsx.
//
// Node 20's --test takes no globs, so the files are listed here (no shell needed).
// --test-force-exit: a test file whose tests all finished exits even if something it started
// (a server, a timer, a promise chain in the core) is still alive; CI must never hang on one.
// Extra arguments are passed on, e.g. `npm run test:ts -- --test-name-pattern=corrupt`.

import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { ROOT } from "./lib/run.mjs";

const SUITES = ["tests/fake-bedrock", "tests/wasm", "tests/plugin"];
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

const result = spawnSync(process.execPath, ["--import", "tsx", "--test", "--test-force-exit", ...process.argv.slice(2), ...files], {
	cwd: ROOT,
	stdio: "inherit",
	env: { ...process.env, TZ: "UTC" },
});
process.exitCode = result.status ?? 1;
