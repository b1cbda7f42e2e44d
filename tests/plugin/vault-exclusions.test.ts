// Excluded text never leaves the device: every exclusion kind, checked against every request
// the fake Bedrock received; odd files are skipped with a reason and never stop the queue.

import assert from "node:assert/strict";
import { afterEach, test } from "node:test";
import type { FakeBedrock } from "../fake-bedrock/index";
import type { Host } from "../host/host";
import { ingestRequests, ingestedChunks, rememberedPaths, sourcesOf, startAnsweringFake, startVaultHost, waitForIdle, writeNotes, writeSettings } from "../support/vault-host";

let host: Host | undefined;
let fake: FakeBedrock | undefined;
afterEach(async () => {
	await host?.stop();
	await fake?.close();
	host = undefined;
	fake = undefined;
});

test("every exclusion kind keeps the note's text off the wire", async () => {
	fake = await startAnsweringFake();
	host = await startVaultHost();
	await writeSettings(host, fake, {
		excludedFolders: ["Private"],
		excludedPatterns: ["**/*.secret.md"],
		excludedTags: ["confidential"],
	});
	host.vault.config.userIgnoreFilters = ["Templates/", "/^Scratch\\//"];
	await writeNotes(host, {
		"included.md": "SAFE-INCLUDED the weekly plan.\n",
		"Private/diary.md": "LEAK-FOLDER my diary.\n",
		"Work/plan.secret.md": "LEAK-PATTERN a secret plan.\n",
		"tagged-cached.md": "LEAK-TAG-CACHED body text.\n",
		"tagged-inline.md": "LEAK-TAG-INLINE about #confidential/hr matters.\n",
		"tagged-property.md": "---\ntags: [Confidential]\n---\nLEAK-TAG-PROPERTY body.\n",
		"no-memory.md": "---\nmemory: false\n---\nLEAK-MEMORY-FALSE body.\n",
		"Templates/day.md": "LEAK-IGNORED template.\n",
		"Scratch/x.md": "LEAK-IGNORED-REGEX scratch.\n",
		"plain.txt": "LEAK-PLAIN-TEXT not a note while plain text is off.\n",
		[`${host.configDir}/snippets/readme.md`]: "LEAK-CONFIG config folder.\n",
	});
	// The metadata cache knows this note's tag without the file being read.
	host.metadataCache.caches.set("tagged-cached.md", { tags: [{ tag: "#confidential", position: { start: { line: 0, col: 0, offset: 0 }, end: { line: 0, col: 13, offset: 13 } } }] });
	await host.loadPlugin();
	await host.waitForCore();
	await waitForIdle(host);

	assert.ok(fake.bodiesText().includes("SAFE-INCLUDED"), "the included note was sent (the check below can fail)");
	assert.deepEqual(fake.bodiesText().match(/LEAK-[A-Z-]+/g) ?? [], [], "no excluded text in any request");
	assert.deepEqual(await rememberedPaths(host), ["included.md"]);
	assert.equal(
		host.adapter.calls.filter((call) => call.args[0] === "tagged-cached.md").length,
		0,
		"a note the metadata cache excludes is not even read",
	);
	await host.waitFor(() => host!.statusBarText() === "Memory: 1/1 note", { message: "only included notes count" });

	// Changes while running: a tag added later forgets the note; renames across the boundary.
	const included = host.vault.getFileByPath("included.md");
	assert.ok(included);
	await host.vault.modify(included, "LEAK-LATE-TAG now #confidential.\n");
	await waitForIdle(host, "the tagged edit");
	assert.deepEqual(await rememberedPaths(host), [], "the note's memories are forgotten");
	await host.vault.create("moving.md", "SAFE-MOVING a note that moves.\n");
	await waitForIdle(host, "the new note");
	assert.deepEqual(await rememberedPaths(host), ["moving.md"]);
	await host.vault.rename(host.vault.getFileByPath("moving.md")!, "Private/moving.md");
	await waitForIdle(host, "the move into an excluded folder");
	assert.deepEqual(await rememberedPaths(host), [], "moving into an excluded folder forgets it");
	const before = ingestedChunks(fake);
	await host.vault.rename(host.vault.getFileByPath("Private/diary.md")!, "diary.md");
	await waitForIdle(host, "the move out of an excluded folder");
	assert.deepEqual(await rememberedPaths(host), ["diary.md"], "moving out of an excluded folder remembers it");
	assert.equal(ingestedChunks(fake), before + 1);
	assert.deepEqual(fake.bodiesText().match(/LEAK-(?!FOLDER)[A-Z-]+/g) ?? [], [], "still nothing excluded was sent");
});

test("binary, empty, 20 MB and non-UTF-8 files are skipped with a reason shown in the status view", async () => {
	fake = await startAnsweringFake();
	host = await startVaultHost();
	await writeSettings(host, fake);
	const png = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0x0d, 0x49, 0x48, 0x44, 0x52]);
	await writeNotes(host, {
		"good.md": "A good note.\n",
		"also-good.md": "Another good note.\n",
		"image.md": png,
		"empty.md": "   \n\n",
		"huge.md": "x".repeat(20 * 1024 * 1024),
		"latin1.md": new Uint8Array([0x43, 0x61, 0x66, 0xe9, 0x20, 0x63, 0x72, 0xe8, 0x6d, 0x65, 0x0a]),
	});
	// Every whole-file read the plugin asks of the vault: the 20 MB note must never be one.
	const read: string[] = [];
	const readBinary = host.vault.readBinary.bind(host.vault);
	host.vault.readBinary = (file) => (read.push(file.path), readBinary(file));
	await host.loadPlugin();
	await host.waitForCore();
	await waitForIdle(host);
	assert.ok(read.includes("good.md") && !read.includes("huge.md"), `the huge note is refused on its size, unread: ${read.join(", ")}`);

	assert.deepEqual(await rememberedPaths(host), ["also-good.md", "good.md"], "the rest of the vault was remembered");
	assert.equal(ingestedChunks(fake), 2, "no model call for the odd files");
	const skipped = Object.fromEntries((await sourcesOf(host)).filter((source) => source.skipped !== null).map((source) => [source.path, source.skipped]));
	assert.deepEqual(Object.keys(skipped).sort(), ["empty.md", "huge.md", "image.md", "latin1.md"]);

	await host.runCommand("show-memory-status");
	await host.settle();
	const view = host.workspaceEl.querySelector(".memory-agent-status-view");
	assert.ok(view, "the status view is open");
	const section = view.querySelector('[data-section="Skipped"]')?.textContent ?? "";
	assert.match(section, /Skipped \(4\)/);
	assert.match(section, /image\.md — the note looks like a binary file/);
	assert.match(section, /empty\.md — the note is empty/);
	assert.match(section, /huge\.md — the note \(.+\) is larger than the .+ limit/);
	assert.match(section, /latin1\.md — the note is not UTF-8 text/);
	assert.match(view.textContent ?? "", /2 of 6 notes remembered/);
	assert.match(view.textContent ?? "", /Today: [\d,]+ tokens in \d+ model calls?, (about \$\d+\.\d\d|less than \$0\.01) \(an estimate at the prices of us\.anthropic\.claude-haiku-5-5\)/);
});

test("the status view lists what the core left out, with the core's reasons, and counts only the rest", async () => {
	fake = await startAnsweringFake();
	host = await startVaultHost();
	await writeSettings(host, fake, { excludedTags: ["private"], excludedPatterns: ["Drafts/**"] });
	host.vault.config.userIgnoreFilters = ["Templates/", "/^Scratch\\//"];
	await writeNotes(host, {
		"kept.md": "SAFE-KEPT a note to remember.\n",
		"memory-no.md": "---\nmemory: no\n---\nLEAK-NO body.\n",
		"memory-off.md": "---\nmemory: off\n---\nLEAK-OFF body.\n",
		"memory-false.md": "---\nmemory: false\n---\nLEAK-FALSE body.\n",
		"nested-tag.md": "LEAK-NESTED dear #Private/Diary today.\n",
		"cached-no.md": "LEAK-CACHED the cache knows its properties.\n",
		"Drafts/idea.md": "LEAK-PATTERN a draft.\n",
		"Templates/day.md": "LEAK-FILTER a template.\n",
		"Scratch/x.md": "LEAK-REGEX scratch.\n",
	});
	// Obsidian's own YAML reading of `memory: no` (text), as its metadata cache gives it.
	host.metadataCache.caches.set("cached-no.md", { frontmatter: { memory: "no" } });
	await host.loadPlugin();
	await host.waitForCore();
	await waitForIdle(host);
	assert.ok(fake.bodiesText().includes("SAFE-KEPT"), "the kept note was sent (the check below can fail)");
	assert.deepEqual(fake.bodiesText().match(/LEAK-[A-Z-]+/g) ?? [], []);
	await host.waitFor(() => host!.statusBarText() === "Memory: 1/1 note", { message: "only the kept note counts" });

	await host.runCommand("show-memory-status");
	await host.settle();
	const view = host.workspaceEl.querySelector(".memory-agent-status-view");
	assert.ok(view, "the status view is open");
	const rows = [...(view.querySelector('[data-section="Left out by your settings"]')?.querySelectorAll("li") ?? [])].map((row) => row.textContent ?? "");
	assert.deepEqual(rows.sort(), [
		"Drafts/idea.md — matches an excluded pattern",
		"Scratch/x.md — in Obsidian's excluded files",
		"Templates/day.md — in Obsidian's excluded files",
		"cached-no.md — its properties turn memory off",
		"memory-false.md — its properties turn memory off",
		"memory-no.md — its properties turn memory off",
		"memory-off.md — its properties turn memory off",
		"nested-tag.md — it has the excluded tag #private/diary",
	]);
	assert.match(view.textContent ?? "", /1 of 1 notes remembered/);
	assert.equal(host.adapter.calls.filter((call) => call.args[0] === "cached-no.md").length, 0, "the cache decided: the note was not read");
});
