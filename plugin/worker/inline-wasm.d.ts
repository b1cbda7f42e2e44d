// Types for `inline-wasm:<path>` imports, which scripts/build.mjs turns into embedded,
// LZMA-compressed text (see bytes-text.ts and lzma.ts for the decoding).

declare module "inline-wasm:*" {
	/** Decodes the embedded module to its bytes; each call returns a fresh array that owns its whole buffer. */
	const loadBytes: () => Uint8Array;
	export default loadBytes;
}
