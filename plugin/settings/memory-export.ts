// Writes every memory and insight to a JSON file at the vault root (Settings → Storage → Export).

/** The store's export: every memory and insight as JSON, made in the core's worker. */
export interface ExportSource {
	exportJson(): Promise<string>;
}

/** The vault calls the export needs. */
export interface ExportVault {
	getAbstractFileByPath(path: string): unknown;
	create(path: string, data: string): Promise<unknown>;
}

/** `Memory Agent export 2026-02-01.json` for the local date of `now`; `(2)`, `(3)`… when taken. */
export function exportFileName(now: Date, copy = 1): string {
	const pad = (value: number) => String(value).padStart(2, "0");
	const date = `${now.getFullYear()}-${pad(now.getMonth() + 1)}-${pad(now.getDate())}`;
	return copy === 1 ? `Memory Agent export ${date}.json` : `Memory Agent export ${date} (${copy}).json`;
}

/** Writes the export and returns its vault path; an earlier export of the same day is kept. */
export async function exportMemories(source: ExportSource, vault: ExportVault, now: Date): Promise<string> {
	const data = await source.exportJson();
	let copy = 1;
	while (vault.getAbstractFileByPath(exportFileName(now, copy)) !== null) copy++;
	const path = exportFileName(now, copy);
	await vault.create(path, data);
	return path;
}
