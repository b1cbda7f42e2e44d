// Builds database files for tests with plain sql.js: planted rows, changed versions, foreign files.

import type { Database, SqlJsStatic, SqlValue } from "sql.js";
import { memoryTerms } from "../../build/pkg/memory_agent.js";

interface ColumnInfo {
	name: string;
	type: string;
	notnull: boolean;
	hasDefault: boolean;
	pk: boolean;
}

export function columnsOf(db: Database, table: string): ColumnInfo[] {
	const result = db.exec(`PRAGMA table_info(${table})`)[0];
	if (!result) throw new Error(`no table ${table}`);
	const at = (name: string) => result.columns.indexOf(name);
	return result.values.map((row) => ({
		name: String(row[at("name")]),
		type: String(row[at("type")]).toUpperCase(),
		notnull: row[at("notnull")] === 1,
		hasDefault: row[at("dflt_value")] !== null,
		pk: Number(row[at("pk")]) > 0,
	}));
}

/** The text of one column's declaration inside a CREATE TABLE statement. */
function declarationOf(createSql: string, column: string): string {
	const body = createSql.slice(createSql.indexOf("(") + 1, createSql.lastIndexOf(")"));
	const parts: string[] = [];
	let depth = 0;
	let current = "";
	for (const ch of body) {
		if (ch === "(") depth++;
		if (ch === ")") depth--;
		if (ch === "," && depth === 0) {
			parts.push(current);
			current = "";
		} else current += ch;
	}
	parts.push(current);
	return parts.map((p) => p.trim()).find((p) => p.split(/\s+/)[0] === column) ?? "";
}

/** A value that satisfies the column's type and CHECK constraint, derived from the schema itself. */
function valueFor(column: ColumnInfo, declaration: string, n: number): SqlValue {
	const choice = /\bIN\s*\(\s*('([^']*)'|[-\d.]+)/i.exec(declaration);
	if (choice) return choice[2] ?? Number(choice[1]);
	if (/json_valid/i.test(declaration)) return "[]";
	if (column.pk && column.type.includes("TEXT")) return `test-${n}`;
	if (column.type.includes("INT")) return 1_700_000_000_000 + n;
	if (column.type.includes("REAL")) return 0.5;
	return `planted by a test (${column.name} ${n})`;
}

/** Inserts `count` rows into `table`, filling every required column from the schema. */
export function plantRows(db: Database, table: string, count: number, offset = 0): void {
	const createSql = String(db.exec("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = ?", [table])[0]?.values[0]?.[0]);
	const columns = columnsOf(db, table).filter((c) => (c.notnull && !c.hasDefault) || (c.pk && c.type.includes("TEXT")));
	for (let i = 0; i < count; i++) {
		const n = offset + i;
		const values = columns.map((c) => valueFor(c, declarationOf(createSql, c.name), n));
		db.run(
			`INSERT INTO ${table} (${columns.map((c) => c.name).join(", ")}) VALUES (${columns.map(() => "?").join(", ")})`,
			values,
		);
	}
}

/**
 * `bytes` (a Memory Agent database of the current schema) with `count` more memories of one
 * note, `test-<n>`, made at 1_700_000_000_000 + n; the full-text index is rebuilt over them (the facade must be loaded).
 */
/** Gives plain sql.js the core's `memory_terms`, which the full-text index's view (and so its integrity check) calls. */
export function withMemoryTerms(db: Database): Database {
	db.create_function("memory_terms", (kind: unknown, text: unknown, names: unknown) => memoryTerms(String(kind), String(text ?? ""), String(names ?? "")));
	return db;
}

export function withMemories(SQL: SqlJsStatic, bytes: Uint8Array, count: number, offset = 0): Uint8Array {
	const db = new SQL.Database(bytes);
	try {
		db.run("INSERT OR IGNORE INTO paths (path) VALUES ('planted.md')");
		const pathId = Number(db.exec("SELECT id FROM paths WHERE path = 'planted.md'")[0]?.values[0]?.[0]);
		for (let i = 0; i < count; i++) {
			const n = offset + i;
			db.run(
				`INSERT INTO memories (id, path_id, kind, summary, topics, importance, day, dated, created_at, updated_at)
				 VALUES (?, ?, 0, ?, '[]', 500, 19675, 0, ?, ?)`,
				[`test-${n}`, pathId, `planted by a test (summary ${n})`, 1_700_000_000_000 + n, 1_700_000_000_000 + n],
			);
		}
		// The index's view calls the core's SQL function; plain sql.js gets it from the facade.
		withMemoryTerms(db);
		db.run("INSERT INTO memories_fts (memories_fts) VALUES ('rebuild')");
		return db.export();
	} finally {
		db.close();
	}
}

/**
 * `bytes` (a Memory Agent database of the current schema) with `count` more typed memories
 * (`typed-<n>`, no note: their text is kept in the memory), each text about `textBytes` long and
 * saying its number; the full-text index is rebuilt over them (the facade must be loaded).
 */
export function withTypedMemories(SQL: SqlJsStatic, bytes: Uint8Array, count: number, textBytes = 700, offset = 0): Uint8Array {
	const db = new SQL.Database(bytes);
	try {
		db.run("INSERT OR IGNORE INTO paths (path) VALUES ('')");
		const pathId = Number(db.exec("SELECT id FROM paths WHERE path = ''")[0]?.values[0]?.[0]);
		for (let i = 0; i < count; i++) {
			const n = offset + i;
			const text = `Typed note ${n}: ${"the harbour survey moved to Thursday; ".repeat(Math.ceil(textBytes / 38))}`.slice(0, textBytes);
			db.run(
				`INSERT INTO memories (id, path_id, kind, summary, topics, text, importance, day, dated, created_at, updated_at)
				 VALUES (?, ?, 2, ?, '[]', ?, 500, 19675, 0, ?, ?)`,
				[`typed-${n}`, pathId, `Typed memory ${n} about the harbour survey.`, text, 1_700_000_000_000 + n, 1_700_000_000_000 + n],
			);
		}
		withMemoryTerms(db);
		db.run("INSERT INTO memories_fts (memories_fts) VALUES ('rebuild')");
		return db.export();
	} finally {
		db.close();
	}
}

export function userVersion(db: Database): number {
	return Number(db.exec("PRAGMA user_version")[0]?.values[0]?.[0]);
}

export function tableNames(db: Database): string[] {
	return (db.exec("SELECT name FROM sqlite_master WHERE type = 'table'")[0]?.values ?? []).map((row) => String(row[0]));
}
