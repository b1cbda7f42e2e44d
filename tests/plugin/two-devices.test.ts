// Two devices sharing one vault and its memory through a simulated sync tool: two headless hosts
// (each with the built main.js and its own fake Bedrock) on two copies of a vault. The sync
// tool runs in the background and, every 0.5–2.5 s (seeded), copies what changed on one side
// to the other — notes through the receiving vault (as Obsidian sees a sync tool's writes), the
// database file by replacing it whole — changed on both sides, the newer wins (as Obsidian Sync
// does for files that are not notes), and on even seeds the older is kept beside it as a
// conflict copy (as Syncthing does) — while both sides edit, create, rename and delete notes and forget memories. Invariants:
// every database file is readable whenever the sync tool reads it; when both sides are idle and
// the sync settles, both have the same memories and notes; a forget on one side removes the
// memory on the other; no chunk is sent to the model twice across the two devices.

import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, test } from "node:test";
import type { TFile } from "obsidian";
import { seededRandom } from "../fake-bedrock/prng";
import { loadFacade } from "../support/facade";
import { ingestPieces } from "../support/batched-ingest";
import { databasePath } from "../support/plugin-fixtures";
import { withMemoryTerms } from "../support/sqlite-fixtures";
import { allMemories, storeOf, waitForIdle } from "../support/vault-host";
import { type UiHost, startUiHost } from "./views-fixture";

const SEEDS = Number(process.env.TWO_DEVICE_SEEDS ?? 2);
const STEPS = 16;

const NOTES: Record<string, string> = Object.fromEntries(
	Array.from({ length: 6 }, (_, n) => [`Notes/Note ${n}.md`, `# Note ${n}\n\nThe lighthouse plan ${n} needs ${n + 2} keepers.\n`]),
);
// A note changed on the other device is read after the quiet delay (what costs nothing is done
// then) but paid for only after 20 s, time for that device's memories to arrive: the quiet delay is
// 1 s, a shared memory is saved within 5 s of paid work, the sync tool passes within 2.5 s, and
// when both copies changed and the other's won, the loser sees it within 5 s, merges, saves and
// is carried over in the next pass. TWO_DEVICE_WAIT=0 measures without the wait.
const OTHER_DEVICE_WAIT_MS = Number(process.env.TWO_DEVICE_WAIT ?? 20) * 1000;
const SETTINGS = { dailyConsolidation: false, consolidationThreshold: 1_000, quietDelaySeconds: 1, otherDeviceWaitSeconds: OTHER_DEVICE_WAIT_MS / 1000, bulkConfirmThreshold: 10_000 };

interface Device {
	name: string;
	dir: string;
	ui: UiHost;
	/** Vault paths changed here since the sync tool last looked (written or gone). */
	pending: Set<string>;
	/** The digest of this side's database file when the sync tool last left it. */
	synced: string;
}

const devices: Device[] = [];
afterEach(async () => {
	for (const device of devices.splice(0)) {
		await device.ui.close();
		await fs.rm(device.dir, { recursive: true, force: true });
	}
});

async function notesOf(device: Device): Promise<Map<string, string>> {
	const found = new Map<string, string>();
	for (const file of device.ui.host.vault.getMarkdownFiles()) found.set(file.path, await device.ui.host.vault.read(file));
	return found;
}

/** Whether the database file opens (the sync tool copies only whole files it could read). */
async function readableDatabase(device: Device): Promise<Uint8Array | null> {
	const bytes = await fs.readFile(device.ui.host.diskPath(databasePath(device.ui.host))).catch(() => null);
	if (bytes === null) return null;
	const { SQL } = await loadFacade();
	const db = withMemoryTerms(new SQL.Database(new Uint8Array(bytes)));
	try {
		assert.equal(db.exec("PRAGMA quick_check")[0]?.values[0]?.[0], "ok", `${device.name}'s database is readable`);
	} finally {
		db.close();
	}
	return new Uint8Array(bytes);
}

/** The notes changed on one side since the last pass, copied to the other; how many. */
async function syncNotes(from: Device, to: Device, log?: string[]): Promise<number> {
	let copied = 0;
	const target = to.ui.host.vault;
	for (const notePath of [...from.pending]) {
		from.pending.delete(notePath);
		copied++;
		// Read as it is now: the person may have changed it since the pass began.
		const file = from.ui.host.vault.getFileByPath(notePath);
		const text = file === null ? undefined : await from.ui.host.vault.read(file);
		const existing = target.getFileByPath(notePath);
		log?.push(`${Date.now() % 100_000}   note ${from.name}→${to.name} ${text === undefined ? "deleted" : "written"} ${notePath}`);
		if (text === undefined) {
			if (existing !== null) await target.delete(existing);
		} else if (existing === null) {
			await fs.mkdir(path.dirname(to.ui.host.diskPath(notePath)), { recursive: true });
			await target.create(notePath, text);
		} else if ((await target.read(existing)) !== text) {
			await target.modify(existing, text);
		}
	}
	return copied;
}

interface DatabaseVersion {
	bytes: Uint8Array;
	digest: string;
	mtimeMs: number;
}

async function databaseVersion(device: Device): Promise<DatabaseVersion | null> {
	const bytes = await readableDatabase(device);
	if (bytes === null) return null;
	// The plugin's save removes the old file before renaming the new one into place: caught
	// between the two, the tool finds nothing to copy this time.
	const stat = await fs.stat(device.ui.host.diskPath(databasePath(device.ui.host))).catch(() => null);
	if (stat === null) return null;
	const { mtimeMs } = stat;
	return { bytes, digest: createHash("sha256").update(bytes).digest("hex"), mtimeMs };
}

/** Writes a whole file as sync tools do: into a temporary file, then renamed over the old one. */
async function replaceWhole(target: string, bytes: Uint8Array): Promise<void> {
	await fs.writeFile(`${target}.sync-tmp`, bytes);
	await fs.rename(`${target}.sync-tmp`, target);
}

/**
 * The database file, as the common sync tools treat a file that is not a note: a copy changed
 * on one side only replaces the other's; changed on both, the newer wins — and, as Syncthing
 * does, the older is kept beside it as a conflict copy, when `conflictCopies`. How many files
 * it wrote.
 */
/** Conflict copies the sync tool made in the current test. */
let conflictCopiesMade = 0;

async function syncDatabases(a: Device, b: Device, conflictCopies: boolean, log?: string[]): Promise<number> {
	const [va, vb] = [await databaseVersion(a), await databaseVersion(b)];
	if (va === null || vb === null) return 0;
	const changedA = va.digest !== a.synced;
	const changedB = vb.digest !== b.synced;
	if (!changedA && !changedB) return 0;
	const [winner, loser] = !changedB || (changedA && va.mtimeMs >= vb.mtimeMs) ? [va, vb] : [vb, va];
	log?.push(`${Date.now() % 100_000}   database ${winner === va ? `${a.name}→${b.name}` : `${b.name}→${a.name}`}${changedA && changedB ? " (changed on both)" : ""}`);
	let written = 0;
	if (changedA && changedB && conflictCopies) {
		const stamp = new Date().toISOString().replace(/[-:]/g, "").replace("T", "-").slice(0, 15);
		for (const device of [a, b]) {
			const target = device.ui.host.diskPath(databasePath(device.ui.host)).replace(/\.db$/, `.sync-conflict-${stamp}-${loser === va ? "AAAAAAA" : "BBBBBBB"}.db`);
			await replaceWhole(target, loser.bytes);
			written++;
			conflictCopiesMade++;
		}
	}
	for (const [device, version] of [[a, va], [b, vb]] as const) {
		if (version !== winner) {
			await replaceWhole(device.ui.host.diskPath(databasePath(device.ui.host)), winner.bytes);
			written++;
		}
		device.synced = winner.digest;
	}
	return written;
}

/** One pass of the sync tool: notes both ways, then the database file; how many files it wrote. */
async function syncPass(first: Device, second: Device, conflictCopies: boolean, log?: string[]): Promise<number> {
	return (await syncNotes(first, second, log)) + (await syncNotes(second, first, log)) + (await syncDatabases(first, second, conflictCopies, log));
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The sync tool in the background: a pass each way every 0.5–2.5 s, as the common ones do while both devices are online. */
class SyncTool {
	private running = true;
	private quietPasses = 0;
	private failure: unknown;
	private readonly loop: Promise<void>;

	constructor(
		private readonly a: Device,
		private readonly b: Device,
		private readonly random: () => number,
		private readonly log: string[],
		private readonly conflictCopies: boolean,
	) {
		this.loop = this.run();
	}

	/** Resolves once two passes in a row found nothing to copy. */
	async settled(): Promise<void> {
		this.quietPasses = 0;
		const deadline = Date.now() + 60_000;
		while (this.quietPasses < 2) {
			if (this.failure !== undefined) throw this.failure;
			assert.ok(Date.now() < deadline, "the sync tool settles within a minute");
			await sleep(100);
		}
	}

	async stop(): Promise<void> {
		this.running = false;
		await this.loop;
		if (this.failure !== undefined) throw this.failure;
	}

	private async run(): Promise<void> {
		while (this.running) {
			await sleep(500 + Math.floor(this.random() * 2_000));
			if (!this.running) return;
			const [first, second] = this.random() < 0.5 ? [this.a, this.b] : [this.b, this.a];
			try {
				const copied = await syncPass(first, second, this.conflictCopies, process.env.TWO_DEVICE_DEBUG ? this.log : undefined);
				this.quietPasses = copied === 0 ? this.quietPasses + 1 : 0;
				if (copied > 0) this.log.push(`${Date.now() % 100_000} sync ${first.name}⇄${second.name}: ${copied} files`);
			} catch (error) {
				this.failure = error;
				return;
			}
		}
	}
}

const runtimeOf = (device: Device) => (device.ui.host.plugin as unknown as { runtime: { flush(): Promise<void>; runner: { kick(): void } } }).runtime;

/** Both sides idle and saved, then twice a pass of the sync tool and the copies merged and saved. */
async function settle(a: Device, b: Device): Promise<void> {
	for (const device of [a, b]) {
		await waitForIdle(device.ui.host);
		await runtimeOf(device).flush();
	}
	for (let pass = 0; pass < 2; pass++) {
		await syncPass(a, b, false);
		for (const device of [a, b]) {
			// The next run of work merges the copy the sync tool brought first.
			runtimeOf(device).runner.kick();
			await waitForIdle(device.ui.host);
			await runtimeOf(device).flush();
		}
	}
}

/** The sync tool's conflict copies still beside the device's database. */
async function conflictCopiesOf(device: Device): Promise<string[]> {
	const folder = path.dirname(device.ui.host.diskPath(databasePath(device.ui.host)));
	return (await fs.readdir(folder)).filter((name) => name.includes("sync-conflict"));
}

async function memoryIds(device: Device): Promise<string[]> {
	return (await allMemories(device.ui.host)).map((memory) => memory.id).sort();
}

async function act(device: Device, random: () => number, step: number, forgotten: Set<string>): Promise<string> {
	const vault = device.ui.host.vault;
	const files = vault.getMarkdownFiles().filter((file) => !file.path.startsWith("Memory"));
	const pick = (): TFile | undefined => files[Math.floor(random() * files.length)];
	const roll = random();
	const file = pick();
	// Typed in this device's editor, as a person edits: Obsidian reports it before the save.
	const typeIn = (notePath: string) => device.ui.host.workspace.trigger("editor-change", {}, { file: { path: notePath } });
	if (roll < 0.35 && file !== undefined) {
		typeIn(file.path);
		await vault.modify(file, `${await vault.read(file)}\n## Update ${step}\n\nOn day ${step} the crane ${step} was moved by ${device.name}.\n`);
		device.pending.add(file.path);
		return `edit ${file.path}`;
	}
	if (roll < 0.55) {
		const notePath = `Notes/New ${device.name} ${step}.md`;
		typeIn(notePath);
		await vault.create(notePath, `# New ${step}\n\nThe harbour idea ${step} came from ${device.name}.\n`);
		device.pending.add(notePath);
		return `create ${notePath}`;
	}
	if (roll < 0.7 && file !== undefined) {
		const notePath = `Moved/${file.basename} ${step}.md`;
		await fs.mkdir(device.ui.host.diskPath("Moved"), { recursive: true });
		const from = file.path;
		await vault.rename(file, notePath);
		device.pending.add(from);
		device.pending.add(notePath);
		return `rename ${from} → ${notePath}`;
	}
	if (roll < 0.8 && file !== undefined) {
		await vault.delete(file);
		device.pending.add(file.path);
		return `delete ${file.path}`;
	}
	const memories = await allMemories(device.ui.host);
	const memory = memories[Math.floor(random() * memories.length)];
	if (memory === undefined) return "nothing to forget";
	await storeOf(device.ui.host).forgetMemory(memory.id);
	forgotten.add(memory.id);
	return `forget ${memory.id}`;
}

for (let seed = Number(process.env.TWO_DEVICE_SEED ?? 1); seed <= SEEDS; seed++) {
	test(`two devices converge through a sync tool, and forgets travel (seed ${seed})`, { timeout: 240_000 }, async (t) => {
		const random = seededRandom(seed * 7_919);
		const dirA = await fs.mkdtemp(path.join(os.tmpdir(), "memory-agent-device-a-"));
		const dirB = await fs.mkdtemp(path.join(os.tmpdir(), "memory-agent-device-b-"));
		const a: Device = { name: "A", dir: dirA, ui: await startUiHost({ vaultDir: dirA, notes: NOTES, settings: SETTINGS }), pending: new Set(), synced: "" };
		devices.push(a);
		await waitForIdle(a.ui.host, "A remembers the vault");
		await runtimeOf(a).flush();
		// B starts from a synced copy: the notes and A's database.
		await fs.mkdir(path.join(dirB, ".obsidian/plugins/memory-agent"), { recursive: true });
		await fs.copyFile(path.join(dirA, databasePath(a.ui.host)), path.join(dirB, databasePath(a.ui.host)));
		const b: Device = { name: "B", dir: dirB, ui: await startUiHost({ vaultDir: dirB, notes: NOTES, settings: SETTINGS }), pending: new Set(), synced: "" };
		devices.push(b);
		await waitForIdle(b.ui.host, "B opens the synced memory");
		assert.equal(b.ui.fake.requests.filter((request) => request.body.includes("record_memory")).length, 0, "B pays nothing for what A remembered");
		const initial = await databaseVersion(b);
		a.synced = b.synced = initial?.digest ?? "";
		// The first exchange of the two copies (B forgot a memory): from now on both know the
		// memory is shared.
		conflictCopiesMade = 0;
		const forgotten = new Set<string>();
		const [firstForgotten] = await allMemories(b.ui.host);
		assert.ok(firstForgotten !== undefined);
		await storeOf(b.ui.host).forgetMemory(firstForgotten.id);
		forgotten.add(firstForgotten.id);
		await settle(a, b);
		assert.equal((await storeOf(a.ui.host).status()).shared, true);
		assert.equal((await storeOf(b.ui.host).status()).shared, true);

		const log: string[] = [];
		const sync = new SyncTool(a, b, seededRandom(seed * 7_919 + 1), log, seed % 2 === 0);
		// With TWO_DEVICE_DEBUG, every change of each side's database file is logged too.
		const watched = new Map<string, number>();
		const watcher = process.env.TWO_DEVICE_DEBUG
			? setInterval(() => {
					for (const device of [a, b]) {
						void fs.stat(device.ui.host.diskPath(databasePath(device.ui.host))).then(
							(stat) => {
								if (watched.get(device.name) !== stat.mtimeMs) log.push(`${Date.now() % 100_000}     ${device.name}'s database file changed`);
								watched.set(device.name, stat.mtimeMs);
							},
							() => undefined,
						);
					}
				}, 50)
			: undefined;
		let ids: [string[], string[]] = [[], []];
		try {
			for (let step = 0; step < STEPS; step++) {
				const device = random() < 0.5 ? a : b;
				log.push(`${Date.now() % 100_000} ${device.name}: ${await act(device, random, step, forgotten)}`);
				await sleep(Math.floor(random() * 1_000));
			}
			// Settle: notes from the other device have had their wait, both sides are idle and
			// saved, and the sync tool has nothing left to copy.
			await sleep(OTHER_DEVICE_WAIT_MS + 1_000);
			for (let round = 0; round < 8; round++) {
				for (const device of [a, b]) {
					runtimeOf(device).runner.kick();
					await waitForIdle(device.ui.host);
					await runtimeOf(device).flush();
				}
				await sync.settled();
				ids = [await memoryIds(a), await memoryIds(b)];
				// Conflict copies are looked for every 5 s: the last ones may still be waiting.
				const copiesLeft = (await conflictCopiesOf(a)).length + (await conflictCopiesOf(b)).length;
				if (ids[0].join() === ids[1].join() && a.pending.size === 0 && b.pending.size === 0 && copiesLeft === 0) break;
			}
		} finally {
			clearInterval(watcher);
			await sync.stop();
		}
		const describe = async (device: Device) => {
			const memories = (await allMemories(device.ui.host)).map((memory) => `${memory.id} ${memory.source_path} ${memory.summary.slice(0, 40)}`);
			const sources = (await storeOf(device.ui.host).listSources(null, 1_000)).map((source) => `${source.path} ${source.updated_at} ${source.sha256.slice(0, 6)}`);
			return `${device.name}:\n  ${memories.join("\n  ")}\n  sources:\n  ${sources.join("\n  ")}`;
		};
		const context = `seed ${seed}:\n${log.join("\n")}\n${ids[0].join() === ids[1].join() ? "" : `${await describe(a)}\n${await describe(b)}`}`;
		assert.deepEqual(ids[1], ids[0], `both devices have the same memories — ${context}`);
		assert.deepEqual(await notesOf(b), await notesOf(a), `the vaults are the same — ${context}`);
		for (const device of [a, b]) {
			assert.deepEqual(await conflictCopiesOf(device), [], `${device.name} merged every conflict copy and moved it to the trash`);
		}
		for (const id of forgotten) assert.ok(!ids[0].includes(id), `${id}, forgotten, is gone on both — ${context}`);
		// Nothing lost: every note has its memory, but those a forget emptied (a rename on one
		// side and the sync tool's delete of the old name on the other included).
		const remembered = new Set((await allMemories(a.ui.host)).map((memory) => memory.source_path));
		const without = [...(await notesOf(a)).keys()].filter((notePath) => !remembered.has(notePath));
		assert.ok(without.length <= forgotten.size, `notes without memories: ${without.join(", ")} — ${context}`);
		// What was paid for twice: the same chunk of a note sent by both devices (or twice by one).
		const sent = new Map<string, number>();
		for (const device of [a, b]) {
			for (const request of device.ui.fake.requests.filter((recorded) => recorded.body.includes("record_memory"))) {
				const json = request.json as { messages: Array<{ content: Array<{ text?: string }> }> };
				// Each chunk's text (one, or each piece of a batched call), without the file name,
				// section and properties the fence opens with.
				const text = json.messages[0]?.content[0]?.text ?? "";
				const fenced = request.body.includes('"name":"record_memories"') ? ingestPieces(text).map((piece) => piece.fenced) : [/<note>\n([\s\S]*)\n<\/note>/.exec(text)?.[1] ?? ""];
				for (const piece of fenced) {
					const chunk = piece.replace(/^(?:(?:File|Section|Properties): .*\n)+\n/, "");
					sent.set(chunk, (sent.get(chunk) ?? 0) + 1);
				}
			}
		}
		const twice = [...sent].filter(([, count]) => count > 1);
		// Usage is counted per device and summed: each device's copy counts every call both made.
		const paidCalls = [a, b].reduce((sum, device) => sum + device.ui.fake.requests.filter((recorded) => recorded.body.includes("record_memory")).length, 0);
		const day = new Date().toISOString().slice(0, 10);
		for (const device of [a, b]) {
			const usage = await storeOf(device.ui.host).usage("2000-01-01", "2999-12-31");
			const ingest = usage.records.filter((record) => record.agent === "ingest").reduce((sum, record) => sum + record.calls, 0);
			assert.equal(ingest, paidCalls, `${device.name} counts both devices' calls (${day}) — ${context}`);
		}
		t.diagnostic(`seed ${seed}: ${sent.size} chunks sent, ${twice.length} of them more than once; ${conflictCopiesMade} conflict copies merged`);
		const paidTwice = twice.map(([chunk]) => chunk.replace(/\n/g, " ").slice(0, 90)).join(" || ");
		if (process.env.TWO_DEVICE_DEBUG) {
			for (const device of [a, b]) {
				for (const request of device.ui.fake.requests.filter((recorded) => recorded.body.includes("record_memory"))) {
					const json = request.json as { messages: Array<{ content: Array<{ text?: string }> }> };
					const text = json.messages[0]?.content[0]?.text ?? "";
					t.diagnostic(`${request.receivedAt % 100_000} ${device.name} paid: ${/File: (.*)/.exec(text)?.[1]} ${(/<note>\n([\s\S]*)\n<\/note>/.exec(text)?.[1] ?? "").replace(/\n/g, " ")}`);
				}
			}
		}
		if (process.env.TWO_DEVICE_DEBUG) {
			for (const line of log) t.diagnostic(line);
			for (const device of [a, b]) for (const notice of device.ui.host.notices) t.diagnostic(`${device.name} notice: ${notice}`);
		}
		if (process.env.TWO_DEVICE_DEBUG) {
			const { SQL } = await loadFacade();
			const rows = async (device: Device, sql: string) => {
				const db = withMemoryTerms(new SQL.Database(await fs.readFile(device.ui.host.diskPath(databasePath(device.ui.host)))));
				try {
					return new Set((db.exec(sql)[0]?.values ?? []).map((row) => row.join(" ")));
				} finally {
					db.close();
				}
			};
			for (const sql of ["SELECT p.path, s.updated_at, hex(s.sha256) FROM sources s JOIN paths p ON p.id = s.path_id", "SELECT id FROM tombstones", "SELECT id FROM memories"]) {
				const [ra, rb] = [await rows(a, sql), await rows(b, sql)];
				t.diagnostic(`only A: ${[...ra].filter((x) => !rb.has(x)).join(" | ")} ;; only B: ${[...rb].filter((x) => !ra.has(x)).join(" | ")}`);
			}
		}
		if (OTHER_DEVICE_WAIT_MS > 0) assert.deepEqual(paidTwice, "", `no chunk is paid for twice — ${context}`);
	});
}
