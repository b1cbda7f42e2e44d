// Types for extract-wasm.mjs, which the tests import.

export const KNOWN_MODULES: Record<string, string>;
export function embeddedModules(source: string): Buffer[];
export function identify(wasm: Uint8Array): string | undefined;
