// Types for base85.mjs, which the tests import.

export const BASE85_ALPHABET: string;
export function encodeBase85(bytes: Uint8Array): string;
export function decodeBase85(text: string): Buffer;
