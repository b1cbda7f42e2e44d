// `npm run install-plugin -- <vault folder> [--config-dir .obsidian]`: copies the built plugin into a vault.

import fs from "node:fs";
import path from "node:path";
import { ROOT } from "./lib/run.mjs";

const FILES = ["main.js", "manifest.json", "styles.css"];

function parseArgs(argv) {
	let configDir = ".obsidian";
	let vault;
	for (let i = 0; i < argv.length; i++) {
		const arg = argv[i];
		if (arg === "--config-dir") configDir = argv[++i];
		else if (arg.startsWith("--config-dir=")) configDir = arg.slice("--config-dir=".length);
		else if (arg.startsWith("--")) throw new Error(`unknown option ${arg}`);
		else if (vault === undefined) vault = arg;
		else throw new Error(`unexpected argument ${arg}`);
	}
	if (!vault) throw new Error("usage: npm run install-plugin -- <vault folder> [--config-dir .obsidian]");
	if (!configDir) throw new Error("--config-dir needs a folder name");
	return { vault: path.resolve(vault), configDir };
}

function main() {
	const { vault, configDir } = parseArgs(process.argv.slice(2));
	if (!fs.statSync(vault, { throwIfNoEntry: false })?.isDirectory()) throw new Error(`${vault} is not a folder`);
	const manifest = JSON.parse(fs.readFileSync(path.join(ROOT, "manifest.json"), "utf8"));
	const target = path.join(vault, configDir, "plugins", manifest.id);
	fs.mkdirSync(target, { recursive: true });
	for (const file of FILES) {
		const source = path.join(ROOT, file);
		if (!fs.existsSync(source)) throw new Error(`${file} is missing: run \`npm run build\` first`);
		fs.copyFileSync(source, path.join(target, file));
	}
	console.log(`Installed ${manifest.name} ${manifest.version} into ${target}`);
	console.log("Reload Obsidian (or toggle the plugin) to use it.");
}

try {
	main();
} catch (error) {
	console.error(error instanceof Error ? error.message : String(error));
	process.exitCode = 1;
}
