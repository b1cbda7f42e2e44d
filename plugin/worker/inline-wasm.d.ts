// Types for `inline-wasm:<path>` imports, which scripts/build.mjs turns into embedded,
// gzip-compressed base64 (see load-core.ts for the inflating).

declare module "inline-wasm:*" {
	/** Decodes the embedded module's gzip-compressed bytes; each call returns fresh bytes. */
	const loadBytes: () => Uint8Array;
	export default loadBytes;
}
