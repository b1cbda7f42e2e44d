// A tiny PDF writer for the tests: plain PDF 1.4 syntax (ISO 32000-1 §7), so no binary PDF
// is kept in git. Pages of Helvetica text lines (each line its own font size, so headings are
// taller), pages holding one JPEG image XObject (DCTDecode, §8.9.7) and no text — a scan —, the
// document information dictionary (§14.3.3), and an /Encrypt dictionary of the standard
// security handler (§7.6.3) whose /U does not match the empty password, so pdf.js asks for one.

export interface PdfTextLine {
	text: string;
	/** Font size in points (default 11). */
	size?: number;
}
export type PdfTestPage = { lines: PdfTextLine[] } | { jpeg: { bytes: Uint8Array; width: number; height: number } };
export interface PdfTestInfo {
	Title?: string;
	Author?: string;
	CreationDate?: string;
	ModDate?: string;
}
export interface PdfTestDocument {
	pages: PdfTestPage[];
	info?: PdfTestInfo;
	/** Adds an /Encrypt dictionary: the file opens only with a password pdf.js is not given. */
	encrypted?: boolean;
}

/** US Letter, in points. */
const PAGE_WIDTH = 612;
const PAGE_HEIGHT = 792;

/** The document as PDF bytes. */
export function writePdf(document: PdfTestDocument): Uint8Array {
	const objects: Uint8Array[] = [];
	const add = (body: string | Uint8Array): number => {
		objects.push(typeof body === "string" ? latin1(body) : body);
		return objects.length;
	};
	const reserve = (): number => add("");
	const catalog = reserve();
	const pagesId = reserve();
	const font = add("<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>");
	const kids: number[] = [];
	for (const page of document.pages) {
		if ("lines" in page) {
			const content = stream("", latin1(textContent(page.lines)));
			const contentId = add(content);
			kids.push(add(`<< /Type /Page /Parent ${pagesId} 0 R /MediaBox [0 0 ${PAGE_WIDTH} ${PAGE_HEIGHT}] /Resources << /Font << /F1 ${font} 0 R >> >> /Contents ${contentId} 0 R >>`));
		} else {
			const { bytes, width, height } = page.jpeg;
			const image = add(stream(`/Type /XObject /Subtype /Image /Width ${width} /Height ${height} /ColorSpace /DeviceRGB /BitsPerComponent 8 /Filter /DCTDecode`, bytes));
			const draw = latin1(`q ${PAGE_WIDTH} 0 0 ${PAGE_HEIGHT} 0 0 cm /Im1 Do Q\n`);
			const contentId = add(stream("", draw));
			kids.push(add(`<< /Type /Page /Parent ${pagesId} 0 R /MediaBox [0 0 ${PAGE_WIDTH} ${PAGE_HEIGHT}] /Resources << /XObject << /Im1 ${image} 0 R >> >> /Contents ${contentId} 0 R >>`));
		}
	}
	objects[catalog - 1] = latin1(`<< /Type /Catalog /Pages ${pagesId} 0 R >>`);
	objects[pagesId - 1] = latin1(`<< /Type /Pages /Kids [${kids.map((id) => `${id} 0 R`).join(" ")}] /Count ${kids.length} >>`);
	const info = document.info === undefined ? null : add(`<< ${Object.entries(document.info).map(([key, value]) => `/${key} ${pdfString(value)}`).join(" ")} >>`);
	const encrypt = document.encrypted === true ? add(encryptDictionary()) : null;
	return assemble(objects, catalog, info, encrypt);
}

/** `count` pages of one short line each ("Page N of a long report."). */
export function manyPagesPdf(count: number): Uint8Array {
	const pages = Array.from({ length: count }, (_, index) => ({ lines: [{ text: `Page ${index + 1} of a long report.` }] }));
	return writePdf({ pages });
}

function textContent(lines: PdfTextLine[]): string {
	let y = PAGE_HEIGHT - 72;
	const out: string[] = [];
	for (const line of lines) {
		const size = line.size ?? 11;
		y -= size * 1.5;
		out.push(`BT /F1 ${size} Tf 72 ${y.toFixed(2)} Td ${pdfString(line.text)} Tj ET`);
	}
	return `${out.join("\n")}\n`;
}

function stream(dictionary: string, data: Uint8Array): Uint8Array {
	return concat([latin1(`<< ${dictionary} /Length ${data.byteLength} >>\nstream\n`), data, latin1("\nendstream")]);
}

/** Standard security handler, revision 2, RC4 40-bit (§7.6.3.2): /O and /U are 32 bytes each; /U here fits no password pdf.js tries. */
function encryptDictionary(): string {
	const filler = "11".repeat(32);
	return `<< /Filter /Standard /V 1 /R 2 /Length 40 /P -44 /O <${"22".repeat(32)}> /U <${filler}> >>`;
}

function assemble(objects: Uint8Array[], catalog: number, info: number | null, encrypt: number | null): Uint8Array {
	const parts: Uint8Array[] = [latin1("%PDF-1.4\n%\xE2\xE3\xCF\xD3\n")];
	let offset = parts[0]?.byteLength ?? 0;
	const offsets: number[] = [];
	objects.forEach((body, index) => {
		offsets.push(offset);
		const object = concat([latin1(`${index + 1} 0 obj\n`), body, latin1("\nendobj\n")]);
		parts.push(object);
		offset += object.byteLength;
	});
	const xref = [`xref\n0 ${objects.length + 1}\n`, "0000000000 65535 f \n", ...offsets.map((at) => `${String(at).padStart(10, "0")} 00000 n \n`)].join("");
	const id = "<0123456789abcdef0123456789abcdef>";
	const trailer = [`/Size ${objects.length + 1}`, `/Root ${catalog} 0 R`, info === null ? "" : `/Info ${info} 0 R`, encrypt === null ? "" : `/Encrypt ${encrypt} 0 R`, `/ID [${id} ${id}]`].filter((entry) => entry !== "").join(" ");
	parts.push(latin1(`${xref}trailer\n<< ${trailer} >>\nstartxref\n${offset}\n%%EOF\n`));
	return concat(parts);
}

/** A literal string (§7.3.4.2): backslash, parentheses escaped; Latin-1 text. */
function pdfString(text: string): string {
	return `(${text.replace(/[\\()]/g, (char) => `\\${char}`)})`;
}

function latin1(text: string): Uint8Array {
	const bytes = new Uint8Array(text.length);
	for (let index = 0; index < text.length; index++) bytes[index] = text.charCodeAt(index) & 0xff;
	return bytes;
}

function concat(parts: Uint8Array[]): Uint8Array {
	const total = parts.reduce((sum, part) => sum + part.byteLength, 0);
	const out = new Uint8Array(total);
	let at = 0;
	for (const part of parts) {
		out.set(part, at);
		at += part.byteLength;
	}
	return out;
}
