// Answers fetch nothing and act on nothing: the inert renderer and writer (plugin/views/
// inert-markdown.ts) on happy-dom, with a seeded fuzz over CommonMark's tricky shapes and the
// payloads of issue 22. (a) The live DOM after rendering holds no element or attribute that
// fetches and no link but to a note or an http(s) URL; (b) the written Markdown, parsed again
// with the same parser with raw HTML and every protocol allowed (as a permissive reader such
// as Obsidian would), holds none either. A failing seed prints itself; `INERT_FUZZ_SEED` and
// `INERT_FUZZ_CASES` replay or widen it.

import assert from "node:assert/strict";
import { after, test } from "node:test";
import { micromark, parse, postprocess, preprocess } from "micromark";
import { gfmStrikethrough, gfmStrikethroughHtml } from "micromark-extension-gfm-strikethrough";
import { gfmTable, gfmTableHtml } from "micromark-extension-gfm-table";
import type { AnswerPiece, Citation } from "../../plugin/core/memory-core-api";
import { answerWithWikiLinks } from "../../plugin/views/citations";
import { EXTERNAL_LINK, INTERNAL_LINK, inertMarkdown, inertTree, renderInert } from "../../plugin/views/inert-markdown";
import { seededRandom } from "../fake-bedrock/prng";
import { createDom } from "../host/dom";

const dom = createDom();
const doc = dom.document;
after(() => dom.close());

const CITED = { citedNotes: ["Trips/Lisbon"] };

/** Elements that load something, or run or style anything, in a browser. */
const FETCHING_ELEMENTS = "img, picture, source, video, audio, track, iframe, frame, frameset, embed, object, applet, image, link, style, script, svg, math, input, base, meta, form, body, table[background], portal";
/** Attributes that fetch or act, whatever element holds them. */
const FETCHING_ATTRIBUTE = /^(?:src|srcset|style|background|poster|data|action|formaction|xlink:href|lowsrc|dynsrc|ping|codebase|cite|longdesc|manifest|on.*)$/i;

/** What in `root` could fetch or act: an empty list when it is inert. */
function violations(root: ParentNode, linkRule: (link: Element) => boolean): string[] {
	const found: string[] = [];
	for (const element of Array.from(root.querySelectorAll(FETCHING_ELEMENTS))) found.push(`<${element.localName}>`);
	for (const element of Array.from(root.querySelectorAll("*"))) {
		for (const attribute of Array.from(element.attributes)) {
			if (FETCHING_ATTRIBUTE.test(attribute.name)) found.push(`${element.localName}[${attribute.name}]`);
			if (attribute.name === "href" && element.localName !== "a") found.push(`${element.localName}[href]`);
			if (/^\s*(?:javascript|vbscript|data|obsidian|file):/i.test(attribute.value)) found.push(`${element.localName}[${attribute.name}=${attribute.value}]`);
		}
		if (element.localName === "a" && element.hasAttribute("href") && !linkRule(element)) found.push(`a[href=${element.getAttribute("href")}]`);
	}
	return found;
}

/** `href` and its percent-decoded form (`javascript%3A…` is `javascript:…` to whoever decodes it). */
function spellings(href: string): string[] {
	try {
		return [href, decodeURIComponent(href)];
	} catch {
		return [href];
	}
}

const HAS_SCHEME = /^\s*(?:[a-z][a-z0-9+.-]*:|\/\/)/i;

/** In the live view: a link is a plain http(s) link, or a vault link whose target has no scheme, decoded or not. */
function liveLinkIsSafe(link: Element): boolean {
	const href = link.getAttribute("href") ?? "";
	if (link.classList.contains(EXTERNAL_LINK)) return /^https?:\/\/[^\s]+$/i.test(href) && new URL(href).protocol.startsWith("http");
	return link.classList.contains(INTERNAL_LINK) && spellings(href).every((form) => !HAS_SCHEME.test(form)) && link.getAttribute("data-href") === href;
}

/** In a written note read back: a link is to an http(s) URL or a relative vault path, decoded or not. */
function writtenLinkIsSafe(link: Element): boolean {
	const href = link.getAttribute("href") ?? "";
	return /^https?:\/\//i.test(href) || (href !== "" && spellings(href).every((form) => !HAS_SCHEME.test(form)));
}

/** `markdown` read by a permissive reader: raw HTML kept, every protocol allowed. */
function readPermissively(markdown: string): HTMLElement {
	const html = micromark(markdown, {
		allowDangerousHtml: true,
		allowDangerousProtocol: true,
		extensions: GFM,
		htmlExtensions: [gfmTableHtml(), gfmStrikethroughHtml()],
	});
	const inert = doc.implementation.createHTMLDocument("");
	inert.body.innerHTML = html;
	return inert.body;
}

const GFM = [gfmTable(), gfmStrikethrough({ singleTilde: false })];

/** `markdown` with its code (spans, fenced and indented blocks, as the parser reads them) blanked out. */
function outsideCode(markdown: string): string {
	const events = postprocess(parse({ extensions: GFM }).document().write(preprocess()(markdown, undefined, true)));
	const chars = markdown.split("");
	for (const [kind, token] of events) {
		if (kind !== "enter" || !["codeText", "codeFenced", "codeIndented"].includes(token.type)) continue;
		for (let index = token.start.offset; index < token.end.offset; index++) chars[index] = " ";
	}
	return chars.join("");
}

/** An embed Obsidian would transclude: `![[` outside code, its `!` not escaped. */
function hasEmbed(written: string): boolean {
	return /(^|[^\\])!\[\[/.test(outsideCode(written));
}

function rendered(markdown: string, options = CITED): HTMLElement {
	const container = doc.createElement("div");
	renderInert(markdown, container, options);
	return container;
}

// The fuzz.

/** Where a payload points: remote, other schemes, and encodings of them. */
const TARGETS = [
	"https://t.example/p.png",
	"http://t.example/x?y=1",
	"//t.example/p.png",
	"javascript:alert(1)",
	"jav&#x61;script:alert(1)",
	"&#106;avascript:alert(1)",
	"JaVaScRiPt:alert(1)",
	"obsidian://open?vault=v&file=Secret",
	"obsidian&#58;//open",
	"data:image/png;base64,AAAA",
	"vbscript:msgbox",
	"file:///etc/hosts",
	// Percent-encoded schemes: no scheme until decoded (issue 36).
	"javascript%3Aalert(1)",
	"obsidian%3A%2F%2Fnew%3Fvault%3Dv%26file%3DX",
	"data%3Atext%2Fhtml%2C%3Cscript%3Ealert(1)%3C%2Fscript%3E",
	"%2F%2Ft.example%2Fp.png",
	"https://t.example/a%20b.png",
	"Secret.md",
];

/** CommonMark's tricky shapes, and HTML that fetches; `P` is a target. */
const SHAPES = [
	"``code` <img src=P>``",
	"`` ` ``<img src=P>",
	"```a``<img src=P>`",
	"```x`y\n<img src=P>\n```",
	"~~~`\n<img src=\"P\">\n~~~",
	"```html\n<img src=P>\n```",
	"    <img src=P>",
	"![a\nb](P)",
	"![a](P\n\"title\")",
	"![a](<P> 'title')",
	"[r]: P\n\"title on the next line\"\n\n![r]",
	"![a [b] c](P)",
	"[![x](P)](P)",
	"![[a]](P)",
	"![x[y]z][r]\n\n[r]: P",
	"![r]\n\n[r]: P",
	"![r][]\n\n[r]: P",
	"![x][r]\n\n[r]: <P>",
	"[x][r]\n\n[r]: P 'title'",
	"<P>",
	"<javascript:alert(1)>",
	"<obsidian://open?vault=x>",
	"[x](P)",
	"[x](P \"t\")",
	"[x](<P>)",
	"<a href=\"P\">x</a>",
	"<div>\n<img src=P>\n</div>",
	"<!-- c --><img src=P>",
	"<script>fetch('P')</script>",
	"<style>body{background:url(P)}</style>",
	"a <img src=P> b",
	"<iframe src=P></iframe>",
	"<video src=P poster=P></video>",
	"<audio src=P>",
	"<object data=P></object>",
	"<embed src=P>",
	"<link rel=stylesheet href=P>",
	"<picture><source srcset=\"P 1x\"><img src=P></picture>",
	"<span style=\"background-image:url(P)\">x</span>",
	"<p style='background:url(P)'>y</p>",
	"<table background=P><tr><td>x</td></tr></table>",
	"<svg><image href=P /></svg>",
	"<svg><image xlink:href=\"P\"></image></svg>",
	"<img srcset=\"P 1x, P 2x\">",
	"<input type=image src=P>",
	"<body background=P>",
	"![[Secret]]",
	"![[Trips/Lisbon]]",
	"![[Lisbon#Day one|x]]",
	"![[P]]",
	"[[Note|alias]]",
	"[[P]]",
	"| a | b |\n|---|---|\n| ![i](P) | <img src=P> |",
	"> quoted ![q](P)\n> <img src=P>",
	"- item ![l](P)\n  - nested <img src=P>",
	"1. one\n2) two ![n](P)",
	"*em ![e](P)* **strong <img src=P>** ~~del~~",
	"Heading ![h](P)\n===",
	"# Title <img src=P>",
	"a\\\nb ![b](P)",
	"&lt;img src=P&gt; &amp; &#60;img src=P&#62;",
	"\\![x](P) \\<img src=P>",
	"[[x]] `![[y]]` ![[z]]",
];

const GLUE = ["", " ", "\n", "\n\n", "\n- ", "\n> ", "\n    ", " **", "`", "[", "]", "(", "\n```\n", "\n| c |\n|---|\n| "];

function fuzzCase(next: () => number): string {
	const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)]!;
	const parts: string[] = [];
	const count = 1 + Math.floor(next() * 5);
	for (let index = 0; index < count; index++) {
		const target = pick(TARGETS);
		parts.push(pick(GLUE), pick(SHAPES).replace(/P/g, () => target));
	}
	return parts.join("");
}

test("fuzz: neither the rendered answer nor the note written from it can fetch or act", () => {
	const seed = Number(process.env.INERT_FUZZ_SEED ?? 22);
	const cases = Number(process.env.INERT_FUZZ_CASES ?? 1000);
	const next = seededRandom(seed);
	let dangerousInputs = 0;
	for (let index = 0; index < cases; index++) {
		const markdown = fuzzCase(next);
		const replay = `seed ${seed}, case ${index}: ${JSON.stringify(markdown)}`;
		// The input itself, read permissively, would fetch or act: the defence is what stops it.
		if (violations(readPermissively(markdown), writtenLinkIsSafe).length > 0) dangerousInputs++;
		const live = rendered(markdown);
		assert.deepEqual(violations(live, liveLinkIsSafe), [], `rendered: ${replay}\n${live.innerHTML}`);
		const written = inertMarkdown(markdown, doc, CITED);
		assert.deepEqual(violations(readPermissively(written), writtenLinkIsSafe), [], `written: ${replay}\n${written}`);
		assert.ok(!hasEmbed(written), `written embed: ${replay}\n${written}`);
		// What is written shows the same when rendered again: nothing is lost to the escaping.
		const shown = (text: string) => (rendered(text).textContent ?? "").replace(/\s+/g, " ").trim();
		assert.equal(shown(written), shown(markdown), `round trip: ${replay}\n${written}`);
	}
	assert.ok(dangerousInputs > cases / 2, `most inputs must be dangerous when read permissively (${dangerousInputs} of ${cases})`);
});

// The rules, one case each.

test("raw HTML is text, images are links to click, and only http(s) links are links", () => {
	const live = rendered('A <img src="https://t.example/i.gif"> ![pixel](https://t.example/p.png) [guide](https://example.org/g) [run](javascript:alert(1)) [open](obsidian://open?vault=v) <https://example.org>');
	assert.match(live.textContent ?? "", /<img src="https:\/\/t\.example\/i\.gif">/, "raw HTML is shown as its characters");
	const links = Array.from(live.querySelectorAll("a")).map((link) => [link.className, link.getAttribute("href"), link.textContent]);
	assert.deepEqual(links, [
		[EXTERNAL_LINK, "https://t.example/p.png", "pixel"],
		[EXTERNAL_LINK, "https://example.org/g", "guide"],
		[EXTERNAL_LINK, "https://example.org/", "https://example.org"],
	]);
	assert.match(live.textContent ?? "", /run open/, "other schemes keep their text, not their link");
	for (const link of Array.from(live.querySelectorAll(`a.${EXTERNAL_LINK}`))) assert.equal(link.getAttribute("rel"), "noopener nofollow noreferrer");
});

test("wiki links open notes; an embed of a cited note is a link, of any other note plain text", () => {
	const live = rendered("See [[Plans|the plans]], ![[Lisbon#Day one]], ![[Secret]] and `[[code]]`; [draft](Drafts/Plan%20B.md).");
	const links = Array.from(live.querySelectorAll(`a.${INTERNAL_LINK}`)).map((link) => [link.getAttribute("data-href"), link.textContent]);
	assert.deepEqual(links, [
		["Plans", "the plans"],
		["Lisbon#Day one", "Lisbon#Day one"],
		["Drafts/Plan B.md", "draft"],
	]);
	assert.match(live.textContent ?? "", /!\[\[Secret\]\]/, "the uncited embed is its text");
	assert.equal(live.querySelector("code")?.textContent, "[[code]]", "code is never linked");
	assert.equal(rendered("![[Lisbon]]", { citedNotes: [] }).querySelector("a"), null, "uncited: text");
});

test("ordinary Markdown renders as Markdown: headings, lists, emphasis, code, quotes, tables", () => {
	const live = rendered("# Trip\n\n- **Ana** and *Bob*\n- ~~Porto~~ Lisbon\n\n1. fly\n2. walk\n\n> a quote\n\n```js\nlet x = 1 < 2;\n```\n\n| day | where |\n|:---|---:|\n| 1 | Alfama |");
	assert.deepEqual(
		Array.from(live.children).map((element) => element.localName),
		["h1", "ul", "ol", "blockquote", "pre", "table"],
	);
	assert.equal(live.querySelector("pre code")?.className, "language-js");
	assert.equal(live.querySelector("pre code")?.textContent, "let x = 1 < 2;\n");
	assert.equal(live.querySelector("td")?.getAttribute("align"), "left");
});

test("written Markdown escapes what could be syntax and reads back as the same answer", () => {
	const markdown = "# Plan\n\nAna & Bob: 3 < 4, a_b, #tag, 50% {x} |pipe| ~tilde~ $5 ^caret ==mark==\n\n- one ![[Secret]]\n- two <img src=x>\n\n```\n`ticks` ``` inside\n```\n\nUse `` a`b `` here.";
	const written = inertMarkdown(markdown, doc, { citedNotes: [] });
	assert.equal(
		written,
		"# Plan\n\nAna \\& Bob: 3 \\< 4, a\\_b, \\#tag, 50\\% \\{x\\} \\|pipe\\| \\~tilde\\~ \\$5 \\^caret \\=\\=mark\\=\\=\n\n- one \\!\\[\\[Secret\\]\\]\n- two \\<img src\\=x\\>\n\n````\n`ticks` ``` inside\n````\n\nUse ``a`b`` here.",
	);
	assert.equal(rendered(written).innerHTML, rendered(markdown).innerHTML, "written and read again, the answer is the same");
});

test("a line that would start a block is escaped in written text", () => {
	const written = inertMarkdown("a\n\\- not a list\n1\\. not a list\n\\# not a heading", doc, { citedNotes: [] });
	assert.equal(written, "a\n\\- not a list\n1\\. not a list\n\\# not a heading");
	assert.equal(rendered(written).querySelectorAll("li, h1").length, 0);
});

const memoryCitation = (number: number, id: string, sourcePath: string, heading: string | null): Citation => ({
	fileKind: "note",
	page: null,
	number,
	kind: "memory",
	id,
	summary: `summary ${id}`,
	sourcePath,
	heading,
	lineStart: 3,
	lineEnd: 3,
	memoryIds: [],
});

test("the copied answer is inert; its citations are wiki links and a cited note's embed a link", () => {
	const pieces: AnswerPiece[] = [
		{ kind: "text", text: "Ana flies <img src=https://t.example/p.gif> ![[Lisbon]] ![[Secret]] [x](javascript:alert(1)) " },
		{ kind: "citation", number: 1 },
		{ kind: "text", text: "." },
	];
	const citations = [memoryCitation(1, "m1", "Trips/Lisbon.md", "Lisbon trip")];
	const written = answerWithWikiLinks({ pieces, citations }, () => undefined, doc);
	assert.equal(written, "Ana flies \\<img src\\=https://t.example/p.gif\\> [[Lisbon]] \\!\\[\\[Secret\\]\\] x [[Trips/Lisbon#Lisbon trip]].");
});

test("the sanitised tree is built in a parse-only document, never in the one it is shown in", () => {
	const tree = inertTree("![p](https://t.example/p.png)", doc, CITED);
	assert.notEqual(tree.ownerDocument, doc);
	assert.equal(tree.querySelector("img"), null);
	assert.equal(tree.querySelector("a")?.getAttribute("href"), "https://t.example/p.png");
});

test("lists are written tight or loose as they were, nested lists under their items", () => {
	const tight = "- a\n  - b\n  - c\n- d";
	assert.equal(inertMarkdown(tight, doc, { citedNotes: [] }), tight);
	const loose = "1. one\n\n2. two\n\n   more";
	assert.equal(inertMarkdown(loose, doc, { citedNotes: [] }), loose);
	assert.equal(rendered(inertMarkdown(tight, doc, { citedNotes: [] })).innerHTML, rendered(tight).innerHTML);
});
