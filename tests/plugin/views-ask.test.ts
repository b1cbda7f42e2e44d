// The "Ask memory" panel in the headless host with the built main.js and the fake Bedrock:
// answers render with numbered citations that open the cited note at its line; errors say
// what to do next; the copy button rewrites citations as wiki links.

import assert from "node:assert/strict";
import { afterEach, test } from "node:test";
import type { Editor, MarkdownFileInfo } from "obsidian";
import { HostEditor } from "../host/views";
import { type UiHost, askInPanel, askPanel, rememberNotes, startUiHost, waitForMemories } from "./views-fixture";

/** The two notes the model cites in one bracket for the Lisbon question, as two links side by side. */
const GROUPED_LINKS = /\[\[(?:Journal\/2026-02-01#Sunday|Trips\/Lisbon#Lisbon trip)\]\] \[\[(?:Journal\/2026-02-01#Sunday|Trips\/Lisbon#Lisbon trip)\]\]/;

let ui: UiHost | undefined;
afterEach(async () => {
	await ui?.close();
	ui = undefined;
});

test("a question asked with Enter is answered, citations become numbered links to the notes", async () => {
	// No insight yet: the fake model cites every insight listed, and this test counts memories.
	ui = await startUiHost({ settings: { dailyConsolidation: false } });
	const { host, fake } = ui;
	await rememberNotes(host);
	await waitForMemories(host, 3);

	const exchange = await askInPanel(host, "When do we fly to Lisbon?");
	assert.equal(exchange.querySelector(".memory-agent-question")?.textContent, "When do we fly to Lisbon?");
	const body = exchange.querySelector(".memory-agent-answer-body");
	assert.ok(body, `an answer is shown: ${exchange.textContent}`);
	assert.ok(body.querySelector("li"), "the Markdown list is rendered as a list");
	assert.doesNotMatch(body.textContent ?? "", /\[memory:/, "no raw citation marker is left");
	const links = [...body.querySelectorAll<HTMLAnchorElement>("a.memory-agent-cite")];
	assert.deepEqual(links.map((link) => link.textContent), ["1", "2"], "two memories share words with the question");
	// The model cited both in one bracket, `[memory:a, memory:b]`: one place, two links.
	const reply = fake.requests.filter((request) => request.body.includes("When do we fly to Lisbon?")).at(-1)?.reply;
	assert.match(reply !== undefined && typeof reply === "object" && "text" in reply ? (reply.text ?? "") : "", /\[memory:[^\]\s]+, memory:[^\]\s]+\]/, "a grouped bracket");
	const marks = [...body.querySelectorAll("sup.memory-agent-cite-mark")];
	assert.deepEqual(marks.map((mark) => mark.querySelectorAll("a.memory-agent-cite").length), [2]);
	const cited = links.map((link) => link.getAttribute("aria-label"));
	assert.ok(cited.some((label) => label?.startsWith("Flying to Lisbon")), JSON.stringify(cited));
	assert.match(exchange.querySelector(".memory-agent-considered")?.textContent ?? "", /^Considered 3 memories, packed 3, \d+ tokens$/);
	const sources = [...exchange.querySelectorAll(".memory-agent-source")].map((item) => item.textContent ?? "");
	assert.equal(sources.length, 2);
	assert.ok(sources.some((text) => text.includes("Trips/Lisbon.md › Lisbon trip")), JSON.stringify(sources));

	// The question went to the model with the memories; the answer came from it.
	const query = fake.requests.find((request) => request.body.includes("When do we fly to Lisbon?"));
	assert.ok(query, "the question was sent to Bedrock");

	// The panel is ready for the next question; the first stays above it.
	const panel = askPanel(host);
	const input = panel.querySelector<HTMLTextAreaElement>(".memory-agent-question-input")!;
	assert.equal(input.disabled, false);
	assert.equal(input.value, "");
	await askInPanel(host, "What is the marketing budget?");
	assert.equal(panel.querySelectorAll(".memory-agent-exchange").length, 2);
});

test("a follow-up is asked with the earlier turn; \"New conversation\" starts afresh", async () => {
	ui = await startUiHost({ settings: { dailyConsolidation: false } });
	const { host, fake } = ui;
	await rememberNotes(host);
	await waitForMemories(host, 3);
	await host.runCommand("ask-memory");
	const panel = askPanel(host);
	const newConversation = panel.querySelector<HTMLButtonElement>(".memory-agent-new-conversation")!;
	assert.equal(newConversation.disabled, true, "nothing to forget yet");
	assert.equal(panel.querySelector(".memory-agent-history")?.getAttribute("aria-live"), "polite", "answers are announced");
	assert.equal(panel.querySelector(".memory-agent-ask-status"), null, "on a desktop the status bar shows progress");

	const first = await askInPanel(host, "When do we fly to Lisbon?");
	const firstAnswer = first.querySelector(".memory-agent-answer-body")?.textContent ?? "";
	assert.ok(firstAnswer.length > 0);
	assert.equal(newConversation.disabled, false);
	await askInPanel(host, "And who is coming?");
	const followUp = fake.requests.at(-1)!.json as { messages: Array<{ role: string; content: Array<{ text?: string }> }> };
	assert.equal(followUp.messages.length, 3, "the earlier question, its answer, the follow-up");
	assert.equal(followUp.messages[0]?.content[0]?.text, "Question: When do we fly to Lisbon?");
	assert.equal(followUp.messages[1]?.role, "assistant");
	assert.match(followUp.messages[1]?.content[0]?.text ?? "", /\[memory:[^\]\s]+, memory:[^\]\s]+\]/, "the earlier answer, its citations as the model wrote them");

	newConversation.click();
	assert.equal(panel.querySelectorAll(".memory-agent-exchange").length, 0, "the panel is cleared");
	await askInPanel(host, "What is the marketing budget?");
	const alone = fake.requests.at(-1)!.json as { messages: unknown[] };
	assert.equal(alone.messages.length, 1, "a new conversation's question stands alone");
});

test("\"Insert last answer here\" puts the answer into the note with its citations as links", async () => {
	ui = await startUiHost({ settings: { dailyConsolidation: false } });
	const { host } = ui;
	const command = host.commands.get("memory-agent:insert-answer");
	assert.ok(command?.editorCallback, "an editor command");
	const editor = new HostEditor("# Plans\n\nFlights: \n", { line: 2, ch: 9 });
	await command.editorCallback!(editor as unknown as Editor, { file: null } as MarkdownFileInfo);
	await host.waitFor(() => host.notices.some((notice) => notice.includes("no answer to insert yet")), { message: "the notice" });
	assert.equal(editor.getValue(), "# Plans\n\nFlights: \n", "nothing to insert yet");

	await rememberNotes(host);
	await waitForMemories(host, 3);
	await askInPanel(host, "When do we fly to Lisbon?");
	await command.editorCallback!(editor as unknown as Editor, { file: null } as MarkdownFileInfo);
	await host.waitFor(() => editor.getValue() !== "# Plans\n\nFlights: \n", { message: "the insert" });
	const text = editor.getValue();
	assert.ok(text.startsWith("# Plans\n\nFlights: Here is what your notes say:"), text);
	assert.match(text, /\[\[Trips\/Lisbon#Lisbon trip\]\]/, "citations become links to the notes");
	assert.match(text, GROUPED_LINKS, "a grouped bracket is two links");
	assert.doesNotMatch(text, /\[memory:/);
});

test("a conversation saved as a note is not remembered, and reopened it carries on", async () => {
	ui = await startUiHost({ settings: { dailyConsolidation: false, quietDelaySeconds: 1 } });
	const { host, fake } = ui;
	await rememberNotes(host);
	await waitForMemories(host, 3);
	await askInPanel(host, "When do we fly to Lisbon?");
	const panel = askPanel(host);
	panel.querySelector<HTMLButtonElement>(".memory-agent-save-conversation")!.click();
	const savedNote = () => host.vault.getMarkdownFiles().find((file) => file.path.startsWith("Memory conversations/"));
	await host.waitFor(() => savedNote() !== undefined, { message: "the saved note" });
	const saved = savedNote()!;
	const text = await host.vault.read(saved);
	assert.match(text, /^---\nmemory-agent: conversation\ndate: \d{4}-\d{2}-\d{2}\n---\n/, "marked as a conversation, with its date");
	assert.match(text, /^## When do we fly to Lisbon\?$/m, "the question is a heading");
	assert.match(text, /\[\[Trips\/Lisbon#Lisbon trip\]\]/, "citations are links to the notes");
	assert.match(text, GROUPED_LINKS, "a grouped bracket is two links");
	assert.doesNotMatch(text, /\[memory:/);

	// Saved conversations are excluded from memory by default: the note is never sent.
	await new Promise((resolve) => setTimeout(resolve, 2_500));
	assert.ok(!fake.requests.some((request) => request.body.includes("Conversation of")), "the saved conversation was not remembered");

	// Reopened from the note, the conversation carries on.
	askPanel(host).querySelector<HTMLButtonElement>(".memory-agent-new-conversation")!.click();
	host.workspace.setActiveFile(saved);
	await host.runCommand("continue-conversation");
	await host.waitFor(() => askPanel(host).querySelector(".memory-agent-exchange.is-saved") !== null, { message: "the reopened turn" });
	assert.equal(askPanel(host).querySelector(".memory-agent-question")?.textContent, "When do we fly to Lisbon?");
	await askInPanel(host, "And who is coming?");
	const followUp = fake.requests.at(-1)!.json as { messages: Array<{ content: Array<{ text?: string }> }> };
	assert.equal(followUp.messages[0]?.content[0]?.text, "Question: When do we fly to Lisbon?", "the saved turn is the conversation's start");
	askPanel(host).querySelector<HTMLButtonElement>(".memory-agent-save-conversation")!.click();
	await host.waitFor(async () => (await host.vault.read(saved)).includes("## And who is coming?"), { message: "the same note, continued" });
	assert.equal(host.vault.getMarkdownFiles().filter((file) => file.path.startsWith("Memory conversations/")).length, 1);
});

test("on a phone: a ribbon icon opens the panel, Enter is a new line and the Ask button sends", async () => {
	ui = await startUiHost({ mobile: true, settings: { dailyConsolidation: false } });
	const { host } = ui;
	await rememberNotes(host);
	await waitForMemories(host, 3);
	const ribbon = host.ribbonEl.querySelector<HTMLElement>(".plugin-memory-agent[aria-label='Ask memory']");
	assert.ok(ribbon, "a ribbon icon for the panel");
	ribbon.click();
	await host.waitFor(() => host.workspaceEl.querySelector(".memory-agent-ask") !== null, { message: "the panel" });
	const panel = askPanel(host);
	assert.equal(panel.querySelector(".memory-agent-hint")?.textContent, "Tap Ask to send");
	// No status bar on a phone: the panel shows its line, and opens the status view.
	const status = panel.querySelector<HTMLElement>(".memory-agent-ask-status");
	assert.match(status?.textContent ?? "", /^Memory: /, "progress is shown in the panel");
	assert.equal(status?.getAttribute("role"), "button");
	status!.click();
	await host.waitFor(() => host.workspaceEl.querySelector(".memory-agent-status-view") !== null, { message: "the status view" });
	// The ribbon menu leads there too.
	for (const leaf of host.workspace.getLeavesOfType("memory-agent-status")) leaf.detach();
	assert.equal(host.workspaceEl.querySelector(".memory-agent-status-view"), null);
	host.ribbonEl.querySelector<HTMLElement>(".plugin-memory-agent[aria-label='Memory status']")!.click();
	await host.waitFor(() => host.workspaceEl.querySelector(".memory-agent-status-view") !== null, { message: "the status view from the ribbon" });
	const input = panel.querySelector<HTMLTextAreaElement>(".memory-agent-question-input")!;
	input.value = "When do we fly to Lisbon?";
	const { KeyboardEvent } = host.dom.window;
	const enter = new KeyboardEvent("keydown", { key: "Enter", bubbles: true, cancelable: true }) as unknown as Event;
	input.dispatchEvent(enter);
	assert.equal(enter.defaultPrevented, false, "Enter makes a new line on a soft keyboard");
	assert.equal(panel.querySelectorAll(".memory-agent-exchange").length, 0, "and sends nothing");
	const send = panel.querySelector<HTMLButtonElement>(".memory-agent-ask-button")!;
	assert.equal(send.getAttribute("aria-label"), "Send the question");
	send.click();
	await host.waitFor(() => panel.querySelector(".memory-agent-answer-body") !== null, { message: "the answer" });
});

test("with \"Plan the search\" on, a planning call comes first, its words are shown and its tokens are in the cost", async () => {
	ui = await startUiHost({ settings: { dailyConsolidation: false, planQuestions: true } });
	const { host, fake } = ui;
	await rememberNotes(host);
	await waitForMemories(host, 3);
	const before = fake.requests.length;

	const exchange = await askInPanel(host, "When is my trip to Portugal?");
	const sent = fake.requests.slice(before).map((request) => request.json as { toolConfig?: { toolChoice?: { tool?: { name?: string } } } });
	assert.equal(sent.length, 2, "a planning call and the answer");
	assert.equal(sent[0]?.toolConfig?.toolChoice?.tool?.name, "plan_search");
	assert.ok(fake.requests[before]?.body.includes("<question>\\nWhen is my trip to Portugal?\\n</question>"), "the question, fenced");
	assert.ok(!fake.requests[before]?.body.includes("Flying to Lisbon"), "the planner sees no memory");
	assert.equal(exchange.querySelector(".memory-agent-planned")?.textContent, "Also searched for: flight, lisbon, plane");
	const cost = exchange.querySelector(".memory-agent-cost")?.textContent ?? "";
	const tokensIn = Number((/^([\d,]+) tokens in/.exec(cost)?.[1] ?? "0").replace(/,/g, ""));
	const answerOnly = fake.requests.at(-1)!.body.length / 4;
	assert.ok(tokensIn > answerOnly, `both calls count in the cost line: ${cost}`);
});

test("clicking a citation opens the source note at the cited line", async () => {
	ui = await startUiHost();
	const { host } = ui;
	await rememberNotes(host);
	await waitForMemories(host, 3);
	const exchange = await askInPanel(host, "When do we fly to Lisbon?");
	const link = [...exchange.querySelectorAll<HTMLAnchorElement>("a.memory-agent-cite")].find((a) => a.getAttribute("aria-label")?.startsWith("Flying to Lisbon"));
	assert.ok(link);
	const before = host.workspace.opened.length;
	link.click();
	await host.waitFor(() => host.workspace.opened.length > before, { message: "the note to open" });
	// Line 3 (0-based) is "# Lisbon trip", after the three lines of properties.
	assert.deepEqual({ path: host.workspace.opened.at(-1)?.path, line: host.workspace.opened.at(-1)?.line }, { path: "Trips/Lisbon.md", line: 3 });

	// The entry under the answer opens the other note.
	const journal = [...exchange.querySelectorAll<HTMLAnchorElement>(".memory-agent-source-link")].find((a) => a.textContent?.startsWith("Ana wants"));
	assert.ok(journal);
	journal.click();
	await host.waitFor(() => host.workspace.opened.at(-1)?.path === "Journal/2026-02-01.md", { message: "the journal note to open" });
	assert.equal(host.workspace.opened.at(-1)?.line, 0);
});

test("an insight citation expands to the memories it connects", async () => {
	ui = await startUiHost();
	const { host } = ui;
	await rememberNotes(host);
	await waitForMemories(host, 3);
	await host.runCommand("consolidate-now");
	assert.equal(host.notices.at(-1), "Looking for connections between memories…");
	await host.waitFor(() => {
		void host.runCommand("open-memory-browser");
		const tab = host.workspaceEl.querySelector<HTMLElement>('.memory-agent-tab[data-tab="insights"]');
		tab?.click();
		return host.workspaceEl.querySelectorAll(".memory-agent-insight").length === 1;
	}, { message: "an insight" });

	const exchange = await askInPanel(host, "What about the Lisbon trip?");
	const insightLink = exchange.querySelector<HTMLAnchorElement>("a.memory-agent-cite.is-consolidation");
	assert.ok(insightLink, exchange.textContent ?? "");
	const item = exchange.querySelector<HTMLElement>(".memory-agent-source.is-consolidation")!;
	assert.ok(item.querySelector(".memory-agent-connected")?.classList.contains("memory-agent-hidden"), "collapsed at first");
	insightLink.click();
	await host.waitFor(() => item.classList.contains("is-open"), { message: "the insight to expand" });
	const connected = [...item.querySelectorAll<HTMLAnchorElement>(".memory-agent-connected .memory-agent-source-link")];
	assert.equal(connected.length, 2);
	const before = host.workspace.opened.length;
	connected[0]!.click();
	await host.waitFor(() => host.workspace.opened.length > before, { message: "a connected memory's note to open" });
});

test("the copy button copies the answer with citations as wiki links", async () => {
	ui = await startUiHost();
	const { host } = ui;
	await rememberNotes(host);
	await waitForMemories(host, 3);
	const exchange = await askInPanel(host, "When do we fly to Lisbon?");
	exchange.querySelector<HTMLButtonElement>(".memory-agent-copy")!.click();
	await host.waitFor(() => exchange.querySelector(".memory-agent-copy")?.textContent === "Copied", { message: "the copy" });
	const copied = await host.dom.window.navigator.clipboard.readText();
	assert.match(copied, /\[\[Trips\/Lisbon#Lisbon trip\]\]/);
	assert.match(copied, /\[\[Journal\/2026-02-01#Sunday\]\]/);
	assert.match(copied, GROUPED_LINKS, "a grouped bracket is two links");
	assert.doesNotMatch(copied, /\[memory:/);
});

test("rejected keys are explained with a button that opens the settings tab", async () => {
	// No consolidation: the scripted refusal is for the question, not for a consolidation meanwhile.
	ui = await startUiHost({ settings: { dailyConsolidation: false } });
	const { host, fake } = ui;
	await rememberNotes(host);
	await waitForMemories(host, 3);
	fake.script({ status: { code: 403, type: "UnrecognizedClientException", message: "The security token included in the request is invalid." } });
	const exchange = await askInPanel(host, "When do we fly to Lisbon?");
	const error = exchange.querySelector(".memory-agent-error");
	assert.ok(error, exchange.textContent ?? "");
	assert.match(error.querySelector(".memory-agent-error-title")?.textContent ?? "", /^Bedrock rejected the keys — open settings/);
	error.querySelector<HTMLButtonElement>(".memory-agent-open-settings")!.click();
	assert.deepEqual(host.settingsOpened, ["memory-agent"]);
	assert.equal(askPanel(host).querySelector<HTMLTextAreaElement>(".memory-agent-question-input")?.disabled, false, "the box is usable again");
});

test("Stop (or Escape) frees the panel at once: the question sends nothing more and a late answer is not shown", async () => {
	ui = await startUiHost({ settings: { dailyConsolidation: false } });
	const { host, fake } = ui;
	await rememberNotes(host);
	await waitForMemories(host, 3);
	const remember = fake.respond;
	const held = new Map<string, number>();
	const hold = (question: string, reply: Parameters<typeof fake.script>[0]) => {
		held.set(question, 0);
		return (request: Parameters<typeof fake.respond>[0]) => {
			if (!request.body.includes(question)) return undefined;
			held.set(question, (held.get(question) ?? 0) + 1);
			return reply;
		};
	};
	// A Bedrock that never answers the first question, and answers the second one late with a
	// server error, which the client would retry were the question not stopped.
	const never = hold("Where is the hotel?", { slow: 600_000 });
	const late = hold("Who approved the budget?", { slow: 1_500, then: "serverError" });
	fake.respond = (request) => never(request) ?? late(request) ?? remember(request);

	await host.runCommand("ask-memory");
	const panel = askPanel(host);
	const input = panel.querySelector<HTMLTextAreaElement>(".memory-agent-question-input")!;
	const stop = panel.querySelector<HTMLButtonElement>(".memory-agent-stop-button")!;
	const askButton = panel.querySelector<HTMLButtonElement>(".memory-agent-ask-button")!;
	const { KeyboardEvent } = host.dom.window;
	const send = (question: string) => {
		input.value = question;
		input.dispatchEvent(new KeyboardEvent("keydown", { key: "Enter", bubbles: true, cancelable: true }) as unknown as Event);
	};

	send("Where is the hotel?");
	await host.waitFor(() => held.get("Where is the hotel?") === 1, { message: "the question reached Bedrock" });
	assert.equal(input.disabled, true, "busy while the question is out");
	assert.ok(!stop.hasClass("memory-agent-hidden") && askButton.hasClass("memory-agent-hidden"), "Stop replaces Ask");
	input.dispatchEvent(new KeyboardEvent("keydown", { key: "Escape", bubbles: true, cancelable: true }) as unknown as Event);
	await host.waitFor(() => panel.querySelector(".memory-agent-stopped") !== null, { message: "the stopped question" });
	assert.equal(input.disabled, false, "the panel is free at once");
	assert.ok(stop.hasClass("memory-agent-hidden") && !askButton.hasClass("memory-agent-hidden"));
	assert.equal(panel.querySelector(".memory-agent-thinking"), null);

	send("Who approved the budget?");
	await host.waitFor(() => held.get("Who approved the budget?") === 1, { message: "the second question reached Bedrock" });
	stop.click();
	await host.waitFor(() => panel.querySelectorAll(".memory-agent-stopped").length === 2, { message: "the second stopped question" });
	// The late answer arrives meanwhile: it is discarded, and nothing more is sent for either question.
	await new Promise((resolve) => setTimeout(resolve, 2_500));
	assert.equal(panel.querySelector(".memory-agent-error"), null, "the late failure is not shown");
	assert.deepEqual([...held.values()], [1, 1], "one request each, no retry and no second pass after Stop");
	assert.equal(panel.querySelectorAll(".memory-agent-answer-body").length, 0);

	// The next question is asked and answered as usual.
	const exchange = await askInPanel(host, "What is the marketing budget?");
	assert.ok(exchange.querySelector(".memory-agent-answer-body") !== null, exchange.textContent ?? "");
});
