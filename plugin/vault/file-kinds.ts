// Which vault files the sync tells the core about, by extension: the lists come from the core's
// schema (`SETTINGS_SCHEMA.fileExtensions`, generated from `src/notes/kind.rs`), never from a
// pattern of the plugin's own. Forwarding a file is not remembering it: the core's
// `exclusions` still decides (plain text only when on, images only when asked for, and an
// image format Bedrock does not take is recorded as skipped with its reason).

import { SETTINGS_SCHEMA } from "../generated/settings-schema";

export type VaultFileKind = keyof typeof SETTINGS_SCHEMA.fileExtensions;

const KIND_BY_EXTENSION: ReadonlyMap<string, VaultFileKind> = new Map(
	(Object.entries(SETTINGS_SCHEMA.fileExtensions) as Array<[VaultFileKind, readonly string[]]>).flatMap(([kind, extensions]) =>
		extensions.map((extension) => [extension, kind] as const),
	),
);

/** The kind of the file at `path` by its lowercase extension, or null for a file the core never reads. */
export function fileKindOfPath(path: string): VaultFileKind | null {
	const name = path.slice(path.lastIndexOf("/") + 1);
	const dot = name.lastIndexOf(".");
	if (dot <= 0) return null;
	return KIND_BY_EXTENSION.get(name.slice(dot + 1).toLowerCase()) ?? null;
}

/** A note, PDF or image: a file whose events and reconciliation reach the core. */
export function isRememberable(path: string): boolean {
	return fileKindOfPath(path) !== null;
}

/** A PDF or an image: what the "Remember images and scanned pages" setting changes the core's verdict on. */
export function isMediaFile(path: string): boolean {
	const kind = fileKindOfPath(path);
	return kind !== null && kind !== "note";
}
