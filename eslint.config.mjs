// ESLint for plugin/: Obsidian's recommended rules (typed) plus our layering rule.

import { defineConfig } from "eslint/config";
import obsidianmd from "eslint-plugin-obsidianmd";

/** The restrictions eslint-plugin-obsidianmd sets; repeated because a rule's options replace, not merge. */
const OBSIDIAN_RESTRICTED = [
	...["axios", "superagent", "got", "ofetch", "ky", "node-fetch"].map((name) => ({
		name,
		message: "Use the built-in `requestUrl` function instead.",
	})),
	{ name: "moment", message: "Import `moment` from 'obsidian' instead.", allowTypeImports: true },
];

export default defineConfig([
	{ ignores: ["main.js", "build/**", "node_modules/**", "target/**", "tests/**", "scripts/**"] },
	...obsidianmd.configs.recommended,
	{
		files: ["plugin/**/*.ts"],
		languageOptions: {
			parserOptions: {
				projectService: { allowDefaultProject: ["eslint.config.mjs"] },
				tsconfigRootDir: import.meta.dirname,
			},
		},
	},
	{
		// The core client, the storage layer and the worker stay testable without Obsidian: types only.
		files: ["plugin/core/**/*.ts", "plugin/storage/**/*.ts", "plugin/worker/**/*.ts"],
		rules: {
			"@typescript-eslint/no-restricted-imports": [
				"error",
				{
					paths: [
						...OBSIDIAN_RESTRICTED,
						{
							name: "obsidian",
							message: "plugin/core, plugin/storage and plugin/worker may import only types from 'obsidian'; pass behaviour in through a port.",
							allowTypeImports: true,
						},
					],
				},
			],
		},
	},
]);
