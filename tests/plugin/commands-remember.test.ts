// The commands and menu entries in the headless host with the built main.js: registered without
// hotkeys, "Remember selection" only with a selection and with the heading, line and daily-note
// date of the selection, "Remember…" through its dialog, and a plain notice before the core is ready.

import assert from "node:assert/strict";
import { afterEach, test } from "node:test";
import type { Editor, MarkdownFileInfo } from "obsidian";
import { type Host, startHost } from "../host/host";
import { HostEditor, createViewClasses } from "../host/views";
import { NOTES, type UiHost, browserCards, rememberNotes, startUiHost, waitForCard } from "./views-fixture";

/** A note made after the start; with a long quiet delay, only an explicit command remembers it soon. */
const IDEA = { path: "Inbox/Idea.md", text: "# Idea\n\nRemember the passport before leaving.\n" };
const QUIET = { quietDelaySeconds: 3_600 };

let ui: UiHost | undefined;
let bare: Host | undefined;
afterEach(async () => {
	await ui?.close();
	ui = undefined;
	await bare?.stop();
	bare = undefined;
});

const OWN_COMMANDS = ["remember-selection", "remember-current-note", "remember-text", "ask-memory", "insert-answer", "consolidate-now", "open-memory-browser"];

function editorCommand(host: Host, id: string) {
	const command = host.commands.get(`memory-agent:${id}`);
	assert.ok(command?.editorCheckCallback, `${id} is an editor command`);
	return (checking: boolean, editor: HostEditor, path: string | null) =>
		command.editorCheckCallback!(checking, editor as unknown as Editor, { file: path === null ? null : host.vault.getFileByPath(path) } as MarkdownFileInfo);
}

test("the commands are registered with sentence-case names and no default hotkeys", async () => {
	ui = await startUiHost({ notes: {} });
	const { host } = ui;
	for (const id of OWN_COMMANDS) {
		const command = host.commands.get(`memory-agent:${id}`);
		assert.ok(command, `${id} is registered`);
		assert.equal(command.hotkeys, undefined, `${id} has no default hotkey`);
		assert.match(command.name, /^[A-Z][^A-Z]*$/, `${command.name} is in sentence case`);
	}
});

test("'Remember selection' is offered only for a non-empty selection in a note", async () => {
	ui = await startUiHost();
	const run = editorCommand(ui.host, "remember-selection");
	const text = NOTES["Trips/Lisbon.md"]!;
	assert.equal(run(true, new HostEditor(text, { line: 5, ch: 3 }), "Trips/Lisbon.md"), false, "a bare cursor");
	assert.equal(run(true, new HostEditor(text, { line: 4, ch: 0 }, { line: 5, ch: 0 }), "Trips/Lisbon.md"), false, "only a line break");
	assert.equal(run(true, HostEditor.selecting(text, "We fly to Lisbon"), null), false, "no note behind the editor");
	assert.equal(run(true, HostEditor.selecting(text, "We fly to Lisbon"), "Trips/Lisbon.md"), true);
});

test("a selection is remembered with its heading, first line and the daily note's date", async () => {
	const journal = "# Sunday\n\nCalled Ana: she wants to visit Sintra on the trip.\n\n## Packing\n\nRemember the passport.\n";
	ui = await startUiHost({ notes: { ...NOTES, "Journal/2026-02-01.md": journal } });
	const { host, fake } = ui;
	const run = editorCommand(host, "remember-selection");
	// No metadata cache entry: the headings are read from the editor's lines.
	assert.equal(run(false, HostEditor.selecting(journal, "Remember the passport."), "Journal/2026-02-01.md"), true);
	await host.waitFor(() => host.notices.at(-1) === "Remembering the selection…", { message: `the notice ${"Remembering the selection…"}` });
	const card = await waitForCard(host, /Bring the passport to Lisbon\./);
	assert.match(card.querySelector(".memory-agent-memory-source")?.textContent ?? "", /^Journal\/2026-02-01\.md › Sunday > Packing$/);
	// The selection's own request (the vault sync may read the whole note as well).
	const ingest = fake.requests.find((request) => request.body.includes("Section: Sunday > Packing\\n\\nRemember the passport.\\n</note>"));
	assert.ok(ingest);
	assert.match(ingest.body, /<note>\\nFile: Journal\/2026-02-01\.md\\nSection: Sunday > Packing\\n/, "the file name and section are inside the fence");
	assert.match(ingest.body, /Note date: 2026-02-01/);

	// Open source goes to the selection's first line (0-based 6).
	card.querySelector<HTMLButtonElement>(".memory-agent-open-source")!.click();
	await host.waitFor(() => host.workspace.opened.length > 0, { message: "the note to open" });
	assert.deepEqual({ ...host.workspace.opened.at(-1), leaf: undefined }, { path: "Journal/2026-02-01.md", line: 6, leaf: undefined });
});

test("the heading comes from Obsidian's metadata cache when it has the note", async () => {
	ui = await startUiHost();
	const { host, fake } = ui;
	const text = NOTES["Trips/Lisbon.md"]!;
	host.metadataCache.setHeadings("Trips/Lisbon.md", [{ heading: "Lisbon trip (from the cache)", level: 1, line: 3 }]);
	editorCommand(host, "remember-selection")(false, HostEditor.selecting(text, "The hotel is in Alfama"), "Trips/Lisbon.md");
	await host.waitFor(() => fake.requests.some((request) => request.body.includes("Section: Lisbon trip (from the cache)")), { message: "the ingest request" });
	const ingest = fake.requests.find((request) => request.body.includes("Section: Lisbon trip (from the cache)"))!;
	assert.doesNotMatch(ingest.body, /Note date: 2026-02-01/, "not a daily note: the date is the note's own");
});

test("the editor and file menus offer to remember the selection and the note", async () => {
	ui = await startUiHost({ settings: QUIET });
	const { host } = ui;
	await host.vault.create(IDEA.path, IDEA.text);
	const { Menu } = createViewClasses({ app: host.app, document: host.dom.document, workspace: host.workspace, Component: class {} });
	const text = NOTES["Trips/Lisbon.md"]!;
	const info = { file: host.vault.getFileByPath("Trips/Lisbon.md") };

	const empty = new Menu();
	host.workspace.trigger("editor-menu", empty, new HostEditor(text), info);
	assert.equal(empty.item("Remember selection"), undefined, "nothing selected, nothing offered");

	const menu = new Menu();
	host.workspace.trigger("editor-menu", menu, HostEditor.selecting(text, "We fly to Lisbon with Ana on 14 March."), info);
	assert.ok(menu.item("Remember selection"));
	menu.item("Remember selection")!.click();
	await host.waitFor(() => host.notices.at(-1) === "Remembering the selection…", { message: `the notice ${"Remembering the selection…"}` });

	const fileMenu = new Menu();
	host.workspace.trigger("file-menu", fileMenu, host.vault.getFileByPath(IDEA.path), "file-explorer-context-menu");
	assert.ok(fileMenu.item("Remember note now"));
	fileMenu.item("Remember note now")!.click();
	await host.waitFor(() => host.notices.at(-1) === "Remembering Idea…", { message: `the notice ${"Remembering Idea…"}` });
	const card = await waitForCard(host, /Bring the passport/);
	assert.match(card.querySelector(".memory-agent-memory-source")?.textContent ?? "", /^Inbox\/Idea\.md › Idea$/);
});

test("'Remember…' opens a dialog; what is typed there becomes a memory without a note", async () => {
	ui = await startUiHost({ notes: {} });
	const { host } = ui;
	await host.runCommand("remember-text");
	const modal = host.dom.document.querySelector<HTMLElement>(".modal-container .memory-agent-remember-modal");
	assert.ok(modal, "the dialog is open");
	modal.querySelector<HTMLTextAreaElement>("textarea")!.value = "Remember the passport for the trip.";
	modal.querySelector<HTMLButtonElement>("button.mod-cta")!.click();
	assert.equal(host.dom.document.querySelector(".modal-container"), null, "the dialog closed");
	await host.waitFor(() => host.notices.at(-1) === "Remembering what you typed…", { message: `the notice ${"Remembering what you typed…"}` });
	const card = await waitForCard(host, /Bring the passport/);
	assert.equal(card.querySelector(".memory-agent-memory-source")?.textContent, "Typed text");
	assert.equal(card.querySelector(".memory-agent-open-source"), null, "typed text has no note to open");
});

test("'Remember current note now' needs an open note", async () => {
	ui = await startUiHost({ settings: QUIET });
	const { host } = ui;
	await host.vault.create(IDEA.path, IDEA.text);
	host.workspace.setActiveFile(null);
	assert.equal(host.commands.get("memory-agent:remember-current-note")?.checkCallback?.(true), false);
	await rememberNotes(host, [IDEA.path]);
	await host.waitFor(() => host.notices.at(-1) === "Remembering Idea…", { message: `the notice ${"Remembering Idea…"}` });
	await waitForCard(host, /Bring the passport/);
});

test("before the core is ready, commands say so instead of failing", async () => {
	bare = await startHost();
	await bare.loadPlugin({ layoutReady: false });
	await bare.runCommand("consolidate-now");
	assert.match(bare.notices.at(-1) ?? "", /starting/);
	await bare.runCommand("open-memory-browser");
	assert.match(bare.workspaceEl.querySelector(".memory-agent-browser .memory-agent-empty")?.textContent ?? "", /starting/);
	assert.deepEqual(await browserCards(bare), []);
});
