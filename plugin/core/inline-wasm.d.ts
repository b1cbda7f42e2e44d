// Types for `inline-wasm:<path>` imports, which scripts/build.mjs turns into embedded base64.

declare module "inline-wasm:*" {
	/** Decodes the embedded WebAssembly module; each call returns fresh bytes. */
	const loadBytes: () => Uint8Array;
	export default loadBytes;
}
