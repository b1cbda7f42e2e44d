// A conversation with the memory as a Markdown note, and back (no Obsidian imports): each
// question a heading with its time, each answer with its citations as [[note#heading]] links,
// and the cited memory ids in a comment so a reopened conversation carries them on. The
// questions and scope names are written escaped, as inert as the answers: Obsidian opening the
// note loads nothing a question held (`<img src=…>`).

import { escapeText, unescapeText } from "./inert-markdown";

/** One question and answer as the note keeps them. */
export interface SavedTurn {
	question: string;
	/** The answer's Markdown with citations as wiki links. */
	answer: string;
	/** Ids of the memories the answer cited. */
	cited: string[];
	/** When it was asked, in milliseconds. */
	askedAt: number;
	/** What the question was limited to, as the panel named it ("Lisbon", "#travel"); none when unscoped. */
	scope?: string[];
}

/** The property that marks a note as a saved conversation. */
export const CONVERSATION_PROPERTY = "memory-agent";
const CONVERSATION_VALUE = "conversation";
const CITED = /^<!-- memory-agent cited: (.*) -->$/;

function pad(value: number): string {
	return String(value).padStart(2, "0");
}

/** `2026-12-01 15:20` in local time. */
export function localMinute(at: number): string {
	const date = new Date(at);
	return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())} ${pad(date.getHours())}:${pad(date.getMinutes())}`;
}

/** A file name for a conversation started at `at`: `Conversation 2026-12-01 1520.md`. */
export function conversationFileName(at: number): string {
	return `Conversation ${localMinute(at).replace(":", "")}.md`;
}

/** The note of a conversation; headings that the questions could break are kept on one line. */
export function conversationToMarkdown(turns: readonly SavedTurn[], startedAt: number): string {
	const lines = ["---", `${CONVERSATION_PROPERTY}: ${CONVERSATION_VALUE}`, `date: ${localMinute(startedAt).slice(0, 10)}`, "---", "", `# Conversation of ${localMinute(startedAt)}`, ""];
	for (const turn of turns) {
		const about = turn.scope !== undefined && turn.scope.length > 0 ? ` · about ${turn.scope.map((name) => escapeText(name.replace(/\s+/g, " "))).join(", ")}` : "";
		lines.push(`## ${escapeText(turn.question.replace(/\s+/g, " ").trim())}`, "", `*${localMinute(turn.askedAt)}${about}*`, "", turn.answer.trim(), "");
		lines.push(`<!-- memory-agent cited: ${JSON.stringify(turn.cited)} -->`, "");
	}
	return lines.join("\n");
}

/** The turns of a saved conversation, or null when the text is not one. */
export function parseConversation(text: string): SavedTurn[] | null {
	const marker = new RegExp(`^---\\n(?:.*\\n)*?${CONVERSATION_PROPERTY}: ${CONVERSATION_VALUE}\\n(?:.*\\n)*?---\\n`);
	if (!marker.test(text)) return null;
	const turns: SavedTurn[] = [];
	let current: { question: string; lines: string[]; cited: string[]; askedAt: number; scope?: string[] } | null = null;
	const finish = () => {
		if (current === null) return;
		const answer = current.lines.join("\n").trim();
		const turn: SavedTurn = { question: current.question, answer, cited: current.cited, askedAt: current.askedAt };
		if (current.scope !== undefined) turn.scope = current.scope;
		turns.push(turn);
	};
	for (const line of text.split("\n")) {
		const heading = /^## (.+)$/.exec(line);
		if (heading !== null) {
			finish();
			current = { question: unescapeText(heading[1]!.trim()), lines: [], cited: [], askedAt: 0 };
			continue;
		}
		if (current === null) continue;
		const cited = CITED.exec(line.trim());
		if (cited !== null) {
			current.cited = parseIds(cited[1]!);
			continue;
		}
		const time = /^\*(\d{4}-\d{2}-\d{2} \d{2}:\d{2})(?: · about (.+))?\*$/.exec(line.trim());
		if (time !== null && current.askedAt === 0 && current.lines.every((kept) => kept.trim() === "")) {
			current.askedAt = new Date(time[1]!.replace(" ", "T")).getTime();
			if (time[2] !== undefined) current.scope = time[2].split(", ").map(unescapeText);
			continue;
		}
		current.lines.push(line);
	}
	finish();
	return turns;
}

function parseIds(json: string): string[] {
	try {
		const value: unknown = JSON.parse(json);
		return Array.isArray(value) ? value.filter((id): id is string => typeof id === "string") : [];
	} catch {
		return [];
	}
}
