// The memory browser in the headless host with the built main.js: newest first, filters, pages of
// 50, "Open source", Forget behind a confirmation (insights built on the memory go too), insights tab.

import assert from "node:assert/strict";
import { afterEach, test } from "node:test";
import { type Host, startHost } from "../host/host";
import { databaseWithMemories, writeDatabase } from "../support/plugin-fixtures";
import { type UiHost, browserCards, rememberNotes, startUiHost, waitForMemories } from "./views-fixture";

let ui: UiHost | undefined;
let bare: Host | undefined;
afterEach(async () => {
	await ui?.close();
	ui = undefined;
	await bare?.stop();
	bare = undefined;
});

function browser(host: Host): HTMLElement {
	const root = host.workspaceEl.querySelector<HTMLElement>(".memory-agent-browser");
	assert.ok(root, "the memory browser is open");
	return root;
}

/** Types into a filter and waits until the core has answered and the list is drawn again. */
async function typeFilter(host: Host, key: string, value: string): Promise<void> {
	const input = browser(host).querySelector<HTMLInputElement>(`input[data-filter="${key}"]`);
	assert.ok(input, `a ${key} filter`);
	input.value = value;
	input.dispatchEvent(new host.dom.window.Event("input") as unknown as Event);
	await host.settle();
}

const summaries = (host: Host) => [...browser(host).querySelectorAll(".memory-agent-memory .memory-agent-memory-summary")].map((el) => el.textContent);

test("memories are listed with their details and can be filtered by text, note, entity, topic and date", async () => {
	ui = await startUiHost();
	const { host } = ui;
	await rememberNotes(host);
	const cards = await waitForMemories(host, 3);
	const lisbon = cards.find((card) => card.textContent?.includes("Flying to Lisbon"));
	assert.ok(lisbon);
	assert.equal(lisbon.querySelector(".memory-agent-memory-date")?.textContent, "2026-03-14");
	assert.equal(lisbon.querySelector(".memory-agent-memory-date")?.getAttribute("data-date-source"), "text");
	assert.deepEqual([...lisbon.querySelectorAll(".memory-agent-memory-facts li")].map((li) => li.textContent), ["The hotel in Alfama is booked for four nights."]);
	const budget = cards.find((card) => card.textContent?.includes("marketing budget"));
	assert.match(budget?.querySelector(".memory-agent-memory-date")?.textContent ?? "", /^Undated \(remembered \d{4}-\d{2}-\d{2}\)$/, "no day in the text, the name or the properties");
	assert.equal(budget?.querySelector(".memory-agent-memory-facts"), null, "no facts, no list");
	assert.equal(lisbon.querySelector(".memory-agent-memory-source")?.textContent, "Trips/Lisbon.md › Lisbon trip");
	assert.equal(lisbon.querySelector(".memory-agent-memory-importance")?.textContent, "Importance 0.8");
	assert.deepEqual([...lisbon.querySelectorAll(".memory-agent-chip")].map((chip) => chip.textContent), ["Ana", "Lisbon", "#travel"]);
	assert.equal(browser(host).querySelector(".memory-agent-browser-summary")?.textContent, "3 memories");

	await typeFilter(host, "text", "lisbon ana");
	assert.equal(summaries(host).length, 2);
	assert.equal(browser(host).querySelector(".memory-agent-browser-summary")?.textContent, "2 of 3 memories");
	await typeFilter(host, "text", "");
	await typeFilter(host, "entity", "marco");
	assert.deepEqual(summaries(host), ["The Q3 marketing budget is 40k euros, approved by Marco."]);
	await typeFilter(host, "entity", "");
	await typeFilter(host, "topic", "travel");
	assert.equal(summaries(host).length, 2);
	await typeFilter(host, "source", "journal/");
	assert.deepEqual(summaries(host), ["Ana wants to visit Sintra during the Lisbon trip."]);
	await typeFilter(host, "source", "");
	await typeFilter(host, "from", "2026-03-01");
	assert.deepEqual(summaries(host), ["Flying to Lisbon with Ana on 14 March; the hotel is in Alfama for four nights."]);
	await typeFilter(host, "to", "2026-03-13");
	assert.equal(browser(host).querySelector(".memory-agent-empty")?.textContent, "No memory matches these filters.");

	await typeFilter(host, "from", "");
	await typeFilter(host, "to", "");
	await typeFilter(host, "topic", "");
	const open = browser(host).querySelector<HTMLElement>('.memory-agent-memory .memory-agent-open-source');
	assert.ok(open);
	open.click();
	await host.waitFor(() => host.workspace.opened.length > 0, { message: "a note to open" });
});

test("Forget asks first, then removes the memory and the insight built on it", async () => {
	ui = await startUiHost();
	const { host } = ui;
	await rememberNotes(host);
	await waitForMemories(host, 3);
	await host.runCommand("consolidate-now");
	const insightTab = () => browser(host).querySelector<HTMLElement>('.memory-agent-tab[data-tab="insights"]')!;
	await host.waitFor(() => {
		void host.runCommand("open-memory-browser");
		insightTab().click();
		return browser(host).querySelectorAll(".memory-agent-insight").length === 1;
	}, { message: "an insight" });
	const insight = browser(host).querySelector<HTMLElement>(".memory-agent-insight")!;
	assert.equal(insight.querySelector(".memory-agent-memory-summary")?.textContent, "Ana's wish to see Sintra shapes the Lisbon trip plans.");
	const sources = [...insight.querySelectorAll<HTMLElement>(".memory-agent-source-link")];
	assert.equal(sources.length, 2, "the insight lists its two memories");
	const cited = sources[0]!.textContent ?? "";

	browser(host).querySelector<HTMLElement>('.memory-agent-tab[data-tab="memories"]')!.click();
	const card = (await browserCards(host)).find((element) => element.querySelector(".memory-agent-memory-summary")?.textContent === cited);
	assert.ok(card, `the card of ${cited}`);

	// Cancel keeps it.
	card.querySelector<HTMLButtonElement>(".memory-agent-forget")!.click();
	const dialog = () => host.dom.document.querySelector<HTMLElement>(".modal-container .memory-agent-confirm-modal");
	assert.ok(dialog(), "a confirmation is asked");
	assert.match(dialog()!.textContent ?? "", /The note itself is not changed/);
	dialog()!.querySelector<HTMLButtonElement>(".memory-agent-cancel")!.click();
	assert.equal(dialog(), null);
	assert.equal((await browserCards(host)).length, 3);

	// Confirming forgets it; the list updates at once and the insight is gone.
	const again = (await browserCards(host)).find((element) => element.querySelector(".memory-agent-memory-summary")?.textContent === cited)!;
	again.querySelector<HTMLButtonElement>(".memory-agent-forget")!.click();
	dialog()!.querySelector<HTMLButtonElement>(".memory-agent-confirm")!.click();
	await host.waitFor(() => host.notices.at(-1) === "Forgot the memory and 1 insight built on it.", { message: "the forget notice" });
	await host.settle();
	const left = [...browser(host).querySelectorAll(".memory-agent-memory .memory-agent-memory-summary")].map((el) => el.textContent);
	assert.equal(left.length, 2);
	assert.ok(!left.includes(cited));
	insightTab().click();
	await host.settle();
	assert.equal(browser(host).querySelectorAll(".memory-agent-insight").length, 0);
});

test("thousands of memories are shown 50 at a time, newest first", async () => {
	bare = await startHost();
	await writeDatabase(bare, await databaseWithMemories(1_234));
	await bare.loadPlugin();
	await bare.waitForCore();
	const cards = await browserCards(bare);
	assert.equal(cards.length, 50);
	assert.equal(browser(bare).querySelector(".memory-agent-browser-summary")?.textContent, `${(1_234).toLocaleString()} memories`);
	const more = browser(bare).querySelector<HTMLButtonElement>(".memory-agent-show-more");
	assert.equal(more?.textContent, `Show more (${(1_184).toLocaleString()} left)`);
	more!.click();
	await bare.settle();
	assert.equal(browser(bare).querySelectorAll(".memory-agent-memory").length, 100);
	// Each page is asked of the core when it is wanted: the browser never holds them all.
	assert.equal(browser(bare).querySelector(".memory-agent-show-more")?.textContent, `Show more (${(1_134).toLocaleString()} left)`);
	// Planted memories are made at 1_700_000_000_000 + n: the last planted is the newest.
	assert.equal(cards[0]!.getAttribute("data-memory-id"), "test-1233");
});

test("the tabs follow the WAI-ARIA tabs pattern: one tab stop, arrows, Home and End select and focus", async () => {
	ui = await startUiHost();
	const { host } = ui;
	await rememberNotes(host);
	await waitForMemories(host, 3);
	await host.runCommand("consolidate-now");
	const root = browser(host);
	const tab = (name: string) => root.querySelector<HTMLElement>(`.memory-agent-tab[data-tab="${name}"]`)!;
	// The insight is made first, so the keys below are the only thing that changes the list.
	await host.waitFor(() => {
		tab("insights").click();
		return root.querySelectorAll(".memory-agent-insight").length === 1;
	}, { message: "an insight" });
	tab("memories").click();
	await host.settle();
	const panel = root.querySelector<HTMLElement>(".memory-agent-browser-list")!;
	const tablist = root.querySelector<HTMLElement>('[role="tablist"]');
	assert.ok(tablist, "a tab list");
	assert.equal(panel.getAttribute("role"), "tabpanel");
	for (const name of ["memories", "insights"]) {
		assert.equal(tab(name).getAttribute("role"), "tab");
		assert.equal(tab(name).getAttribute("aria-controls"), panel.id, `the ${name} tab controls the list`);
		assert.ok(panel.id !== "" && host.dom.document.getElementById(panel.id) === panel, "the panel's id is unique in the document");
	}
	/** Which tab is selected, checked in every attribute that says so. */
	const selected = (): string => {
		const names = ["memories", "insights"].filter((name) => tab(name).getAttribute("aria-selected") === "true");
		assert.equal(names.length, 1, "exactly one tab is selected");
		const name = names[0]!;
		for (const other of ["memories", "insights"]) assert.equal(tab(other).getAttribute("tabindex"), other === name ? "0" : "-1", `the roving tabindex of ${other}`);
		assert.equal(panel.getAttribute("aria-labelledby"), tab(name).id, "the panel is labelled by the selected tab");
		assert.equal(host.dom.document.activeElement, tab(name), "the selected tab has the focus");
		return name;
	};
	const press = async (key: string) => {
		const target = (host.dom.document.activeElement as HTMLElement | null) ?? tab("memories");
		const { KeyboardEvent } = host.dom.window;
		const event = new KeyboardEvent("keydown", { key, bubbles: true, cancelable: true }) as unknown as KeyboardEvent;
		target.dispatchEvent(event);
		assert.equal(event.defaultPrevented, true, `${key} is handled by the tabs`);
		await host.settle();
	};

	tab("memories").focus();
	assert.equal(tab("memories").getAttribute("aria-selected"), "true");
	assert.equal(selected(), "memories");
	await press("ArrowRight");
	assert.equal(selected(), "insights");
	assert.equal(panel.querySelectorAll(".memory-agent-insight").length, 1, "the insights list is shown");
	assert.equal(panel.querySelectorAll(".memory-agent-memory").length, 0, "the memories are not shown on the insights tab");
	assert.ok(root.querySelector(".memory-agent-filters")!.classList.contains("memory-agent-hidden"), "the filters belong to the memories tab");
	// ArrowRight wraps from the last tab to the first, ArrowLeft from the first to the last.
	await press("ArrowRight");
	assert.equal(selected(), "memories");
	assert.equal(panel.querySelectorAll(".memory-agent-memory").length, 3);
	await press("ArrowLeft");
	assert.equal(selected(), "insights");
	await press("Home");
	assert.equal(selected(), "memories");
	await press("End");
	assert.equal(selected(), "insights");
	assert.equal(panel.querySelectorAll(".memory-agent-insight").length, 1);
	// Other keys are left alone.
	const { KeyboardEvent } = host.dom.window;
	const other = new KeyboardEvent("keydown", { key: "a", bubbles: true, cancelable: true }) as unknown as KeyboardEvent;
	tab("insights").dispatchEvent(other);
	assert.equal(other.defaultPrevented, false);
});
