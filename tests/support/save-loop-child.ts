// Child process for the kill test: saves ever-changing databases through DatabaseFile until killed.
//
// Usage: node --import tsx save-loop-child.ts <vault folder> <database path in vault>
// Prints "ready <n>" after loading (n = counter found on disk) and "saved <n>" after each save.

import fs from "node:fs/promises";
import initSqlJs from "sql.js";
import { DatabaseFile } from "../../plugin/storage/database-file";
import { HostDataAdapter } from "../host/data-adapter";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Real files, slow storage: writes go out in chunks with pauses, and every step is followed by
 * a pause, so a kill lands inside a write or between the steps of a save, not only between saves.
 */
class SlowDiskAdapter extends HostDataAdapter {
	override async writeBinary(path: string, data: ArrayBuffer): Promise<void> {
		const bytes = new Uint8Array(data);
		const handle = await fs.open(this.full(path), "w");
		try {
			for (let at = 0; at < bytes.length; at += 256 * 1024) {
				await handle.write(bytes.subarray(at, at + 256 * 1024));
				await sleep(1);
			}
		} finally {
			await handle.close();
		}
		await sleep(Math.random() * 20);
	}
	override async remove(path: string): Promise<void> {
		await super.remove(path);
		await sleep(Math.random() * 20);
	}
	override async rename(from: string, to: string): Promise<void> {
		await super.rename(from, to);
		await sleep(Math.random() * 5);
	}
}

const [vaultDir, dbPath] = process.argv.slice(2);
if (!vaultDir || !dbPath) throw new Error("usage: save-loop-child.ts <vault> <db path>");

const file = new DatabaseFile(new SlowDiskAdapter(vaultDir), dbPath);
const SQL = await initSqlJs();
const bytes = await file.load();
if (!bytes) throw new Error("the parent seeds the database first");
const db = new SQL.Database(bytes);
const read = db.exec("SELECT value FROM meta WHERE key = 'kill-test-counter'")[0]?.values[0]?.[0];
let counter = read === undefined ? 0 : Number(read);
process.stdout.write(`ready ${counter}\n`);

for (;;) {
	counter++;
	// A padding of changing size makes each file differ in length and take a while to write.
	const padding = "x".repeat(Math.floor(Math.random() * 3 * 1024 * 1024));
	db.run("INSERT OR REPLACE INTO meta (key, value) VALUES ('kill-test-counter', ?), ('kill-test-padding', ?)", [
		String(counter),
		padding,
	]);
	await file.save(db.export());
	process.stdout.write(`saved ${counter}\n`);
}
