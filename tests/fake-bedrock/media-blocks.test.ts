// Tests of the fake's image and document blocks: headers read from real bytes, Bedrock's checks answered in its
// words (each request signed by the smithy signer and sent over HTTP), and images billed by their pixels.

import assert from "node:assert/strict";
import { after, before, beforeEach, describe, it } from "node:test";
import { MAX_IMAGE_BASE64_BYTES } from "./content-blocks";
import { type FakeBedrock, TEST_CREDENTIALS, startFakeBedrock } from "./index";
import { readImageHeader } from "./media";
import { TEST_MODEL_ID, errorType, send, signedConverse } from "./signing-client";
import { encodePng, gifHeader, jpegHeader, minimalPdf, webpHeader } from "./test-images";
import { imageTokens } from "./usage";

type Block = Record<string, unknown>;

function image(bytes: Buffer, format = "png"): Block {
	return { image: { format, source: { bytes: bytes.toString("base64") } } };
}

function documentBlock(bytes: Buffer, name: string, format = "txt"): Block {
	return { document: { format, name, source: { bytes: bytes.toString("base64") } } };
}

const TEXT: Block = { text: "What does this show?" };

function body(messages: Array<{ role: string; content: Block[] }>, extra: Record<string, unknown> = {}): string {
	return JSON.stringify({ messages, inferenceConfig: { maxTokens: 256 }, ...extra });
}

function userTurn(...content: Block[]): string {
	return body([{ role: "user", content }]);
}

describe("the fake's reading of image headers", () => {
	it("reads the format and size of PNG, JPEG, GIF and the three kinds of WebP", () => {
		assert.deepEqual(readImageHeader(encodePng(640, 480)), { format: "png", size: { width: 640, height: 480 } });
		assert.deepEqual(readImageHeader(jpegHeader(1024, 768)), { format: "jpeg", size: { width: 1024, height: 768 } });
		assert.deepEqual(readImageHeader(gifHeader(320, 200)), { format: "gif", size: { width: 320, height: 200 } });
		for (const kind of ["VP8 ", "VP8L", "VP8X"] as const) {
			assert.deepEqual(readImageHeader(webpHeader(1500, 900, kind)), { format: "webp", size: { width: 1500, height: 900 } }, kind);
		}
		assert.deepEqual(readImageHeader(webpHeader(16_000, 3, "VP8X")), { format: "webp", size: { width: 16_000, height: 3 } });
	});

	it("finds the JPEG frame header after other segments, and no size when the scan comes first", () => {
		const comment = Buffer.from([0xff, 0xfe, 0x00, 0x06, 0x61, 0x62, 0x63, 0x64]);
		const jpeg = jpegHeader(300, 200);
		const withComment = Buffer.concat([jpeg.subarray(0, 2), comment, jpeg.subarray(2)]);
		assert.deepEqual(readImageHeader(withComment)?.size, { width: 300, height: 200 });
		const scanFirst = Buffer.from([0xff, 0xd8, 0xff, 0xda, 0x00, 0x02, 0xff, 0xd9]);
		assert.deepEqual(readImageHeader(scanFirst), { format: "jpeg", size: undefined });
	});

	it("knows a format by its magic bytes only, and no size in a header cut short", () => {
		assert.equal(readImageHeader(Buffer.from("not an image at all")), undefined);
		assert.equal(readImageHeader(Buffer.alloc(0)), undefined);
		assert.deepEqual(readImageHeader(encodePng(10, 10).subarray(0, 20)), { format: "png", size: undefined });
	});

	it("bills an image about width × height / 750 tokens, scaled down past 1,568 px or ~1,600 tokens as Anthropic does", () => {
		assert.equal(imageTokens(200, 200), 54);
		assert.equal(imageTokens(1000, 1000), 1334);
		// 1.15 megapixels, the most the plugin sends, in a square: under both caps.
		assert.equal(imageTokens(1072, 1072), 1533);
		// A 12-megapixel photo costs no more than a picture at the cap.
		assert.ok(imageTokens(4000, 3000) <= 1601 && imageTokens(4000, 3000) >= 1590, String(imageTokens(4000, 3000)));
		// A long strip is cut to 1,568 px on its long edge.
		assert.equal(imageTokens(3136, 100), Math.ceil((1568 * 50) / 750));
		assert.equal(imageTokens(0, 10), 0);
	});
});

describe("the fake's image and document blocks", () => {
	let fake: FakeBedrock;
	before(async () => {
		fake = await startFakeBedrock();
	});
	after(() => fake.close());
	beforeEach(() => fake.reset());

	async function converse(requestBody: string, modelId = TEST_MODEL_ID): Promise<Awaited<ReturnType<typeof send>>> {
		return send(fake.url, await signedConverse(fake.url, { credentials: TEST_CREDENTIALS, modelId, body: requestBody }));
	}

	async function accepted(requestBody: string, modelId = TEST_MODEL_ID): Promise<Record<string, unknown>> {
		const response = await converse(requestBody, modelId);
		assert.equal(response.status, 200, response.body);
		return JSON.parse(response.body) as Record<string, unknown>;
	}

	/** Bedrock's answer to a request it refuses: 400 ValidationException and its message. */
	async function refusal(requestBody: string, modelId = TEST_MODEL_ID): Promise<string> {
		const response = await converse(requestBody, modelId);
		assert.equal(response.status, 400, response.body);
		assert.equal(errorType(response), "ValidationException");
		return (JSON.parse(response.body) as { message: string }).message;
	}

	it("accepts a valid image of each format, in a user message and inside a tool result", async () => {
		await accepted(userTurn(image(encodePng(64, 48)), TEXT));
		await accepted(userTurn(TEXT, image(jpegHeader(800, 600), "jpeg")));
		await accepted(userTurn(TEXT, image(gifHeader(100, 100), "gif")));
		await accepted(userTurn(TEXT, image(webpHeader(1200, 800, "VP8X"), "webp")));
		const toolResult = { toolResult: { toolUseId: "tooluse_1", content: [{ text: "The page:" }, image(encodePng(30, 30))] } };
		await accepted(
			body([
				{ role: "user", content: [TEXT] },
				{ role: "assistant", content: [{ toolUse: { toolUseId: "tooluse_1", name: "render", input: {} } }] },
				{ role: "user", content: [toolResult] },
			]),
		);
		assert.equal(fake.requests.length, 5);
		assert.ok(fake.requests.every((request) => request.response?.status === 200));
	});

	it("bills an image by its pixels, not by its base64", async () => {
		const png = encodePng(1000, 1000);
		const requestBody = userTurn(TEXT, image(png));
		const usage = (await accepted(requestBody)).usage as { inputTokens: number };
		const base64 = png.toString("base64").length;
		assert.equal(usage.inputTokens, Math.ceil((requestBody.length - base64) / 4) + 1334);
		// The same text without the picture costs 1,334 tokens less, give or take the block's own JSON.
		const textOnly = (await accepted(userTurn(TEXT))).usage as { inputTokens: number };
		assert.ok(Math.abs(usage.inputTokens - textOnly.inputTokens - 1334) <= 15, `${usage.inputTokens} vs ${textOnly.inputTokens}`);
	});

	it("accepts valid documents: text beside them, allowed names, a PDF that is one", async () => {
		await accepted(userTurn(documentBlock(Buffer.from("Milk, eggs."), "Shopping list (v2) [final]-1_a"), TEXT));
		await accepted(userTurn(TEXT, documentBlock(minimalPdf(), "Report", "pdf"), documentBlock(Buffer.from("a,b\n1,2\n"), "Table", "csv")));
		// botocore's DocumentSource also takes the text itself.
		await accepted(userTurn(TEXT, { document: { format: "txt", name: "Inline", source: { text: "Milk, eggs." } } }));
	});

	it("refuses a format outside the enum, an empty blob and a bad name length in Coral's words, all at once", async () => {
		assert.equal(
			await refusal(userTurn(TEXT, image(encodePng(4, 4), "bmp"))),
			"1 validation error detected: Value at 'messages.1.member.content.2.member.image.format' failed to satisfy constraint: Member must satisfy enum value set: [png, jpeg, gif, webp]",
		);
		assert.equal(
			await refusal(userTurn(TEXT, image(encodePng(4, 4), "jpg"))),
			"1 validation error detected: Value at 'messages.1.member.content.2.member.image.format' failed to satisfy constraint: Member must satisfy enum value set: [png, jpeg, gif, webp]",
		);
		// The service's model is checked before Bedrock's rule that turns alternate.
		assert.match(
			await refusal(body([{ role: "user", content: [TEXT, image(encodePng(4, 4), "tiff")] }, { role: "user", content: [TEXT] }])),
			/^1 validation error detected: Value at 'messages\.1\.member\.content\.2\.member\.image\.format'/,
		);
		assert.equal(
			await refusal(userTurn(documentBlock(Buffer.from("x"), "Notes", "rtf"), TEXT)),
			"1 validation error detected: Value at 'messages.1.member.content.1.member.document.format' failed to satisfy constraint: Member must satisfy enum value set: [docx, csv, html, txt, pdf, md, doc, xlsx, xls]",
		);
		assert.equal(
			await refusal(userTurn(TEXT, image(Buffer.alloc(0)), documentBlock(Buffer.from("x"), "n".repeat(201)))),
			"2 validation errors detected: Value at 'messages.1.member.content.2.member.image.source.bytes' failed to satisfy constraint: Member must have length greater than or equal to 1; Value at 'messages.1.member.content.3.member.document.name' failed to satisfy constraint: Member must have length less than or equal to 200",
		);
		assert.equal(
			await refusal(userTurn(TEXT, { document: { format: "txt", source: { bytes: "eA==" } } }, { image: { format: "png" } })),
			"2 validation errors detected: Value null at 'messages.1.member.content.2.member.document.name' failed to satisfy constraint: Member must not be null; Value null at 'messages.1.member.content.3.member.image.source' failed to satisfy constraint: Member must not be null",
		);
	});

	it("refuses bytes that are not base64, and an image in the system prompt, as unreadable input", async () => {
		const malformed = "Malformed input request, please reformat your input and try again.";
		assert.equal(await refusal(userTurn(TEXT, { image: { format: "png", source: { bytes: "not base64!" } } })), malformed);
		assert.equal(await refusal(userTurn(TEXT, { image: { format: "png", source: { bytes: [1, 2, 3] } } })), malformed);
		assert.equal(await refusal(body([{ role: "user", content: [TEXT] }], { system: [{ text: "Be brief." }, image(encodePng(4, 4))] })), malformed);
	});

	it("refuses an image of more than 3.75 MB (5 MB of base64), to the byte", async () => {
		const png = encodePng(16, 16);
		const limit = (MAX_IMAGE_BASE64_BYTES / 4) * 3; // 3,932,160 bytes make exactly 5 MiB of base64
		const atLimit = Buffer.concat([png, Buffer.alloc(limit - png.length)]);
		await accepted(userTurn(TEXT, image(atLimit)));
		const over = Buffer.concat([atLimit, Buffer.alloc(1)]);
		assert.equal(
			await refusal(userTurn(TEXT, image(over))),
			"The model returned the following errors: messages.0.content.1.image.source.bytes: image exceeds 5 MB maximum: 5242884 bytes > 5242880 bytes",
		);
	});

	it("refuses a picture whose bytes are another format than it says, or no picture at all", async () => {
		assert.equal(
			await refusal(userTurn(TEXT, image(encodePng(10, 10), "jpeg"))),
			"The model returned the following errors: messages.0.content.1.image.source.bytes: Image does not match the provided media type image/jpeg",
		);
		assert.equal(
			await refusal(userTurn(TEXT, image(jpegHeader(10, 10), "webp"))),
			"The model returned the following errors: messages.0.content.1.image.source.bytes: Image does not match the provided media type image/webp",
		);
		assert.equal(
			await refusal(userTurn(TEXT, image(Buffer.from("%PDF-1.4 not a picture"), "png"))),
			"The model returned the following errors: messages.0.content.1.image.source.bytes: Could not process image",
		);
		// Other providers' models answer in Bedrock's own words (Llama 3.2 through Bedrock).
		assert.equal(
			await refusal(userTurn(TEXT, image(encodePng(10, 10), "gif")), "us.meta.llama3-2-11b-instruct-v1:0"),
			"The model returned the following errors: The provided image does not match the specified image format.",
		);
	});

	it("counts the model's indices without cachePoint blocks, and names an image inside a tool result", async () => {
		assert.equal(
			await refusal(userTurn(TEXT, { cachePoint: { type: "default" } }, image(encodePng(10, 10), "jpeg"))),
			"The model returned the following errors: messages.0.content.1.image.source.bytes: Image does not match the provided media type image/jpeg",
		);
		const toolResult = { toolResult: { toolUseId: "tooluse_1", content: [{ text: "The page:" }, image(encodePng(30, 30), "gif")] } };
		const message = await refusal(
			body([
				{ role: "user", content: [TEXT] },
				{ role: "assistant", content: [{ toolUse: { toolUseId: "tooluse_1", name: "render", input: {} } }] },
				{ role: "user", content: [toolResult] },
			]),
		);
		assert.equal(message, "The model returned the following errors: messages.2.content.0.content.1.image.source.bytes: Image does not match the provided media type image/gif");
	});

	it("refuses a side over 8,000 px in any format, and takes 8,000", async () => {
		const tooLarge = "The model returned the following errors: messages.0.content.1.image.source.bytes: At least one of the image dimensions exceed max allowed size: 8000 pixels";
		await accepted(userTurn(TEXT, image(encodePng(8000, 2))));
		assert.equal(await refusal(userTurn(TEXT, image(encodePng(8001, 2)))), tooLarge);
		assert.equal(await refusal(userTurn(TEXT, image(jpegHeader(10, 8001), "jpeg"))), tooLarge);
		assert.equal(await refusal(userTurn(TEXT, image(gifHeader(8001, 1), "gif"))), tooLarge);
		assert.equal(await refusal(userTurn(TEXT, image(webpHeader(9000, 10, "VP8X"), "webp"))), tooLarge);
		assert.equal(await refusal(userTurn(TEXT, image(webpHeader(10, 8500, "VP8L"), "webp"))), tooLarge);
	});

	it("limits each side to 2,000 px once a request holds more than 20 images", async () => {
		const images = (count: number, width: number) => Array.from({ length: count }, () => image(jpegHeader(width, 10), "jpeg"));
		await accepted(userTurn(TEXT, ...images(20, 2001)));
		await accepted(userTurn(TEXT, ...images(21, 2000)));
		assert.equal(
			await refusal(userTurn(TEXT, ...images(20, 2000), image(jpegHeader(1000, 2001), "jpeg"))),
			"The model returned the following errors: messages.0.content.21.image.source.bytes: At least one of the image dimensions exceed max allowed size for many-image requests: 2000 pixels",
		);
	});

	it("limits the images and documents of a request per model", async () => {
		const images = (count: number) => Array.from({ length: count }, () => image(jpegHeader(10, 10), "jpeg"));
		await accepted(userTurn(TEXT, ...images(100)));
		assert.equal(await refusal(userTurn(TEXT, ...images(101))), "The model returned the following errors: too many images and documents: 101 + 0 > 100");
		const claude3Haiku = "anthropic.claude-3-haiku-20240307-v1:0";
		await accepted(userTurn(TEXT, ...images(20)), claude3Haiku);
		assert.equal(
			await refusal(userTurn(TEXT, ...images(19), documentBlock(Buffer.from("a"), "A"), documentBlock(Buffer.from("b"), "B")), claude3Haiku),
			"The model returned the following errors: too many images and documents: 19 + 2 > 20",
		);
		await accepted(userTurn(TEXT, ...images(150)), "global.anthropic.claude-sonnet-4-6");
	});

	it("refuses images for a model without image input, as Bedrock does", async () => {
		const refused = "This model doesn't support the image content block that you provided. Update the content block and try again.";
		assert.equal(await refusal(userTurn(TEXT, image(encodePng(8, 8))), "anthropic.claude-3-5-haiku-20241022-v1:0"), refused);
		assert.equal(await refusal(userTurn(TEXT, image(encodePng(8, 8))), "amazon.nova-micro-v1:0"), refused);
		await accepted(userTurn(TEXT, image(encodePng(8, 8))), "amazon.nova-lite-v1:0");
		// Documents are still taken by the text-only model.
		await accepted(userTurn(TEXT, documentBlock(Buffer.from("notes"), "Notes")), "amazon.nova-micro-v1:0");
	});

	it("refuses images and documents in an assistant message", async () => {
		const message = await refusal(
			body([
				{ role: "user", content: [TEXT] },
				{ role: "assistant", content: [{ text: "Here:" }, image(encodePng(8, 8))] },
				{ role: "user", content: [TEXT] },
			]),
		);
		assert.match(message, /only be included in user messages/);
	});

	it("refuses document names Bedrock refuses, in its words", async () => {
		const refused =
			"The document file name can only contain alphanumeric characters, whitespace characters, hyphens, parentheses, and square brackets. The name can't contain more than one consecutive whitespace character. Check that the file name conforms to these restrictions and retry your request.";
		for (const name of ["John's report", "report.pdf", "Report -  Final", "tab\tname", "résumé", "テスト\u3000資料", "invoice #123"]) {
			assert.equal(await refusal(userTurn(documentBlock(Buffer.from("x"), name), TEXT)), refused, name);
		}
	});

	it("refuses more than five documents, duplicate names across turns, and documents without a text block", async () => {
		const documents = (count: number) => Array.from({ length: count }, (_, index) => documentBlock(Buffer.from(`doc ${index}`), `Doc ${index}`));
		await accepted(userTurn(TEXT, ...documents(5)));
		assert.equal(await refusal(userTurn(TEXT, ...documents(6))), "You can't include more than 5 documents in a request.");
		assert.equal(
			await refusal(
				body([
					{ role: "user", content: [TEXT, documentBlock(Buffer.from("one"), "Report")] },
					{ role: "assistant", content: [{ text: "Read." }] },
					{ role: "user", content: [TEXT, documentBlock(Buffer.from("two"), "Report", "md")] },
				]),
			),
			"Messages can't contain duplicate document names.",
		);
		assert.equal(
			await refusal(userTurn(documentBlock(Buffer.from("notes"), "Notes"))),
			"A text block must be included when using documents. Add a text block and retry your request.",
		);
		// An image alone needs no text.
		await accepted(userTurn(image(encodePng(8, 8))));
	});

	it("refuses a document over 4.5 MB, but a PDF only on models before Claude 4", async () => {
		const big = Buffer.alloc(4.5 * 1024 * 1024 + 1, 0x61);
		assert.match(await refusal(userTurn(TEXT, documentBlock(big, "Big"))), /exceeds the maximum of 4718592 bytes/);
		const bigPdf = Buffer.concat([minimalPdf(), Buffer.alloc(4.5 * 1024 * 1024, 0x20)]);
		await accepted(userTurn(TEXT, documentBlock(bigPdf, "Big", "pdf")));
		assert.match(await refusal(userTurn(TEXT, documentBlock(bigPdf, "Big", "pdf")), "anthropic.claude-3-haiku-20240307-v1:0"), /exceeds the maximum/);
	});

	it("refuses a document sent as a PDF that is not one", async () => {
		assert.equal(
			await refusal(userTurn(TEXT, documentBlock(Buffer.from("Just some text."), "Notes", "pdf"))),
			"The detected filetype is PLAIN_TEXT, but the provided filetype was PDF.",
		);
		assert.equal(
			await refusal(userTurn(TEXT, documentBlock(encodePng(4, 4), "Picture", "pdf"))),
			"The model returned the following errors: messages.0.content.1.source.bytes: The document source bytes could not be parsed as the specified format. If using a text-based format, try source.text instead of source.bytes.",
		);
	});

	it("lists the images the requests carried, as their bytes say, refused ones included", async () => {
		await accepted(userTurn(TEXT, image(encodePng(120, 80)), image(jpegHeader(1024, 768), "jpeg")));
		await refusal(userTurn(TEXT, image(encodePng(9, 9), "gif")));
		await accepted(userTurn(TEXT));
		assert.deepEqual(fake.sentImages(), [
			{ seq: 1, path: "messages.0.content.1", format: "png", actualFormat: "png", byteLength: encodePng(120, 80).length, width: 120, height: 80 },
			{ seq: 1, path: "messages.0.content.2", format: "jpeg", actualFormat: "jpeg", byteLength: jpegHeader(1024, 768).length, width: 1024, height: 768 },
			{ seq: 2, path: "messages.0.content.1", format: "gif", actualFormat: "png", byteLength: encodePng(9, 9).length, width: 9, height: 9 },
		]);
	});

	it("records a refused media request like any other, before any scripted reply is used", async () => {
		fake.script({ text: "kept for the next request" });
		await refusal(userTurn(TEXT, image(encodePng(10, 10), "jpeg")));
		assert.equal(fake.pendingReplies, 1);
		const [recorded] = fake.requests;
		assert.equal(recorded?.response?.status, 400);
		assert.equal(recorded?.response?.errorType, "ValidationException");
		assert.equal(recorded?.reply, undefined);
	});
});
