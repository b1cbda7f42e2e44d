// A headless host with the built main.js, the fake Bedrock behind a scripted memory model, test
// keys in secret storage, and a few notes remembered — the starting point of the interface tests.

import fs from "node:fs/promises";
import path from "node:path";
import { type Host, startHost } from "../host/host";
import { type FakeBedrock, TEST_CREDENTIALS, startFakeBedrock } from "../fake-bedrock/index";
import { type PlannedMemory, memoryModel } from "../browser/memory-model";
import { confirmEndpointOnThisDevice } from "../support/trusted-endpoint";

/** The notes of the test vault; the Lisbon note's section starts at line 3, after its properties. */
export const NOTES: Record<string, string> = {
	"Trips/Lisbon.md": "---\ntags: travel\n---\n# Lisbon trip\n\nWe fly to Lisbon with Ana on 14 March.\nThe hotel is in Alfama, booked for four nights.\n",
	"Journal/2026-02-01.md": "# Sunday\n\nCalled Ana: she wants to visit Sintra on the trip.\n",
	"Work/Budget.md": "# Q3 budget\n\nThe Q3 marketing budget is 40k euros, approved by Marco.\n",
};

export const PLANNED: PlannedMemory[] = [
	{
		phrase: "fly to Lisbon",
		summary: "Flying to Lisbon with Ana on 14 March; the hotel is in Alfama for four nights.",
		entities: [
			{ name: "Ana", kind: "person" },
			{ name: "Lisbon", kind: "place" },
		],
		topics: ["travel"],
		importance: 0.8,
		happenedOn: "2026-03-14",
		facts: ["The hotel in Alfama is booked for four nights."],
	},
	{
		phrase: "Sintra",
		summary: "Ana wants to visit Sintra during the Lisbon trip.",
		entities: [
			{ name: "Ana", kind: "person" },
			{ name: "Sintra", kind: "place" },
		],
		topics: ["travel"],
		importance: 0.6,
		happenedOn: "2026-02-01",
	},
	{
		phrase: "marketing budget",
		summary: "The Q3 marketing budget is 40k euros, approved by Marco.",
		entities: [{ name: "Marco", kind: "person" }],
		topics: ["work", "budget"],
		importance: 0.7,
	},
	{
		phrase: "Remember the passport",
		summary: "Bring the passport to Lisbon.",
		topics: ["travel"],
		importance: 0.9,
	},
];

export interface UiHost {
	host: Host;
	fake: FakeBedrock;
	close(): Promise<void>;
}

/** Starts the fake and a host with the notes written and the keys planted, and loads the plugin. */
export async function startUiHost({
	notes = NOTES,
	settings = {},
	mobile = false,
	vaultDir,
	deviceId,
	waitForCore = true,
}: {
	notes?: Record<string, string>;
	settings?: Record<string, unknown>;
	mobile?: boolean;
	vaultDir?: string;
	deviceId?: string;
	/** Whether to wait for the core to start (false: return as soon as the plugin loaded, to watch its start). */
	waitForCore?: boolean;
} = {}): Promise<UiHost> {
	const fake = await startFakeBedrock();
	fake.respond = memoryModel({
		memories: PLANNED,
		insight: "Ana's wish to see Sintra shapes the Lisbon trip plans.",
		connects: ["Sintra", "Flying to Lisbon"],
		plans: { Portugal: ["flight", "lisbon", "plane"] },
	});
	const host = await startHost({ mobile, vaultDir, deviceId });
	for (const [notePath, text] of Object.entries(notes)) {
		await fs.mkdir(path.dirname(host.diskPath(notePath)), { recursive: true });
		await fs.writeFile(host.diskPath(notePath), text);
	}
	confirmEndpointOnThisDevice(host, fake.url);
	host.secretStorage.setSecret("test-access-key-id", TEST_CREDENTIALS.accessKeyId);
	host.secretStorage.setSecret("test-secret-access-key", TEST_CREDENTIALS.secretAccessKey);
	await fs.mkdir(host.diskPath(host.pluginDir), { recursive: true });
	await fs.writeFile(
		host.diskPath(`${host.pluginDir}/data.json`),
		JSON.stringify({ endpoint: fake.url, region: "us-east-1", accessKeyIdSecret: "test-access-key-id", secretAccessKeySecret: "test-secret-access-key", ...settings }),
	);
	await host.loadPlugin();
	if (waitForCore) await host.waitForCore();
	return {
		host,
		fake,
		close: async () => {
			await host.stop();
			await fake.close();
		},
	};
}

/** Queues each note with "Remember current note now" (whatever the vault sync does besides). */
export async function rememberNotes(host: Host, paths: string[] = Object.keys(NOTES)): Promise<void> {
	for (const notePath of paths) {
		host.workspace.setActiveFile(host.vault.getFileByPath(notePath));
		if (!host.executeCommandById("memory-agent:remember-current-note")) throw new Error("remember-current-note is not available");
	}
	host.workspace.setActiveFile(null);
}

/** The memory browser's cards (opening or refreshing the browser first). */
export async function browserCards(host: Host): Promise<HTMLElement[]> {
	await host.runCommand("open-memory-browser");
	return [...host.workspaceEl.querySelectorAll<HTMLElement>(".memory-agent-browser .memory-agent-memory")];
}

/** Waits until the memory browser lists `count` memories. */
export async function waitForMemories(host: Host, count: number): Promise<HTMLElement[]> {
	let cards: HTMLElement[] = [];
	const deadline = Date.now() + 20_000;
	while ((cards = await browserCards(host)).length !== count) {
		if (Date.now() > deadline) throw new Error(`Expected ${count} memories, the browser shows ${cards.length}; notices: ${JSON.stringify(host.notices)}`);
		await new Promise((resolve) => setTimeout(resolve, 25));
	}
	return cards;
}

/** Waits until the memory browser shows a memory whose card matches `pattern`. */
export async function waitForCard(host: Host, pattern: RegExp): Promise<HTMLElement> {
	const deadline = Date.now() + 20_000;
	for (;;) {
		const card = (await browserCards(host)).find((element) => pattern.test(element.textContent ?? ""));
		if (card !== undefined) return card;
		if (Date.now() > deadline) throw new Error(`No memory matches ${pattern}; notices: ${JSON.stringify(host.notices)}`);
		await new Promise((resolve) => setTimeout(resolve, 25));
	}
}

/** The open "Ask memory" panel's root element. */
export function askPanel(host: Host): HTMLElement {
	const panel = host.workspaceEl.querySelector<HTMLElement>(".memory-agent-ask");
	if (panel === null) throw new Error("The Ask memory panel is not open");
	return panel;
}

/** Types `question` into the panel and presses Enter; resolves when the answer or error is shown. */
export async function askInPanel(host: Host, question: string): Promise<HTMLElement> {
	await host.runCommand("ask-memory");
	const panel = askPanel(host);
	const input = panel.querySelector<HTMLTextAreaElement>(".memory-agent-question-input");
	if (input === null) throw new Error("no question box");
	const before = panel.querySelectorAll(".memory-agent-exchange").length;
	input.value = question;
	const { KeyboardEvent } = host.dom.window;
	input.dispatchEvent(new KeyboardEvent("keydown", { key: "Enter", bubbles: true, cancelable: true }) as unknown as Event);
	await host.waitFor(() => {
		const exchanges = panel.querySelectorAll(".memory-agent-exchange");
		return exchanges.length > before && exchanges[exchanges.length - 1]?.querySelector(".memory-agent-thinking") === null;
	}, { message: "the answer" });
	const exchanges = panel.querySelectorAll<HTMLElement>(".memory-agent-exchange");
	return exchanges[exchanges.length - 1]!;
}
