// A small Markdown renderer for the hosts' MarkdownRenderer: headings, paragraphs (soft line
// breaks), lists, fenced code, bold, italics, inline code, links, wiki links and character
// references in text — built as
// real DOM nodes (never innerHTML). No Node dependency: the browser harness uses it too.

const INLINE = /(\*\*([^*]+)\*\*)|(`([^`]+)`)|(\[\[([^\]]+)\]\])|(\[([^\]]+)\]\(([^)\s]+)\))|(\*([^*\s][^*]*)\*)|(_([^_\s][^_]*)_)/g;

/** Character references as Markdown decodes them in text (`&lt;` is a `<` shown, never a tag). */
function decodeEntities(text: string): string {
	return text.replace(/&(lt|gt|quot|#39|amp);/g, (_, name: string) => ({ lt: "<", gt: ">", quot: '"', "#39": "'", amp: "&" })[name] ?? "");
}

/** Appends `text` with inline formatting to `parent`. */
export function renderInline(parent: HTMLElement, text: string): void {
	let last = 0;
	for (const match of text.matchAll(INLINE)) {
		if (match.index > last) parent.append(decodeEntities(text.slice(last, match.index)));
		if (match[2] !== undefined) renderInline(parent.createEl("strong"), match[2]);
		else if (match[4] !== undefined) parent.createEl("code", { text: match[4] });
		else if (match[6] !== undefined) {
			const [target = "", alias] = match[6].split("|");
			parent.createEl("a", { cls: "internal-link", text: alias ?? target, href: target, attr: { "data-href": target } });
		} else if (match[8] !== undefined && match[9] !== undefined) {
			renderInline(parent.createEl("a", { cls: "external-link", href: match[9] }), match[8]);
		} else if (match[11] !== undefined) renderInline(parent.createEl("em"), match[11]);
		else if (match[13] !== undefined) renderInline(parent.createEl("em"), match[13]);
		last = match.index + match[0].length;
	}
	if (last < text.length) parent.append(decodeEntities(text.slice(last)));
}

/** Lines of one paragraph, joined by `<br>` as Obsidian does without strict line breaks. */
function renderLines(parent: HTMLElement, lines: string[]): void {
	lines.forEach((line, index) => {
		if (index > 0) parent.createEl("br");
		renderInline(parent, line.trim());
	});
}

const BULLET = /^\s*[-*+]\s+(.*)$/;
const NUMBERED = /^\s*\d+[.)]\s+(.*)$/;
const HEADING = /^(#{1,6})\s+(.*)$/;

/** Renders `markdown` into `el`. */
export function renderMarkdown(el: HTMLElement, markdown: string): void {
	const lines = markdown.replace(/\r\n?/g, "\n").split("\n");
	let index = 0;
	while (index < lines.length) {
		const line = lines[index] ?? "";
		if (line.trim() === "") {
			index++;
			continue;
		}
		if (/^\s*```/.test(line)) {
			const code: string[] = [];
			index++;
			while (index < lines.length && !/^\s*```/.test(lines[index] ?? "")) code.push(lines[index++] ?? "");
			index++;
			el.createEl("pre").createEl("code", { text: code.join("\n") });
			continue;
		}
		const heading = HEADING.exec(line);
		if (heading?.[1] !== undefined) {
			const tag = `h${heading[1].length}` as "h1";
			renderInline(el.createEl(tag), heading[2] ?? "");
			index++;
			continue;
		}
		for (const [pattern, tag] of [
			[BULLET, "ul"],
			[NUMBERED, "ol"],
		] as const) {
			if (!pattern.test(line)) continue;
			const list = el.createEl(tag);
			while (index < lines.length && pattern.test(lines[index] ?? "")) {
				renderInline(list.createEl("li"), pattern.exec(lines[index] ?? "")?.[1] ?? "");
				index++;
			}
			break;
		}
		if (index < lines.length && lines[index] === line && !BULLET.test(line) && !NUMBERED.test(line)) {
			const paragraph: string[] = [];
			while (index < lines.length) {
				const next = lines[index] ?? "";
				if (next.trim() === "" || BULLET.test(next) || NUMBERED.test(next) || HEADING.test(next) || /^\s*```/.test(next)) break;
				paragraph.push(next);
				index++;
			}
			renderLines(el.createEl("p"), paragraph);
		}
	}
}
