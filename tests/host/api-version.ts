// Obsidian's version as the host plays it, and `requireApiVersion` over it.

/** The Obsidian version a host plays unless a test asks for another: the plugin's minAppVersion. */
export const DEFAULT_API_VERSION = "1.11.4";

/** Whether version `have` is `want` or later (dotted whole numbers). */
export function versionAtLeast(have: string, want: string): boolean {
	const a = have.split(".").map(Number);
	const b = want.split(".").map(Number);
	for (let i = 0; i < Math.max(a.length, b.length); i++) {
		const difference = (a[i] ?? 0) - (b[i] ?? 0);
		if (difference !== 0) return difference > 0;
	}
	return true;
}

/** Obsidian's `requireApiVersion` for a host playing `apiVersion`. */
export function requireApiVersionOf(apiVersion: string): (version: string) => boolean {
	return (version) => versionAtLeast(apiVersion, version);
}
