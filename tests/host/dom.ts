// A happy-dom window whose elements carry the helpers Obsidian adds to the DOM (setText, createEl…).

import { Window } from "happy-dom";

type Helpers = Pick<
	HTMLElement,
	| "setText"
	| "getText"
	| "empty"
	| "addClass"
	| "removeClass"
	| "toggleClass"
	| "hasClass"
	| "setAttr"
	| "getAttr"
	| "createDiv"
	| "createSpan"
>;

/** Applies Obsidian's DomElementInfo to a new element. */
function applyInfo(el: HTMLElement, info: DomElementInfo | string | undefined): void {
	if (info === undefined) return;
	if (typeof info === "string") {
		el.addClass(info);
		return;
	}
	if (info.cls !== undefined) el.addClass(...(Array.isArray(info.cls) ? info.cls : info.cls.split(" ").filter(Boolean)));
	if (info.text !== undefined) el.setText(info.text);
	if (info.title !== undefined) el.setAttr("title", info.title);
	if (info.placeholder !== undefined) el.setAttr("placeholder", info.placeholder);
	if (info.type !== undefined) el.setAttr("type", info.type);
	if (info.href !== undefined) el.setAttr("href", info.href);
	if (info.value !== undefined) (el as HTMLInputElement).value = info.value;
	for (const [key, value] of Object.entries(info.attr ?? {})) el.setAttr(key, value);
}

function createEl<K extends keyof HTMLElementTagNameMap>(
	this: HTMLElement,
	tag: K,
	info?: DomElementInfo | string,
	callback?: (el: HTMLElementTagNameMap[K]) => void,
): HTMLElementTagNameMap[K] {
	const el = this.ownerDocument.createElement(tag);
	applyInfo(el, info);
	const parent = (typeof info === "object" && info.parent) || this;
	if (typeof info === "object" && info.prepend) parent.insertBefore(el, parent.firstChild);
	else parent.appendChild(el);
	callback?.(el);
	return el;
}

const helpers: Helpers & { createEl: typeof createEl } = {
	setText(this: HTMLElement, value: string | DocumentFragment) {
		if (typeof value === "string") this.textContent = value;
		else this.replaceChildren(value);
	},
	getText(this: HTMLElement) {
		return this.textContent ?? "";
	},
	empty(this: HTMLElement) {
		this.replaceChildren();
	},
	addClass(this: HTMLElement, ...classes: string[]) {
		this.classList.add(...classes);
	},
	removeClass(this: HTMLElement, ...classes: string[]) {
		this.classList.remove(...classes);
	},
	toggleClass(this: HTMLElement, classes: string | string[], value: boolean) {
		for (const cls of Array.isArray(classes) ? classes : [classes]) this.classList.toggle(cls, value);
	},
	hasClass(this: HTMLElement, cls: string) {
		return this.classList.contains(cls);
	},
	setAttr(this: HTMLElement, name: string, value: string | number | boolean | null) {
		if (value === null) this.removeAttribute(name);
		else this.setAttribute(name, String(value));
	},
	getAttr(this: HTMLElement, name: string) {
		return this.getAttribute(name);
	},
	createEl,
	createDiv(this: HTMLElement, info?: DomElementInfo | string, callback?: (el: HTMLDivElement) => void) {
		return createEl.call(this, "div", info, callback as ((el: HTMLElement) => void) | undefined) as HTMLDivElement;
	},
	createSpan(this: HTMLElement, info?: DomElementInfo | string, callback?: (el: HTMLSpanElement) => void) {
		return createEl.call(this, "span", info, callback as ((el: HTMLElement) => void) | undefined) as HTMLSpanElement;
	},
};

export interface HostDom {
	window: Window;
	document: Document;
	/** Creates a detached element of the host document. */
	createElement<K extends keyof HTMLElementTagNameMap>(tag: K): HTMLElementTagNameMap[K];
	close(): Promise<void>;
}

/** A fresh DOM; Obsidian's helpers are installed on its Element prototype. */
export function createDom(): HostDom {
	const window = new Window({ url: "app://obsidian.md/index.html" });
	const proto = window.Element.prototype as unknown as Record<string, unknown>;
	for (const [name, fn] of Object.entries(helpers)) {
		Object.defineProperty(proto, name, { value: fn, configurable: true, writable: true });
	}
	const document = window.document as unknown as Document;
	return {
		window,
		document,
		createElement: (tag) => document.createElement(tag),
		close: () => window.happyDOM.close(),
	};
}
