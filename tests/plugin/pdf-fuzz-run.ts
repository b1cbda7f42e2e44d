// The seeded PDF fuzz of tests/plugin/pdf-text.test.ts, run in a process of its own: mutated
// copies of a text PDF, an encrypted one and a many-page one go through `extractPdf` with the
// real pdf.js; each must resolve (content or a problem) within maxChars and maxPages. Prints
// one JSON line: `{ seeds, failures, problems }`.
//
// Node has no worker for pdf.js, so its worker code runs in this process, and on some damaged
// cross-reference tables it leaves a rejection of its own unhandled (an `XRefEntryException`
// while it recovers). In Obsidian that code runs in pdf.js's own worker; here such rejections
// (pdf.js's exception classes, by name) are counted, and any other is a failure.

import type { PdfExtractOptions } from "../../build/pkg/memory_agent.js";
import { extractPdf } from "../../plugin/host/pdf-text";
import { loadNodePdfJs, napiScanSurface } from "../host/pdfjs-node";
import { manyPagesPdf, writePdf } from "../support/pdf-writer";

/** pdf.js's exception classes (src/shared/util.js and src/core/core_utils.js). */
const PDFJS_EXCEPTIONS = new Set(["XRefEntryException", "XRefParseException", "FormatError", "UnknownErrorException", "InvalidPDFException", "MissingPDFException", "PasswordException", "AbortException", "ParserEOFException", "MissingDataException"]);

const OPTIONS: PdfExtractOptions = { maxPages: 200, renderScans: false, scanPixels: 1_150_000, scanBelowChars: 20, maxChars: 2_097_152 };

const failures: string[] = [];
let seed = -1;
process.on("unhandledRejection", (error) => {
	const name = (error as { name?: unknown } | null)?.name;
	if (typeof name === "string" && PDFJS_EXCEPTIONS.has(name)) return;
	failures.push(`seed ${seed}: an unhandled rejection: ${String(error)}`);
});

/** xorshift32 from a seed, so that a failing seed replays (`PDF_FUZZ_SEEDS`). */
function seeded(seed: number): (bound: number) => number {
	let state = (seed * 0x9e3779b1) >>> 0 || 1;
	return (bound) => {
		state ^= state << 13;
		state >>>= 0;
		state ^= state >>> 17;
		state ^= state << 5;
		state >>>= 0;
		return bound <= 0 ? 0 : state % bound;
	};
}

/** `bytes` as a damaged or hostile copy would be: bytes overwritten, cut short, a piece repeated (an object drawn again), a run of digits changed. */
function mutatedPdf(bytes: Uint8Array, random: (bound: number) => number): Uint8Array {
	let out = Array.from(bytes);
	for (let round = 0; round <= random(4); round++) {
		const at = random(out.length);
		switch (random(5)) {
			case 0:
				out[at] = random(256);
				break;
			case 1:
				out = out.slice(0, Math.max(1, at));
				break;
			case 2: {
				const piece = out.slice(at, at + random(400));
				const copies = 1 + random(20);
				out.splice(at, 0, ...Array.from({ length: copies }, () => piece).flat());
				break;
			}
			case 3: {
				// A number (a length, a count, an offset) made another: digits are everywhere in a PDF's structure.
				const digit = out.findIndex((byte, index) => index >= at && byte >= 0x30 && byte <= 0x39);
				if (digit >= 0) out[digit] = 0x30 + random(10);
				break;
			}
			default:
				out.fill(0x20, at, at + random(64));
		}
	}
	return Uint8Array.from(out);
}

function deps() {
	return { loadPdfJs: loadNodePdfJs, scanSurface: napiScanSurface, yieldNow: () => new Promise<void>((resolve) => setTimeout(resolve, 0)) };
}

/** What is wrong with `content` for `options`, if anything. */
function wrongWith(content: Awaited<ReturnType<typeof extractPdf>>, options: PdfExtractOptions): string | null {
	const chars = content.pages.reduce((sum, page) => sum + page.lines.reduce((lineSum, line) => lineSum + line.text.length, 0), 0);
	if (chars > options.maxChars) return `${chars} characters past ${options.maxChars}`;
	if (content.pages.length > options.maxPages) return `${content.pages.length} pages past ${options.maxPages}`;
	if (content.problem === null && content.pages.length !== content.pageCount) return `${content.pages.length} pages of ${content.pageCount}`;
	if (content.problem !== null && content.pages.length > 0) return "a problem, and pages";
	return null;
}

async function main(): Promise<void> {
	const seeds = Number(process.env.PDF_FUZZ_SEEDS ?? 200);
	const sentence = "The harbour committee met on 3 March and approved the lighthouse budget.";
	const lines = (page: number) => Array.from({ length: 30 }, (_, line) => ({ text: `${page}.${line} ${sentence}`, size: line === 0 ? 18 : 11 }));
	const originals = [
		writePdf({ pages: Array.from({ length: 4 }, (_, page) => ({ lines: lines(page) })), info: { Title: "Minutes" } }),
		writePdf({ pages: [{ lines: [{ text: "Secret" }] }], encrypted: true }),
		manyPagesPdf(12),
	];
	let problems = 0;
	for (seed = Number(process.env.PDF_FUZZ_FROM ?? 0); seed < seeds; seed++) {
		const random = seeded(seed + 1);
		const bytes = mutatedPdf(originals[random(originals.length)]!, random);
		const options = { ...OPTIONS, maxChars: 100 + random(20_000), maxPages: 1 + random(14) };
		if (process.env.PDF_FUZZ_TRACE) console.error(`seed ${seed}`);
		try {
			const content = await extractPdf(deps(), bytes, options);
			const wrong = wrongWith(content, options);
			if (wrong !== null) failures.push(`seed ${seed}: ${wrong}`);
			if (content.problem !== null) problems++;
		} catch (error) {
			failures.push(`seed ${seed}: rejected: ${String(error)}`);
		}
	}
	// pdf.js's own work left in flight settles before the count is final.
	await new Promise((resolve) => setTimeout(resolve, 50));
	console.log(JSON.stringify({ seeds, failures, problems }));
}

await main();
