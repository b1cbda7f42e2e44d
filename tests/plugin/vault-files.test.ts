// PDFs and images through the built main.js in the headless host, with pdf.js (pdfjs-dist, as
// Obsidian's `loadPdfJs()`) on the main thread and the fake Bedrock checking Bedrock's limits:
// a PDF's page-2 fact remembered and cited to page 2; scans and photos sent downscaled only when
// "Remember images and scanned pages" is on; clear reasons for encrypted, empty and corrupt
// files; excluded folders never read; a renamed PDF costs no call.

import assert from "node:assert/strict";
import { afterEach, test } from "node:test";
import { createCanvas, loadImage } from "@napi-rs/canvas";
import type { FakeBedrock, RecordedRequest, Reply } from "../fake-bedrock/index";
import { asRecord, requestedToolName } from "../fake-bedrock/replies";
import type { Host } from "../host/host";
import { pdfJsOpened } from "../host/pdfjs-node";
import { batchedMemories, userTextOf } from "../support/batched-ingest";
import { writePdf } from "../support/pdf-writer";
import { SettingsTabDriver } from "../support/settings-tab-driver";
import { memoriesOf, sourcesOf, startAnsweringFake, startVaultHost, statusOf, storeOf, waitForIdle, writeNotes, writeSettings } from "../support/vault-host";
import { askInPanel } from "./views-fixture";

let host: Host | undefined;
let fake: FakeBedrock | undefined;
afterEach(async () => {
	await host?.stop();
	await fake?.close();
	host = undefined;
	fake = undefined;
});

/** Bedrock's `image` block limits (Converse API reference, ImageBlock; botocore's bedrock-runtime service model) and ours. */
const MAX_SENT_PIXELS = 1_150_000;
const MAX_IMAGE_BYTES = 3_750_000;

const BOILER_PDF = writePdf({
	info: { Title: "Boiler log", CreationDate: "D:20260302090000+01'00'" },
	pages: [
		{ lines: [{ text: "Heating", size: 20 }, { text: "The house is heated by a gas boiler in the cellar.", size: 11 }] },
		{ lines: [{ text: "Service history", size: 16 }, { text: "The boiler was replaced on 3 March 2026 by Ann Lee.", size: 11 }] },
	],
});

async function jpeg(width: number, height: number, quality = 92): Promise<Uint8Array> {
	const canvas = createCanvas(width, height);
	const context = canvas.getContext("2d");
	// Noise, so the JPEG is large as a real photo is (a flat image compresses to nothing).
	const image = context.createImageData(width, height);
	let seed = 12345;
	for (let index = 0; index < image.data.length; index++) {
		seed = (seed * 1103515245 + 12345) & 0x7fffffff;
		image.data[index] = index % 4 === 3 ? 255 : seed & 0xff;
	}
	context.putImageData(image, 0, 0);
	return new Uint8Array(await canvas.encode("jpeg", quality));
}

/** The image blocks of a Converse request (`{"image":{"format","source":{"bytes"}}}`). */
function imageBlocks(request: RecordedRequest): Array<{ format: string; bytes: Buffer }> {
	const messages = (asRecord(request.json)?.messages as Array<{ content: Array<Record<string, unknown>> }> | undefined) ?? [];
	return messages.flatMap((message) =>
		message.content.flatMap((block) => {
			const image = asRecord(block.image);
			const source = asRecord(image?.source);
			return image === undefined || typeof source?.bytes !== "string" ? [] : [{ format: String(image.format), bytes: Buffer.from(source.bytes, "base64") }];
		}),
	);
}

/** Memories by the first line of each piece, images described as what they show; answers cite the boiler memory. */
function model(request: RecordedRequest): Reply {
	const json = asRecord(request.json) ?? {};
	const tool = requestedToolName(json);
	const text = userTextOf(request.json);
	const memoryOf = (fenced: string) => {
		const line = fenced.split("\n").find((candidate) => !/^(File|Section|Heading|Properties):/.test(candidate) && /boiler|heated|photo/i.test(candidate)) ?? "A page of the file.";
		return { nothing_to_remember: false, summary: line.trim(), entities: [], topics: ["house"], importance: 0.5, happened_on: [] };
	};
	if (tool === "record_memories") return { toolUse: { name: "record_memories", input: batchedMemories(text, memoryOf) } };
	if (tool === "record_memory") {
		const summary = imageBlocks(request).length > 0 ? "A photo of a whiteboard." : memoryOf(text).summary;
		return { toolUse: { name: "record_memory", input: { nothing_to_remember: false, summary, entities: [], topics: ["house"], importance: 0.5, happened_on: [] } } };
	}
	if (tool === "record_insights") return { toolUse: { name: "record_insights", input: { insights: [] } } };
	const boiler = /\[memory:(m-[0-9a-f]{10})\][^\n]*replaced/i.exec(text);
	return { text: boiler === null ? "That is not in your memories." : `Ann Lee replaced the boiler on 3 March 2026 [memory:${boiler[1]}].` };
}

async function start(files: Record<string, string | Uint8Array>, settings: Record<string, unknown> = {}): Promise<{ host: Host; fake: FakeBedrock }> {
	fake = await startAnsweringFake();
	fake.respond = model;
	host = await startVaultHost();
	await writeNotes(host, files);
	await writeSettings(host, fake, { bulkConfirmThreshold: 1000, consolidationThreshold: 10_000, ...settings });
	await host.loadPlugin();
	await host.waitForCore();
	await waitForIdle(host, "the vault to be remembered");
	return { host, fake };
}

test("a two-page text PDF's page-2 fact is remembered, and an answer cites it to page 2, whose link opens #page=2", async () => {
	const { host } = await start({ "Papers/boiler.pdf": BOILER_PDF, "Notes/todo.md": "# Todo\nBuy milk.\n" });
	const memories = await memoriesOf(host, "Papers/boiler.pdf");
	const replaced = memories.find((memory) => /replaced/.test(memory.summary));
	assert.ok(replaced, `a memory of page 2's fact among ${JSON.stringify(memories.map((memory) => memory.summary))}`);
	assert.equal(replaced.fileKind, "pdf");
	assert.equal(replaced.page, 2);
	assert.equal(replaced.position.line_start, 2, "a PDF memory's position holds pages");

	const answer = await storeOf(host).ask("When was the boiler replaced?");
	const citation = answer.citations[0];
	assert.ok(citation);
	assert.deepEqual({ path: citation.sourcePath, kind: citation.fileKind, page: citation.page }, { path: "Papers/boiler.pdf", kind: "pdf", page: 2 });

	// In the panel: the citation's link opens the PDF at page 2.
	const exchange = await askInPanel(host, "When was the boiler replaced?");
	const link = exchange.querySelector<HTMLAnchorElement>("a.memory-agent-cite");
	assert.ok(link, "a citation link");
	const before = host.workspace.opened.length;
	link.click();
	await host.waitFor(() => host.workspace.opened.length > before, { message: "the PDF to open" });
	assert.deepEqual({ path: host.workspace.opened.at(-1)?.path, subpath: host.workspace.opened.at(-1)?.subpath }, { path: "Papers/boiler.pdf", subpath: "page=2" });
});

async function scannedPdf(): Promise<Uint8Array> {
	return writePdf({ pages: [{ jpeg: { bytes: await jpeg(1700, 2200, 80), width: 1700, height: 2200 } }] });
}

test("with images on, a scanned page and a 4000×3000 photo reach Bedrock as image blocks within 1.15 MP and 3.75 MB", async () => {
	const photo = await jpeg(4000, 3000);
	assert.ok(photo.byteLength > MAX_IMAGE_BYTES, "the original is over Bedrock's limit: it must not be sent as it is");
	const { host, fake } = await start({ "Scans/receipt.pdf": await scannedPdf(), "Photos/board.jpg": photo }, { rememberImages: true });
	const blocks = fake.requests.flatMap(imageBlocks);
	assert.equal(blocks.length, 2, "the scan and the photo, once each");
	for (const block of blocks) {
		assert.ok(["jpeg", "png", "gif", "webp"].includes(block.format));
		assert.ok(block.bytes.byteLength <= MAX_IMAGE_BYTES, `${block.bytes.byteLength} bytes`);
		const decoded = await loadImage(block.bytes);
		assert.ok(decoded.width * decoded.height <= MAX_SENT_PIXELS, `${decoded.width}×${decoded.height}`);
		assert.ok(decoded.width <= 8000 && decoded.height <= 8000);
	}
	assert.equal((await memoriesOf(host, "Photos/board.jpg"))[0]?.fileKind, "image");
	assert.equal((await statusOf(host)).failed, 0);
});

test("with images off (the default), neither the scanned page nor the photo is sent", async () => {
	const { host, fake } = await start({ "Scans/receipt.pdf": await scannedPdf(), "Photos/board.jpg": await jpeg(4000, 3000), "Notes/a.md": "# A\nThe boiler is in the cellar.\n" });
	assert.equal(fake.requests.flatMap(imageBlocks).length, 0);
	assert.deepEqual(await memoriesOf(host, "Photos/board.jpg"), []);
	assert.equal((await memoriesOf(host, "Notes/a.md")).length, 1, "notes are remembered as ever");

	// Turned on in the settings tab: the unchanged scan and photo are decided again and sent, the note is not.
	const ingestsBefore = fake.requests.length;
	await SettingsTabDriver.open(host).toggle("Remember images and scanned pages");
	await host.waitFor(async () => (await memoriesOf(host, "Photos/board.jpg")).length > 0, { message: "the photo to be remembered once images are on" });
	await waitForIdle(host, "the scan and the photo");
	assert.equal(fake.requests.slice(ingestsBefore).flatMap(imageBlocks).length, 2);
	assert.ok(!fake.requests.slice(ingestsBefore).some((request) => request.body.includes("cellar")), "the unchanged note was not sent again");
});

test("an encrypted PDF, a 0-byte PDF and a corrupt image each get a clear reason; nothing else fails", async () => {
	const { host } = await start(
		{
			"Papers/locked.pdf": writePdf({ pages: [{ lines: [{ text: "Secret" }] }], encrypted: true }),
			"Papers/empty.pdf": new Uint8Array(0),
			"Photos/broken.jpg": new Uint8Array([0xff, 0xd8, 0xff, 0xe0, 1, 2, 3, 4, 5, 6]),
			"Papers/boiler.pdf": BOILER_PDF,
			"Notes/a.md": "# A\nThe boiler is in the cellar.\n",
		},
		{ rememberImages: true },
	);
	const skipped = new Map((await sourcesOf(host)).filter((source) => source.skipped !== null).map((source) => [source.path, source.skipped ?? ""]));
	assert.match(skipped.get("Papers/locked.pdf") ?? "", /password|encrypted/i);
	assert.match(skipped.get("Papers/empty.pdf") ?? "", /empty|0 bytes|zero bytes/i);
	assert.match(skipped.get("Photos/broken.jpg") ?? "", /image|decode|corrupt|damaged/i);
	const status = await statusOf(host);
	assert.equal(status.failed, 0);
	assert.ok((await memoriesOf(host, "Papers/boiler.pdf")).length > 0);
	assert.equal((await memoriesOf(host, "Notes/a.md")).length, 1);

	// The status view names them with the core's reason.
	await host.runCommand("show-memory-status");
	await host.waitFor(() => /locked\.pdf/.test(host.workspaceEl.querySelector(".memory-agent-status-view")?.textContent ?? ""), { message: "the skipped PDF in the status view" });
});

test("an excluded folder's PDF and image are never read or sent", async () => {
	const openedBefore = pdfJsOpened.count;
	const { host, fake } = await start(
		{ "Private/tax.pdf": BOILER_PDF, "Private/passport.jpg": await jpeg(800, 600), "Notes/a.md": "# A\nThe boiler is in the cellar.\n" },
		{ rememberImages: true, excludedFolders: ["Private"] },
	);
	const reads = host.adapter.calls.filter((call) => String(call.args[0] ?? "").startsWith("Private/"));
	assert.deepEqual(reads.filter((call) => call.method === "read" || call.method === "readBinary"), []);
	assert.equal(pdfJsOpened.count, openedBefore, "pdf.js opened no document");
	assert.equal(fake.requests.flatMap(imageBlocks).length, 0);
	assert.ok(!fake.requests.some((request) => request.body.includes("Ann Lee")), "no text of the excluded PDF was sent");
});

test("a renamed PDF keeps its memories and costs no model call", async () => {
	const { host, fake } = await start({ "Papers/boiler.pdf": BOILER_PDF });
	const before = (await memoriesOf(host, "Papers/boiler.pdf")).map((memory) => memory.summary).sort();
	assert.ok(before.length > 0);
	const calls = fake.requests.length;
	await host.vault.rename(host.vault.getFileByPath("Papers/boiler.pdf")!, "Archive/boiler-2026.pdf");
	await waitForIdle(host, "the rename");
	assert.equal(fake.requests.length, calls, "no model call for a rename");
	assert.deepEqual((await memoriesOf(host, "Archive/boiler-2026.pdf")).map((memory) => memory.summary).sort(), before);
	assert.deepEqual(await memoriesOf(host, "Papers/boiler.pdf"), []);
});

test("the memory browser filters by kind, and a PDF memory's row names its page", async () => {
	const { host } = await start({ "Papers/boiler.pdf": BOILER_PDF, "Notes/todo.md": "# Todo\nBuy milk and call the boiler engineer.\n" });
	await host.runCommand("open-memory-browser");
	const view = host.workspaceEl.querySelector<HTMLElement>(".memory-agent-browser");
	assert.ok(view);
	const select = view.querySelector<HTMLSelectElement>('select[data-filter="kind"]');
	assert.ok(select, "a kind filter");
	assert.deepEqual([...select.options].map((option) => option.textContent), ["All", "Notes", "PDFs", "Images"]);
	const sources = () => [...view.querySelectorAll<HTMLElement>(".memory-agent-memory-source")].map((element) => element.textContent ?? "");
	const choose = async (label: string, expected: (shown: string[]) => boolean) => {
		const option = [...select.options].find((candidate) => candidate.textContent === label);
		assert.ok(option);
		select.value = option.value;
		select.dispatchEvent(new host.dom.window.Event("change") as unknown as Event);
		await host.waitFor(() => expected(sources()), { message: `the browser to show ${label}: ${JSON.stringify(sources())}` });
	};
	await choose("PDFs", (shown) => shown.length > 0 && shown.every((text) => /^Papers\/boiler\.pdf, page [12]/.test(text)));
	assert.ok(sources().some((text) => text.startsWith("Papers/boiler.pdf, page 2")));
	await choose("Notes", (shown) => shown.length === 1 && shown[0]?.startsWith("Notes/todo.md") === true);
	await choose("Images", (shown) => shown.length === 0);
	await choose("All", (shown) => shown.length === sources().length && shown.some((text) => text.startsWith("Notes/")) && shown.some((text) => text.startsWith("Papers/")));
});
