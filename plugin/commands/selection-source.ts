// Where a selection comes from: the heading above it, and the date of a daily note
// (no Obsidian imports: unit-testable).

/** A heading of the note and the (0-based) line it is on, as Obsidian's metadata cache lists them. */
export interface NoteHeading {
	heading: string;
	level: number;
	line: number;
}

const HEADING_LINE = /^(#{1,6})[ \t]+(.*?)(?:[ \t]+#+)?[ \t]*$/;
const FENCE = /^[ \t]*(```|~~~)/;

/** The headings of a note's lines, skipping fenced code (the fallback when the cache has none yet). */
export function scanHeadings(lineCount: number, lineAt: (line: number) => string): NoteHeading[] {
	const headings: NoteHeading[] = [];
	let inFence = false;
	for (let line = 0; line < lineCount; line++) {
		const text = lineAt(line);
		if (FENCE.test(text)) inFence = !inFence;
		if (inFence) continue;
		const match = HEADING_LINE.exec(text);
		if (match?.[1] !== undefined && match[2] !== undefined && match[2] !== "") {
			headings.push({ heading: match[2], level: match[1].length, line });
		}
	}
	return headings;
}

/**
 * The heading path above `line` (`Trip > Lisbon`, as the core names a note's sections), or null
 * when the line comes before any heading.
 */
export function headingAbove(headings: readonly NoteHeading[], line: number): string | null {
	const path: NoteHeading[] = [];
	for (const heading of headings) {
		if (heading.line > line) break;
		while (path.length > 0 && (path[path.length - 1]?.level ?? 0) >= heading.level) path.pop();
		path.push(heading);
	}
	return path.length === 0 ? null : path.map((heading) => heading.heading).join(" > ");
}

/** `YYYY-MM-DD` when the note's name is a real date (a daily note), else null. */
export function dailyNoteDate(basename: string): string | null {
	const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(basename);
	if (match === null) return null;
	const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
	const date = new Date(Date.UTC(year, month - 1, day));
	const real = date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
	return real ? basename : null;
}
