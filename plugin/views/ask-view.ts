// The side panel for questions: a conversation with the memory. Asks the core (each question
// with the conversation's earlier turns, so follow-ups work), renders answers as Markdown with
// numbered, clickable citations, keeps the earlier turns above; "New conversation" starts afresh.

import { ItemView, Keymap, Notice, Platform, type TFile, type WorkspaceLeaf, normalizePath } from "obsidian";
import { errorCode, errorMessage } from "../core/core-error";
import type { Citation, EarlierTurn, Memory, QueryAnswer, QuestionScope } from "../core/memory-core-api";
import { notesWithTag } from "../vault/vault-index";
import { type SourcePlace, answerParts, answerWithWikiLinks, citationKey, citedNotes, markdownWithMarks, splitAtMarks, placeLabel } from "./citations";
import { answerCostText, consideredText, droppedCitationsText, plannedText } from "./considered-text";
import { type SavedTurn, conversationFileName, conversationToMarkdown } from "./conversation-note";
import { type ErrorAdvice, adviceFor, connectionAdvice } from "./error-advice";
import { INTERNAL_LINK, inertMarkdown, renderInert } from "./inert-markdown";
import { placeOf } from "./memory-place";
import type { MemoryPort } from "./memory-port";
import { openSource } from "./open-source";
import { type ScopeItem, questionScope, scopeLabel } from "./question-scope";
import { ScopeBar } from "./scope-bar";

export const ASK_VIEW_TYPE = "memory-agent-ask";

export interface AskViewDeps {
	memory: MemoryPort;
	openSettings(): void;
	/** Where conversations are saved, and whether every one is. */
	conversations(): { folder: string; autoSave: boolean };
	/** Shows the status bar's line in `el` too (a phone has no status bar); returns the undo. */
	mirrorStatus(el: HTMLElement): () => void;
}

/** The core refused a question that may pass a spending limit; the user decides. */
const OVER_LIMIT = "budget.over_limit";

export class AskMemoryView extends ItemView {
	private historyEl!: HTMLElement;
	private inputEl!: HTMLTextAreaElement;
	private askButton!: HTMLButtonElement;
	private stopButton!: HTMLButtonElement;
	/** Abandons the question in flight (Stop, Escape); null when none is. */
	private stopQuestion: (() => void) | null = null;
	private newConversationButton!: HTMLButtonElement;
	private busy = false;
	/** The conversation so far, oldest first: what a follow-up is asked with. */
	private turns: EarlierTurn[] = [];
	/** The conversation's latest answer (for "Insert last answer here"). */
	private lastAnswer: QueryAnswer | null = null;
	/** The conversation as its note keeps it, and the note once saved. */
	private saved: SavedTurn[] = [];
	private savedPath: string | null = null;
	private startedAt = 0;
	private saveButton!: HTMLButtonElement;
	/** What the next questions are limited to; it stays until removed or a new conversation. */
	private scopeBar!: ScopeBar;
	private unmirrorStatus: (() => void) | undefined;
	/** Citations of every answer in this conversation, so an earlier answer's insight can still expand. */
	private sessionCitations: Citation[] = [];
	/** Memories by id, asked for when an insight's memories or a copy need them. */
	private readonly memoriesById = new Map<string, Memory>();

	constructor(
		leaf: WorkspaceLeaf,
		private readonly deps: AskViewDeps,
	) {
		super(leaf);
		this.icon = "brain";
	}

	getViewType(): string {
		return ASK_VIEW_TYPE;
	}

	getDisplayText(): string {
		return "Ask memory";
	}

	override getIcon(): string {
		return "brain";
	}

	override async onOpen(): Promise<void> {
		const root = this.contentEl;
		root.empty();
		root.addClass("memory-agent-ask");
		const toolbar = root.createDiv({ cls: "memory-agent-ask-toolbar" });
		// Progress and failures, where a phone shows no status bar.
		if (Platform.isMobile) this.unmirrorStatus = this.deps.mirrorStatus(toolbar.createDiv({ cls: "memory-agent-ask-status" }));
		this.saveButton = toolbar.createEl("button", { cls: "memory-agent-save-conversation", text: "Save as note" });
		this.saveButton.addEventListener("click", () => void this.saveConversation());
		this.newConversationButton = toolbar.createEl("button", { cls: "memory-agent-new-conversation", text: "New conversation" });
		this.newConversationButton.addEventListener("click", () => this.newConversation());
		// New answers are announced to screen readers as they arrive.
		this.historyEl = root.createDiv({ cls: "memory-agent-history", attr: { "aria-live": "polite", "aria-relevant": "additions" } });
		this.showEmpty();
		const form = root.createDiv({ cls: "memory-agent-ask-form" });
		this.scopeBar = new ScopeBar(this.app, form, () => this.inputEl.focus());
		this.inputEl = form.createEl("textarea", {
			cls: "memory-agent-question-input",
			attr: { rows: "3", placeholder: "Ask your memory…", "aria-label": "Question" },
		});
		const row = form.createDiv({ cls: "memory-agent-ask-row" });
		// A soft keyboard has no Shift+Enter: on a phone Enter is a new line and the button sends.
		const mobile = Platform.isMobile;
		row.createSpan({ cls: "memory-agent-hint", text: mobile ? "Tap Ask to send" : "Enter to ask · Shift+Enter for a new line" });
		this.askButton = row.createEl("button", { cls: "mod-cta memory-agent-ask-button", text: "Ask", attr: { "aria-label": "Send the question" } });
		this.askButton.addEventListener("click", () => void this.askFromInput());
		this.stopButton = row.createEl("button", { cls: "memory-agent-stop-button", text: "Stop", attr: { "aria-label": "Stop the question" } });
		this.stopButton.addClass("memory-agent-hidden");
		this.stopButton.addEventListener("click", () => this.stop());
		root.addEventListener("keydown", (event) => {
			if (event.key === "Escape" && this.stopQuestion !== null) {
				event.preventDefault();
				this.stop();
			}
		});
		this.inputEl.addEventListener("input", () => this.offerMention());
		this.inputEl.addEventListener("keydown", (event) => {
			if (!mobile && event.key === "Enter" && !event.shiftKey && !event.isComposing) {
				event.preventDefault();
				void this.askFromInput();
			}
		});
	}

	override async onClose(): Promise<void> {
		this.unmirrorStatus?.();
		this.contentEl.empty();
	}

	/** Forgets the conversation and its scope: the next question stands alone. */
	newConversation(): void {
		if (this.busy) return;
		this.scopeBar.clear();
		this.turns = [];
		this.lastAnswer = null;
		this.saved = [];
		this.savedPath = null;
		this.sessionCitations = [];
		this.historyEl.empty();
		this.showEmpty();
		this.inputEl.focus();
	}

	private showEmpty(): void {
		this.historyEl.createDiv({
			cls: "memory-agent-empty",
			text: "Ask anything about what you wrote: people, places, plans, dates. Answers link to the notes they come from. Follow-up questions carry on the conversation.",
		});
		this.newConversationButton.disabled = true;
		this.saveButton.disabled = true;
	}

	/**
	 * Saves the conversation as a note in the conversation folder (the same note again once
	 * saved) and returns it; null when there is nothing to save yet.
	 */
	async saveConversation(): Promise<TFile | null> {
		if (this.saved.length === 0) {
			new Notice("Ask a question first: then the conversation can be saved.");
			return null;
		}
		const { vault } = this.app;
		const text = conversationToMarkdown(this.saved, this.startedAt);
		const existing = this.savedPath === null ? null : vault.getFileByPath(this.savedPath);
		if (existing !== null) {
			await vault.modify(existing, text);
			return existing;
		}
		const folder = normalizePath(this.deps.conversations().folder);
		if (!(await vault.adapter.exists(folder))) await vault.createFolder(folder);
		const name = conversationFileName(this.startedAt);
		let path = normalizePath(`${folder}/${name}`);
		for (let copy = 2; vault.getFileByPath(path) !== null; copy++) path = normalizePath(`${folder}/${name.replace(/\.md$/, ` ${copy}.md`)}`);
		const file = await vault.create(path, text);
		this.savedPath = file.path;
		return file;
	}

	/** Shows a saved conversation and carries it on: the next question is its follow-up. */
	async continueConversation(turns: readonly SavedTurn[], path: string): Promise<void> {
		if (this.busy) return;
		this.newConversation();
		this.historyEl.empty();
		for (const turn of turns) {
			const exchange = this.historyEl.createDiv({ cls: "memory-agent-exchange is-saved" });
			exchange.createDiv({ cls: "memory-agent-question", text: turn.question });
			if (turn.scope !== undefined) exchange.createDiv({ cls: "memory-agent-asked-about", text: `About ${turn.scope.join(", ")}` });
			const body = exchange.createDiv({ cls: "memory-agent-answer" }).createDiv({ cls: "memory-agent-answer-body markdown-rendered" });
			// A saved note may have been edited since: it is rendered and written again as inertly as an answer.
			renderInert(turn.answer, body, { citedNotes: [] });
			this.wireLinks(body, path);
		}
		this.turns = turns.map((turn) => ({ question: turn.question, answer: turn.answer, cited: [...turn.cited] }));
		this.saved = turns.map((turn) => ({ ...turn, answer: inertMarkdown(turn.answer, this.contentEl.ownerDocument, { citedNotes: [] }) }));
		this.savedPath = path;
		this.startedAt = turns[0]?.askedAt || Date.now();
		this.newConversationButton.disabled = turns.length === 0;
		this.saveButton.disabled = turns.length === 0;
		this.inputEl.focus();
	}

	focusInput(): void {
		this.inputEl.focus();
	}

	/** Limits the next questions to `item` too (this note, a selection), and waits for the question. */
	addScope(item: ScopeItem): void {
		this.scopeBar.add(item);
		this.inputEl.focus();
	}

	/** The scope items shown now. */
	scopeItems(): readonly ScopeItem[] {
		return this.scopeBar.current();
	}

	/**
	 * `[[` or an `@` starting a word opens the note suggester; the chosen note joins the scope
	 * and its name replaces the trigger in the question.
	 */
	private offerMention(): void {
		const input = this.inputEl;
		const at = input.selectionStart ?? input.value.length;
		const before = input.value.slice(0, at);
		const trigger = before.endsWith("[[") ? "[[" : /(^|\s)@$/.test(before) ? "@" : null;
		if (trigger === null) return;
		this.scopeBar.pickNote((file) => {
			const start = at - trigger.length;
			const mention = `[[${file.basename}]] `;
			input.value = input.value.slice(0, start) + mention + input.value.slice(at);
			input.selectionStart = input.selectionEnd = start + mention.length;
			input.focus();
		});
	}

	/** The scope the core applies, a tag given as its notes; a string says why it cannot be asked. */
	private async resolveScope(): Promise<QuestionScope | undefined | string> {
		const items = this.scopeBar.current();
		const tagged = new Map<string, string[]>();
		for (const item of items) if (item.kind === "tag") tagged.set(item.tag, await notesWithTag(this.app, item.tag));
		const result = questionScope(items, (tag) => tagged.get(tag) ?? []);
		return "problem" in result ? result.problem : result.scope;
	}

	/** Asks `question` as if typed; resolves when the answer (or the error) is shown. */
	async ask(question: string, allowOverLimit = false): Promise<void> {
		const text = question.trim();
		if (text === "" || this.busy) return;
		this.historyEl.querySelector(".memory-agent-empty")?.remove();
		const exchange = this.historyEl.createDiv({ cls: "memory-agent-exchange" });
		exchange.createDiv({ cls: "memory-agent-question", text });
		const about = this.scopeBar.current().map(scopeLabel);
		if (about.length > 0) exchange.createDiv({ cls: "memory-agent-asked-about", text: `About ${about.join(", ")}` });
		const answerEl = exchange.createDiv({ cls: "memory-agent-answer" });
		const thinking = answerEl.createDiv({ cls: "memory-agent-thinking", text: "Thinking…" });
		this.setBusy(true);
		exchange.scrollIntoView({ block: "end" });
		try {
			const answer = await this.untilStopped((stopped) => this.query(text, allowOverLimit, stopped));
			thinking.remove();
			if (answer === null) {
				answerEl.createDiv({ cls: "memory-agent-stopped", text: "Stopped. Nothing more was sent for this question." });
				return;
			}
			await this.renderAnswer(answerEl, answer);
			if (answer.askedModel) {
				const cited = answer.citations.filter((citation) => citation.kind === "memory").map((citation) => citation.id);
				// The core's text of the pieces, with markers: what the model reads back in a follow-up.
				this.turns.push({ question: text, answer: answer.answer, cited });
				this.lastAnswer = answer;
				if (this.saved.length === 0) this.startedAt = Date.now();
				const scope = this.scopeBar.current().map(scopeLabel);
				this.saved.push({ question: text, answer: await this.asMarkdown(answer), cited, askedAt: Date.now(), ...(scope.length > 0 ? { scope } : {}) });
				this.newConversationButton.disabled = false;
				this.saveButton.disabled = false;
				if (this.deps.conversations().autoSave) await this.saveConversation();
			}
		} catch (error) {
			thinking.remove();
			if (errorCode(error) === OVER_LIMIT) this.renderOverLimit(exchange, answerEl, errorMessage(error), text);
			else this.renderError(answerEl, error instanceof NotReadyError ? error.advice : adviceFor(error), text);
		} finally {
			this.setBusy(false);
			this.inputEl.focus();
		}
	}

	/**
	 * `question`'s answer, or null once the user stops it: the panel is free at once, the core
	 * sends nothing more for it (`stopQuestions`), and its reply, if one ever comes, is dropped.
	 */
	private async untilStopped(ask: (stopped: () => boolean) => Promise<QueryAnswer>): Promise<QueryAnswer | null> {
		let wasStopped = false;
		const stopped = new Promise<null>((resolve) => {
			this.stopQuestion = () => {
				this.stopQuestion = null;
				wasStopped = true;
				void this.deps.memory.store()?.stopQuestions().catch(() => undefined);
				resolve(null);
			};
		});
		// Stopped before it reached the core (while its scope was resolved): it is never sent.
		const question = ask(() => wasStopped);
		try {
			return await Promise.race([question, stopped]);
		} finally {
			this.stopQuestion = null;
			// A reply that comes after Stop is not shown; its failure is nobody's concern either.
			question.catch(() => undefined);
		}
	}

	/** Stops the question in flight, if any. */
	stop(): void {
		this.stopQuestion?.();
	}

	private async askFromInput(): Promise<void> {
		const question = this.inputEl.value;
		if (question.trim() === "" || this.busy) return;
		this.inputEl.value = "";
		await this.ask(question);
	}

	/** A spending limit would be passed: say so, and let the user ask anyway. */
	private renderOverLimit(exchange: HTMLElement, answerEl: HTMLElement, message: string, question: string): void {
		answerEl.createEl("p", { cls: "memory-agent-over-limit", text: message });
		const button = answerEl.createEl("button", { cls: "memory-agent-ask-anyway", text: "Ask anyway" });
		button.addEventListener("click", () => {
			exchange.remove();
			void this.ask(question, true);
		});
	}

	private async query(question: string, allowOverLimit: boolean, stopped: () => boolean): Promise<QueryAnswer> {
		const { memory } = this.deps;
		const store = memory.store();
		if (store === undefined) throw new NotReadyError({ title: memory.describe(), detail: "", next: "retry" });
		// The last pushed status says whether the model will be needed: no round trip to the
		// worker (which may be busy remembering) before the question leaves.
		const issue = memory.connectionIssue();
		if (issue !== null && (memory.status()?.memories ?? 1) > 0) throw new NotReadyError(connectionAdvice(issue));
		const scope = await this.resolveScope();
		if (typeof scope === "string") throw new NotReadyError({ title: scope, detail: "", next: "none" });
		this.memoriesById.clear();
		if (stopped()) throw new NotReadyError({ title: "Stopped", detail: "", next: "none" });
		const answer = await store.ask(question, allowOverLimit, [...this.turns], scope);
		// Asking records usage: save it with the next debounced write.
		memory.changed();
		return answer;
	}

	private setBusy(busy: boolean): void {
		this.busy = busy;
		this.inputEl.disabled = busy;
		this.askButton.disabled = busy;
		this.askButton.toggleClass("memory-agent-hidden", busy);
		this.stopButton.toggleClass("memory-agent-hidden", !busy);
		this.newConversationButton.disabled = busy || this.turns.length === 0;
		this.saveButton.disabled = busy || this.saved.length === 0;
		this.contentEl.toggleClass("is-working", busy);
	}

	private async renderAnswer(answerEl: HTMLElement, answer: QueryAnswer): Promise<void> {
		this.sessionCitations.push(...answer.citations);
		const body = answerEl.createDiv({ cls: "memory-agent-answer-body markdown-rendered" });
		const { markdown, groups } = markdownWithMarks(answerParts(answer.pieces, answer.citations));
		renderInert(markdown, body, { citedNotes: citedNotes(answer.citations) });
		this.linkCitations(body, groups, answerEl);
		this.wireLinks(body, "");

		if (answer.citations.length > 0) {
			const sources = answerEl.createEl("ol", { cls: "memory-agent-sources" });
			for (const citation of answer.citations) this.renderSource(sources, citation);
		}
		const footer = answerEl.createDiv({ cls: "memory-agent-answer-footer" });
		const dropped = droppedCitationsText(answer);
		if (dropped !== "") footer.createSpan({ cls: "memory-agent-dropped-citations", text: dropped });
		const considered = consideredText(answer);
		if (considered !== "") footer.createSpan({ cls: "memory-agent-considered", text: considered });
		const planned = plannedText(answer);
		if (planned !== "") footer.createSpan({ cls: "memory-agent-planned", text: planned });
		const cost = answerCostText(answer);
		if (cost !== "") footer.createSpan({ cls: "memory-agent-cost", text: cost });
		const copy = footer.createEl("button", { cls: "memory-agent-copy", text: "Copy", attr: { "aria-label": "Copy the answer with links to the notes" } });
		copy.addEventListener("click", () => void this.copy(answer, copy));
	}

	/** Links to vault notes open in the workspace (Obsidian's link resolution, from `sourcePath`). */
	private wireLinks(body: HTMLElement, sourcePath: string): void {
		for (const link of Array.from(body.querySelectorAll<HTMLAnchorElement>(`a.${INTERNAL_LINK}`))) {
			link.addEventListener("click", (event) => {
				event.preventDefault();
				void this.app.workspace.openLinkText(link.getAttribute("data-href") ?? "", sourcePath, Keymap.isModEvent(event));
			});
		}
	}

	/** Replaces the marks `markdownWithMarks` left in the rendered answer with numbered links, one group per mark. */
	private linkCitations(body: HTMLElement, groups: readonly Citation[][], answerEl: HTMLElement): void {
		const walker = body.ownerDocument.createTreeWalker(body, 4 /* NodeFilter.SHOW_TEXT */);
		const texts: Text[] = [];
		for (let node = walker.nextNode(); node !== null; node = walker.nextNode()) texts.push(node as Text);
		for (const node of texts) {
			const split = splitAtMarks(node.data);
			const parent = node.parentElement;
			if ((split.length === 1 && typeof split[0] === "string") || parent === null) continue;
			for (const part of split) {
				if (typeof part === "string") {
					node.before(part);
					continue;
				}
				// createEl appends to the parent; before() then moves the mark to where the marker was.
				const sup = parent.createEl("sup", { cls: "memory-agent-cite-mark" });
				node.before(sup);
				for (const citation of groups[part] ?? []) this.citeLink(sup, citation, answerEl);
			}
			node.remove();
		}
	}

	private citeLink(sup: HTMLElement, citation: Citation, answerEl: HTMLElement): void {
		const link = sup.createEl("a", {
			cls: ["memory-agent-cite", `is-${citation.kind}`],
			text: String(citation.number),
			href: "#",
			attr: { "data-citation": citationKey(citation.kind, citation.id), "aria-label": citation.summary },
		});
		link.addEventListener("click", (event) => {
			event.preventDefault();
			void this.follow(citation, answerEl);
		});
	}

	/** One numbered entry under the answer: the cited memory or insight, clickable. */
	private renderSource(list: HTMLElement, citation: Citation): void {
		const item = list.createEl("li", { cls: ["memory-agent-source", `is-${citation.kind}`], attr: { value: String(citation.number), "data-citation": citationKey(citation.kind, citation.id) } });
		if (citation.kind === "memory") {
			this.sourceLink(item, citation.summary, citation);
			return;
		}
		const toggle = item.createEl("a", { cls: "memory-agent-insight-toggle", text: citation.summary, href: "#", attr: { "aria-expanded": "false" } });
		item.createSpan({ cls: "memory-agent-source-where", text: `Insight from ${citation.memoryIds.length} memories` });
		const connected = item.createEl("ul", { cls: "memory-agent-connected" });
		connected.addClass("memory-agent-hidden");
		toggle.addEventListener("click", (event) => {
			event.preventDefault();
			void this.toggleInsight(item);
		});
	}

	private sourceLink(parent: HTMLElement, summary: string, place: SourcePlace): void {
		const link = parent.createEl("a", { cls: "memory-agent-source-link", text: summary, href: "#" });
		link.addEventListener("click", (event) => {
			event.preventDefault();
			void openSource(this.app, place);
		});
		parent.createSpan({ cls: "memory-agent-source-where", text: placeLabel(place) });
	}

	/** A memory citation opens its note; an insight's expands to show the memories it connects. */
	private async follow(citation: Citation, answerEl: HTMLElement): Promise<void> {
		if (citation.kind === "memory") {
			await openSource(this.app, citation);
			return;
		}
		const item = answerEl.querySelector<HTMLElement>(`.memory-agent-source[data-citation="${citationKey(citation.kind, citation.id)}"]`);
		if (item !== null) await this.toggleInsight(item, true);
	}

	private async toggleInsight(item: HTMLElement, open?: boolean): Promise<void> {
		const connected = item.querySelector<HTMLElement>(".memory-agent-connected");
		const key = item.getAttribute("data-citation") ?? "";
		if (connected === null) return;
		const show = open ?? !connected.isShown();
		const toggle = item.querySelector(".memory-agent-insight-toggle");
		if (!show) {
			connected.addClass("memory-agent-hidden");
			item.removeClass("is-open");
			toggle?.setAttribute("aria-expanded", "false");
			return;
		}
		if (connected.childElementCount === 0) {
			const ids = this.citationOf(key)?.memoryIds ?? [];
			const memories = await this.memories(ids);
			if (connected.childElementCount > 0) return;
			for (const id of ids) {
				const row = connected.createEl("li", { cls: "memory-agent-connected-memory" });
				const found = memories.get(id);
				if (found === undefined) row.createSpan({ cls: "memory-agent-source-where", text: "A memory that was forgotten since" });
				else this.sourceLink(row, found.summary, placeOf(found));
			}
		}
		connected.removeClass("memory-agent-hidden");
		item.addClass("is-open");
		toggle?.setAttribute("aria-expanded", "true");
	}

	private citationOf(key: string): Citation | undefined {
		const [kind, ...rest] = key.split(":");
		const id = rest.join(":");
		return this.sessionCitations.find((citation) => citation.kind === kind && citation.id === id);
	}

	/** The memories with these ids (only those still stored), asked for once each. */
	private async memories(ids: readonly string[]): Promise<Map<string, Memory>> {
		const missing = ids.filter((id) => !this.memoriesById.has(id));
		const store = this.deps.memory.store();
		if (missing.length > 0 && store !== undefined) {
			for (const found of await store.getMemories([...new Set(missing)])) this.memoriesById.set(found.id, found);
		}
		return this.memoriesById;
	}

	/** The latest answer of the conversation with its citations as `[[note#heading]]` links; null before any. */
	async lastAnswerAsMarkdown(): Promise<string | null> {
		const last = this.lastAnswer;
		return last === null ? null : await this.asMarkdown(last);
	}

	private async asMarkdown(answer: QueryAnswer): Promise<string> {
		const insightSources = answer.citations.filter((citation) => citation.kind === "consolidation").flatMap((citation) => citation.memoryIds);
		const memories = insightSources.length > 0 ? await this.memories(insightSources) : new Map<string, Memory>();
		const sourceOf = (id: string) => {
			const found = memories.get(id);
			return found === undefined ? undefined : placeOf(found);
		};
		return answerWithWikiLinks(answer, sourceOf, this.contentEl.ownerDocument);
	}

	private async copy(answer: QueryAnswer, button: HTMLElement): Promise<void> {
		const text = await this.asMarkdown(answer);
		try {
			await navigator.clipboard.writeText(text);
			button.setText("Copied");
			window.setTimeout(() => button.setText("Copy"), 1_500);
		} catch {
			new Notice("Could not copy to the clipboard.");
		}
	}

	private renderError(answerEl: HTMLElement, advice: ErrorAdvice, question: string): void {
		answerEl.addClass("is-error");
		const box = answerEl.createDiv({ cls: "memory-agent-error" });
		box.createDiv({ cls: "memory-agent-error-title", text: advice.title });
		if (advice.detail !== "" && advice.detail !== advice.title) box.createDiv({ cls: "memory-agent-error-detail", text: advice.detail });
		const actions = box.createDiv({ cls: "memory-agent-error-actions" });
		if (advice.next === "settings") {
			actions.createEl("button", { cls: "mod-cta memory-agent-open-settings", text: "Open settings" }).addEventListener("click", () => this.deps.openSettings());
		}
		if (advice.next === "retry" || advice.next === "settings") {
			actions.createEl("button", { cls: "memory-agent-ask-again", text: "Ask again" }).addEventListener("click", () => void this.ask(question));
		}
	}
}

/** The store is not open yet, or the connection is not set up: shown as advice, not as a failure. */
class NotReadyError extends Error {
	constructor(readonly advice: ErrorAdvice) {
		super(advice.title);
	}
}
