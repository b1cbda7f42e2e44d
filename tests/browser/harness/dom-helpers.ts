// The helpers Obsidian adds to the DOM (createEl, setText, addClass…), installed on a real browser's
// prototypes for the harness (the headless host has its own, on happy-dom).

function applyInfo(el: HTMLElement, info: DomElementInfo | string | undefined): void {
	if (info === undefined) return;
	if (typeof info === "string") {
		el.classList.add(...info.split(" ").filter(Boolean));
		return;
	}
	if (info.cls !== undefined) el.classList.add(...(Array.isArray(info.cls) ? info.cls : info.cls.split(" ").filter(Boolean)));
	if (info.text !== undefined) el.setText(info.text);
	if (info.title !== undefined) el.setAttribute("title", info.title);
	if (info.placeholder !== undefined) el.setAttribute("placeholder", info.placeholder);
	if (info.type !== undefined) el.setAttribute("type", info.type);
	if (info.href !== undefined) el.setAttribute("href", info.href);
	if (info.value !== undefined) (el as HTMLInputElement).value = info.value;
	for (const [key, value] of Object.entries(info.attr ?? {})) {
		if (value === null) el.removeAttribute(key);
		else el.setAttribute(key, String(value));
	}
}

function createElIn<K extends keyof HTMLElementTagNameMap>(
	parent: Node | null,
	tag: K,
	info?: DomElementInfo | string,
	callback?: (el: HTMLElementTagNameMap[K]) => void,
): HTMLElementTagNameMap[K] {
	const el = document.createElement(tag);
	applyInfo(el, info);
	const target = (typeof info === "object" && info.parent) || parent;
	if (target) {
		if (typeof info === "object" && info.prepend) target.insertBefore(el, target.firstChild);
		else target.appendChild(el);
	}
	callback?.(el);
	return el;
}

/** Installs the helpers on Node/Element prototypes and the global create* functions. */
export function installDomHelpers(): void {
	const nodeHelpers: Record<string, unknown> = {
		createEl(this: Node, tag: keyof HTMLElementTagNameMap, info?: DomElementInfo | string, callback?: (el: HTMLElement) => void) {
			return createElIn(this, tag, info, callback);
		},
		createDiv(this: Node, info?: DomElementInfo | string, callback?: (el: HTMLElement) => void) {
			return createElIn(this, "div", info, callback);
		},
		createSpan(this: Node, info?: DomElementInfo | string, callback?: (el: HTMLElement) => void) {
			return createElIn(this, "span", info, callback);
		},
		empty(this: Node) {
			while (this.firstChild) this.removeChild(this.firstChild);
		},
		detach(this: Node) {
			this.parentNode?.removeChild(this);
		},
		instanceOf(this: Node, type: new () => unknown) {
			return this instanceof type;
		},
	};
	const elementHelpers: Record<string, unknown> = {
		setText(this: HTMLElement, value: string | DocumentFragment) {
			if (typeof value === "string") this.textContent = value;
			else this.replaceChildren(value);
		},
		getText(this: HTMLElement) {
			return this.textContent ?? "";
		},
		addClass(this: HTMLElement, ...classes: string[]) {
			this.classList.add(...classes);
		},
		addClasses(this: HTMLElement, classes: string[]) {
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
		setAttrs(this: HTMLElement, attrs: Record<string, string | number | boolean | null>) {
			for (const [name, value] of Object.entries(attrs)) (this as unknown as { setAttr(n: string, v: unknown): void }).setAttr(name, value);
		},
		getAttr(this: HTMLElement, name: string) {
			return this.getAttribute(name);
		},
		show(this: HTMLElement) {
			this.classList.remove("harness-hidden");
		},
		hide(this: HTMLElement) {
			this.classList.add("harness-hidden");
		},
		isShown(this: HTMLElement) {
			return !this.classList.contains("harness-hidden");
		},
		toggle(this: HTMLElement, show: boolean) {
			this.classList.toggle("harness-hidden", !show);
		},
		find(this: HTMLElement, selector: string) {
			return this.querySelector(selector);
		},
		findAll(this: HTMLElement, selector: string) {
			return [...this.querySelectorAll(selector)];
		},
	};
	for (const [name, fn] of Object.entries(nodeHelpers)) Object.defineProperty(Node.prototype, name, { value: fn, configurable: true, writable: true });
	for (const [name, fn] of Object.entries(elementHelpers)) Object.defineProperty(Element.prototype, name, { value: fn, configurable: true, writable: true });
	const globals = window as unknown as Record<string, unknown>;
	globals.createEl = (tag: keyof HTMLElementTagNameMap, info?: DomElementInfo | string, callback?: (el: HTMLElement) => void) => createElIn(null, tag, info, callback);
	globals.createDiv = (info?: DomElementInfo | string, callback?: (el: HTMLElement) => void) => createElIn(null, "div", info, callback);
	globals.createSpan = (info?: DomElementInfo | string, callback?: (el: HTMLElement) => void) => createElIn(null, "span", info, callback);
	globals.createFragment = (callback?: (el: DocumentFragment) => void) => {
		const fragment = document.createDocumentFragment();
		callback?.(fragment);
		return fragment;
	};
	globals.activeDocument = document;
	globals.activeWindow = window;
}
