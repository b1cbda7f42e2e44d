// The Obsidian review's lint: eslint-plugin-obsidianmd's recommended config as published, with
// no rule changed. Only what it needs to run is added: type information for the TypeScript
// (its typed rules require it) and its own manifest rule on manifest.json, which the
// recommended config lists for script files only. `npm test` runs it with no warning allowed.

import obsidianmd from "eslint-plugin-obsidianmd";
import tseslint from "typescript-eslint";

export default [
	{ ignores: ["main.js", "build/**", "node_modules/**", "target/**", "tests/**", "scripts/**", "*.mjs"] },
	...obsidianmd.configs.recommended,
	{ files: ["**/*.ts"], languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } } },
	{ files: ["manifest.json"], plugins: { obsidianmd }, languageOptions: { parser: tseslint.parser }, rules: { "obsidianmd/validate-manifest": "warn" } },
];
