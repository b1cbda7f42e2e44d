// `npm version` in a temporary copy of the release's files: scripts/version-bump.mjs (the `version`
// lifecycle script) carries the new version into manifest.json, versions.json, Cargo.toml and
// Cargo.lock, changing nothing else in them; in a git repository npm commits all of them and tags
// the bare version (`tag-version-prefix=""` in .npmrc), which the release's check then accepts.

import assert from "node:assert/strict";
import { spawnSync, type SpawnSyncOptions } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { test } from "node:test";

const ROOT = path.resolve(import.meta.dirname, "..", "..");
const COPIED = ["manifest.json", "versions.json", "package.json", "package-lock.json", "Cargo.toml", "Cargo.lock", ".npmrc", "scripts/version-bump.mjs"];
// Only the copy's own .npmrc and a fixed identity: nothing of the npm or git that runs the tests.
const ENV: NodeJS.ProcessEnv = {
	...Object.fromEntries(Object.entries(process.env).filter(([key]) => !/^(npm_|GIT_)/i.test(key))),
	GIT_AUTHOR_NAME: "Release Test",
	GIT_AUTHOR_EMAIL: "release-test@example.invalid",
	GIT_COMMITTER_NAME: "Release Test",
	GIT_COMMITTER_EMAIL: "release-test@example.invalid",
	GIT_CONFIG_NOSYSTEM: "1",
	GIT_CONFIG_GLOBAL: "/dev/null",
};

function copyOfRelease(t: { after: (fn: () => void) => void }): string {
	const dir = fs.mkdtempSync(path.join(os.tmpdir(), "version-bump-"));
	t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
	for (const file of COPIED) {
		fs.mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
		fs.copyFileSync(path.join(ROOT, file), path.join(dir, file));
	}
	return dir;
}

function run(dir: string, command: string, args: string[], options: SpawnSyncOptions = {}): string {
	const result = spawnSync(command, args, { cwd: dir, env: ENV, encoding: "utf8", ...options });
	assert.equal(result.status, 0, `${command} ${args.join(" ")}: ${String(result.stderr)}`);
	return String(result.stdout);
}

function readJson(dir: string, file: string): Record<string, unknown> {
	return JSON.parse(fs.readFileSync(path.join(dir, file), "utf8")) as Record<string, unknown>;
}

const original = (file: string) => fs.readFileSync(path.join(ROOT, file), "utf8");
const OLD_VERSION = String(readJson(ROOT, "manifest.json").version);

/** Checks that every file names `version` and that nothing else in them moved. */
function assertBumped(dir: string, version: string): void {
	assert.equal(readJson(dir, "package.json").version, version);
	const lock = readJson(dir, "package-lock.json") as { version: string; packages: Record<string, { version: string }> };
	assert.equal(lock.version, version);
	assert.equal(lock.packages[""]?.version, version);

	const manifest = readJson(dir, "manifest.json");
	const minAppVersion = manifest.minAppVersion;
	assert.deepEqual(manifest, { ...readJson(ROOT, "manifest.json"), version }, "only the version changed");
	// Obsidian's sample plugin keeps the file's layout (tabs there, ours as found).
	assert.equal(fs.readFileSync(path.join(dir, "manifest.json"), "utf8"), original("manifest.json").replace(`"version": "${OLD_VERSION}"`, `"version": "${version}"`));

	const versions = readJson(dir, "versions.json");
	assert.deepEqual(versions, { ...readJson(ROOT, "versions.json"), [version]: minAppVersion }, "an entry for the new version");

	// The Cargo files as text: exactly the crate's own version line, no dependency's.
	const cargoToml = fs.readFileSync(path.join(dir, "Cargo.toml"), "utf8");
	const packageVersionLine = /^(\[package\][^[]*?\nversion = )"[^"]*"/m;
	assert.ok(packageVersionLine.test(original("Cargo.toml")));
	assert.equal(cargoToml, original("Cargo.toml").replace(packageVersionLine, `$1"${version}"`));
	const cargoLock = fs.readFileSync(path.join(dir, "Cargo.lock"), "utf8");
	const lockEntry = /(\nname = "memory-agent"\nversion = )"[^"]*"/;
	assert.equal(cargoLock, original("Cargo.lock").replace(lockEntry, `$1"${version}"`));
	assert.notEqual(cargoLock, original("Cargo.lock"));
}

test("npm version 1.2.3 in a git repository bumps every file, commits them and tags 1.2.3 without a v", (t) => {
	const dir = copyOfRelease(t);
	run(dir, "git", ["init", "--quiet", "--initial-branch=main"]);
	run(dir, "git", ["add", "--all"]);
	run(dir, "git", ["commit", "--quiet", "--message", "before"]);

	run(dir, "npm", ["version", "1.2.3"]);

	assertBumped(dir, "1.2.3");
	assert.deepEqual(run(dir, "git", ["tag", "--list"]).trim().split("\n"), ["1.2.3"]);
	assert.equal(run(dir, "git", ["cat-file", "-t", "1.2.3"]).trim(), "tag", "an annotated tag, as Obsidian's guide makes");
	assert.equal(run(dir, "git", ["status", "--porcelain"]), "", "every changed file is in npm's commit");
	const committed = run(dir, "git", ["show", "--name-only", "--format=", "1.2.3^{commit}"]).trim().split("\n").sort();
	assert.deepEqual(committed, ["Cargo.lock", "Cargo.toml", "manifest.json", "package-lock.json", "package.json", "versions.json"]);

	// The release workflow's first job accepts the tag npm made.
	const check = spawnSync(process.execPath, [path.join(ROOT, "scripts", "release-assets.mjs"), "--tag", "1.2.3", "--root", dir], { encoding: "utf8" });
	assert.equal(check.status, 0, check.stderr);
});

test("npm version patch --no-git-tag-version outside git only edits the files", (t) => {
	const dir = copyOfRelease(t);
	const [major, minor, patch] = OLD_VERSION.split(".").map(Number);
	const next = `${major}.${minor}.${(patch ?? 0) + 1}`;
	run(dir, "npm", ["version", "patch", "--no-git-tag-version"], { env: { ...ENV, GIT_CEILING_DIRECTORIES: path.dirname(dir) } });
	assertBumped(dir, next);
	assert.ok(!fs.existsSync(path.join(dir, ".git")));
});

test("a version that is not x.y.z is refused by the script, and nothing is written", (t) => {
	const dir = copyOfRelease(t);
	const result = spawnSync(process.execPath, ["scripts/version-bump.mjs", "1.2"], { cwd: dir, env: ENV, encoding: "utf8" });
	assert.equal(result.status, 1);
	assert.match(result.stderr, /"1\.2" is not a version/);
	for (const file of ["manifest.json", "versions.json", "Cargo.toml", "Cargo.lock"]) {
		assert.equal(fs.readFileSync(path.join(dir, file), "utf8"), original(file), `${file} untouched`);
	}
});
