// micromark's decoder of named character references (`&copy;`) for main.js, in place of the
// package's browser build (scripts/lib/bundle.mjs aliases `decode-named-character-reference`
// here). That build makes an element of the live document when main.js loads and decodes by
// writing `innerHTML` into it: main.js must load where no document is yet (tests/plugin/
// mobile-vm.test.ts), and answers touch the live document only through the allowlist
// (inert-markdown.ts). The package's other build carries the 2,125 names as a table (about
// 25 KB more). Here a reference is decoded by `DOMParser` into a document of its own, when met.

/** The character(s) `&value;` stands for, or false when it is no complete reference (the package's contract). */
export function decodeNamedCharacterReference(value: string): string | false {
	const Parser = activeDocument.defaultView?.DOMParser;
	if (Parser === undefined) return false;
	const reference = `&${value};`;
	const character = new Parser().parseFromString(reference, "text/html").body.textContent ?? "";
	// As the package: `&notit;` parses as `¬it;` — a reference that ends before its semicolon is not this one.
	if (character.endsWith(";") && value !== "semi") return false;
	return character === reference ? false : character;
}
