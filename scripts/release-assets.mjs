// The release's last steps that need no GitHub: check that the tag is the version every file
// names, collect the assets into one folder and write their `SHA256SUMS`. The release workflow
// calls it, and `tests/release/` runs it here on a real build.
//
//   node scripts/release-assets.mjs --tag 1.2.3                       checks the versions only
//   node scripts/release-assets.mjs --tag 1.2.3 --out dist FILE...    and collects FILEs into dist/
//   --root DIR reads the version files from DIR instead of the current folder.
//
// Exit code 0 when done, 1 on any refusal (with one line on stderr saying why).

import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";

export const CHECKSUMS_FILE = "SHA256SUMS";
// Obsidian's installer fetches the release whose tag is exactly manifest.json's version, with no
// `v` prefix (docs.obsidian.md, "Release your plugin with GitHub Actions").
const PLAIN_VERSION = /^\d+\.\d+\.\d+$/;
// sha256sum escapes names with a backslash or a newline (its `\` line prefix); assets never need them.
const UNSAFE_NAME = /[\\\n\r]/;

/** The versions a release must agree on: the tag, manifest.json, package.json and Cargo.toml's
 * `[package]` (what `memory-agent --version` prints). Throws, naming each disagreeing file. */
export function checkVersions(root, tag) {
	if (!PLAIN_VERSION.test(tag)) throw new Error(`tag "${tag}" is not a plain version like 1.2.3 (no "v" prefix)`);
	const found = {
		"manifest.json": JSON.parse(fs.readFileSync(path.join(root, "manifest.json"), "utf8")).version,
		"package.json": JSON.parse(fs.readFileSync(path.join(root, "package.json"), "utf8")).version,
		"Cargo.toml": cargoPackageVersion(fs.readFileSync(path.join(root, "Cargo.toml"), "utf8")),
	};
	const wrong = Object.entries(found).filter(([, version]) => version !== tag);
	if (wrong.length > 0) {
		const list = wrong.map(([file, version]) => `${file} says ${version ?? "nothing"}`).join(", ");
		throw new Error(`tag ${tag} does not match: ${list} (run \`npm version ${tag}\` before tagging)`);
	}
}

function cargoPackageVersion(text) {
	const packageTable = /^\[package\][^\n]*\n(?:(?!\[)[^\n]*\n)*/m.exec(text);
	return packageTable === null ? undefined : /^version\s*=\s*"([^"]*)"/m.exec(packageTable[0])?.[1];
}

/** Copies `files` into `outDir` (which must not hold anything yet, so no stale asset rides along)
 * under their own names; returns the names. */
export function collectAssets(files, outDir) {
	if (files.length === 0) throw new Error("no asset files given");
	const names = files.map((file) => path.basename(file));
	const seen = new Set();
	for (const [index, name] of names.entries()) {
		if (seen.has(name)) throw new Error(`two assets are named ${name}`);
		if (name === CHECKSUMS_FILE) throw new Error(`${CHECKSUMS_FILE} is written here, not collected`);
		if (UNSAFE_NAME.test(name)) throw new Error(`asset name ${JSON.stringify(name)} has a backslash or a line break`);
		if (!fs.statSync(files[index], { throwIfNoEntry: false })?.isFile()) throw new Error(`${files[index]} is not a file`);
		seen.add(name);
	}
	if (fs.existsSync(outDir) && fs.readdirSync(outDir).length > 0) throw new Error(`${outDir} is not empty`);
	fs.mkdirSync(outDir, { recursive: true });
	for (const [index, name] of names.entries()) fs.copyFileSync(files[index], path.join(outDir, name));
	return names;
}

/** Writes `SHA256SUMS` for `names` in `dir`, in `sha256sum`'s text format (hex, two spaces, name),
 * sorted by name, so `sha256sum -c SHA256SUMS` checks the downloaded assets. Returns its text. */
export function writeChecksums(dir, names) {
	const lines = [...names]
		.sort()
		.map((name) => `${crypto.createHash("sha256").update(fs.readFileSync(path.join(dir, name))).digest("hex")}  ${name}\n`);
	const text = lines.join("");
	fs.writeFileSync(path.join(dir, CHECKSUMS_FILE), text);
	return text;
}

function parseArguments(argv) {
	const options = { tag: undefined, out: undefined, root: process.cwd(), files: [] };
	for (let index = 0; index < argv.length; index++) {
		const argument = argv[index];
		const [flag, inline] = argument.startsWith("--") && argument.includes("=") ? argument.split(/=(.*)/s, 2) : [argument, undefined];
		const value = () => {
			const next = inline ?? argv[++index];
			if (next === undefined) throw new Error(`${flag} needs a value`);
			return next;
		};
		if (flag === "--tag") options.tag = value();
		else if (flag === "--out") options.out = value();
		else if (flag === "--root") options.root = value();
		else if (flag.startsWith("-")) throw new Error(`unknown option ${flag}`);
		else options.files.push(argument);
	}
	if (options.tag === undefined) throw new Error("--tag is required");
	if (options.out === undefined && options.files.length > 0) throw new Error("asset files given without --out");
	return options;
}

function main(argv) {
	const options = parseArguments(argv);
	checkVersions(options.root, options.tag);
	console.log(`Tag ${options.tag} matches manifest.json, package.json and Cargo.toml.`);
	if (options.out === undefined) return;
	const names = collectAssets(options.files, options.out);
	writeChecksums(options.out, names);
	console.log(`Collected ${names.join(", ")} and ${CHECKSUMS_FILE} into ${options.out}.`);
}

// Run as a script, not when a test imports the functions above.
if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
	try {
		main(process.argv.slice(2));
	} catch (error) {
		console.error(`release-assets: ${error instanceof Error ? error.message : String(error)}`);
		process.exit(1);
	}
}
