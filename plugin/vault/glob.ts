// A small glob matcher for the "excluded patterns" setting: `*`, `**` and `?` over vault paths.

/**
 * Compiles a glob to a RegExp over a whole vault path.
 * `*` matches within one folder level, `?` one character other than `/`, `**` any depth
 * (`a/**` + `/b` also matches `a/b`). A pattern without `/` matches the file name in any
 * folder, as in `.gitignore` (`*.excalidraw.md`); with a `/` it matches from the vault root.
 */
export function globToRegExp(pattern: string): RegExp {
	const trimmed = pattern.trim().replace(/^\/+/, "");
	const anchored = trimmed.includes("/");
	let source = "";
	for (let i = 0; i < trimmed.length; i++) {
		const ch = trimmed.charAt(i);
		if (ch === "*") {
			if (trimmed.charAt(i + 1) === "*") {
				i++;
				// `**/` may also match no folder at all.
				if (trimmed.charAt(i + 1) === "/") {
					i++;
					source += "(?:.*/)?";
				} else {
					source += ".*";
				}
			} else {
				source += "[^/]*";
			}
		} else if (ch === "?") {
			source += "[^/]";
		} else {
			source += ch.replace(/[.+^${}()|[\]\\]/g, "\\$&");
		}
	}
	// A pattern naming a folder (`Archive/**` or `Archive/`) covers everything inside it.
	if (trimmed.endsWith("/")) source += ".*";
	return new RegExp(anchored ? `^${source}$` : `(?:^|/)${source}$`);
}

/** Matches paths against a list of globs, compiled once. */
export class GlobList {
	private readonly patterns: RegExp[];

	constructor(globs: readonly string[]) {
		this.patterns = globs.filter((glob) => glob.trim() !== "").map(globToRegExp);
	}

	matches(path: string): boolean {
		return this.patterns.some((pattern) => pattern.test(path));
	}
}
