// Types for `inline-worker:<path>` imports: scripts/lib/bundle.mjs bundles that entry on its
// own (with its inlined WebAssembly) and embeds the resulting script as a string.

declare module "inline-worker:*" {
	const source: string;
	export default source;
}
