// Questions limited to a scope in the headless host, through the built main.js and the fake
// Bedrock: "Add scope" (this note, a tag, some days), a `[[` mention through the suggester,
// "Ask about selection" and "Ask about this folder" from the menus. Only memories inside the
// scope reach the model; the scope is shown, removable, and cleared by a new conversation.

import assert from "node:assert/strict";
import { afterEach, test } from "node:test";
import type { Menu } from "obsidian";
import { promptMemories } from "../browser/memory-model";
import type { Host } from "../host/host";
import { HostEditor, createViewClasses } from "../host/views";
import { NOTES, type UiHost, askInPanel, askPanel, rememberNotes, startUiHost, waitForMemories } from "./views-fixture";

let ui: UiHost | undefined;
afterEach(async () => {
	await ui?.close();
	ui = undefined;
});

async function started(): Promise<UiHost> {
	ui = await startUiHost({ settings: { dailyConsolidation: false } });
	await rememberNotes(ui.host);
	await waitForMemories(ui.host, 3);
	await ui.host.runCommand("ask-memory");
	return ui;
}

/** The source notes of the memories the latest question sent to the model. */
function sentSources(ui: UiHost): string[] {
	const request = ui.fake.requests.at(-1)!;
	return promptMemories(request.body.replace(/\\n/g, "\n")).map((memory) => memory.source.split("#")[0]!.trim());
}

function chips(host: Host): string[] {
	return [...askPanel(host).querySelectorAll(".memory-agent-scope-chip .memory-agent-scope-label")].map((chip) => chip.textContent ?? "");
}

/** Opens "Add scope" and clicks the menu item titled `title`. */
function addScope(host: Host, title: string): void {
	askPanel(host).querySelector<HTMLButtonElement>(".memory-agent-add-scope")!.click();
	const item = [...host.dom.document.querySelectorAll<HTMLElement>(".menu .menu-item")].find((element) => element.textContent === title);
	assert.ok(item, `the menu offers ${title}`);
	item.click();
	assert.equal(host.dom.document.querySelector(".menu"), null, "the menu closes");
}

/** Types `query` into the open suggester and picks the suggestion reading `text`. */
async function suggest(host: Host, query: string, text: string): Promise<void> {
	await host.waitFor(() => host.dom.document.querySelector(".modal-container .prompt-input") !== null, { message: "the suggester" });
	const input = host.dom.document.querySelector<HTMLInputElement>(".modal-container .prompt-input")!;
	input.value = query;
	input.dispatchEvent(new host.dom.window.Event("input") as unknown as Event);
	await host.waitFor(() => [...host.dom.document.querySelectorAll(".suggestion-item")].some((item) => item.textContent === text), { message: `the suggestion ${text}` });
	[...host.dom.document.querySelectorAll<HTMLElement>(".suggestion-item")].find((item) => item.textContent === text)!.click();
	assert.equal(host.dom.document.querySelector(".modal-container"), null, "the suggester closes");
}

test("\"This note\" limits the question to the note, is shown, and once removed the whole memory answers", async () => {
	const { host } = await started();
	host.workspace.setActiveFile(host.vault.getFileByPath("Trips/Lisbon.md"));
	addScope(host, "This note");
	assert.deepEqual(chips(host), ["Lisbon"]);
	const exchange = await askInPanel(host, "What do I know about Ana and the budget?");
	assert.deepEqual(sentSources(ui!), ["Trips/Lisbon.md"], "only the note's memory is sent");
	assert.match(ui!.fake.requests.at(-1)!.body, /The person limited this question to: Trips\/Lisbon\.md\./);
	assert.match(exchange.querySelector(".memory-agent-considered")?.textContent ?? "", /^Considered 1 memory in scope, packed 1, /);

	askPanel(host).querySelector<HTMLButtonElement>(".memory-agent-scope-chip .memory-agent-scope-remove")!.click();
	assert.deepEqual(chips(host), []);
	await askInPanel(host, "What do I know about Ana and the budget?");
	assert.deepEqual(sentSources(ui!).sort(), ["Journal/2026-02-01.md", "Trips/Lisbon.md", "Work/Budget.md"]);
});

test("a [[ mention opens the note suggester; the chosen note is the scope and its name replaces the brackets", async () => {
	const { host } = await started();
	const input = askPanel(host).querySelector<HTMLTextAreaElement>(".memory-agent-question-input")!;
	input.value = "Who approved [[";
	input.selectionStart = input.selectionEnd = input.value.length;
	input.dispatchEvent(new host.dom.window.Event("input") as unknown as Event);
	await suggest(host, "budg", "Work/Budget");
	assert.equal(input.value, "Who approved [[Budget]] ");
	assert.deepEqual(chips(host), ["Budget"]);

	// `@` at the start of a word does the same; inside a word (an address) it does not.
	input.value = "mail me@";
	input.dispatchEvent(new host.dom.window.Event("input") as unknown as Event);
	assert.equal(host.dom.document.querySelector(".modal-container"), null, "no suggester inside a word");
	input.value = "Who approved [[Budget]] ";
	await askInPanel(host, "Who approved [[Budget]]?");
	assert.deepEqual(sentSources(ui!), ["Work/Budget.md"]);
});

test("a tag's notes and a range of days are scopes; a tag no note carries is refused with a reason", async () => {
	const { host } = await started();
	host.metadataCache.caches.set("Trips/Lisbon.md", { frontmatter: { tags: "travel" } });
	host.metadataCache.caches.set("Work/Budget.md", { tags: [{ tag: "#work/q3", position: { start: { line: 2, col: 0, offset: 0 }, end: { line: 2, col: 7, offset: 0 } } }] });
	addScope(host, "A tag…");
	await suggest(host, "trav", "#travel (1 note)");
	assert.deepEqual(chips(host), ["#travel"]);
	await askInPanel(host, "What is planned?");
	assert.deepEqual(sentSources(ui!), ["Trips/Lisbon.md"]);
	assert.match(ui!.fake.requests.at(-1)!.body, /notes tagged #travel/);

	// A nested tag counts for its parent: #work holds #work/q3.
	askPanel(host).querySelector<HTMLButtonElement>(".memory-agent-scope-remove")!.click();
	addScope(host, "A tag…");
	await suggest(host, "work", "#work/q3 (1 note)");
	await askInPanel(host, "What is planned?");
	assert.deepEqual(sentSources(ui!), ["Work/Budget.md"]);
	askPanel(host).querySelector<HTMLButtonElement>(".memory-agent-scope-remove")!.click();

	// Days: the Sunday journal entry happened on 1 February 2026.
	addScope(host, "Some days…");
	const modal = host.dom.document.querySelector<HTMLElement>(".memory-agent-days-modal")!;
	const from = modal.querySelector<HTMLInputElement>(".memory-agent-days-from")!;
	from.value = "2026-02-01";
	from.dispatchEvent(new host.dom.window.Event("input") as unknown as Event);
	[...modal.querySelectorAll<HTMLButtonElement>("button")].find((button) => button.textContent === "Use these days")!.click();
	assert.deepEqual(chips(host), ["2026-02-01"]);
	const requests = ui!.fake.requests.length;
	await askInPanel(host, "What happened?");
	assert.equal(ui!.fake.requests.length, requests + 1);
	assert.deepEqual(sentSources(ui!), ["Journal/2026-02-01.md"]);

	// A tag that no note has (any more) is not "everything".
	askPanel(host).querySelector<HTMLButtonElement>(".memory-agent-scope-remove")!.click();
	host.metadataCache.caches.set("Trips/Lisbon.md", { frontmatter: { tags: "travel" } });
	addScope(host, "A tag…");
	await suggest(host, "trav", "#travel (1 note)");
	host.metadataCache.caches.delete("Trips/Lisbon.md");
	const sent = ui!.fake.requests.length;
	const refused = await askInPanel(host, "What is planned?");
	assert.equal(ui!.fake.requests.length, sent, "nothing is sent");
	assert.match(refused.querySelector(".memory-agent-error-title")?.textContent ?? "", /^No note is tagged #travel/);
});

test("\"Ask about selection\" carries the passage; \"Ask about this folder\" scopes the folder; a new conversation clears both", async () => {
	const { host } = await started();
	const { Menu } = createViewClasses({ app: host.app, document: host.dom.document, workspace: host.workspace, Component: class {} });
	const text = NOTES["Trips/Lisbon.md"]!;
	const menu = new Menu() as unknown as Menu & { item(title: string): { click(): unknown } | undefined };
	host.workspace.trigger("editor-menu", menu, HostEditor.selecting(text, "The hotel is in Alfama"), { file: host.vault.getFileByPath("Trips/Lisbon.md") });
	menu.item("Ask about selection")!.click();
	await host.waitFor(() => chips(host).length === 1, { message: "the selection chip" });
	assert.deepEqual(chips(host), ["Selection in Lisbon"]);
	await askInPanel(host, "What else do I know about this?");
	const body = ui!.fake.requests.at(-1)!.body;
	assert.match(body, /The question is about this passage from Trips\/Lisbon\.md:\\n<passage>\\nThe hotel is in Alfama\\n<\/passage>/);

	const folderMenu = new Menu() as unknown as Menu & { item(title: string): { click(): unknown } | undefined };
	host.workspace.trigger("file-menu", folderMenu, host.vault.getAbstractFileByPath("Journal"), "file-explorer-context-menu");
	folderMenu.item("Ask about this folder")!.click();
	await host.waitFor(() => chips(host).length === 2, { message: "the folder chip" });
	assert.deepEqual(chips(host), ["Selection in Lisbon", "Journal/"]);
	await askInPanel(host, "What else do I know about this?");
	assert.deepEqual(sentSources(ui!), ["Journal/2026-02-01.md"]);

	askPanel(host).querySelector<HTMLButtonElement>(".memory-agent-new-conversation")!.click();
	assert.deepEqual(chips(host), [], "a new conversation starts without a scope");
	// The command works from the palette too, only with a selection.
	assert.equal(host.commands.get("memory-agent:ask-about-selection")?.editorCheckCallback?.(true, new HostEditor(text) as never, { file: null } as never), false);
});
