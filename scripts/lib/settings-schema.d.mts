// Types for settings-schema.mjs, which the tests import.

export const GENERATED_SCHEMA: string;
export function schemaFromCore(pkgDir: string): Promise<unknown>;
export function renderSettingsSchema(schema: unknown): string;
export function writeSettingsSchema(pkgDir: string): Promise<boolean>;
