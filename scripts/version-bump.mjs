// `npm version <patch|minor|major|x.y.z>` runs this as its `version` lifecycle script, after npm
// has written the new version into package.json and package-lock.json and before it commits and
// tags: it carries the version into manifest.json, versions.json (version → minAppVersion, as
// Obsidian's sample plugin does), Cargo.toml and Cargo.lock (so `memory-agent --version` says the
// same), then stages them so npm's release commit holds all of them.
// The Cargo files are edited as text, without cargo: npm must not need a Rust toolchain, and
// `cargo update` would also move other locked crates.

import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";

const CRATE_NAME = "memory-agent";
const SEMVER = /^\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?$/;

/** The indentation a JSON file already uses (tab or spaces), so a bump changes only versions. */
function indentOf(text) {
	const match = /^\{\r?\n([ \t]+)"/.exec(text);
	return match === null ? "\t" : match[1];
}

function readJson(file) {
	const text = fs.readFileSync(file, "utf8");
	return { value: JSON.parse(text), indent: indentOf(text), finalNewline: text.endsWith("\n") };
}

function writeJson(file, { value, indent, finalNewline }) {
	fs.writeFileSync(file, JSON.stringify(value, null, indent) + (finalNewline ? "\n" : ""));
}

/** Sets the `version` line of Cargo.toml's `[package]` table; other tables are left alone. */
export function setCargoTomlVersion(text, version) {
	const packageTable = /^\[package\][^\n]*\n(?:(?!\[)[^\n]*\n)*/m.exec(text);
	if (packageTable === null) throw new Error("Cargo.toml has no [package] table");
	const versionLine = /^version\s*=\s*"[^"]*"/m;
	if (!versionLine.test(packageTable[0])) throw new Error("Cargo.toml's [package] table has no version line");
	const updated = packageTable[0].replace(versionLine, `version = "${version}"`);
	return text.slice(0, packageTable.index) + updated + text.slice(packageTable.index + packageTable[0].length);
}

/** Sets the version of the crate's own `[[package]]` entry in Cargo.lock (a dependency of the same
 * name cannot exist: the crate is the lock file's root). */
export function setCargoLockVersion(text, crateName, version) {
	const entry = new RegExp(`(\\[\\[package\\]\\]\\r?\\nname = "${crateName}"\\r?\\nversion = )"[^"]*"`);
	if (!entry.test(text)) throw new Error(`Cargo.lock has no [[package]] entry named ${crateName}`);
	return text.replace(entry, `$1"${version}"`);
}

/** Writes `version` into every file a release names it in; returns the files it changed. */
export function bumpVersion(root, version) {
	if (!SEMVER.test(version)) throw new Error(`"${version}" is not a version like 1.2.3`);
	const manifestFile = path.join(root, "manifest.json");
	const manifest = readJson(manifestFile);
	manifest.value.version = version;
	writeJson(manifestFile, manifest);

	// Obsidian reads versions.json to offer an older plugin to an older app (docs.obsidian.md,
	// Reference › Versions); the sample plugin records every release with its minAppVersion.
	const versionsFile = path.join(root, "versions.json");
	const versions = readJson(versionsFile);
	versions.value[version] = manifest.value.minAppVersion;
	writeJson(versionsFile, versions);

	const cargoToml = path.join(root, "Cargo.toml");
	fs.writeFileSync(cargoToml, setCargoTomlVersion(fs.readFileSync(cargoToml, "utf8"), version));
	const cargoLock = path.join(root, "Cargo.lock");
	fs.writeFileSync(cargoLock, setCargoLockVersion(fs.readFileSync(cargoLock, "utf8"), CRATE_NAME, version));
	return ["manifest.json", "versions.json", "Cargo.toml", "Cargo.lock"];
}

/** Stages the changed files when the folder is a git work tree (`npm version --no-git-tag-version`
 * outside one only edits them). */
function stage(root, files) {
	const inside = spawnSync("git", ["rev-parse", "--is-inside-work-tree"], { cwd: root, encoding: "utf8" });
	if (inside.status !== 0 || inside.stdout.trim() !== "true") return;
	const added = spawnSync("git", ["add", "--", ...files], { cwd: root, stdio: "inherit" });
	if (added.status !== 0) throw new Error(`git add ${files.join(" ")} failed`);
}

function main() {
	// npm runs lifecycle scripts in the package's folder, and package.json holds the new version by now.
	const root = process.cwd();
	const version = process.argv[2] ?? JSON.parse(fs.readFileSync(path.join(root, "package.json"), "utf8")).version;
	const files = bumpVersion(root, version);
	stage(root, files);
	console.log(`Version ${version} written to package.json, ${files.join(", ")}.`);
}

// Run as a script (npm's lifecycle), not when a test imports the functions above.
if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
	try {
		main();
	} catch (error) {
		console.error(`version-bump: ${error instanceof Error ? error.message : String(error)}`);
		process.exit(1);
	}
}
