// Puts database files into a host's vault and reads them back, for the plugin tests.

import fs from "node:fs/promises";
import path from "node:path";
import type { Host } from "../host/host";
import { loadFacade } from "./facade";
import { emptyDatabase } from "./node-core";
import { userVersion, withMemories, withTypedMemories } from "./sqlite-fixtures";

/** This device's own database (`memory-<device>.db`). */
export function databasePath(host: Host): string {
	return `${host.pluginDir}/memory-${host.deviceId}.db`;
}

/** Where an older version kept the memory every device shared (read once to migrate). */
export function legacyDatabasePath(host: Host): string {
	return `${host.pluginDir}/memory.db`;
}

/** Writes `bytes` as the vault's database file (as another program would). */
export async function writeDatabase(host: Host, bytes: Uint8Array): Promise<void> {
	const file = host.diskPath(databasePath(host));
	await fs.mkdir(path.dirname(file), { recursive: true });
	await fs.writeFile(file, bytes);
}

/**
 * `bytes` (a database of this version) as schema version 10 left it, before the per-device log:
 * without the log's tables (schema 11) and the memories' consolidation columns (schema 12). Opening it runs the schema-11 migration, which queues everything it
 * holds for the device's log — the upgrade from an older version's shared `memory.db`.
 */
export async function beforeDeviceLog(bytes: Uint8Array): Promise<Uint8Array> {
	const { SQL } = await loadFacade();
	const db = new SQL.Database(bytes);
	try {
		db.run("DROP TABLE log_outbox; DROP TABLE log_cursors; DROP TABLE log_written; DROP TABLE log_waiting_insights; ALTER TABLE sources DROP COLUMN here; ALTER TABLE memories DROP COLUMN theirs; ALTER TABLE memories DROP COLUMN consolidation_failed; PRAGMA user_version = 10;");
		return db.export();
	} finally {
		db.close();
	}
}

/** A Memory Agent database holding `count` memories. */
export async function databaseWithMemories(count: number): Promise<Uint8Array> {
	const { SQL } = await loadFacade();
	return withMemories(SQL, await emptyDatabase(), count);
}

/**
 * A database holding `count` typed memories of about `textBytes` each, as an older version
 * (schema 10, before the per-device log) left it: the device that opens it writes them all to
 * its log, as an upgrade does.
 */
export async function upgradedWithTypedMemories(count: number, textBytes?: number): Promise<Uint8Array> {
	const { SQL } = await loadFacade();
	return beforeDeviceLog(withTypedMemories(SQL, await emptyDatabase(), count, textBytes));
}

export async function readDatabase(host: Host): Promise<Uint8Array | undefined> {
	return fs.readFile(host.diskPath(databasePath(host))).then(
		(data) => new Uint8Array(data),
		() => undefined,
	);
}

/** Opens the vault's database with plain sql.js: its schema version and number of memories. */
export async function inspectDatabase(host: Host): Promise<{ version: number; memories: number }> {
	const bytes = await readDatabase(host);
	if (!bytes) throw new Error(`${databasePath(host)} does not exist`);
	const { SQL } = await loadFacade();
	const db = new SQL.Database(bytes);
	try {
		return { version: userVersion(db), memories: Number(db.exec("SELECT count(*) FROM memories")[0]?.values[0]?.[0]) };
	} finally {
		db.close();
	}
}

export async function filesIn(host: Host, vaultFolder: string): Promise<string[]> {
	return (await fs.readdir(host.diskPath(vaultFolder))).sort();
}
