// Child process for the kill test: saves ever-changing databases through DatabaseFile until killed.
//
// Usage: node --import tsx save-loop-child.ts <vault folder> <database path in vault>
// Prints "ready <n>" after loading (n = counter found on disk) and "saved <n>" after each save.

import initSqlJs from "sql.js";
import { DatabaseFile } from "../../plugin/storage/database-file";
import { HostDataAdapter } from "../host/data-adapter";

const [vaultDir, dbPath] = process.argv.slice(2);
if (!vaultDir || !dbPath) throw new Error("usage: save-loop-child.ts <vault> <db path>");

const file = new DatabaseFile(new HostDataAdapter(vaultDir), dbPath);
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
