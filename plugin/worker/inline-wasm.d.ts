// Types for `inline-wasm:<path>` imports, which scripts/build.mjs turns into embedded,
// gzip-compressed base85 text (see base85.ts for the decoding, load-core.ts for the inflating).

declare module "inline-wasm:*" {
	/** Decodes the embedded module's gzip-compressed bytes; each call returns fresh bytes. */
	const loadBytes: () => Uint8Array;
	export default loadBytes;
}
