// The `image` and `document` blocks of a Converse request, checked as Bedrock checks them, in three layers:
// 1. the service's model of the request (botocore bedrock-runtime service-2.json: `ImageBlock`, `ImageSource`,
//    `DocumentBlock`, `DocumentSource`): base64 blobs, format enums, name length, non-empty bytes;
// 2. Bedrock's own Converse rules (API reference, `Message`: documents at most five and 4.5 MB, a text block beside
//    them, images and documents only in user messages; `DocumentBlock.name`'s characters), and the model's
//    capability (a text-only model refuses images);
// 3. what the model provider refuses, relayed as "The model returned the following errors: …": Anthropic's 5 MB
//    (base64) and 8,000 px limits, the picture's real format against `format`, the count of images and documents,
//    and 2,000 px per side once a request holds more than 20 images.
// Each message below cites where its wording comes from; UNCONFIRMED marks the fake's own wording where no
// recorded Bedrock answer was found, in the closest documented form.

import { type AwsError, validation } from "./aws-errors";
import { DOCUMENT_FORMATS, IMAGE_FORMATS, type ImageHeader, decodeBase64, isPdf, looksLikePlainText, readImageHeader } from "./media";
import { type MediaRules, isAnthropicModel } from "./models";
import { asRecord } from "./replies";

/** Bedrock's Message reference: at most five documents a request. */
export const MAX_DOCUMENTS = 5;
/** Bedrock's Message reference: a document at most 4.5 MB. */
export const MAX_DOCUMENT_BYTES = 4.5 * 1024 * 1024;
/**
 * Anthropic's limit, measured on the base64 text (5 MiB); Bedrock's "3.75 MB" is the decoded size that fits it
 * (aws-sdk-js-v3#6785; aws-solutions-library-samples/accelerated-intelligent-document-processing-on-aws#778:
 * "5,579,040 is exactly base64_encoded_size(4,184,278)").
 */
export const MAX_IMAGE_BASE64_BYTES = 5 * 1024 * 1024;
/** Bedrock's Message reference and Anthropic's vision guide: each side at most 8,000 px. */
export const MAX_IMAGE_SIDE = 8_000;
/** Anthropic's vision guide: with more than 20 images in a request, each side at most 2,000 px. */
export const MANY_IMAGES = 20;
export const MAX_MANY_IMAGE_SIDE = 2_000;

/** An image or document block where it sits in the request. */
export interface MediaBlock {
	kind: "image" | "document";
	block: Record<string, unknown>;
	role: unknown;
	/** The Coral path of the block's parent, 1-based as AWS's validation messages give it (`messages.1.member.content.2.member`). */
	coralPath: string;
	/** The path as the model names it, 0-based (`messages.0.content.1`); cachePoint blocks, folded into the block before them, are not counted. */
	modelPath: string;
	/** Only for a block directly in a message's content (not inside a toolResult). */
	topLevel: boolean;
}

/** Every image and document block in the messages, in order, toolResult contents included. */
export function mediaBlocks(json: Record<string, unknown>): MediaBlock[] {
	const found: MediaBlock[] = [];
	for (const [messageIndex, message] of arrayOf(json.messages).entries()) {
		const record = asRecord(message);
		let modelIndex = 0;
		for (const [contentIndex, content] of arrayOf(record?.content).entries()) {
			const block = asRecord(content);
			if (block?.cachePoint !== undefined) continue;
			const coralPath = `messages.${messageIndex + 1}.member.content.${contentIndex + 1}.member`;
			const modelPath = `messages.${messageIndex}.content.${modelIndex}`;
			modelIndex += 1;
			collect(found, block, record?.role, coralPath, modelPath, true);
			for (const [nestedIndex, nested] of arrayOf(asRecord(block?.toolResult)?.content).entries()) {
				collect(found, asRecord(nested), record?.role, `${coralPath}.toolResult.content.${nestedIndex + 1}.member`, `${modelPath}.content.${nestedIndex}`, false);
			}
		}
	}
	return found;
}

function collect(found: MediaBlock[], block: Record<string, unknown> | undefined, role: unknown, coralPath: string, modelPath: string, topLevel: boolean): void {
	for (const kind of ["image", "document"] as const) {
		const inner = asRecord(block?.[kind]);
		if (inner) found.push({ kind, block: inner, role, coralPath, modelPath, topLevel });
	}
}

/** An image block as a request carried it, read from its bytes. */
export interface SentImage {
	/** Where it sat, as the model names it (`messages.0.content.1`). */
	path: string;
	/** The block's `format`. */
	format: string;
	/** What the bytes are, by their magic bytes; undefined when none of the four formats. */
	actualFormat: string | undefined;
	/** The decoded size in bytes. */
	byteLength: number;
	/** From the header; undefined when the header gives none. */
	width: number | undefined;
	height: number | undefined;
}

/** The image blocks of a request body (tool results included), in order, with what their bytes say. */
export function imagesIn(json: Record<string, unknown>): SentImage[] {
	return mediaBlocks(json)
		.filter((media) => media.kind === "image")
		.map((media) => {
			const bytes = decodeBase64(sourceBytesText(media.block) ?? "") ?? Buffer.alloc(0);
			const header = readImageHeader(bytes);
			return {
				path: media.modelPath,
				format: String(media.block.format),
				actualFormat: header?.format,
				byteLength: bytes.length,
				width: header?.size?.width,
				height: header?.size?.height,
			};
		});
}

/** The base64 text of a block's `source.bytes`, when it is a string. */
export function sourceBytesText(block: Record<string, unknown>): string | undefined {
	const bytes = asRecord(block.source)?.bytes;
	return typeof bytes === "string" ? bytes : undefined;
}

/** A document given as text (`source.text`) or as text blocks (`source.content`) rather than bytes. */
function hasTextSource(block: Record<string, unknown>): boolean {
	const source = asRecord(block.source);
	return typeof source?.text === "string" || Array.isArray(source?.content);
}

/**
 * Layer 1, before anything else looks at the request: blobs that are not base64 and blocks the service's model
 * does not allow. The first error, or undefined.
 */
export function checkMediaShapes(json: Record<string, unknown>): AwsError | undefined {
	// botocore's SystemContentBlock is a union of text, guardContent and cachePoint only. The wording for a member
	// outside the union is UNCONFIRMED: the fake answers as for any body the service cannot read.
	for (const block of arrayOf(json.system)) {
		const record = asRecord(block);
		if (record?.image !== undefined || record?.document !== undefined) return malformed();
	}
	const blocks = mediaBlocks(json);
	// A blob that is not base64 cannot be read at all (smithy's JSON protocols carry blobs as base64). Wording
	// UNCONFIRMED. Besides `source.bytes` the fake takes a document's `source.text` and `source.content`
	// (botocore's DocumentSource); an `s3Location` source is not modelled and is refused the same way.
	for (const media of blocks) {
		if (media.block.source === undefined || (media.kind === "document" && hasTextSource(media.block))) continue;
		const text = sourceBytesText(media.block);
		if (text === undefined || decodeBase64(text) === undefined) return malformed();
	}
	const problems: string[] = [];
	for (const media of blocks) problems.push(...shapeProblems(media));
	if (problems.length === 0) return undefined;
	// Coral's form, e.g. "1 validation error detected: Value at 'messages.1.member.content.2.member.image.format'
	// failed to satisfy constraint: Member must satisfy enum value set: […]" (NousResearch/hermes-agent#55429,
	// measured on Bedrock 2026-09; vercel/ai#5606 for the document enum).
	const count = problems.length === 1 ? "1 validation error detected" : `${problems.length} validation errors detected`;
	return validation(`${count}: ${problems.join("; ")}`);
}

/**
 * Enum sets in the order Bedrock printed them: the document one as recorded (vercel/ai#5606); the image one's order
 * is UNCONFIRMED (no record prints it) and follows botocore's `ImageFormat`.
 */
const DOCUMENT_ENUM_TEXT = "[docx, csv, html, txt, pdf, md, doc, xlsx, xls]";
const IMAGE_ENUM_TEXT = `[${IMAGE_FORMATS.join(", ")}]`;

function shapeProblems(media: MediaBlock): string[] {
	const at = `${media.coralPath}.${media.kind}`;
	const problems: string[] = [];
	const format = media.block.format;
	const formats: readonly string[] = media.kind === "image" ? IMAGE_FORMATS : DOCUMENT_FORMATS;
	if (format === undefined) problems.push(`Value null at '${at}.format' failed to satisfy constraint: Member must not be null`);
	else if (typeof format !== "string" || !formats.includes(format)) {
		const set = media.kind === "image" ? IMAGE_ENUM_TEXT : DOCUMENT_ENUM_TEXT;
		problems.push(`Value at '${at}.format' failed to satisfy constraint: Member must satisfy enum value set: ${set}`);
	}
	if (media.kind === "document") {
		// botocore (boto/botocore, bedrock-runtime 2023-09-30 service-2.json): DocumentBlock requires format, name
		// and source; DocumentBlockNameString has min 1, max 200.
		const name = media.block.name;
		if (name === undefined) problems.push(`Value null at '${at}.name' failed to satisfy constraint: Member must not be null`);
		else if (typeof name === "string" && name.length === 0) problems.push(`Value at '${at}.name' failed to satisfy constraint: Member must have length greater than or equal to 1`);
		else if (typeof name === "string" && name.length > 200) problems.push(`Value at '${at}.name' failed to satisfy constraint: Member must have length less than or equal to 200`);
	}
	// botocore: `source` required in both blocks; ImageSourceBytesBlob and DocumentSourceBytesBlob, min 1.
	if (media.block.source === undefined) problems.push(`Value null at '${at}.source' failed to satisfy constraint: Member must not be null`);
	else if (sourceBytesText(media.block) === "") {
		problems.push(`Value at '${at}.source.bytes' failed to satisfy constraint: Member must have length greater than or equal to 1`);
	}
	return problems;
}

/** Layer 2: Bedrock's own rules for images and documents, and whether the model takes images at all. */
export function checkConverseMediaRules(json: Record<string, unknown>, rules: MediaRules | undefined): AwsError | undefined {
	const blocks = mediaBlocks(json);
	if (blocks.length === 0) return undefined;
	// Message reference: "You can only include images and documents if the role is user." Wording UNCONFIRMED.
	const misplaced = blocks.find((media) => media.role !== "user");
	if (misplaced) {
		return validation(`Images and documents can only be included in user messages. Remove the ${misplaced.kind} from the assistant message and try again.`);
	}
	// A model without image input: the Converse answer recorded in a public troubleshooting table of Bedrock errors
	// (a Bedrock client's docs), and relayed as "Bedrock error message: …" in a Kiro gateway's test fixture.
	if (rules !== undefined && !rules.images && blocks.some((media) => media.kind === "image")) {
		return validation("This model doesn't support the image content block that you provided. Update the content block and try again.");
	}
	const documents = blocks.filter((media) => media.kind === "document");
	// Recorded live: aws-samples/generative-ai-use-cases#1685 (250 answers in 60 days).
	if (documents.length > MAX_DOCUMENTS) return validation(`You can't include more than ${MAX_DOCUMENTS} documents in a request.`);
	for (const media of documents) {
		const name = media.block.name;
		// DocumentBlock.name: "alphanumeric characters, whitespace characters (no more than one in a row), hyphens,
		// parentheses, square brackets". Live: only the ASCII space passes as whitespace (a tab or U+3000 fails:
		// aws-samples/generative-ai-use-cases#1677), non-ASCII letters fail (vercel/ai#20365), and underscores pass
		// although undocumented (vercel/ai#20366, "checked live"). The wording is recorded in vercel/ai#20365,
		// vercel/ai#11518 and BoundaryML/baml#2286.
		if (typeof name === "string" && (!/^[A-Za-z0-9_\-()[\] ]+$/.test(name) || name.includes("  "))) {
			return validation(
				"The document file name can only contain alphanumeric characters, whitespace characters, hyphens, parentheses, and square brackets. The name can't contain more than one consecutive whitespace character. Check that the file name conforms to these restrictions and retry your request.",
			);
		}
	}
	// Recorded live: aws-samples/generative-ai-use-cases#1685 and Boise-State-Development/agentcore-public-stack#400,
	// across turns too.
	const names = documents.map((media) => media.block.name);
	if (new Set(names).size !== names.length) return validation("Messages can't contain duplicate document names.");
	const withoutText = documentMessageWithoutText(json);
	// Recorded: archestra-ai/archestra#4220, maximhq/bifrost#5817, BerriAI/litellm#36499.
	if (withoutText) return validation("A text block must be included when using documents. Add a text block and retry your request.");
	for (const media of documents) {
		const problem = documentContentProblem(media, rules);
		if (problem) return problem;
	}
	return undefined;
}

function documentMessageWithoutText(json: Record<string, unknown>): boolean {
	return arrayOf(json.messages).some((message) => {
		const content = arrayOf(asRecord(message)?.content).map(asRecord);
		return content.some((block) => block?.document !== undefined) && !content.some((block) => typeof block?.text === "string");
	});
}

function documentContentProblem(media: MediaBlock, rules: MediaRules | undefined): AwsError | undefined {
	if (hasTextSource(media.block)) return undefined;
	const bytes = decodeBase64(sourceBytesText(media.block) ?? "") ?? Buffer.alloc(0);
	const pdf = media.block.format === "pdf";
	// Message reference: 4.5 MB; the "API restrictions" page lifts it for PDFs on Claude 4 and later. Wording UNCONFIRMED.
	if (bytes.length > MAX_DOCUMENT_BYTES && !(pdf && rules?.largePdfs === true)) {
		return validation(`The document file size is ${bytes.length} bytes, which exceeds the maximum of ${MAX_DOCUMENT_BYTES} bytes. Reduce the document size and retry your request.`);
	}
	if (pdf && !isPdf(bytes)) {
		// Text sent as a PDF: the answer recorded in the troubleshooting table cited above. Other bytes: the answer
		// Claude Sonnet 4.6 gave through Bedrock for an office file sent as a PDF (maximhq/bifrost#5472).
		if (looksLikePlainText(bytes)) return validation("The detected filetype is PLAIN_TEXT, but the provided filetype was PDF.");
		return validation(
			`The model returned the following errors: ${media.modelPath}.source.bytes: The document source bytes could not be parsed as the specified format. If using a text-based format, try source.text instead of source.bytes.`,
		);
	}
	return undefined;
}

/** Layer 3: what the model provider refuses about the images, in Bedrock's wrapping of the provider's words. */
export function checkModelMedia(json: Record<string, unknown>, modelId: string, rules: MediaRules | undefined): AwsError | undefined {
	const blocks = mediaBlocks(json);
	const images = blocks.filter((media) => media.kind === "image");
	const documents = blocks.length - images.length;
	if (rules !== undefined && blocks.length > rules.maxImagesAndDocuments) {
		// Recorded: "The model returned the following errors: too many images and documents: 23 + 0 > 20" (a
		// provider test fixture) and "… 601 + 0 > 600" (see models.ts).
		return modelError(`too many images and documents: ${images.length} + ${documents} > ${rules.maxImagesAndDocuments}`);
	}
	const manyImages = images.length > MANY_IMAGES;
	for (const media of images) {
		const problem = imageProblem(media, modelId, manyImages);
		if (problem) return modelError(problem);
	}
	return undefined;
}

function imageProblem(media: MediaBlock, modelId: string, manyImages: boolean): string | undefined {
	const text = sourceBytesText(media.block) ?? "";
	const at = `${media.modelPath}.image.source.bytes`;
	// Recorded: "messages.0.content.2.image.source.bytes: image exceeds 5 MB maximum: 7167852 bytes > 5242880 bytes"
	// (accelerated-intelligent-document-processing-on-aws#778, Claude Sonnet 4.6 through Bedrock, 2026-09).
	if (text.length > MAX_IMAGE_BASE64_BYTES) return `${at}: image exceeds 5 MB maximum: ${text.length} bytes > ${MAX_IMAGE_BASE64_BYTES} bytes`;
	const header = readImageHeader(decodeBase64(text) ?? Buffer.alloc(0));
	const format = media.block.format;
	if (header === undefined || header.size === undefined) {
		if (header?.format !== undefined && header.format !== format) return mismatch(at, modelId, String(format));
		// Anthropic's "Could not process image" at Bedrock's path (UNCONFIRMED through Bedrock).
		return `${at}: Could not process image`;
	}
	if (header.format !== format) return mismatch(at, modelId, String(format));
	return dimensionProblem(at, header, manyImages);
}

/**
 * Bytes unlike `format`: Anthropic's "Image does not match the provided media type image/png" at Bedrock's path
 * (live on Claude Sonnet 4.5, NousResearch/hermes-agent#55429: "The model returned the following errors:
 * messages.0.content.1.image.so…", the rest cut in the record); other providers' models answer "The provided image
 * does not match the specified image format." (boto/boto3#4415, Llama 3.2 through Bedrock).
 */
function mismatch(at: string, modelId: string, format: string): string {
	if (!isAnthropicModel(modelId)) return "The provided image does not match the specified image format.";
	return `${at}: Image does not match the provided media type image/${format}`;
}

/**
 * Anthropic's "At least one of the image dimensions exceed max allowed size: 8000 pixels" (anthropics/claude-code#4778)
 * and "… max allowed size for many-image requests: 2000 pixels" (anthropics/claude-code#39185; through Bedrock on
 * Claude Sonnet 5: accelerated-intelligent-document-processing-on-aws#994, 29 images at 2,001 px refused, at 2,000
 * accepted), at Bedrock's path for the image's bytes.
 */
function dimensionProblem(at: string, header: ImageHeader, manyImages: boolean): string | undefined {
	const { width, height } = header.size ?? { width: 0, height: 0 };
	if (width > MAX_IMAGE_SIDE || height > MAX_IMAGE_SIDE) return `${at}: At least one of the image dimensions exceed max allowed size: ${MAX_IMAGE_SIDE} pixels`;
	if (manyImages && (width > MAX_MANY_IMAGE_SIDE || height > MAX_MANY_IMAGE_SIDE)) {
		return `${at}: At least one of the image dimensions exceed max allowed size for many-image requests: ${MAX_MANY_IMAGE_SIDE} pixels`;
	}
	return undefined;
}

/** Bedrock's wrapping of an error the model provider returned. */
function modelError(message: string): AwsError {
	return validation(`The model returned the following errors: ${message}`);
}

function malformed(): AwsError {
	return validation("Malformed input request, please reformat your input and try again.");
}

function arrayOf(value: unknown): unknown[] {
	return Array.isArray(value) ? value : [];
}
