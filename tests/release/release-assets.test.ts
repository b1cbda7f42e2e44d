// A dry run of the release's last steps on this machine: scripts/release-assets.mjs collects the
// built main.js, manifest.json and styles.css (and an archive of the debug `memory-agent` when one
// is built) and writes SHA256SUMS, checked here against node:crypto and against `sha256sum -c`;
// a tag that is not the version, and every asset mistake, is refused before anything is written;
// main.js stays within its size budget.

import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { test } from "node:test";

const ROOT = path.resolve(import.meta.dirname, "..", "..");
const SCRIPT = path.join(ROOT, "scripts", "release-assets.mjs");
const VERSION = (JSON.parse(fs.readFileSync(path.join(ROOT, "manifest.json"), "utf8")) as { version: string }).version;
const PLUGIN_FILES = ["main.js", "manifest.json", "styles.css"].map((name) => path.join(ROOT, name));
const DEBUG_BINARY = path.join(ROOT, "target", "debug", "memory-agent");

function releaseAssets(args: string[]): { status: number | null; stdout: string; stderr: string } {
	const result = spawnSync(process.execPath, [SCRIPT, ...args], { cwd: ROOT, encoding: "utf8" });
	return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

function tempDir(t: { after: (fn: () => void) => void }): string {
	const dir = fs.mkdtempSync(path.join(os.tmpdir(), "release-assets-"));
	t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
	return dir;
}

function sha256(file: string): string {
	return crypto.createHash("sha256").update(fs.readFileSync(file)).digest("hex");
}

function hasProgram(name: string): boolean {
	return spawnSync(name, ["--version"], { stdio: "ignore" }).status === 0;
}

/** The files a release would carry from here: the plugin's three, and the debug command packed as
 * the workflow packs a Linux build (when it was built: `cargo build --features cli`). */
function releaseInputs(dir: string): string[] {
	if (!fs.existsSync(DEBUG_BINARY) || !hasProgram("tar")) return PLUGIN_FILES;
	const packageName = `memory-agent-${VERSION}-dry-run-linux`;
	fs.mkdirSync(path.join(dir, "pack", packageName), { recursive: true });
	fs.copyFileSync(DEBUG_BINARY, path.join(dir, "pack", packageName, "memory-agent"));
	const archive = path.join(dir, `${packageName}.tar.gz`);
	const packed = spawnSync("tar", ["-czf", archive, "-C", path.join(dir, "pack"), packageName]);
	assert.equal(packed.status, 0, "tar packs the binary");
	return [...PLUGIN_FILES, archive];
}

/** What main.js may weigh (issue 38): a plugin's download on every device, phones included. */
const MAIN_JS_BUDGET = 1_200_000;

test("the built main.js stays within its budget", () => {
	const bytes = fs.statSync(PLUGIN_FILES[0] ?? "").size;
	assert.ok(bytes <= MAIN_JS_BUDGET, `main.js is ${bytes} bytes, over the ${MAIN_JS_BUDGET} it is held to (README, "main.js")`);
});

test("the built files are collected with a SHA256SUMS that node:crypto and sha256sum agree with", (t) => {
	for (const file of PLUGIN_FILES) assert.ok(fs.existsSync(file), `${path.basename(file)} is built (npm run build)`);
	const dir = tempDir(t);
	const inputs = releaseInputs(dir);
	const out = path.join(dir, "dist");

	const result = releaseAssets(["--tag", VERSION, "--out", out, ...inputs]);
	assert.equal(result.status, 0, result.stderr);

	const names = inputs.map((file) => path.basename(file));
	assert.deepEqual(fs.readdirSync(out).sort(), [...names, "SHA256SUMS"].sort(), "the assets and the checksums, nothing else");
	for (const file of inputs) assert.ok(fs.readFileSync(path.join(out, path.basename(file))).equals(fs.readFileSync(file)), `${file} copied as is`);

	// sha256sum's text format: 64 hex digits, two spaces, the name; one line each, sorted.
	const lines = fs.readFileSync(path.join(out, "SHA256SUMS"), "utf8").split("\n");
	assert.equal(lines.pop(), "", "ends with a line break");
	assert.deepEqual(
		lines,
		inputs.map((file) => `${sha256(file)}  ${path.basename(file)}`).sort((a, b) => (a.slice(66) < b.slice(66) ? -1 : 1)),
	);

	if (hasProgram("sha256sum")) {
		const check = spawnSync("sha256sum", ["-c", "SHA256SUMS"], { cwd: out, encoding: "utf8" });
		assert.equal(check.status, 0, check.stdout + check.stderr);
		// The same check fails once an asset changes, so it proves something.
		fs.appendFileSync(path.join(out, "styles.css"), "\n");
		assert.notEqual(spawnSync("sha256sum", ["-c", "--quiet", "SHA256SUMS"], { cwd: out, stdio: "ignore" }).status, 0);
	} else t.diagnostic("sha256sum is not installed: checked with node:crypto only");
});

test("a tag that is not the version stops the release before anything is written", (t) => {
	const dir = tempDir(t);
	const [major, minor, patch] = VERSION.split(".").map(Number);
	const cases: [string, RegExp][] = [
		[`${major}.${minor}.${(patch ?? 0) + 1}`, /does not match: manifest\.json says .*package\.json says .*Cargo\.toml says/],
		[`v${VERSION}`, /not a plain version/],
		[`${VERSION}-beta`, /not a plain version/],
	];
	for (const [tag, reason] of cases) {
		const out = path.join(dir, `dist-${tag}`);
		const result = releaseAssets(["--tag", tag, "--out", out, ...PLUGIN_FILES]);
		assert.equal(result.status, 1, `${tag} is refused`);
		assert.match(result.stderr, reason);
		assert.equal(result.stderr.trim().split("\n").length, 1, "one line on stderr");
		assert.ok(!fs.existsSync(out), `nothing written for ${tag}`);
	}
	assert.equal(releaseAssets(["--tag", VERSION]).status, 0, "the version's own tag passes the check alone");
});

test("versions that disagree among the files are named", (t) => {
	const root = tempDir(t);
	fs.writeFileSync(path.join(root, "manifest.json"), JSON.stringify({ version: "1.0.0" }));
	fs.writeFileSync(path.join(root, "package.json"), JSON.stringify({ version: "1.0.1" }));
	fs.writeFileSync(path.join(root, "Cargo.toml"), '[package]\nname = "memory-agent"\nversion = "1.0.0"\n\n[dependencies]\nx = { version = "9.9.9" }\n');
	const result = releaseAssets(["--tag", "1.0.0", "--root", root]);
	assert.equal(result.status, 1);
	assert.match(result.stderr, /package\.json says 1\.0\.1/);
	assert.doesNotMatch(result.stderr, /manifest\.json|Cargo\.toml/, "only the file that disagrees");
});

test("asset mistakes are refused: a missing file, two of one name, a folder with files in it", (t) => {
	const dir = tempDir(t);
	const twin = path.join(dir, "twin");
	fs.mkdirSync(twin);
	fs.copyFileSync(PLUGIN_FILES[0] ?? "", path.join(twin, "main.js"));
	const busy = path.join(dir, "busy");
	fs.mkdirSync(busy);
	fs.writeFileSync(path.join(busy, "stale.zip"), "old");
	const cases: [string[], RegExp][] = [
		[["--out", path.join(dir, "a"), path.join(dir, "missing.js")], /missing\.js is not a file/],
		[["--out", path.join(dir, "b"), ...PLUGIN_FILES, path.join(twin, "main.js")], /two assets are named main\.js/],
		[["--out", busy, ...PLUGIN_FILES], /is not empty/],
		[["--out", path.join(dir, "c")], /no asset files given/],
		[PLUGIN_FILES, /without --out/],
		[["--out", path.join(dir, "d"), "--sign", ...PLUGIN_FILES], /unknown option --sign/],
	];
	for (const [args, reason] of cases) {
		const result = releaseAssets(["--tag", VERSION, ...args]);
		assert.equal(result.status, 1, args.join(" "));
		assert.match(result.stderr, reason);
	}
	assert.deepEqual(fs.readdirSync(busy), ["stale.zip"], "a folder in use is left alone");
	assert.equal(releaseAssets(["--tag=" + VERSION]).status, 0, "--opt=value works too");
});
