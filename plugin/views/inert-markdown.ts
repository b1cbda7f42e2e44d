// Answers fetch nothing and act on nothing (no Obsidian imports: unit-testable). A model may
// copy anything from a note — `<img src=https://…>`, `style="background-image:url(…)"`,
// `javascript:` links, `![[embeds]]` of excluded notes — so its Markdown is parsed by a
// CommonMark parser (micromark, raw HTML off: HTML is shown as text) into a document that has
// no browsing context and loads nothing, and only an allowlist of elements and attributes is
// copied from there into the live view. Nothing else ever reaches the live DOM: no element or
// attribute that fetches is in the allowlist, and a link is either to a vault note or a plain
// http(s) link. The same sanitised tree is written back as Markdown for notes and the
// clipboard, with every character that could start syntax escaped, so Obsidian opening the
// note loads nothing either.
//
// Why micromark: measured on the CommonMark 0.31 spec's 652 examples (commonmark-spec), it
// and markdown-it agree with the spec alike (640 each by a whitespace-blind comparison; marked
// 529-533), and micromark with GFM tables and strikethrough adds 63 KB to a minified bundle
// where markdown-it adds 150 KB (its entity table, punycode and linkify).

import { micromark } from "micromark";
import { gfmStrikethrough, gfmStrikethroughHtml } from "micromark-extension-gfm-strikethrough";
import { gfmTable, gfmTableHtml } from "micromark-extension-gfm-table";

/** What an answer may link to or embed beyond plain links. */
export interface InertOptions {
	/**
	 * The notes the answer cites, as link paths without `.md` (`Trips/Lisbon`): an `![[embed]]`
	 * of one of them becomes a link to it; of any other note, plain text (an embed would show
	 * a note the model was never given, an excluded one included). Never a transclusion.
	 */
	citedNotes: readonly string[];
}

/** Elements copied as they are (their allowed attributes only). None of them fetches anything. */
const KEPT = new Set([
	"p", "h1", "h2", "h3", "h4", "h5", "h6", "blockquote", "ul", "ol", "li", "pre", "hr",
	"table", "thead", "tbody", "tr", "th", "td", "em", "strong", "del", "code", "br", "a",
]);
/** Elements whose content is not shown at all (the parser emits none of them with HTML off). */
const DROPPED = new Set(["script", "style", "template", "noscript", "iframe", "object", "embed", "svg", "math", "head", "title"]);
const ALIGNMENTS = new Set(["left", "center", "right"]);
const LANGUAGE_CLASS = /^language-[\w+-]{1,40}$/;
/** A URL scheme (`https:`, `javascript:`, `obsidian:`…) or a protocol-relative `//host`. */
const SCHEME = /^(?:[a-z][a-z0-9+.-]*:|\/\/)/i;
/** `&#58;`, `&#x3A;`, `&colon;`: https://spec.commonmark.org/0.31.2/#entity-and-numeric-character-references */
const CHARACTER_REFERENCE = /&(?:#\d{1,7}|#x[0-9a-f]{1,6}|[a-z][a-z0-9]{1,31});/i;
/** `[[target]]`, `[[target|alias]]`, and the same with `!` (an embed). */
const WIKI_LINK = /(!?)\[\[([^[\]\n|]+)(?:\|([^[\]\n]*))?\]\]/g;

/** Classes of the links the sanitised tree holds: the view opens `internal-link` ones in the vault. */
export const INTERNAL_LINK = "internal-link";
export const EXTERNAL_LINK = "external-link";

/** The CommonMark parse of `markdown` as HTML text; raw HTML comes out as escaped text. */
function markdownToHtml(markdown: string): string {
	// https://github.com/micromark/micromark#options: `allowDangerousHtml` off (the default)
	// encodes raw HTML; `allowDangerousProtocol` off empties hrefs that are not http(s), mailto,
	// irc(s) or xmpp, and image sources that are not http(s). Our allowlist checks again.
	return micromark(markdown, {
		allowDangerousHtml: false,
		allowDangerousProtocol: false,
		extensions: [gfmTable(), gfmStrikethrough({ singleTilde: false })],
		htmlExtensions: [gfmTableHtml(), gfmStrikethroughHtml()],
	});
}

/**
 * `html` parsed by `DOMParser` (of `doc`'s window) into a document of its own: one with no
 * browsing context, where parsing runs no script and loads no image, style or frame (HTML's
 * fetch steps need a fully active document; DOMPurify relies on the same). Nothing of it is
 * ever inserted anywhere: only what `copyAllowed` makes from it is.
 */
function parsedBody(html: string, doc: Document): HTMLElement {
	const Parser = doc.defaultView?.DOMParser;
	debugAssert(Parser !== undefined, "a document with a window to parse in");
	return new Parser!().parseFromString(html, "text/html").body;
}

/** An http(s) URL as the link's target, or null for any other scheme, a relative path or garbage. */
export function externalUrl(href: string): string | null {
	const trimmed = href.trim();
	if (!/^https?:\/\//i.test(trimmed)) return null;
	try {
		const url = new URL(trimmed);
		return url.protocol === "http:" || url.protocol === "https:" ? url.href : null;
	} catch {
		return null;
	}
}

/** `text` percent-decoded (itself when it is not valid percent-encoding). */
function percentDecoded(text: string): string {
	try {
		return decodeURIComponent(text);
	} catch {
		return text;
	}
}

/**
 * Whether `target` can only be a note of the vault: no scheme (`javascript:`, `obsidian:`…), no
 * `//host`, no backslash, no character reference, checked as written and once decoded —
 * `javascript%3Aalert(1)` has a scheme to whoever decodes it (Obsidian does).
 */
export function isVaultTarget(target: string): boolean {
	return [target, percentDecoded(target)].every((form) => {
		const trimmed = form.trim();
		return trimmed !== "" && !trimmed.startsWith("#") && !SCHEME.test(trimmed) && !trimmed.includes("\\") && !CHARACTER_REFERENCE.test(trimmed);
	});
}

/** A vault path for a link without a scheme (`Notes/Plan.md`, `Plan%20B.md#Dates`), or null. */
function vaultPath(href: string): string | null {
	return isVaultTarget(href) ? percentDecoded(href.trim()) : null;
}

function internalLink(parent: Element, target: string, text: string): HTMLAnchorElement {
	return parent.createEl("a", { cls: INTERNAL_LINK, text, attr: { "data-href": target, href: target } });
}

function externalLink(parent: Element, url: string): HTMLAnchorElement {
	return parent.createEl("a", { cls: EXTERNAL_LINK, attr: { href: url, target: "_blank", rel: "noopener nofollow noreferrer" } });
}

function appendText(parent: Element, text: string): void {
	parent.appendChild(parent.ownerDocument.createTextNode(text));
}

/**
 * The copy of `source`'s children into `target` (of any document), element by element from the
 * allowlist. Inside a link (`inLink`) an image or another link is its text: a link holds no link.
 */
function copyAllowed(source: Node, target: Element, inLink = false): void {
	for (const child of Array.from(source.childNodes)) {
		if (child.nodeType === 3 /* TEXT_NODE */) {
			appendText(target, (child as Text).data);
			continue;
		}
		if (child.nodeType !== 1 /* ELEMENT_NODE */) continue;
		const element = child as Element;
		const tag = element.localName.toLowerCase();
		if (DROPPED.has(tag)) continue;
		if (tag === "img") {
			if (inLink) appendText(target, element.getAttribute("alt") ?? "");
			else imageAsLink(element, target);
			continue;
		}
		if (tag === "a" && !inLink) {
			linkCopy(element, target);
			continue;
		}
		if (!KEPT.has(tag) || tag === "a") {
			// Anything else the parser might emit (or a link in a link): its content only.
			copyAllowed(element, target, inLink);
			continue;
		}
		const copy = target.createEl(tag as keyof HTMLElementTagNameMap);
		copyAttributes(element, copy, tag);
		copyAllowed(element, copy, inLink);
	}
}

function copyAttributes(from: Element, to: Element, tag: string): void {
	const start = from.getAttribute("start");
	if (tag === "ol" && start !== null && /^\d{1,9}$/.test(start)) to.setAttribute("start", start);
	const align = from.getAttribute("align");
	if ((tag === "th" || tag === "td") && align !== null && ALIGNMENTS.has(align)) to.setAttribute("align", align);
	const language = from.getAttribute("class");
	if (tag === "code" && language !== null && LANGUAGE_CLASS.test(language)) to.setAttribute("class", language);
}

/** A link to a vault note, a plain http(s) link, or — any other scheme — its text. */
function linkCopy(element: Element, target: Element): void {
	const href = element.getAttribute("href") ?? "";
	const url = externalUrl(href);
	const path = url === null ? vaultPath(href) : null;
	const link = url !== null ? externalLink(target, url) : path !== null ? internalLink(target, path, "") : null;
	copyAllowed(element, link ?? target, true);
}

/** An image is never loaded: an http(s) one is a link to it (its alt text, or the URL), any other its alt text. */
function imageAsLink(element: Element, target: Element): void {
	const alt = element.getAttribute("alt") ?? "";
	const url = externalUrl(element.getAttribute("src") ?? "");
	if (url === null) appendText(target, alt);
	else externalLink(target, url).textContent = alt.trim() === "" ? url : alt;
}

/** The note part of a wiki link's target, as compared with cited notes. */
function noteKey(target: string): string {
	return target.split(/[#^]/)[0]!.trim().replace(/\.md$/i, "").toLowerCase();
}

/** The notes an embed may link to: each cited path, and its file name (Obsidian resolves both). */
function citedKeys(citedNotes: readonly string[]): Set<string> {
	const keys = new Set<string>();
	for (const note of citedNotes) {
		const key = noteKey(note);
		if (key === "") continue;
		keys.add(key);
		keys.add(key.split("/").pop()!);
	}
	return keys;
}

/** Wiki links in the tree's text (outside code and links) become internal links; uncited embeds stay text. */
function linkWikiText(root: Element, cited: ReadonlySet<string>): void {
	const texts: Text[] = [];
	const walker = root.ownerDocument.createTreeWalker(root, 4 /* NodeFilter.SHOW_TEXT */);
	for (let node = walker.nextNode(); node !== null; node = walker.nextNode()) {
		if (!insideCodeOrLink(node, root) && node.nodeValue?.includes("[[")) texts.push(node as Text);
	}
	for (const node of texts) {
		const parent = node.parentElement;
		if (parent === null) continue;
		const data = node.data;
		let last = 0;
		for (const match of data.matchAll(WIKI_LINK)) {
			const [whole, bang, target, alias] = match;
			const embed = bang === "!";
			const note = target!.trim();
			// A link with a scheme (`[[https://…]]`, `[[javascript%3A…]]` once decoded) is not a
			// note, nor one holding a character reference (read as a scheme by another reader:
			// `obsidian&#58;//`); an embed of an uncited note is text.
			if (!isVaultTarget(note) || (embed && !cited.has(noteKey(note)))) continue;
			if (match.index > last) node.before(data.slice(last, match.index));
			// createEl appends to the parent; before() then moves the link to where the text was.
			node.before(internalLink(parent, note, alias === undefined || alias.trim() === "" ? note : alias));
			last = match.index + whole.length;
		}
		if (last === 0) continue;
		if (last < data.length) node.before(data.slice(last));
		node.remove();
	}
}

function insideCodeOrLink(node: Node, root: Node): boolean {
	for (let parent = node.parentNode; parent !== null && parent !== root; parent = parent.parentNode) {
		const name = (parent as Element).localName;
		if (name === "code" || name === "pre" || name === "a") return true;
	}
	return false;
}

/**
 * Sanitises the parse of `markdown` (by `doc`'s window) into `root` (empty): kept elements
 * with kept attributes, links to notes or http(s) URLs.
 */
function sanitiseInto(markdown: string, root: HTMLElement, doc: Document, options: InertOptions): void {
	debugAssert(root.childNodes.length === 0, "an empty element to render into");
	copyAllowed(parsedBody(markdownToHtml(markdown), doc), root);
	// Adjacent texts (an image's alt text beside its neighbours) are read as the text they show.
	root.normalize();
	linkWikiText(root, citedKeys(options.citedNotes));
	debugAssertInert(root);
}

/** Renders `markdown` inertly into `container`, which must be empty. */
export function renderInert(markdown: string, container: HTMLElement, options: InertOptions): void {
	sanitiseInto(markdown, container, container.ownerDocument, options);
}

/**
 * `markdown` sanitised as for the view, in the body of a document of its own (parsed by
 * `doc`'s window, never shown): what `inertMarkdown` writes from.
 */
export function inertTree(markdown: string, doc: Document, options: InertOptions): HTMLElement {
	// A parsed document has no window (in a browser): `doc`'s parses the Markdown's HTML too.
	const body = parsedBody("", doc);
	sanitiseInto(markdown, body, doc, options);
	return body;
}

/** Attributes the sanitised tree may hold, by element; anything else is a bug in `copyAllowed`. */
const ATTRIBUTES: Record<string, readonly string[]> = {
	a: ["href", "class", "data-href", "target", "rel"],
	ol: ["start"],
	th: ["align"],
	td: ["align"],
	code: ["class"],
};

/** The invariant the view relies on, checked where it is made (cheap: the answer is small). */
function debugAssertInert(root: Element): void {
	for (const element of Array.from(root.querySelectorAll("*"))) {
		const tag = element.localName;
		const allowed = ATTRIBUTES[tag] ?? [];
		const bad = !KEPT.has(tag) || Array.from(element.attributes).some((attribute) => !allowed.includes(attribute.name));
		const href = element.getAttribute("href");
		const badLink = tag === "a" && (href === null || (externalUrl(href) === null && element.className !== INTERNAL_LINK));
		if (bad || badLink) throw new Error(`inert-markdown: <${tag}> left the allowlist`);
	}
}

// Writing: the sanitised tree back to Markdown.

/** How a citation mark (`markdownWithMarks`) is written: a group's `[[note#heading]]` links, already Markdown. */
export type MarkWriter = (text: string) => string;

/** Characters that could start Markdown or Obsidian syntax anywhere in a line: escaped in text. */
const ESCAPED = /[\\`*_[\]<>!&|~=$%{}#^]/g;

/** `text` as Markdown that shows exactly it: every character that could start syntax escaped. */
export function escapeText(text: string): string {
	return text.replace(ESCAPED, "\\$&");
}

/** The text `escapeText` escaped (a backslash before ASCII punctuation is that character, as in CommonMark). */
export function unescapeText(markdown: string): string {
	return markdown.replace(/\\([!-/:-@[-`{-~])/g, "$1");
}

/** A line's start that would open a block (a list item, a heading…) or indented code. */
function escapeLineStarts(block: string): string {
	return block
		.split("\n")
		.map((line) =>
			line
				.replace(/^[ \t]+/, "")
				.replace(/^([-+])(?=[ \t]|$)/, "\\$1")
				.replace(/^(\d{1,9})([.)])/, "$1\\$2"),
		)
		.join("\n");
}

/** A backtick run longer than any in `text`, at least `min` long. */
function fenceFor(text: string, min: number): string {
	const longest = Math.max(0, ...Array.from(text.matchAll(/`+/g), (run) => run[0].length));
	return "`".repeat(Math.max(min, longest + 1));
}

function inlineCode(text: string): string {
	const flat = text.replace(/\n/g, " ");
	const fence = fenceFor(flat, 1);
	// CommonMark strips one space on each side when both are there: padding keeps edge backticks apart.
	const pad = /^`|`$|^ .* $/.test(flat) || flat === "" ? " " : "";
	return `${fence}${pad}${flat}${pad}${fence}`;
}

/** A URL inside `<…>`: no space, `<`, `>` or line break can end it early. */
function linkDestination(url: string): string {
	return `<${url.replace(/[<>\s]/g, (c) => encodeURIComponent(c))}>`;
}

class MarkdownWriter {
	/** Inside a table cell a wiki link's `|` is written `\|` (Obsidian's way), not to end the cell. */
	private inCell = false;

	constructor(private readonly writeMarks: MarkWriter) {}

	/** Text of a text node: escaped, with citation marks written as their links. */
	private text(data: string): string {
		return this.writeMarks(escapeText(data));
	}

	inline(node: Node): string {
		return this.inlineOf(Array.from(node.childNodes));
	}

	/** Inline nodes, in order, as Markdown. */
	private inlineOf(children: readonly Node[]): string {
		let out = "";
		// A hard break writes its own line end: the parser's newline after `<br>` is not another.
		let afterBreak = false;
		for (const child of children) {
			const broke = afterBreak;
			afterBreak = false;
			if (child.nodeType === 3) {
				const data = (child as Text).data;
				out += this.text(broke ? data.replace(/^\n/, "") : data);
				continue;
			}
			if (child.nodeType !== 1) continue;
			const element = child as Element;
			switch (element.localName) {
				case "em":
					out += `*${this.inline(element)}*`;
					break;
				case "strong":
					out += `**${this.inline(element)}**`;
					break;
				case "del":
					out += `~~${this.inline(element)}~~`;
					break;
				case "code":
					out += inlineCode(this.writeMarks(element.textContent ?? ""));
					break;
				case "br":
					out += "\\\n";
					afterBreak = true;
					break;
				case "a":
					out += this.link(element, out.endsWith("!"));
					break;
				default:
					out += this.inline(element);
			}
		}
		return out;
	}

	/** A link; `afterBang`: the text before ends in `!`, so `[[` would read as an embed there. */
	private link(element: Element, afterBang: boolean): string {
		const text = this.inline(element);
		const href = element.getAttribute("href") ?? "";
		if (element.classList.contains(INTERNAL_LINK)) {
			const target = (element.getAttribute("data-href") ?? href).replace(/[[\]|\n]/g, " ").trim();
			// `\![[note]]` is an escaped `!` and a link to CommonMark, but too close to an embed to
			// leave to every reader: after a `!` the link is written as a Markdown link instead.
			if (afterBang) return `[${text}](<${target.replace(/[<>]/g, (c) => encodeURIComponent(c))}>)`;
			const label = (element.textContent ?? "").replace(/[[\]|\n]/g, " ").trim();
			const bar = this.inCell ? "\\|" : "|";
			return label === "" || label === target ? `[[${target}]]` : `[[${target}${bar}${label}]]`;
		}
		const url = externalUrl(href);
		debugAssert(url !== null, "a written link is http(s)");
		return url === null ? text : `[${text}](${linkDestination(url)})`;
	}

	blocks(node: Node): string[] {
		const blocks: string[] = [];
		let inline: Node[] = [];
		const flush = () => {
			const text = escapeLineStarts(this.inlineOf(inline).trim());
			if (text !== "") blocks.push(text);
			inline = [];
		};
		for (const child of Array.from(node.childNodes)) {
			const block = child.nodeType === 1 ? this.block(child as Element) : null;
			if (block === null) {
				inline.push(child);
				continue;
			}
			flush();
			if (block !== "") blocks.push(block);
		}
		flush();
		return blocks;
	}

	/** An element that is a block, written; null for an inline element. */
	private block(element: Element): string | null {
		const tag = element.localName;
		switch (tag) {
			case "p":
				return escapeLineStarts(this.inline(element).trim());
			case "h1":
			case "h2":
			case "h3":
			case "h4":
			case "h5":
			case "h6":
				return `${"#".repeat(Number(tag[1]))} ${this.inline(element).replace(/\\\n/g, " ").replace(/\n/g, " ").trim()}`;
			case "hr":
				return "***";
			case "blockquote":
				return this.blocks(element).join("\n\n").split("\n").map((line) => (line === "" ? ">" : `> ${line}`)).join("\n");
			case "pre":
				return this.fenced(element);
			case "ul":
			case "ol":
				return this.list(element);
			case "table":
				return this.table(element);
			default:
				return null;
		}
	}

	private fenced(pre: Element): string {
		const code = pre.querySelector("code");
		const text = this.writeMarks((code ?? pre).textContent ?? "").replace(/\n$/, "");
		const language = code?.getAttribute("class")?.replace(/^language-/, "") ?? "";
		const fence = fenceFor(text, 3);
		return `${fence}${/^[\w+-]*$/.test(language) ? language : ""}\n${text}\n${fence}`;
	}

	private list(list: Element): string {
		const ordered = list.localName === "ol";
		let number = Number(list.getAttribute("start") ?? "1");
		// A tight list (no paragraphs in its items) stays tight: its items' blocks are not set apart by blank lines.
		const loose = Array.from(list.children).some((item) => Array.from(item.children).some((child) => child.localName === "p"));
		const items: string[] = [];
		for (const item of Array.from(list.children)) {
			const marker = ordered ? `${number++}. ` : "- ";
			const indent = " ".repeat(marker.length);
			const body = this.blocks(item).join(loose ? "\n\n" : "\n");
			items.push(marker + body.split("\n").map((line, index) => (index === 0 || line === "" ? line : indent + line)).join("\n"));
		}
		return items.join(loose ? "\n\n" : "\n");
	}

	private table(table: Element): string {
		this.inCell = true;
		const rows = Array.from(table.querySelectorAll("tr")).map((row) =>
			Array.from(row.children).map((cell) => this.inline(cell).replace(/\\\n/g, " ").replace(/\n/g, " ").trim()),
		);
		this.inCell = false;
		const width = Math.max(1, ...rows.map((row) => row.length));
		const line = (cells: string[]) => `| ${Array.from({ length: width }, (_, index) => cells[index] ?? "").join(" | ")} |`;
		const [head = [], ...body] = rows;
		return [line(head), line(Array.from({ length: width }, () => "---")), ...body.map(line)].join("\n");
	}
}

function debugAssert(condition: boolean, what: string): void {
	if (!condition) throw new Error(`inert-markdown: ${what}`);
}

/**
 * `markdown` as inert Markdown for a note or the clipboard: parsed and sanitised as for the
 * view, then written back with its text escaped — no raw HTML, no image, no link but to a note
 * or an http(s) URL, no embed. `writeMarks` turns citation marks in escaped text into links.
 */
export function inertMarkdown(markdown: string, doc: Document, options: InertOptions, writeMarks: MarkWriter = (text) => text): string {
	return new MarkdownWriter(writeMarks).blocks(inertTree(markdown, doc, options)).join("\n\n");
}
