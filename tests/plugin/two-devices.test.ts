// Two devices sharing one vault through a sync tool, deterministically: two headless hosts (each
// with the built main.js and its own fake Bedrock) on two copies of a vault, and a simple sync
// function the test calls at chosen points. It copies what changed since the last pass — notes
// and log files alike, both ways, through the disk, then tells the receiving vault (as Obsidian
// sees a sync tool's writes). Each device's database stays its own (the plugin folder is not
// synced): the memory travels only through the devices' logs. Invariants: each device writes
// only in its own log folder; no file in the vault grows over 5 MB; both end with the same
// memories; a forget, a rename and a remembered note travel; what one device paid for costs
// the other no model call. Also: a log file delivered cut in the middle of a line, then whole;
// a sync tool's conflict copy (`000001 2.jsonl`); the migration from an older version's shared
// `memory.db`; and the `memory-agent` command as a device of its own (remember, recall, index).

import assert from "node:assert/strict";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, test } from "node:test";
import type { TFile } from "obsidian";
import { TEST_CREDENTIALS } from "../fake-bedrock/index";
import type { Host } from "../host/host";
import { type Ran, commandMissing, runCommand } from "../support/memory-agent-command";
import { beforeDeviceLog, databasePath, legacyDatabasePath } from "../support/plugin-fixtures";
import { allMemories, memoriesOf, storeOf, waitForIdle } from "../support/vault-host";
import { type UiHost, startUiHost } from "./views-fixture";

const MEMORY_FOLDER = "Memory Agent";
/** Obsidian Sync's Standard plan refuses files over 5 MB; no file of the memory may grow past it. */
const MAX_FILE_BYTES = 5 * 1024 * 1024;

const NOTES: Record<string, string> = Object.fromEntries(
	Array.from({ length: 4 }, (_, n) => [`Notes/Note ${n}.md`, `# Note ${n}\n\nThe lighthouse plan ${n} needs ${n + 2} keepers.\n`]),
);
// A note changed on the other device is paid for only after this wait: its memories come in the
// same pass of the sync function, and are replayed before it ends.
const SETTINGS = { dailyConsolidation: false, consolidationThreshold: 1_000, quietDelaySeconds: 1, otherDeviceWaitSeconds: 2, bulkConfirmThreshold: 10_000 };

interface Device {
	name: string;
	id: string;
	dir: string;
	ui: UiHost;
}

const devices: Device[] = [];
const folders: string[] = [];
afterEach(async () => {
	for (const device of devices.splice(0)) await device.ui.close();
	for (const folder of folders.splice(0)) await fs.rm(folder, { recursive: true, force: true });
});

async function vaultFolder(name: string): Promise<string> {
	const dir = await fs.mkdtemp(path.join(os.tmpdir(), `memory-agent-${name}-`));
	folders.push(dir);
	return dir;
}

async function startDevice(name: string, id: string, dir: string, notes: Record<string, string> = NOTES): Promise<Device> {
	const device = { name, id, dir, ui: await startUiHost({ vaultDir: dir, notes, settings: SETTINGS, deviceId: id }) };
	devices.push(device);
	return device;
}

const hostOf = (device: Device): Host => device.ui.host;

type Runtime = { flush(): Promise<void>; runner: { kick(): void; idle(): Promise<void> } };
const runtimeOf = (device: Device) => (hostOf(device).plugin as unknown as { runtime: Runtime }).runtime;

/** Model calls that remembered a note (ingest), made by this device. */
function paidCalls(device: Device): number {
	return device.ui.fake.requests.filter((request) => request.body.includes("record_memor")).length;
}

/** Every file of the vault a sync tool carries (the config folder, with each device's database, stays). */
async function syncedFiles(dir: string): Promise<Map<string, Buffer>> {
	const found = new Map<string, Buffer>();
	const walk = async (relative: string) => {
		for (const entry of await fs.readdir(path.join(dir, relative), { withFileTypes: true })) {
			const child = relative === "" ? entry.name : `${relative}/${entry.name}`;
			if (entry.name.startsWith(".")) continue;
			if (entry.isDirectory()) await walk(child);
			else if (entry.isFile()) found.set(child, await fs.readFile(path.join(dir, child)));
		}
	};
	await walk("");
	return found;
}

/** Waits until the device has nothing to do soon: no job queued, no timer due (quiet delays, the log's debounce, waits). */
async function quiet(device: Device): Promise<void> {
	const host = hostOf(device);
	await waitForIdle(host, `${device.name} finishes its work`);
	await host.waitFor(() => !host.timers.dueWithin(3_000), { timeoutMs: 20_000, message: `${device.name}'s timers` });
	await runtimeOf(device).runner.idle();
	await waitForIdle(host, `${device.name} finishes its work`);
}

/** Writes `bytes` into the device's vault as a sync tool does, and tells the vault (create or modify). */
async function deliver(device: Device, vaultPath: string, bytes: Buffer | Uint8Array): Promise<void> {
	const host = hostOf(device);
	const target = host.diskPath(vaultPath);
	const existed = await fs.stat(target).then(
		() => true,
		() => false,
	);
	await fs.mkdir(path.dirname(target), { recursive: true });
	await fs.writeFile(`${target}.sync-tmp`, bytes);
	await fs.rename(`${target}.sync-tmp`, target);
	const file = host.vault.getFileByPath(vaultPath);
	assert.ok(file !== null, `${vaultPath} is in ${device.name}'s vault`);
	host.vault.trigger(existed ? "modify" : "create", file);
}

async function removeDelivered(device: Device, vaultPath: string): Promise<void> {
	const host = hostOf(device);
	const file = host.vault.getFileByPath(vaultPath);
	if (file === null) return;
	await fs.rm(host.diskPath(vaultPath));
	host.vault.trigger("delete", file);
}

/**
 * The sync tool, one pass: both devices first write what they have (their log, their
 * database), then every file changed on one side since the last pass is copied to the other
 * (or removed there), and both are left to take it in. Returns the paths copied.
 */
class SyncFunction {
	/** The files as both sides held them after the last pass. */
	private base = new Map<string, Buffer>();

	constructor(
		private readonly a: Device,
		private readonly b: Device,
	) {}

	/** Starts from the vaults as they are (both copies alike). */
	async start(): Promise<void> {
		this.base = await syncedFiles(this.a.dir);
	}

	async pass(): Promise<string[]> {
		for (const device of [this.a, this.b]) {
			await quiet(device);
			await runtimeOf(device).flush();
		}
		const [filesA, filesB] = [await syncedFiles(this.a.dir), await syncedFiles(this.b.dir)];
		const copied: string[] = [];
		for (const vaultPath of new Set([...filesA.keys(), ...filesB.keys(), ...this.base.keys()])) {
			const [inA, inB, before] = [filesA.get(vaultPath), filesB.get(vaultPath), this.base.get(vaultPath)];
			const changedA = !same(inA, before);
			const changedB = !same(inB, before);
			if (!changedA && !changedB) continue;
			// Each device writes only its own log files, and the test changes a note on one side at a time.
			assert.ok(!(changedA && changedB) || same(inA, inB), `${vaultPath} changed on both devices`);
			const [from, to, bytes] = changedA ? [this.a, this.b, inA] : [this.b, this.a, inB];
			if (bytes === undefined) await removeDelivered(to, vaultPath);
			else await deliver(to, vaultPath, bytes);
			copied.push(`${from.name}→${to.name} ${vaultPath}`);
		}
		this.base = await syncedFiles(this.a.dir);
		for (const device of [this.a, this.b]) {
			await quiet(device);
			await runtimeOf(device).flush();
		}
		return copied;
	}

	/** Passes until one copies nothing (at most a few). */
	async settle(): Promise<void> {
		for (let pass = 0; pass < 5; pass++) if ((await this.pass()).length === 0) return;
		assert.fail("the sync settles within five passes");
	}
}

function same(left: Buffer | undefined, right: Buffer | undefined): boolean {
	return left === undefined || right === undefined ? left === right : left.equals(right);
}

async function memoryKeys(device: Device): Promise<string[]> {
	return (await allMemories(hostOf(device))).map((memory) => `${memory.id} ${memory.source_path}`).sort();
}

/** Every write, append, rename, removal or new folder the device made under the memory folder is in its own log folder. */
function assertWritesOnlyItsOwnLog(device: Device): void {
	const writes = hostOf(device).adapter.calls.filter((call) => ["write", "append", "writeBinary", "rename", "remove", "mkdir"].includes(call.method));
	const inMemoryFolder = writes.flatMap((call) => call.args).filter((arg) => arg === MEMORY_FOLDER || arg.startsWith(`${MEMORY_FOLDER}/`));
	const own = `${MEMORY_FOLDER}/${device.id}`;
	const foreign = inMemoryFolder.filter((arg) => arg !== MEMORY_FOLDER && arg !== own && !arg.startsWith(`${own}/`));
	assert.deepEqual(foreign, [], `${device.name} writes only in ${own}`);
	assert.ok(inMemoryFolder.some((arg) => arg.startsWith(`${own}/`)), `${device.name} wrote its log`);
}

async function assertNoFileOver5MB(device: Device): Promise<void> {
	for (const [vaultPath, bytes] of await syncedFiles(device.dir)) assert.ok(bytes.length <= MAX_FILE_BYTES, `${vaultPath} is ${bytes.length} bytes`);
}

async function logFilesOf(device: Device, owner: Device): Promise<string[]> {
	return (await fs.readdir(hostOf(device).diskPath(`${MEMORY_FOLDER}/${owner.id}`)).catch(() => [] as string[])).sort();
}

/** A's first session, then B from a synced copy of the vault (notes and A's log, not A's database). */
async function twoDevices(): Promise<{ a: Device; b: Device; sync: SyncFunction }> {
	const a = await startDevice("A", "device-a", await vaultFolder("device-a"));
	await quiet(a);
	await runtimeOf(a).flush();
	assert.ok(paidCalls(a) > 0, "A remembered its notes");
	const dirB = await vaultFolder("device-b");
	for (const [vaultPath, bytes] of await syncedFiles(a.dir)) {
		await fs.mkdir(path.dirname(path.join(dirB, vaultPath)), { recursive: true });
		await fs.writeFile(path.join(dirB, vaultPath), bytes);
	}
	const b = await startDevice("B", "device-b", dirB, {});
	const sync = new SyncFunction(a, b);
	await sync.start();
	await quiet(b);
	return { a, b, sync };
}

test("two devices share the memory through their logs: each writes only its own, what one paid for costs the other nothing, forgets and renames travel", { timeout: 240_000 }, async () => {
	const { a, b, sync } = await twoDevices();
	assert.equal(paidCalls(b), 0, "B pays nothing for what A remembered (it read A's log at its start)");
	assert.deepEqual(await memoryKeys(b), await memoryKeys(a), "B has A's memories");
	assert.ok((await memoryKeys(a)).length > 0);

	// A note written on A: A pays once, B takes A's memory of it from the log.
	const paidByA = paidCalls(a);
	await hostOf(a).vault.create("Notes/From A.md", "# From A\n\nThe harbour idea came from device A on a Tuesday.\n");
	await sync.settle();
	assert.equal(paidCalls(a), paidByA + 1, "A paid for its new note");
	assert.equal(paidCalls(b), 0, "the note remembered on A costs B no model call");
	assert.ok((await memoriesOf(hostOf(b), "Notes/From A.md")).length > 0, "B has the new note's memory");

	// A forget on B is gone on A after the next pass.
	const [forgotten] = await allMemories(hostOf(b));
	assert.ok(forgotten !== undefined);
	await storeOf(hostOf(b)).forgetMemory(forgotten.id);
	await sync.settle();
	assert.ok(!(await memoryKeys(a)).some((key) => key.startsWith(`${forgotten.id} `)), "the memory B forgot is gone on A");

	// A rename on A travels (the sync tool brings it to B as a delete and a create).
	const renamed = hostOf(a).vault.getFileByPath("Notes/Note 1.md") as TFile;
	await fs.mkdir(hostOf(a).diskPath("Moved"), { recursive: true });
	await hostOf(a).vault.rename(renamed, "Moved/Note 1 renamed.md");
	await sync.settle();
	assert.ok((await memoriesOf(hostOf(b), "Moved/Note 1 renamed.md")).length > 0, "B has the renamed note's memories under its new name");
	assert.equal((await memoriesOf(hostOf(b), "Notes/Note 1.md")).length, 0, "and none under the old name");
	assert.equal(paidCalls(b), 0, "the rename cost B nothing");
	assert.equal(paidCalls(a), paidByA + 1, "nor A");

	// A note written on B travels the other way.
	await hostOf(b).vault.create("Notes/From B.md", "# From B\n\nThe crane was moved by device B on Friday.\n");
	await sync.settle();
	assert.equal(paidCalls(b), 1, "B paid for its note");
	assert.equal(paidCalls(a), paidByA + 1, "A paid nothing for it");

	assert.deepEqual(await memoryKeys(b), await memoryKeys(a), "both devices end with the same memories");
	for (const device of [a, b]) {
		assertWritesOnlyItsOwnLog(device);
		await assertNoFileOver5MB(device);
		// The logs are never taken for notes: the notes in scope are the vault's Markdown notes.
		const inScope = /\/([\d,]+) notes?/.exec(hostOf(device).statusBarText())?.[1];
		assert.equal(inScope, String(hostOf(device).vault.getMarkdownFiles().length), hostOf(device).statusBarText());
	}
	// A small memory stays in one log file each (a purge of what was forgotten or removed writes it anew, under a new number).
	for (const device of [a, b]) {
		const files = await logFilesOf(device, device);
		assert.equal(files.length, 1, `${device.name}'s log files: ${files.join(", ")}`);
		assert.ok((await fs.stat(hostOf(device).diskPath(`${MEMORY_FOLDER}/${device.id}/${files[0]}`))).size <= 64 * 1024);
	}
});

/** Runs the command on `vault` as the device `terminal`, with the test's keys and `endpoint` as its Bedrock. */
function runTerminal(args: string[], vault: string, home: string, endpoint: string): Promise<Ran> {
	return runCommand([...args, "--vault", vault], home, {
		env: {
			MEMORY_AGENT_DEVICE: "terminal",
			AWS_ACCESS_KEY_ID: TEST_CREDENTIALS.accessKeyId,
			AWS_SECRET_ACCESS_KEY: TEST_CREDENTIALS.secretAccessKey,
			AWS_REGION: "us-east-1",
			AWS_ENDPOINT_URL_BEDROCK_RUNTIME: endpoint,
		},
	});
}

/** Copies every file a sync tool carries from one vault folder to another. */
async function copySynced(from: string, to: string): Promise<void> {
	for (const [vaultPath, bytes] of await syncedFiles(from)) {
		await fs.mkdir(path.dirname(path.join(to, vaultPath)), { recursive: true });
		await fs.writeFile(path.join(to, vaultPath), bytes);
	}
}

test(
	"the command is a device: it remembers while no Obsidian runs, recall finds it at once, and an Obsidian started later has it with no model call",
	{ timeout: 240_000, skip: commandMissing },
	async () => {
		const a = await startDevice("A", "device-a", await vaultFolder("device-a"));
		await quiet(a);
		await runtimeOf(a).flush();
		await hostOf(a).unloadPlugin();
		const endpoint = a.ui.fake.url;
		const calls = () => a.ui.fake.requests.length;

		// A computer without Obsidian, with a synced copy of the vault (notes and A's log).
		const terminal = await vaultFolder("terminal");
		const home = await vaultFolder("terminal-home");
		await copySynced(a.dir, terminal);
		// A sync tool carries the config folder too (each device's database and heartbeat are its own).
		await fs.mkdir(path.join(terminal, ".obsidian"), { recursive: true });
		await fs.writeFile(path.join(terminal, "Notes", "Terminal.md"), "# Terminal\n\nThe quarry road closes for repairs on 3 March, said the terminal.\n");
		const before = calls();
		const remembered = await runTerminal(["remember", "Ines moved the harbour survey to Thursday.", "--json"], terminal, home, endpoint);
		assert.equal(remembered.code, 0, remembered.stderr);
		assert.equal(calls(), before + 1, "remember: one model call (one memory of its own: nothing to consolidate yet)");
		const typedId = (JSON.parse(remembered.stdout) as { memories: Array<{ id: string }> }).memories[0]!.id;
		const recalled = await runTerminal(["recall", "When is the harbour survey?", "--json"], terminal, home, endpoint);
		assert.equal(recalled.code, 0, recalled.stderr);
		assert.ok((JSON.parse(recalled.stdout) as { memories: Array<{ id: string }> }).memories.some((memory) => memory.id === typedId), recalled.stdout);
		const indexed = await runTerminal(["index", "--yes"], terminal, home, endpoint);
		assert.equal(indexed.code, 0, indexed.stderr);
		// The command consolidates its own memories (never A's: A does), once two of them wait.
		const byIndex = a.ui.fake.requests.slice(before + 1);
		const consolidations = byIndex.filter((request) => request.body.includes("record_insights"));
		assert.equal(byIndex.length - consolidations.length, 1, "index paid only for the note A had not remembered (A's notes came from A's log)");
		assert.equal(consolidations.length, 1, "and one consolidation of the command's own two memories");
		const logs = await fs.readdir(path.join(terminal, MEMORY_FOLDER));
		assert.deepEqual(logs.sort(), ["device-a", "terminal"], "the command wrote only its own log folder");

		// An Obsidian started later on a synced copy of the terminal's vault has it all, paying nothing.
		const later = await vaultFolder("device-b");
		await copySynced(terminal, later);
		const b = await startDevice("B", "device-b", later, {});
		await quiet(b);
		assert.equal(paidCalls(b), 0, "B paid nothing for what A and the command remembered");
		const keys = await memoryKeys(b);
		assert.ok(keys.some((key) => key.startsWith(`${typedId} `)), "B has the command's typed memory");
		assert.ok((await memoriesOf(hostOf(b), "Notes/Terminal.md")).length > 0, "and its memory of the note it indexed");
		assert.ok((await memoriesOf(hostOf(b), "Notes/Note 0.md")).length > 0, "and A's");
	},
);

test("a log file delivered cut in the middle of a line is read up to its last whole line, then the rest once it is whole", { timeout: 240_000 }, async () => {
	const { a, b, sync } = await twoDevices();
	await hostOf(a).vault.create("Notes/Cut.md", "# Cut\n\nThe ferry timetable changes in the autumn, said device A.\n");
	await quiet(a);
	await runtimeOf(a).flush();
	const logPath = `${MEMORY_FOLDER}/${a.id}/000001.jsonl`;
	const whole = await fs.readFile(hostOf(a).diskPath(logPath));
	const before = await fs.readFile(hostOf(b).diskPath(logPath));
	assert.ok(whole.length > before.length + 10, "A appended to its log");
	// The new note's lines, cut in the middle of the last one.
	const cut = whole.subarray(0, whole.length - 10);
	await deliver(b, logPath, cut);
	await quiet(b);
	assert.deepEqual(hostOf(b).notices.filter((notice) => /could not read/.test(notice)), [], "a cut line is not unreadable: it is waited for");
	// The rest of the file, and the note (a sync tool that brought the note long before the rest of
	// the log would have B pay after its wait for other devices, as it should).
	await deliver(b, logPath, whole);
	await deliver(b, "Notes/Cut.md", await fs.readFile(hostOf(a).diskPath("Notes/Cut.md")));
	await quiet(b);
	await sync.start(); // Both copies alike now.
	await sync.settle();
	assert.ok((await memoriesOf(hostOf(b), "Notes/Cut.md")).length > 0, "B has the note's memory once the file is whole");
	assert.equal(paidCalls(b), 0, "B paid nothing");
	assert.deepEqual(await memoryKeys(b), await memoryKeys(a));
	assert.deepEqual(hostOf(b).notices.filter((notice) => /could not read/.test(notice)), []);
});

test("a sync tool's conflict copy of a log file is read, and never appended to", { timeout: 240_000 }, async () => {
	const { a, b, sync } = await twoDevices();
	await hostOf(a).vault.create("Notes/Copy.md", "# Copy\n\nThe bakery on the corner opens at six, noted device A.\n");
	await quiet(a);
	await runtimeOf(a).flush();
	const folder = `${MEMORY_FOLDER}/${a.id}`;
	const whole = await fs.readFile(hostOf(a).diskPath(`${folder}/000001.jsonl`));
	// The sync tool kept A's newer version as a conflict copy on B; B's 000001.jsonl stays behind.
	await deliver(b, "Notes/Copy.md", await fs.readFile(hostOf(a).diskPath("Notes/Copy.md")));
	await deliver(b, `${folder}/000001 2.jsonl`, whole);
	await quiet(b);
	assert.ok((await memoriesOf(hostOf(b), "Notes/Copy.md")).length > 0, "B read the conflict copy");
	assert.equal(paidCalls(b), 0, "B paid nothing");

	// A conflict copy in A's own folder: A goes on appending to its real log file (the copy's
	// lines are A's own: A may remove it once replayed, never append to it).
	await deliver(a, `${folder}/000001 2.jsonl`, whole);
	await hostOf(a).vault.create("Notes/After.md", "# After\n\nThe tram line 28 was closed for repairs, device A heard.\n");
	await quiet(a);
	await runtimeOf(a).flush();
	const copy = await fs.readFile(hostOf(a).diskPath(`${folder}/000001 2.jsonl`)).catch(() => undefined);
	assert.ok(copy === undefined || copy.equals(whole), "the conflict copy is not appended to");
	assert.ok((await fs.readFile(hostOf(a).diskPath(`${folder}/000001.jsonl`))).length > whole.length, "the real log file is");
	await sync.start();
	await deliver(b, `${folder}/000001.jsonl`, await fs.readFile(hostOf(a).diskPath(`${folder}/000001.jsonl`)));
	await deliver(b, "Notes/After.md", await fs.readFile(hostOf(a).diskPath("Notes/After.md")));
	await sync.settle();
	assert.deepEqual(await memoryKeys(b), await memoryKeys(a));
	assert.equal(paidCalls(b), 0);
});

test("a device upgrading from an older version's shared memory.db gets its memories without a model call, and writes them to its log", { timeout: 240_000 }, async () => {
	const a = await startDevice("A", "device-a", await vaultFolder("older"));
	await quiet(a);
	await runtimeOf(a).flush();
	const memories = await memoryKeys(a);
	assert.ok(memories.length > 0);
	const dir = a.dir;
	await a.ui.close();
	devices.splice(devices.indexOf(a), 1);
	// The vault as an older version left it: one shared memory.db, no device file, no log.
	const plugin = path.join(dir, ".obsidian/plugins/memory-agent");
	await fs.writeFile(path.join(dir, legacyDatabasePath(hostOf(a))), await beforeDeviceLog(await fs.readFile(path.join(dir, databasePath(hostOf(a))))));
	await fs.rm(path.join(dir, databasePath(hostOf(a))));
	await fs.rm(path.join(dir, MEMORY_FOLDER), { recursive: true, force: true });
	const legacy = await fs.readFile(path.join(dir, legacyDatabasePath(hostOf(a))));

	const c = await startDevice("C", "device-c", dir, {});
	await quiet(c);
	await runtimeOf(c).flush();
	assert.equal(paidCalls(c), 0, "the memories cost no model call");
	assert.deepEqual(
		(await memoryKeys(c)).map((key) => key.split(" ").slice(1).join(" ")),
		memories.map((key) => key.split(" ").slice(1).join(" ")),
		"C has every memory of the older file",
	);
	assert.deepEqual(await fs.readFile(path.join(dir, legacyDatabasePath(hostOf(c)))), legacy, "the older file is left as it was");
	assert.ok((await fs.readdir(plugin)).includes("memory-device-c.db"), "C saved its own database");
	// Its log file's name is the core's (numbers are never used twice by a database).
	const logFiles = (await fs.readdir(path.join(dir, `${MEMORY_FOLDER}/device-c`))).filter((name) => name.endsWith(".jsonl"));
	assert.ok(logFiles.length > 0, "C wrote its log");
	const log = (await Promise.all(logFiles.map((name) => fs.readFile(path.join(dir, `${MEMORY_FOLDER}/device-c/${name}`), "utf8")))).join("");
	for (const notePath of Object.keys(NOTES)) assert.ok(log.includes(JSON.stringify(notePath).slice(1, -1)), `C's log holds ${notePath}`);
});
