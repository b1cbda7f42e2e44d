// Answers fetch nothing: before an answer is rendered as Markdown, everything that would make
// the renderer load a remote resource — image embeds with a URL, raw HTML (img, iframe,
// video, audio…), reference-style images — becomes a plain link or plain text. A model may
// copy such things from a note; rendering them would contact a third party. Internal links,
// wiki embeds of vault files and citations keep working. Code is left as it is (nothing in
// code is rendered).

/** A URL with a scheme (`https:`, `data:`, …) or protocol-relative (`//host`): not a vault path. */
const REMOTE = /^(?:[a-z][a-z0-9+.-]*:|\/\/)/i;

/** Fenced code blocks and inline code, which are shown, not rendered. */
const CODE = /(^|\n)(```|~~~)[^\n]*\n[\s\S]*?(?:\n\2[^\n]*(?=\n|$)|$)|`+[^`\n]*`+/g;

function inertText(text: string): string {
	return (
		text
			// `<https://…>` autolinks stay links, written so that no `<` is left for HTML.
			.replace(/<((?:https?|mailto):[^\s<>]+)>/gi, (_, url: string) => `[${url}](${url})`)
			// `![alt](https://…)` → `[alt](https://…)`: a link to click, not an image to load.
			.replace(/!\[([^\]\n]*)\]\(\s*<?([^)\s>]+)>?([^)\n]*)\)/g, (whole, alt: string, url: string, rest: string) =>
				REMOTE.test(url) ? `[${alt === "" ? url : alt}](${url}${rest})` : whole,
			)
			// `![[https://…]]` is not a vault file either.
			.replace(/!\[\[([^\]\n]+)\]\]/g, (whole, target: string) => (REMOTE.test(target.trim()) ? `[${target}](${target.trim()})` : whole))
			// Reference-style images (`![alt][ref]`, `![alt][]`): their target may be anywhere.
			.replace(/!\[([^\]\n]*)\]\[([^\]\n]*)\]/g, "[$1][$2]")
			// Raw HTML is shown as text: `<img …>` becomes the characters, not an element.
			.replace(/<(?=[a-z/!?])/gi, "&lt;")
	);
}

/** The answer's Markdown with nothing in it that loads a remote resource when rendered. */
export function inertMarkdown(markdown: string): string {
	let result = "";
	let last = 0;
	for (const match of markdown.matchAll(CODE)) {
		result += inertText(markdown.slice(last, match.index)) + match[0];
		last = match.index + match[0].length;
	}
	return result + inertText(markdown.slice(last));
}

/** What the network would be asked for; the app's own resource URLs (`app://`, mobile's `localhost`) are the vault's files. */
const FETCHED = /^(?:(?:https?|ftp):)?\/\/(?!localhost[:/])/i;

const MEDIA = "img, picture, source, video, audio, track, iframe, frame, embed, object, image, link, input[type='image']";
const SOURCE_ATTRIBUTES = ["src", "srcset", "data", "poster", "href", "xlink:href"];

/**
 * A second line of defence after rendering: any media element that points outside the vault
 * (a renderer's extension, a post-processor) is replaced by a plain link to what it pointed at.
 */
export function replaceRemoteMedia(container: HTMLElement): number {
	let replaced = 0;
	for (const element of Array.from(container.querySelectorAll(MEDIA))) {
		const url = SOURCE_ATTRIBUTES.map((name) => element.getAttribute(name)).find((value) => value !== null && FETCHED.test(value.trim()));
		const parent = element.parentElement;
		if (url === undefined || url === null || parent === null) continue;
		const href = url.trim().split(/\s/)[0] ?? "";
		const link = parent.createEl("a", { cls: "external-link", href, text: element.getAttribute("alt") ?? element.getAttribute("title") ?? href });
		element.replaceWith(link);
		replaced++;
	}
	return replaced;
}
