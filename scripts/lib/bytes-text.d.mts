// Types for bytes-text.mjs, which the tests import.

export const ESCAPED_GROUPS: readonly number[];
export function encodeBytesText(bytes: Uint8Array): string;
export function decodeBytesTextUnsized(text: string): Uint8Array;
